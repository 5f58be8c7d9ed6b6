"""Checks examples/torch_training/train.py --ranks 2 (run under mpirun by
the script itself): an Inf injected into rank 1's shard at step 30 skips
that step on both ranks; both end with the same line, and the parameters
stay the same on both ranks (the gradients are all-reduced). Compares the
two-rank run with one process on the whole batch."""

import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
TRAIN = ROOT / "examples" / "torch_training" / "train.py"
failures = 0


def check(ok, message):
    global failures
    print(("PASS " if ok else "FAIL ") + message, flush=True)
    failures += not ok


def train(*argv):
    out = subprocess.run([sys.executable, "-W", "ignore", str(TRAIN), *argv],
                         capture_output=True, text=True)
    if out.returncode != 0:
        print(out.stdout, out.stderr)
        raise SystemExit(f"train.py {argv} failed")
    lines = out.stdout.split("\n")
    # Every final_loss line is whole (the ranks' lines did not interleave),
    # and the output ends with one, then the newline: scripts read it.
    whole = [l for l in lines if "final_loss=" in l]
    check(all(re.fullmatch(r"final_loss=\S+ skipped=\d+", l) for l in whole)
          and lines[-1] == "" and len(lines) > 1
          and re.fullmatch(r"final_loss=\S+ skipped=\d+", lines[-2]),
          f"each final_loss line whole, the last line one of them "
          f"({len(whole)} lines)")
    return re.findall(r"final_loss=(\S+) skipped=(\d+)", out.stdout)


with tempfile.TemporaryDirectory() as tmp:
    common = ["--level", "O2", "--dataset", "digits", "--steps", "60",
              "--inject-inf-at", "30"]
    ranks = train(*common, "--ranks", "2", "--inject-rank", "1",
                  "--json", f"{tmp}/ranks.json",
                  "--save", f"{tmp}/rank%r.npz")
    check(len(ranks) == 2 and ranks[0] == ranks[1] and ranks[0][1] == "1",
          f"2 ranks, Inf on rank 1 at step 30: both print {ranks[0]}")
    history = json.loads(Path(f"{tmp}/ranks.json").read_text())["steps"]
    flags = [s["skipped"] for s in history]
    check(flags[30] and sum(flags) == 1 and
          history[30]["scale"] == history[29]["scale"] / 2,
          "rank 0 skipped step 30 (the Inf was on rank 1) and backed off "
          "the scale")
    import numpy as np
    a, b = (np.load(f"{tmp}/rank{r}.npz") for r in (0, 1))
    check(all(np.array_equal(a[k], b[k]) for k in a.files),
          f"the {len(a.files)} state arrays are identical on both ranks")
    single = train(*common)
    rel = abs(float(ranks[0][0]) - float(single[0][0])) / float(single[0][0])
    check(rel < 1e-3, f"2 ranks x 32 rows vs 1 process x 64: final_loss "
                      f"{ranks[0][0]} vs {single[0][0]} (rel {rel:.1e})")

    # FP8 with delayed scaling: the amaxes are all-reduced with found_inf,
    # so both ranks keep the same histories and scales, and the Inf on
    # rank 1 skips the step on both.
    ranks = train("--level", "fp8", "--dataset", "digits", "--steps", "40",
                  "--inject-inf-at", "30", "--ranks", "2", "--inject-rank",
                  "1", "--save", f"{tmp}/fp8-rank%r.npz")
    a, b = (np.load(f"{tmp}/fp8-rank{r}.npz") for r in (0, 1))
    fp8 = [k for k in a.files if k.startswith("fp8:")]
    check(len(ranks) == 2 and ranks[0] == ranks[1] and
          ranks[0][1] == "1" and len(fp8) == 20 and
          all(np.array_equal(a[k], b[k]) for k in a.files),
          f"fp8, 2 ranks: both skipped 1 step, the {len(a.files)} state "
          f"arrays ({len(fp8)} FP8 scales and histories) identical")

print(f"{failures} failed")
sys.exit(1 if failures else 0)
