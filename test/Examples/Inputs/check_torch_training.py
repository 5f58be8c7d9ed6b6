"""Checks examples/torch_training/train.py (test/Examples/torch-training.test):
the final loss of O1, O2 and bf16 against fp32 after the same steps, an
injected Inf, and a resumed run. Runs train.py's main() in this process
(torch is imported once) and prints one line per check; exits 1 if any
fails."""

import contextlib
import warnings
import importlib.util
import io
import json
import re
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[3]
spec = importlib.util.spec_from_file_location(
    "train", ROOT / "examples" / "torch_training" / "train.py")
train = importlib.util.module_from_spec(spec)
spec.loader.exec_module(train)

failures = 0
# The GPU pipeline's remarks (asserts dropped from kernels) are expected.
warnings.simplefilter("ignore")


def check(ok, message):
    global failures
    print(("PASS " if ok else "FAIL ") + message, flush=True)
    failures += not ok


def run(*argv):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = train.main(list(argv))
    last = out.getvalue().strip().splitlines()[-1]
    match = re.fullmatch(r"final_loss=(\S+) skipped=(\d+)", last)
    assert status == 0 and match, f"train.py {argv}: {out.getvalue()!r}"
    return float(match.group(1)), int(match.group(2))


def check_resume(level, tmp):
    """40 steps at `level`, saved, resumed to 70: bit for bit the 70-step
    run (parameters, optimizer, scaler and, at fp8, the FP8 state)."""
    straight, half, resumed = (Path(tmp) / f"{level}-{n}.npz"
                               for n in ("straight", "half", "resumed"))
    common = ("--level", level, "--dataset", "digits")
    a = run(*common, "--steps", "70", "--save", str(straight))
    run(*common, "--steps", "40", "--save", str(half))
    b = run(*common, "--steps", "70", "--resume", str(half), "--save",
            str(resumed))
    x, y = np.load(straight), np.load(resumed)
    same = sorted(x.files) == sorted(y.files) and all(
        np.array_equal(x[k], y[k]) for k in x.files)
    prefix = "" if level == "O2" else f"{level} "
    check(a == b and same, f"{prefix}resume after 40 of 70 steps: final_loss "
          f"{a[0]!r} == {b[0]!r}, {len(x.files)} state arrays identical")


steps = "100"
for dataset in ["digits", "breast_cancer"]:
    reference, skipped = run("--level", "fp32", "--dataset", dataset,
                             "--steps", steps)
    check(skipped == 0, f"{dataset} fp32 final_loss={reference:.6f} "
                        f"skipped={skipped}")
    for level in ["O1", "O2", "bf16", "fp8"]:
        loss, skipped = run("--level", level, "--dataset", dataset,
                            "--steps", steps)
        rel = abs(loss - reference) / reference
        check(rel <= 0.02 and skipped == 0,
              f"{dataset} {level} final_loss={loss:.6f} skipped={skipped} "
              f"within 2% of fp32 (rel {rel:.2e})")

with tempfile.TemporaryDirectory() as tmp:
    # An Inf in the batch of step 30: exactly that step is skipped, the
    # scale backs off there, the step count does not advance on it.
    log = Path(tmp) / "inject.json"
    _, skipped = run("--level", "O2", "--dataset", "digits", "--steps",
                     "40", "--inject-inf-at", "30", "--json", str(log))
    history = json.loads(log.read_text())["steps"]
    flags = [s["skipped"] for s in history]
    scales = [s["scale"] for s in history]
    check(skipped == 1 and flags[30] and sum(flags) == 1 and
          scales[30] == scales[29] / 2 and scales[31] == scales[30],
          f"inject-inf-at 30: skipped={skipped}, step 30 skipped, scale "
          f"{scales[29]:g} -> {scales[30]:g}")

    check_resume("O2", tmp)

with tempfile.TemporaryDirectory() as tmp:
    # FP8 (delayed scaling): the amax histories and scales are state. An
    # Inf in step 30's batch saturates in FP8 but its amax is not finite:
    # the step is skipped and leaves every array, the FP8 state included,
    # as step 29 left it.
    before, after = Path(tmp) / "before.npz", Path(tmp) / "after.npz"
    run("--level", "fp8", "--dataset", "digits", "--steps", "30", "--save",
        str(before))
    _, skipped = run("--level", "fp8", "--dataset", "digits", "--steps",
                     "31", "--inject-inf-at", "30", "--save", str(after))
    x, y = np.load(before), np.load(after)
    fp8 = [k for k in x.files if k.startswith("fp8:")]
    kept = [k for k in x.files if not k.startswith("trainer:")]
    # 5 contractions (2 forward; dH, dW2, dW1), 2 operands each, a history
    # and a scale for each operand.
    check(skipped == 1 and len(fp8) == 20 and
          all(np.array_equal(x[k], y[k]) for k in kept) and
          int(y["trainer:skipped"]) == 1,
          f"fp8 inject-inf-at 30: skipped={skipped}, the {len(kept)} "
          f"arrays ({len(fp8)} of FP8 state) as step 29 left them")
    # Delayed scaling has moved the scales away from their initial 1.
    check(all(float(x[k]) != 1.0 for k in fp8 if ":scale:" in k),
          "fp8 scales after 30 steps: " + ", ".join(
              f"{k.split(':', 2)[2]} {float(x[k]):.4g}"
              for k in fp8 if ":scale:" in k))

    check_resume("fp8", tmp)

# 1000 steps of the GPU pipeline's output in the GPU simulator: every call is
# checked for device buffers it left allocated (an AmpError), and the result
# matches the CPU pipeline's.
small = ["--level", "O2", "--dataset", "iris", "--batch", "16", "--hidden",
         "16", "--steps", "1000"]
cpu = run(*small)
sim = run(*small, "--target", "gpu-sim")
rel = abs(sim[0] - cpu[0]) / cpu[0]
check(rel <= 1e-4 and sim[1] == cpu[1] == 0,
      f"gpu-sim 1000 steps without a leaked buffer: final_loss "
      f"{sim[0]:.6f} vs cpu {cpu[0]:.6f} (rel {rel:.1e})")

print(f"{failures} failed")
sys.exit(1 if failures else 0)
