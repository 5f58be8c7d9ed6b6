"""scripts/doctables.py's comparison of a re-measured run with the kept one
(kept-runs.test): what another CPU's summation order may move is compared
within doctables.ANOTHER_CPU, counts exactly, and what is skipped is not
compared at all. Each case prints its verdict; FileCheck reads them."""
import io
import json
import os
import sys
import tempfile

sys.path.insert(0, sys.argv[1])
import doctables  # noqa: E402

KEPT = {"machine": "Intel", "errors": {"O0": 1e-7, "O2 f16": 5.0e-4},
        "reports": {"O2": {"casts": 3, "bytes": 1024}},
        "bounds": {"f16": {"eager": 4.0e-4, "placement": "autocast"}}}


def rule(where):
    if where in (("machine",), ("errors", "O0")):
        return doctables.SKIP
    if where[:1] == ("reports",):
        return doctables.EXACT
    return doctables.ANOTHER_CPU


def case(name, change):
    fresh = json.loads(json.dumps(KEPT))
    change(fresh)
    out = io.StringIO()
    status = doctables.check_run(KEPT, fresh, rule, "script", "kept.json",
                                 out=out)
    print(f"{name}: {'differs' if status else 'agrees'}")
    for line in out.getvalue().splitlines():
        print(f"  {line}")


def set_(path, value):
    def change(run):
        node = run
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value
    return change


case("same", lambda run: None)
# Another CPU: the error 3% off, O0 ten times off (fp32 noise, skipped),
# another machine's name.
case("another-cpu", lambda run: (set_(("errors", "O2 f16"), 5.15e-4)(run),
                                 set_(("errors", "O0"), 1e-6)(run),
                                 set_(("machine",), "AMD EPYC")(run)))
# One tensor rounded once more: the error 40% up.
case("rounded-more", set_(("errors", "O2 f16"), 7.0e-4))
case("one-cast-more", set_(("reports", "O2", "casts"), 4))
case("other-placement", set_(("bounds", "f16", "placement"), "auto"))
case("not-measured", lambda run: run["errors"].pop("O2 f16"))
case("new-figure", set_(("errors", "O1 f16"), 1e-4))
case("list-length", lambda run: run.update(extra=[1, 2]) or KEPT.update(
    extra=[1]))

# keep_run writes what json reads back.
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "run.json")
    doctables.keep_run(path, KEPT)
    with open(path) as f:
        print("keep_run round trip:", json.load(f) == KEPT)
