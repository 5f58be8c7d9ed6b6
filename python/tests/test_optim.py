"""Runtime optimizers with fp32 masters, against numpy references."""

import numpy as np
import pytest

import amp_mlir
from amp_mlir.optim import SGD, Adam, AdamW


def test_sgd_momentum_matches_reference():
    rng = np.random.default_rng(2)
    w = rng.standard_normal(10).astype(np.float32)
    ref, velocity = w.astype(np.float64), np.zeros(10)
    opt = SGD([w], lr=0.1, momentum=0.9, weight_decay=0.01)
    for t in range(5):
        g = rng.standard_normal(10).astype(np.float32)
        opt.step([g])
        d = g + 0.01 * ref
        velocity = d if t == 0 else 0.9 * velocity + d
        ref = ref - 0.1 * velocity
    np.testing.assert_allclose(w, ref, rtol=1e-5, atol=1e-6)
    assert opt.step_count == 5


@pytest.mark.parametrize("decoupled", [False, True])
def test_adam_with_f16_copy(decoupled):
    rng = np.random.default_rng(3)
    w = rng.standard_normal(16).astype(np.float32)
    half = w.astype(np.float16)
    cls = AdamW if decoupled else Adam
    opt = cls([w], lr=0.01, weight_decay=0.1, lowp=[half])
    ref, m, v = w.astype(np.float64), np.zeros(16), np.zeros(16)
    for t in range(1, 4):
        g16 = rng.standard_normal(16).astype(np.float16)
        assert opt.step([g16]) is True
        g = g16.astype(np.float64)
        if decoupled:
            ref = ref * (1 - 0.01 * 0.1)
        else:
            g = g + 0.1 * ref
        m = 0.9 * m + 0.1 * g
        v = 0.999 * v + 0.001 * g * g
        mhat, vhat = m / (1 - 0.9**t), v / (1 - 0.999**t)
        ref = ref - 0.01 * mhat / (np.sqrt(vhat) + 1e-8)
    np.testing.assert_allclose(w, ref, rtol=1e-4, atol=1e-5)
    # The f16 copy is the master rounded to nearest even, written in the
    # same pass.
    np.testing.assert_array_equal(half, w.astype(np.float16))


def test_skipped_step_writes_nothing_and_checkpoint():
    w = np.ones(4, np.float32)
    opt = AdamW([w], lr=0.1)
    assert opt.step([np.ones(4, np.float32)], found_inf=True) is False
    np.testing.assert_array_equal(w, 1.0)
    assert opt.step_count == 0
    opt.step([np.ones(4, np.float32)])
    saved_w, state = w.copy(), opt.state_dict()
    opt.step([np.full(4, 2.0, np.float32)])
    continued = w.copy()
    # Restore and replay: bit-identical.
    w[...] = saved_w
    other = AdamW([w], lr=0.5)
    other.load_state_dict(state)
    assert other.lr == pytest.approx(0.1) and other.step_count == 1
    other.step([np.full(4, 2.0, np.float32)])
    np.testing.assert_array_equal(w, continued)


def test_bad_arguments():
    w = np.ones(3, np.float32)
    with pytest.raises(TypeError, match="masters are float32"):
        SGD([np.ones(3)], lr=0.1)
    with pytest.raises(ValueError, match="invalid optimizer configuration"):
        SGD([w], lr=-1.0)
    opt = SGD([w], lr=0.1)
    with pytest.raises(ValueError, match="shape"):
        opt.step([np.ones(4, np.float32)])
    with pytest.raises(ValueError, match="no gradients"):
        opt.step()
    with pytest.raises(ValueError, match="invalid learning rate"):
        opt.lr = float("nan")
    opt.lr = 0.5
    assert opt.lr == 0.5


def test_scaler_with_bf16_gradients():
    w = np.zeros(2, np.float32)
    lowp = amp_mlir.to_bfloat16(w)
    opt = SGD([w], lr=1.0, lowp=[lowp])
    scaler = amp_mlir.GradScaler(init_scale=256.0)
    opt.grads = [amp_mlir.to_bfloat16([256.0, -512.0])]
    scaler.step(opt)
    scaler.update()
    np.testing.assert_array_equal(w, [-1.0, 2.0])
    np.testing.assert_array_equal(amp_mlir.from_bfloat16(lowp), [-1.0, 2.0])
