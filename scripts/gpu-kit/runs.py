#!/usr/bin/env python3
"""Renders the list of GPU kit runs kept in bench/gpu/results/ (the
results.json files run.sh writes) as the gpu-runs block of docs/gpu.md
("What has run on a GPU"): one row per run, so that what the docs say ran
on a GPU is what the committed runs hold.

    runs.py [RESULTS.json ...] [--update-doc docs/gpu.md] [--check]

Without files, every bench/gpu/results/*.json. Without --update-doc the
block goes to stdout. --check exits 1 when the document's block is not
exactly what the runs render to."""

import argparse
import glob
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import doctables  # noqa: E402

SCRIPT = "scripts/gpu-kit/runs.py"
BLOCK = "gpu-runs"
# The groups of compiled cases, in the order run.py runs them
# (build_kit.py's manifest); a group not named here follows, sorted.
GROUPS = ("test", "train", "bench-small", "bench", "model")
FAILED = ("FAIL", "crashed", "timeout")  # as run.py counts them


def load(paths):
    """[(path, run)], in the order the runs started."""
    runs = []
    for path in paths:
        with open(path) as f:
            runs.append((path, json.load(f)))
    return sorted(runs, key=lambda pr: pr[1]["started"])


def statuses(rows):
    """'78 pass, 1 info': the rows by status, most first."""
    counts = {}
    for r in rows:
        counts[r["status"]] = counts.get(r["status"], 0) + 1
    return ", ".join(f"{n} {s}" for s, n in
                     sorted(counts.items(), key=lambda sn: (-sn[1], sn[0])))


def gtests(rows):
    """Each test binary's row: 'AmpRuntimeGpuTests 29/0/1' (passed, failed,
    skipped)."""
    return ", ".join(
        f"{r['test'][len('gtest '):]} {r.get('passed', '–')}/"
        f"{r.get('failed', '–')}/{r.get('skipped', '–')}"
        for r in rows if r["test"].startswith("gtest "))


def groups(rows):
    """The compiled cases' rows by group: 'test 27, train 3, ...'."""
    counts = {}
    for r in rows:
        if r.get("group"):
            counts[r["group"]] = counts.get(r["group"], 0) + 1
    order = [g for g in GROUPS if g in counts] + \
        sorted(g for g in counts if g not in GROUPS)
    return ", ".join(f"{g} {counts[g]}" for g in order)


def levels(runs):
    """The levels of the compiled cases' rows over all runs, in order."""
    seen = []
    for _, run in runs:
        for r in run["rows"]:
            if r.get("level") and r["level"] not in seen:
                seen.append(r["level"])
    return sorted(seen, key=lambda lv: (lv.split()[0], lv))


def check_summary(path, run):
    """run.py's summary counts the rows it kept; a summary that disagrees
    with them is a file edited by hand."""
    rows = run["rows"]
    failed = sum(r["status"] in FAILED for r in rows)
    summary = run.get("summary", {})
    if summary.get("rows") != len(rows) or summary.get("failed") != failed:
        raise SystemExit(f"runs: {path}: the summary ({summary}) does not "
                         f"count its rows ({len(rows)} rows, {failed} "
                         f"failed)")


def render(runs):
    for path, run in runs:
        check_summary(path, run)
    first, last = runs[0][1], runs[-1][1]
    devices = sorted({f"{run['device']} (sm_{run['compute_capability']})"
                      for _, run in runs})
    out = [f"{len(runs)} runs of the GPU kit are kept in "
           f"`bench/gpu/results/`, started between {first['started']} and "
           f"{last['started']} (the GPU machine's clock), on "
           f"{' and '.join(devices)}. Their rows: one per test binary "
           f"(its tests passed/failed/skipped), the copy bandwidth "
           f"(`info`: no reference), and the compiled cases, counted by "
           f"group.", "",
           "| started | device | kit of | mode | rows | status | test "
           "binaries: passed/failed/skipped | compiled cases | PyTorch | "
           "results |",
           "|---|---|---|---|---:|---|---|---|---|---|"]
    for path, run in runs:
        rows = run["rows"]
        name = os.path.basename(path)
        out.append(
            f"| {run['started']} | {run['device']} "
            f"(sm_{run['compute_capability']}) | `{run['kit_commit']}` | "
            f"`{run['mode']}` | {len(rows)} | {statuses(rows)} | "
            f"{gtests(rows)} | {groups(rows)} | "
            f"{run.get('torch') or '(none)'} | "
            f"[{name}](../bench/gpu/results/{name}) |")
    failed = [(run["kit_commit"], r["test"]) for _, run in runs
              for r in run["rows"] if r["status"] in FAILED]
    all_levels = levels(runs)
    fp8 = [lv for lv in all_levels if "fp8" in lv]
    out += ["",
            "- Failed rows in these runs: " +
            (", ".join(f"{t} (kit of `{c}`)" for c, t in failed)
             if failed else "none") + ".",
            f"- Levels of the compiled cases: "
            f"{', '.join(all_levels)}; " +
            (f"at `dtype=fp8`: {', '.join(fp8)}." if fp8 else
             "no row at `dtype=fp8`."),
            f"- The last run is of the kit of commit `{last['kit_commit']}`"
            f" (built {last['kit_built']}): what was committed after it "
            f"has not run on a GPU."]
    return "\n".join(out) + "\n"


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", nargs="*",
                        help="results.json files (default: every "
                        "bench/gpu/results/*.json)")
    parser.add_argument("--update-doc", metavar="DOC",
                        help="write the block between its markers in DOC")
    parser.add_argument("--check", action="store_true",
                        help="with --update-doc: fail when DOC's block is "
                        "not the runs' rendering")
    args = parser.parse_args(argv)
    if args.check and not args.update_doc:
        parser.error("--check needs --update-doc")
    paths = args.results or sorted(glob.glob(
        os.path.join(ROOT, "bench", "gpu", "results", "*.json")))
    if not paths:
        print("runs: no results", file=sys.stderr)
        return 1
    block = render(load(paths))
    if not args.update_doc:
        sys.stdout.write(block)
        return 0
    return doctables.update(args.update_doc, {BLOCK: block}, SCRIPT,
                            check=args.check)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
