"""GradScaler over the runtime's scaler: PyTorch and Paddle names, exact
unscaling, skipped steps, growth and back-off, checkpoints."""

import numpy as np
import pytest

import amp_mlir
from amp_mlir.optim import SGD


def test_defaults_and_aliases():
    assert amp_mlir.GradScaler().get_scale() == 65536.0
    paddle = amp_mlir.GradScaler(init_loss_scaling=1024.0, incr_ratio=4.0,
                                 decr_ratio=0.25, incr_every_n_steps=3,
                                 decr_every_n_nan_or_inf=2,
                                 use_dynamic_loss_scaling=True)
    config = paddle.config
    assert (config["init_scale"], config["growth_factor"],
            config["backoff_factor"], config["growth_interval"],
            config["backoff_interval"]) == (1024.0, 4.0, 0.25, 3, 2)
    torch = amp_mlir.GradScaler(init_scale=8.0, growth_factor=3.0,
                                backoff_factor=0.5, growth_interval=7)
    assert torch.get_scale() == 8.0 and torch.config["growth_interval"] == 7
    assert amp_mlir.GradScaler("bf16").get_scale() == 1.0
    assert amp_mlir.GradScaler("deepspeed").config["hysteresis"] == 2
    with pytest.raises(ValueError, match="set the same thing"):
        amp_mlir.GradScaler(init_scale=2.0, init_loss_scaling=4.0)
    with pytest.raises(TypeError, match="unexpected argument 'init'"):
        amp_mlir.GradScaler(init=2.0)
    with pytest.raises(ValueError, match="growth_factor"):
        amp_mlir.GradScaler(growth_factor=0.5)
    with pytest.raises(ValueError, match="unknown preset"):
        amp_mlir.GradScaler("tf")


def test_scale_and_exact_unscale():
    scaler = amp_mlir.GradScaler(init_scale=1024.0)
    assert scaler.scale(0.5) == 512.0
    loss = np.array([0.25, 3.0], np.float16)
    scaled = scaler.scale(loss)
    assert scaled.dtype == np.float16
    np.testing.assert_array_equal(scaled, [256.0, 3072.0])
    f32 = np.array([1024.0, -2048.0, 3.0], np.float32)
    f16 = np.array([512.0, 1.0], np.float16)
    bf16 = amp_mlir.to_bfloat16([4096.0, -1024.0])
    assert scaler.unscale_([f32, f16, bf16]) is False
    np.testing.assert_array_equal(f32, [1.0, -2.0, 3.0 / 1024])
    np.testing.assert_array_equal(f16, np.array([0.5, 2**-10], np.float16))
    np.testing.assert_array_equal(amp_mlir.from_bfloat16(bf16), [4.0, -1.0])
    with pytest.raises(RuntimeError, match="already been called"):
        scaler.unscale_([f32, f16, bf16])


def test_bad_gradients_are_errors():
    scaler = amp_mlir.GradScaler()
    with pytest.raises(TypeError, match="float64"):
        scaler.unscale_([np.zeros(3)])
    with pytest.raises(ValueError, match="C-contiguous"):
        scaler.unscale_([np.zeros((4, 4), np.float32)[:, 1]])
    read_only = np.zeros(3, np.float32)
    read_only.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        scaler.unscale_([read_only])
    with pytest.raises(RuntimeError, match="no gradients were unscaled"):
        scaler.update()


def test_skip_backoff_and_growth():
    scaler = amp_mlir.GradScaler(init_scale=16.0, growth_interval=2)
    w = np.ones(2, np.float32)
    opt = SGD([w], lr=1.0)
    # An overflowing step is skipped and halves the scale.
    opt.grads = [np.array([np.inf, 1.0], np.float32)]
    assert scaler.step(opt) is None and scaler.found_inf
    scaler.update()
    np.testing.assert_array_equal(w, [1.0, 1.0])
    assert scaler.get_scale() == 8.0 and opt.step_count == 0
    # Two clean steps grow it back; each applies the unscaled gradient.
    for _ in range(2):
        opt.grads = [np.array([8.0, 4.0], np.float32)]
        assert scaler.step(opt) is True and scaler.found_inf is False
        scaler.update()
    np.testing.assert_array_equal(w, [-1.0, 0.0])
    assert scaler.get_scale() == 16.0
    stats = scaler.stats
    assert (stats["steps"], stats["skipped_steps"]) == (3, 1)
    # Paddle's minimize = step + update.
    opt.grads = [np.array([np.nan, 0.0], np.float32)]
    scaler.minimize(opt, None)
    assert scaler.get_scale() == 8.0


def test_state_dict_round_trip():
    a = amp_mlir.GradScaler(init_scale=4.0, growth_interval=3)
    for found in (False, False, True, False):
        a.unscale_([np.array([np.inf if found else 1.0], np.float32)])
        a.update()
    state = a.state_dict()
    assert state["scale"] == a.get_scale() and state["_growth_tracker"] == 1
    b = amp_mlir.GradScaler()
    b.load_state_dict(state)
    assert b.stats == a.stats and b.config == a.config
    for scaler in (a, b):
        for _ in range(2):
            scaler.unscale_([np.ones(1, np.float32)])
            scaler.update()
    assert a.get_scale() == b.get_scale() == 4.0
    with pytest.raises(ValueError, match="cannot load"):
        b.load_state_dict({"state": state["state"][:-3]})
    # A PyTorch-style dict without the blob sets scale and configuration.
    c = amp_mlir.GradScaler()
    c.load_state_dict({"scale": 128.0, "growth_interval": 5})
    assert c.get_scale() == 128.0 and c.config["growth_interval"] == 5


def _clean_step(scaler):
    scaler.unscale_([np.ones(1, np.float32)])
    scaler.update()


def _growth_steps(scaler, steps):
    """The steps (1-based, counted from now) after which the scale grew."""
    grown = []
    for step in range(1, steps + 1):
        before = scaler.get_scale()
        _clean_step(scaler)
        if scaler.get_scale() > before:
            grown.append(step)
    return grown


@pytest.mark.parametrize("good_steps", [0, 1, 4, 6])
def test_pytorch_state_dict_keeps_growth_tracker(good_steps):
    # PyTorch's GradScaler.state_dict() has these keys and no blob.
    a = amp_mlir.GradScaler(init_scale=2.0**10, growth_interval=7)
    for _ in range(good_steps):
        _clean_step(a)
    state = {key: value for key, value in a.state_dict().items()
             if key in ("scale", "growth_factor", "backoff_factor",
                        "growth_interval", "_growth_tracker")}
    assert state["_growth_tracker"] == good_steps
    b = amp_mlir.GradScaler(growth_interval=100)
    b.load_state_dict(state)
    assert b.stats["good_steps"] == good_steps
    assert b.get_scale() == a.get_scale() == 2.0**10
    # The next growth comes at the same step in both, and every one after.
    grown = _growth_steps(a, 16)
    assert grown == [step for step in range(1, 17)
                     if (good_steps + step) % 7 == 0]
    assert _growth_steps(b, 16) == grown
    assert b.get_scale() == a.get_scale()
    # The dict saved by the new scaler round-trips again.
    assert {k: v for k, v in b.state_dict().items() if k in state} == \
        {k: v for k, v in a.state_dict().items() if k in state}


def test_pytorch_state_dict_bad_growth_tracker():
    scaler = amp_mlir.GradScaler(init_scale=8.0)
    for value, message in ((5, r"_growth_tracker 5 is outside \[0, "
                                r"growth_interval 5\)"),
                           (-1, "outside"),
                           (1.5, "must be an integer"),
                           ("2", "must be an integer")):
        with pytest.raises(ValueError, match=message):
            scaler.load_state_dict({"scale": 64.0, "growth_interval": 5,
                                    "_growth_tracker": value})
        # Nothing of the rejected dict was applied.
        assert scaler.get_scale() == 8.0
        assert scaler.config["growth_interval"] == 2000


def test_disabled_scaler_passes_through():
    scaler = amp_mlir.GradScaler(enabled=False)
    assert scaler.scale(3.0) == 3.0 and scaler.get_scale() == 1.0
    w = np.ones(1, np.float32)
    opt = SGD([w], lr=1.0)
    opt.grads = [np.array([np.inf], np.float32)]
    scaler.step(opt)
    scaler.update()
    assert np.isinf(w[0])
    assert amp_mlir.GradScaler(enable=False).is_enabled() is False


def test_new_scale():
    scaler = amp_mlir.GradScaler()
    scaler.update(new_scale=32.0)
    assert scaler.get_scale() == 32.0
    with pytest.raises(ValueError, match="positive finite"):
        scaler.update(new_scale=-1.0)
