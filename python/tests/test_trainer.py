"""amp_mlir.Trainer and make_training_step on a hand-written
forward-backward function (test/amp-run/Inputs/forward-backward.mlir): no
torch needed."""

import numpy as np
import pytest

import amp_mlir


@pytest.fixture(scope="module")
def forward_backward(repo):
    return (repo / "test" / "amp-run" / "Inputs" /
            "forward-backward.mlir").read_text()


@pytest.fixture
def problem(rng):
    w = rng.standard_normal((4, 3)).astype(np.float32)
    x = rng.standard_normal((8, 4)).astype(np.float32)
    t = (x @ rng.standard_normal((4, 3))).astype(np.float32)
    return {"fc.weight": w}, x, t


def adamw_reference(w, x, t, steps, lr=1e-2, wd=0.01, b1=0.9, b2=0.999,
                    eps=1e-8):
    """PyTorch's AdamW on the same problem, in float64."""
    w = w.astype(np.float64)
    m = np.zeros_like(w)
    v = np.zeros_like(w)
    losses = []
    for k in range(1, steps + 1):
        d = x @ w - t
        losses.append(float((d * d).sum()))
        g = x.T @ (2 * d)
        w = w * (1 - lr * wd)
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        w = w - lr / (1 - b1 ** k) * m / (np.sqrt(v) / np.sqrt(1 - b2 ** k)
                                           + eps)
    return w, losses


def test_o0_matches_adamw(forward_backward, problem):
    params, x, t = problem
    trainer = amp_mlir.Trainer(forward_backward, params, level="O0")
    losses = [trainer.step(x, t)[0] for _ in range(30)]
    w, reference = adamw_reference(params["fc.weight"], x, t, 30)
    np.testing.assert_allclose(losses, reference, rtol=1e-4)
    np.testing.assert_allclose(trainer.params["fc.weight"], w, rtol=1e-4,
                               atol=1e-5)
    # O0 uses a scale of 1 and no dynamic scaling.
    assert trainer.scale == 1.0 and trainer.skipped == 0
    assert int(trainer.state["optimizer_state:step"]) == 30


def test_o2_trains_and_skips_overflows(forward_backward, problem):
    params, x, t = problem
    trainer = amp_mlir.Trainer(forward_backward, params, level="O2")
    assert trainer.scale == 65536.0
    first, skipped = trainer.step(x, t)
    # 2 (x w - t) * 65536 overflows f16: the step is skipped, nothing moves.
    assert skipped and trainer.scale == 32768.0
    np.testing.assert_array_equal(trainer.params["fc.weight"],
                                  params["fc.weight"])
    assert int(trainer.state["optimizer_state:step"]) == 0
    for _ in range(100):
        loss, _ = trainer.step(x, t)
    assert loss < 0.5 * first
    assert trainer.skipped >= 1 and trainer.steps == 101


@pytest.mark.parametrize("kind", ["adamw", "momentum"])
def test_gpu_sim_matches_cpu_and_skips_overflows(forward_backward, problem,
                                                 kind):
    """The step on the GPU pipeline, in the simulator: its optimizer is one
    library call (ampGpuOptimizerUpdateBuffers, one launch) that reads the
    step count and the overflow flag on the device; the first step
    overflows f16 and is skipped (nothing moves, the step count stays 0),
    and 30 steps then match the CPU pipeline's."""
    params, x, t = problem
    module = forward_backward
    if kind == "momentum":
        module = module.replace(
            'kind = "adamw", lr = 1.0e-2 : f64, weight_decay = 0.01 : f64',
            'kind = "momentum", lr = 1.0e-2 : f64, momentum = 0.9 : f64, '
            'weight_decay = 0.01 : f64')
        assert module != forward_backward
    cpu = amp_mlir.Trainer(module, params, level="O2")
    sim = amp_mlir.Trainer(module, params, level="O2", target="gpu-sim")
    sim.module.reset_simulator()
    first, skipped = sim.step(x, t)
    counted = sim.module.simulator_stats()
    records = sim.module.estimate()["records"]
    assert skipped and sim.scale == 32768.0
    np.testing.assert_array_equal(sim.params["fc.weight"], params["fc.weight"])
    assert int(sim.state["optimizer_state:step"]) == 0
    # The step's library calls: the two matmuls' GEMMs, the unscale and the
    # optimizer, whose one launch is the runtime's table kernel.
    assert counted["libraryCalls"] == 4, counted
    optimizer = [r for r in records if "amp_opt_update_buffers" in r["name"]]
    assert [r["calls"] for r in optimizer] == [1], records
    assert cpu.step(x, t) == (first, True)
    for _ in range(30):
        assert sim.step(x, t)[1] == cpu.step(x, t)[1]
    # Not bit for bit: the GPU pipeline's cuBLAS calls write the f16 matmul
    # results that the CPU pipeline's loops keep in f32 until they store
    # (one rounding more, docs/lowering.md); 30 steps of AdamW carry that
    # into the moments at about 5e-5.
    for key, value in cpu.state.items():
        np.testing.assert_allclose(sim.state[key], value, rtol=1e-3,
                                   atol=1e-6, err_msg=key)
    assert sim.skipped == cpu.skipped >= 1
    assert int(sim.state["optimizer_state:step"]) == 31 - sim.skipped


def test_gpu_sim_keeps_the_state_on_the_device(forward_backward, problem,
                                              tmp_path):
    """target='gpu-sim' (as 'gpu'): the parameters, the optimizer's and the
    loss scaler's state stay on the device between steps. After the first
    step, which uploads them, a step moves only the batch to the device and
    the loss and the skip flag back (it moved all the state both ways), and
    it computes bit for bit what steps that copy everything compute. The
    state_dict and a resumed run see the device's values."""
    params, x, t = problem
    sim = amp_mlir.Trainer(forward_backward, params, level="O2",
                           target="gpu-sim")
    copying = amp_mlir.Trainer(forward_backward, params, level="O2",
                               target="gpu-sim")
    copying._keep = None  # the host round trip of every state value
    sim.step(x, t)
    sim.module.reset_simulator()
    for _ in range(3):
        sim.step(x, t)
    moved = sim.module.simulator_stats()["hostBytes"]
    batch = x.nbytes + t.nbytes
    assert moved == 3 * (batch + 4 + 1)  # + the f32 loss, the i1 flag
    copying.step(x, t)
    copying.module.reset_simulator()
    copying.step(x, t)
    state = sum(value.nbytes for value in copying.state.values())
    assert copying.module.simulator_stats()["hostBytes"] == \
        batch + 5 + 2 * state
    for _ in range(2):
        copying.step(x, t)
    for _ in range(20):
        assert sim.step(x, t) == copying.step(x, t)
    a, b = sim.state_dict(), copying.state_dict()
    assert sorted(a) == sorted(b) and sim.skipped >= 1
    for key in a:
        np.testing.assert_array_equal(a[key], b[key], err_msg=key)
    assert sim.scale == copying.scale
    # Saved from the device, loaded onto the host: the next step uploads.
    sim.save(tmp_path / "state.npz")
    resumed = amp_mlir.Trainer(forward_backward, params, level="O2",
                               target="gpu-sim")
    resumed.load(tmp_path / "state.npz")
    assert resumed.step(x, t) == sim.step(x, t)
    np.testing.assert_array_equal(resumed.params["fc.weight"],
                                  sim.params["fc.weight"])


def test_gpu_sim_step_as_a_cuda_graph(forward_backward, problem, tmp_path):
    """cuda_graph=True: the first step captures the step as a CUDA graph
    (after one call on copies of the state), and each step is then one
    graph launch: no kernel launch or library call outside it, no host
    wait inside it (the loss's read is the step's one wait), the batch up
    and the loss and skip flag down the only host traffic. It computes
    bit for bit what the step without a graph computes, through a skipped
    step, and its state saves and resumes (the resumed trainer captures
    again)."""
    params, x, t = problem
    graphed = amp_mlir.Trainer(forward_backward, params, level="O2",
                               target="gpu-sim", cuda_graph=True)
    plain = amp_mlir.Trainer(forward_backward, params, level="O2",
                             target="gpu-sim")
    assert graphed.step(x, t) == plain.step(x, t)
    assert graphed.skipped == 1  # the first step overflows f16
    graphed.module.reset_simulator()
    for _ in range(3):
        graphed.step(x, t)
    stats = graphed.module.simulator_stats()
    assert stats["graphLaunches"] == 3, stats
    # The step's four library calls, each inside the graph.
    assert stats["libraryCalls"] == 3 * 4, stats
    assert stats["synchronizations"] == 3 * 2, stats  # the loss, the flag
    assert stats["hostBytes"] == 3 * (x.nbytes + t.nbytes + 4 + 1)
    assert stats["allocations"] == 0, stats  # the graph's memory is its own
    for _ in range(3):
        plain.step(x, t)
    for _ in range(20):
        assert graphed.step(x, t) == plain.step(x, t)
    a, b = graphed.state_dict(), plain.state_dict()
    assert sorted(a) == sorted(b)
    for key in a:
        np.testing.assert_array_equal(a[key], b[key], err_msg=key)
    graphed.save(tmp_path / "state.npz")
    resumed = amp_mlir.Trainer(forward_backward, params, level="O2",
                               target="gpu-sim", cuda_graph=True)
    resumed.load(tmp_path / "state.npz")
    graphed.load(tmp_path / "state.npz")
    for _ in range(3):
        assert resumed.step(x, t) == plain.step(x, t) == graphed.step(x, t)
    np.testing.assert_array_equal(resumed.params["fc.weight"],
                                  plain.params["fc.weight"])


def test_cuda_graph_needs_a_gpu_target(forward_backward, problem):
    params, _, _ = problem
    with pytest.raises(ValueError, match="cuda_graph=True needs target"):
        amp_mlir.Trainer(forward_backward, params, cuda_graph=True)
    with pytest.raises(ValueError, match="cannot be data-parallel"):
        amp_mlir.Trainer(forward_backward, params, target="gpu-sim",
                         cuda_graph=True, data_parallel=True)


_ACCUMULATE = """
func.func @accumulate(%x: tensor<4xf32>, %s: tensor<4xf32>, %n: tensor<i32>)
    -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = tosa.add %s, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = tosa.add %0, %0 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}"""


def test_capture_refuses_what_it_cannot_replay():
    """CompiledFunction.capture and CapturedCall.replay: a CPU function, a
    feedback entry of the wrong length, naming no argument or an argument
    of another type, and a replay argument of another shape are errors
    that say so."""
    x = np.ones(4, np.float32)
    n = np.array(0, np.int32)
    cpu = amp_mlir.compile(_ACCUMULATE, level="O0").accumulate
    with pytest.raises(amp_mlir.AmpError, match="it runs on the CPU"):
        cpu.capture(x, x, n)
    sim = amp_mlir.compile(_ACCUMULATE, level="O0",
                           target="gpu-sim").accumulate
    with pytest.raises(ValueError, match="feedback has 1 entries"):
        sim.capture(x, x, n, feedback=[1])
    with pytest.raises(amp_mlir.AmpError,
                       match="result #0 feeds argument #3, which does not "
                             "exist"):
        sim.capture(x, x, n, feedback=[3, -1])
    with pytest.raises(amp_mlir.AmpError,
                       match=r"result #1 \(tensor<4xf32>\) cannot feed "
                             r"argument #2 \(tensor<i32>\)"):
        sim.capture(x, x, n, feedback=[-1, 2])
    with pytest.raises(amp_mlir.AmpError, match="argument #1 is fed by two"):
        sim.capture(x, x, n, feedback=[1, 1])
    graph = sim.capture(x, x, n, feedback=[1, -1])
    graph.replay(None, None, None)
    np.testing.assert_array_equal(graph.result(1).numpy(), np.full(4, 4.0))
    # A dynamic size is the captured one.
    twice = amp_mlir.compile("""
func.func @twice(%x: tensor<?xf32>) -> tensor<?xf32> {
  %0 = tosa.add %x, %x : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}""", level="O0", target="gpu-sim").twice
    graph = twice.capture(np.ones(4, np.float32))
    graph.replay(np.arange(4, dtype=np.float32))
    np.testing.assert_array_equal(graph.result(0).numpy(), [0, 2, 4, 6])
    with pytest.raises(amp_mlir.AmpError,
                       match=r"is tensor<4xf32>, got tensor<5xf32> \(a CUDA "
                             r"graph replays the captured shapes\)"):
        graph.replay(np.ones(5, np.float32))


def test_state_dict_resumes_bit_for_bit(forward_backward, problem, tmp_path):
    params, x, t = problem
    straight = amp_mlir.Trainer(forward_backward, params, level="O2")
    for _ in range(20):
        straight.step(x, t)
    first = amp_mlir.Trainer(forward_backward, params, level="O2")
    for _ in range(8):
        first.step(x, t)
    first.save(tmp_path / "state.npz")
    resumed = amp_mlir.Trainer(forward_backward, params, level="O2")
    resumed.load(tmp_path / "state.npz")
    assert resumed.steps == 8
    for _ in range(12):
        resumed.step(x, t)
    a, b = straight.state_dict(), resumed.state_dict()
    assert sorted(a) == sorted(b)
    for key in a:
        np.testing.assert_array_equal(a[key], b[key], err_msg=key)


def test_fp8_delayed_scaling(forward_backward, problem):
    """dtype='fp8': each contraction operand's amax history and scale are
    state; the scale of a step comes from the amaxes of earlier steps
    (TransformerEngine's delayed scaling), exactly as the recipe says."""
    params, x, t = problem
    trainer = amp_mlir.Trainer(forward_backward, params, level="O2",
                               dtype="fp8",
                               amp_options="fp8-amax-history-len=3")
    fp8 = sorted(key for key in trainer.state if key.startswith("fp8:"))
    # x w (forward) and x^T dy (the weight gradient): two operands each.
    assert fp8 == sorted(f"fp8:{kind}:c{c}.{side}"
                         for kind in ("amax_history", "scale")
                         for c in (0, 1) for side in ("lhs", "rhs"))
    history = "fp8:amax_history:c0.lhs"
    assert trainer.state[history].shape == (3,)
    assert not trainer.state[history].any()
    assert float(trainer.state["fp8:scale:c0.lhs"]) == 1.0
    amax = np.float32(np.abs(x).max())
    trainer.step(x, t)
    # The history took this step's amax of x; the new scale is
    # E4M3's 448 / amax, computed in f32.
    np.testing.assert_array_equal(trainer.state[history], [amax, 0, 0])
    assert trainer.state["fp8:scale:c0.lhs"] == np.float32(448) / amax
    # The weight gradient's second operand comes from the backward seed:
    # E5M2, whose largest value is 57344.
    dy_amax = trainer.state["fp8:amax_history:c1.rhs"][0]
    assert trainer.state["fp8:scale:c1.rhs"] == np.float32(57344) / dy_amax
    losses = [trainer.step(x, t)[0] for _ in range(60)]
    np.testing.assert_array_equal(trainer.state[history], [amax] * 3)
    bf16 = amp_mlir.Trainer(forward_backward, params, level="O2",
                            dtype="bf16")
    reference = [bf16.step(x, t)[0] for _ in range(61)]
    assert losses[-1] < 0.5 * losses[0]
    assert abs(losses[-1] - reference[-1]) <= 0.05 * reference[-1]


def test_make_training_step_signature(forward_backward):
    text = amp_mlir.make_training_step(forward_backward, scaler="deepspeed")
    assert "@forward_backward_init" in text
    assert "{amp.found_inf}" in text and "amp.loss_seed" not in text
    assert "hysteresis = 2" in text  # the deepspeed preset


def test_make_training_step_is_in_process(forward_backward, monkeypatch):
    # The training stage runs through the C API: no amp-opt subprocess.
    import subprocess

    def no_subprocess(*args, **kwargs):
        raise AssertionError(f"make_training_step ran a subprocess: "
                             f"{args[0]}")

    monkeypatch.setattr(subprocess, "run", no_subprocess)
    text = amp_mlir.make_training_step(forward_backward, scaler="deepspeed",
                                       data_parallel=True)
    assert "{amp.found_inf}" in text and "amp.all_reduce" in text
    with pytest.raises(amp_mlir.AmpError, match="unknown loss-scaler preset"):
        amp_mlir.make_training_step(forward_backward, scaler="nope")


def test_errors(forward_backward, problem):
    params, x, t = problem
    with pytest.raises(ValueError, match="no forward-backward function"):
        amp_mlir.make_training_step("func.func @f() { return }")
    with pytest.raises(amp_mlir.AmpError, match="unknown loss-scaler preset"):
        amp_mlir.make_training_step(forward_backward, scaler="nope")
    with pytest.raises(ValueError, match=r"missing \['fc.weight'\], "
                                         r"unknown \['w'\]"):
        amp_mlir.Trainer(forward_backward, {"w": params["fc.weight"]})
    with pytest.raises(TypeError, match="dtype float64"):
        amp_mlir.Trainer(forward_backward,
                         {"fc.weight": params["fc.weight"].astype(float)})
    trainer = amp_mlir.Trainer(forward_backward, params, level="O0")
    with pytest.raises(TypeError, match="takes 2 batch tensors, got 1"):
        trainer.step(x)
    with pytest.raises(ValueError, match="does not belong"):
        trainer.load_state_dict({"param:fc.weight": params["fc.weight"]})
    # Compiling the forward-backward function itself under an AMP level.
    module = amp_mlir.compile(forward_backward, level="O2")
    with pytest.raises(amp_mlir.AmpError, match="is a forward-backward "
                                                "function"):
        module["forward_backward"]


def test_buffers_are_state(repo, rng, tmp_path):
    # amp.buffer: the Trainer passes each buffer in and keeps its new value
    # (a running mean of the input and a step count), saves it with the
    # rest of the state, and checks the initial values it is given.
    module = (repo / "test" / "amp-run" / "Inputs" /
              "forward-backward-buffers.mlir").read_text()
    w = rng.standard_normal(4).astype(np.float32)
    buffers = {"bn.running_mean": np.zeros(4, np.float32),
               "bn.num_batches_tracked": np.array(0, np.int64)}
    trainer = amp_mlir.Trainer(module, {"w": w}, level="O2", buffers=buffers)
    mean = np.zeros(4, np.float64)
    for _ in range(3):
        x = rng.standard_normal(4).astype(np.float32)
        trainer.step(x)
        mean = 0.9 * mean + 0.1 * x
    np.testing.assert_allclose(trainer.buffers["bn.running_mean"], mean,
                               rtol=1e-6, atol=1e-7)
    assert trainer.buffers["bn.num_batches_tracked"].dtype == np.int64
    assert int(trainer.buffers["bn.num_batches_tracked"]) == 3
    # The caller's arrays are not the state.
    assert not buffers["bn.running_mean"].any()
    trainer.save(tmp_path / "state.npz")
    resumed = amp_mlir.Trainer(module, {"w": w}, level="O2", buffers=buffers)
    resumed.load(tmp_path / "state.npz")
    assert int(resumed.buffers["bn.num_batches_tracked"]) == 3
    with pytest.raises(ValueError, match=r"buffers must name every "
                       r"amp.buffer of @forward_backward: missing "
                       r"\['bn.num_batches_tracked'\], unknown \[\]"):
        amp_mlir.Trainer(module, {"w": w},
                         buffers={"bn.running_mean": buffers[
                             "bn.running_mean"]})
    with pytest.raises(TypeError, match=r"buffer 'bn.num_batches_tracked' "
                       r"is int32\[\]; the step takes int64\[\]"):
        amp_mlir.Trainer(module, {"w": w}, buffers={
            **buffers, "bn.num_batches_tracked": np.array(0, np.int32)})
