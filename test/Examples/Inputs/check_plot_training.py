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
# bf16: see test/Examples/Inputs/check_mlp_training.py (about 1% per step,
# amplified over 300 Adam steps to -14%..+5% across data seeds).
for label, bound in (("O1 f16", 0.005), ("O2 f16", 0.01), ("O2 bf16", 0.2)):
    difference = summary[label]["vs_fp32"]
    assert abs(difference) < bound and difference != 0, (label, difference)
    print(f"ok: {label} within {bound * 100:g}% of fp32")
skipped = {label: row["skipped_steps"] for label, row in summary.items()}
assert skipped.pop("O2 f16, Inf at step 120") == [120], skipped
assert all(not steps for steps in skipped.values()), skipped
print("ok: only the injected step is skipped")

# What docs/python.md says of the injected Inf (steps counted from 0, as in
# the table; the plots' axes count from 1).
step = summary["O2 f16, Inf at step 120"]["skipped_steps"][0]
injected = curves["O2 f16, Inf at step 120"]
clean = curves["O2 f16"]
fp32 = curves["fp32"]["loss"]
# The skipped step's update is not applied: the next loss repeats it, and
# from then on the run is O2 f16 one step late, loss for loss.
assert injected["loss"][:step + 1] == clean["loss"][:step + 1]
assert injected["loss"][step + 1] == injected["loss"][step]
late = [abs(a - b) / b for a, b in zip(injected["loss"][step + 1:],
                                       clean["loss"][step:-1])]
assert max(late) < 1e-6, max(late)
print("ok: after the skipped step the injected run is O2 f16 one step late")
# It does not catch up: above fp32 at every later step, and at the end still
# more than half as far above as right after the skip.
above = [(a - b) / b for a, b in zip(injected["loss"][step + 1:],
                                     fp32[step + 1:])]
assert min(above) > 0 and above[-1] > above[0] / 2, (above[0], above[-1])
print(f"ok: the injected run stays above fp32 "
      f"(+{100 * min(above):.2f}% to +{100 * max(above):.2f}%, "
      f"+{100 * above[-1]:.2f}% at the end)")


def changes(scales):
    return [i for i in range(1, len(scales)) if scales[i] != scales[i - 1]]


# The scale halves at the skipped step, then grows every growth_interval
# clean steps counted from the skip: it ends a quarter of the clean run's.
interval = changes(clean["scale"])[0] + 1
assert all(scale == 2 * clean["scale"][i - 1]
           for i, scale in enumerate(clean["scale"])
           if i in changes(clean["scale"]))
assert injected["scale"][step] == injected["scale"][step - 1] / 2
after = [i for i in changes(injected["scale"]) if i > step]
assert after == list(range(step + interval, len(fp32), interval)), after
assert injected["scale"][-1] == clean["scale"][-1] / 4
print(f"ok: the Inf halves the scale, which then grows every {interval} "
      f"steps from the skip and ends at a quarter of O2 f16's")
assert curves["O1 f16"]["scale"] == clean["scale"]
print("ok: O1 f16 and O2 f16 have the same scale at every step")
