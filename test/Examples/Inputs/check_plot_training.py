"""Checks what examples/plot_training.py wrote into a directory."""
import json
import sys
from pathlib import Path

out = Path(sys.argv[1])
for name in ("training-loss.png", "training-scale.png"):
    data = (out / name).read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) > 10000, name
print("ok: training-loss.png and training-scale.png are PNG images")

result = json.loads((out / "training.json").read_text())
curves, summary = result["curves"], result["summary"]
assert len(curves) == 5 and all(
    len(c[k]) == 300 for c in curves.values() for k in c), curves.keys()
print("ok: 5 curves of 300 steps")
for label, bound in (("O1 f16", 0.005), ("O2 f16", 0.01), ("O2 bf16", 0.01)):
    difference = summary[label]["vs_fp32"]
    assert abs(difference) < bound and difference != 0, (label, difference)
    print(f"ok: {label} within {bound * 100:g}% of fp32")
skipped = {label: row["skipped_steps"] for label, row in summary.items()}
assert skipped.pop("O2 f16, Inf at step 120") == [120], skipped
assert all(not steps for steps in skipped.values()), skipped
print("ok: only the injected step is skipped")
