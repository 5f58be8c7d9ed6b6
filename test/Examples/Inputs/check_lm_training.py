"""Checks examples/torch_training/lm.py's JSON (test/Examples/lm-training.test):
every level learned (its held-out loss fell well below log(vocab)) without
a skipped step, bf16 ends within 1% of fp32 and fp8 within 1% of bf16."""

import json
import math
import sys

results = json.load(open(sys.argv[1]))
vocab = int(sys.argv[2])
levels = results["levels"]
failures = 0


def check(ok, message):
    global failures
    print(("PASS " if ok else "FAIL ") + message)
    failures += not ok


for name, level in levels.items():
    check(level["final_loss"] < 0.6 * math.log(vocab) and
          level["skipped"] == 0,
          f"{name} learned: held-out loss {level['final_loss']:.4f} "
          f"(log(vocab) {math.log(vocab):.4f}, entropy rate "
          f"{results['entropy_rate']:.4f}), skipped {level['skipped']}")
for name, reference in (("bf16", "fp32"), ("fp8", "bf16")):
    loss, ref = levels[name]["final_loss"], levels[reference]["final_loss"]
    rel = abs(loss - ref) / ref
    check(rel <= 0.01, f"{name} within 1% of {reference}: {loss:.5f} vs "
                       f"{ref:.5f} (rel {rel:.2e})")
print(f"{failures} failed")
sys.exit(1 if failures else 0)
