#!/usr/bin/env python3
"""Cast-placement and compile-time benchmark of amp-mlir.

    python3 bench/run.py [--amp-opt build/bin/amp-opt] [--max-blocks 1000]

For each generated model (bench/generate.py) and each size, runs --amp-o1
with placement=greedy and placement=optimal and reports, per call:

* per-use: one conversion per use of a value, no sharing (the naive
  insertion; computed from the greedy result's uses);
* greedy: TF-style painting, one conversion per (value, type);
* optimal: the min-cut placement;
* the bytes moved by greedy and optimal: what every compute op and
  conversion reads and writes, the cost optimal placement minimises (it
  fails if optimal moves more than greedy).

It then measures the low-precision bytes of --amp-o1 and --amp-o2 against
their ideal (the report's `ideal_fraction`; docs/policies.md defines both)
on the generated models and the bundled examples.

Then it times `amp-opt --amp-o2` against `--canonicalize --cse` run by two
drivers on the same inputs, alternating the three in one run (median CPU
time of at least --repeat runs, more for short commands: --min-seconds): `mlir-opt` (the issue's baseline) and `amp-opt`
itself (the stricter comparison: same driver, same registered dialects). It
reports the ratios and how time grows with the op count, and the time of the
passes alone from --mlir-timing; --instructions does the same in
instructions (callgrind). Prints Markdown tables; --json writes the raw
numbers. --update-doc writes the tables between the bench-* markers of the
docs (scripts/doctables.py); --from-json renders a kept run instead of
measuring, and with --check fails when the docs differ from that rendering
or when the counts and bytes (not the times) of a fresh run up to
--max-blocks differ from the kept run's.
"""

import argparse
import datetime
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "scripts"))
import doctables  # noqa: E402
MODELS = [("transformer", "linalg"), ("resnet", "linalg"),
          ("transformer", "tosa")]
# The bundled examples, measured beside the generated models.
EXAMPLES = ["linalg_convnet.mlir", "tosa_mlp_classifier.mlir",
            "amp_training_step.mlir", "mlp_training.mlir"]


def generate(model, dialect, blocks, path):
    with open(path, "w") as f:
        subprocess.run([sys.executable, os.path.join(HERE, "generate.py"),
                        model, "--dialect", dialect, "--blocks", str(blocks)],
                       stdout=f, check=True)


def count_ops(opt, path):
    out = subprocess.run([opt, path, "--print-op-stats", "-o", os.devnull],
                         capture_output=True, text=True, check=True)
    total = 0
    for line in out.stderr.splitlines():
        parts = line.rsplit(",", 1)
        if len(parts) == 2 and parts[1].strip().isdigit():
            total += int(parts[1])
    return total


def report(opt, path, placement, tmp, level="o1"):
    out = os.path.join(tmp, "report.json")
    subprocess.run([opt, path,
                    f"--amp-{level}=placement={placement} report=json "
                    f"report-file={out}", "-o", os.devnull], check=True)
    with open(out) as f:
        return json.load(f)


def timed(cmd):
    """CPU time (user + system) of `cmd`: steadier than wall time on a
    shared machine, and the same thing for a single-threaded compile."""
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise subprocess.CalledProcessError(status, cmd)
    return usage.ru_utime + usage.ru_stime


NOT_PASSES = ("Parser", "Output", "Rest", "Total")
TIMING_ROW = re.compile(r"^\s*([\d.]+) \(\s*[\d.]+%\)  (\S.*)$")


def pass_time(cmd):
    """Wall time of the passes alone (each with the verifier run after it),
    from --mlir-timing: parsing and printing, which both commands share up to
    the size of what they print, are left out."""
    log = subprocess.run(cmd + ["--mlir-timing"], check=True, text=True,
                         stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE).stderr
    total, previous = 0.0, None
    for line in log.splitlines():
        # Top-level rows only: nested ones (analyses) are indented further.
        match = TIMING_ROW.match(line)
        if not match or match.group(2).strip() in NOT_PASSES:
            continue
        seconds, name = float(match.group(1)), match.group(2).strip()
        # A pass that runs a pipeline of its own (--amp-o2 runs the one
        # buildAmpPipeline builds) is followed by that pipeline's row
        # ("'builtin.module' Pipeline"), at the same level but inside the
        # pass's time: counted once, in the pass.
        if name.endswith(" Pipeline") and previous is not None and \
                previous >= seconds:
            previous = None
            continue
        total += seconds
        previous = seconds
    return total


def instructions(cmd, tmp):
    """Instructions executed by `cmd` (valgrind's callgrind): repeatable
    whatever else the machine is doing, unlike wall time."""
    out = os.path.join(tmp, "callgrind.out")
    log = subprocess.run(["valgrind", "--tool=callgrind",
                          f"--callgrind-out-file={out}"] + cmd,
                         capture_output=True, text=True, check=True).stderr
    for line in log.splitlines():
        if "Collected :" in line:
            return int(line.split(":")[-1].strip())
    raise RuntimeError("callgrind printed no instruction count")


def fmt(value, spec):
    return "-" if value is None else format(value, spec)


def ratio(a, b):
    return "-" if not b else f"{a / b:.2f}"


def kib(n):
    return f"{n / 1024:.1f}"


def mib(n):
    return f"{n / 2**20:.1f}"


def span(values, spec=".2f"):
    """'a–b' (or 'a') of the values, formatted."""
    low, high = format(min(values), spec), format(max(values), spec)
    return low if low == high else f"{low}–{high}"


def run_meta(opt):
    """Where and with what a run was made."""
    try:
        commit = subprocess.run(
            ["git", "-C", HERE, "rev-parse", "--short", "HEAD"],
            capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        commit = None
    return {"date": datetime.date.today().isoformat(), "commit": commit,
            "cpus": os.cpu_count(), "amp_opt": opt}


# ---------------------------------------------------------------------------
# Measuring
# ---------------------------------------------------------------------------

def measure_placement(opt, sizes, tmp):
    """Per model and size: casts and bytes converted per use, by greedy and
    by optimal placement, and the bytes moved (the deterministic figures)."""
    path = os.path.join(tmp, "model.mlir")
    rows = []
    for model, dialect in MODELS:
        for blocks in sizes:
            generate(model, dialect, blocks, path)
            greedy = report(opt, path, "greedy", tmp)
            optimal = report(opt, path, "optimal", tmp)
            rows.append({"model": f"{model} ({dialect})", "blocks": blocks,
                         "ops": count_ops(opt, path),
                         "per_use": [greedy["per_use_casts"],
                                     greedy["per_use_bytes_converted"]],
                         "greedy": [greedy["casts"],
                                    greedy["bytes_converted"],
                                    greedy["bytes_moved"]],
                         "optimal": [optimal["casts"],
                                     optimal["bytes_converted"],
                                     optimal["bytes_moved"]]})
    return rows


def measure_examples_placement(opt, tmp):
    """The bundled examples at O1: casts, bytes converted and bytes moved
    under greedy and optimal placement."""
    rows = []
    for name in EXAMPLES:
        source = os.path.join(HERE, "..", "examples", name)
        row = {"model": f"examples/{name}", "blocks": ""}
        for placement in ("greedy", "optimal"):
            r = report(opt, source, placement, tmp)
            row[placement] = [r["casts"], r["bytes_converted"],
                              r["bytes_moved"]]
        rows.append(row)
    return rows


def measure_low_precision(opt, sizes, tmp):
    path = os.path.join(tmp, "model.mlir")
    inputs = [(f"{model} ({dialect})", blocks, (model, dialect))
              for model, dialect in MODELS
              for blocks in [n for n in (1, 10, 100) if n in sizes]]
    inputs += [(f"examples/{name}", "", None) for name in EXAMPLES]
    rows = []
    for name, blocks, generated in inputs:
        if generated:
            generate(generated[0], generated[1], blocks, path)
            source = path
        else:
            source = os.path.join(HERE, "..", name)
        for level in ("o1", "o2"):
            r = report(opt, source, "optimal", tmp, level)
            rows.append({"model": name, "blocks": blocks,
                         "level": level.upper(),
                         "ideal_fraction": r["ideal_fraction"],
                         "reached_bytes": r["ideal_reached_bytes"],
                         "ideal_bytes": r["ideal_low_precision_bytes"],
                         "low_bytes": r["low_precision_bytes"]})
    return rows


def measure_timing(opt, mlir_opt, sizes, repeat, min_seconds, tmp):
    path = os.path.join(tmp, "model.mlir")
    rows = []
    for model, dialect in MODELS:
        for blocks in [n for n in (10, 100, 1000) if n in sizes]:
            generate(model, dialect, blocks, path)
            ops = count_ops(opt, path)
            amp_cmd = [opt, path, "--amp-o2", "-o", os.devnull]
            base_cmd = [opt, path, "--canonicalize", "--cse", "-o",
                        os.devnull]
            upstream_cmd = [mlir_opt, path, "--canonicalize", "--cse",
                            "-o", os.devnull] if mlir_opt else None
            amp, base, upstream = [], [], []
            amp_pass, base_pass = [], []
            # Small models run for tens of milliseconds, mostly process
            # start-up, with the machine's noise on top: run each command
            # for about --min-seconds in all.
            runs = max(repeat, min(20 * repeat, int(
                min_seconds / max(timed(base_cmd), 1e-3))))
            for _ in range(runs):
                amp.append(timed(amp_cmd))
                base.append(timed(base_cmd))
                if upstream_cmd:
                    upstream.append(timed(upstream_cmd))
                amp_pass.append(pass_time(amp_cmd))
                base_pass.append(pass_time(base_cmd))
            rows.append(
                {"model": f"{model} ({dialect})", "blocks": blocks,
                 "ops": ops, "runs": runs,
                 "amp_o2_s": statistics.median(amp),
                 "canonicalize_cse_s": statistics.median(base),
                 "mlir_opt_canonicalize_cse_s":
                     statistics.median(upstream) if upstream else None,
                 "amp_o2_passes_s": statistics.median(amp_pass),
                 "canonicalize_cse_passes_s": statistics.median(base_pass)})
    return rows


def measure_instructions(opt, mlir_opt, max_blocks, tmp):
    path = os.path.join(tmp, "model.mlir")
    rows = []
    for model, dialect in MODELS:
        for blocks in [n for n in (10, 100, 1000) if n <= max_blocks]:
            generate(model, dialect, blocks, path)
            rows.append(
                {"model": f"{model} ({dialect})", "blocks": blocks,
                 "ops": count_ops(opt, path),
                 "amp_o2": instructions([opt, path, "--amp-o2", "-o",
                                         os.devnull], tmp),
                 "canonicalize_cse": instructions(
                     [opt, path, "--canonicalize", "--cse", "-o",
                      os.devnull], tmp),
                 "mlir_opt_canonicalize_cse": instructions(
                     [mlir_opt, path, "--canonicalize", "--cse", "-o",
                      os.devnull], tmp) if mlir_opt else None})
    return rows


# ---------------------------------------------------------------------------
# Rendering: one Markdown block per section, the same for stdout and for
# the markers of docs/performance.md.
# ---------------------------------------------------------------------------

def made_by(meta, what):
    details = [f"commit `{meta['commit']}`" if meta.get("commit") else None,
               f"{meta['cpus']} CPUs" if meta.get("cpus") else None,
               meta.get("build"), meta.get("note")]
    return (f"{what} by `bench/run.py` on {meta.get('date', '?')} ("
            f"{'; '.join(d for d in details if d)}).")


def render_placement(rows, meta):
    out = [made_by(meta, "Measured"), "",
           "Casts / KiB converted; then the KiB every compute op and "
           "conversion reads and writes (the cost optimal placement "
           "minimises).", "",
           "| model | blocks | ops | per-use | greedy | optimal | "
           "moved, greedy | moved, optimal |",
           "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        out.append(f"| {r['model']} | {r['blocks']} | {r['ops']} | "
                   f"{r['per_use'][0]} / {kib(r['per_use'][1])} | "
                   f"{r['greedy'][0]} / {kib(r['greedy'][1])} | "
                   f"{r['optimal'][0]} / {kib(r['optimal'][1])} | "
                   f"{kib(r['greedy'][2])} | {kib(r['optimal'][2])} |")
    out += ["", "Optimal against greedy placement at the largest size of "
            "each model (bytes converted; bytes moved, which it minimises):",
            ""]
    largest = {}
    for r in rows:
        if r["blocks"] >= largest.get(r["model"], r)["blocks"]:
            largest[r["model"]] = r
    for name, r in largest.items():
        (_, gc, gm), (_, oc, om) = r["greedy"], r["optimal"]
        out.append(f"- {name}, {r['blocks']} blocks: converts "
                   f"{mib(oc)} MiB against {mib(gc)} ({pct(oc, gc)}), moves "
                   f"{mib(om)} MiB against {mib(gm)} ({pct(om, gm)}).")
    return "\n".join(out) + "\n"


def size(n):
    return f"{n} B" if n < 1024 else f"{kib(n)} KiB"


def render_examples_placement(rows, meta):
    out = [made_by(meta, "Measured"), "",
           "| example (O1) | greedy | optimal |", "|---|---|---|"]
    for r in rows:
        cells = [f"{c} casts, {size(b)}; {kib(m)} KiB moved"
                 for c, b, m in (r["greedy"], r["optimal"])]
        if r["greedy"] == r["optimal"]:
            cells[1] = "the same"
        out.append(f"| `{r['model']}` | {cells[0]} | {cells[1]} |")
    return "\n".join(out) + "\n"


def pct(a, b):
    if a == b:
        return "the same"
    change = (a - b) / b * 100 if b else float("inf")
    return f"{change:+.1f}%"


def render_low_precision(rows, meta):
    out = [made_by(meta, "Measured"), "",
           "Float tensor bytes that compute ops read and write in the low "
           "type (at its width), as a share of the ideal's (Apex O2 for "
           "O2, autocast for O1); in brackets, the KiB.", "",
           "| model | blocks | O1 | O2 |", "|---|---:|---:|---:|"]
    cells = {}
    for r in rows:
        cells.setdefault((r["model"], r["blocks"]), {})[r["level"]] = (
            f"{r['ideal_fraction']:.3f} ({kib(r['reached_bytes'])} / "
            f"{kib(r['ideal_bytes'])})")
    for (name, blocks), c in cells.items():
        out.append(f"| {name} | {blocks} | {c.get('O1', '-')} | "
                   f"{c.get('O2', '-')} |")
    fractions = [r["ideal_fraction"] for r in rows]
    out += ["", f"Share of the ideal reached, over every row and level: "
            f"{span(fractions, '.3f')}."]
    return "\n".join(out) + "\n"


def growth_rows(rows, key):
    """{(model, blocks): (ops ratio, KEY ratio)} against the previous size
    of the same model."""
    growth, previous = {}, {}
    for r in rows:
        p = previous.get(r["model"])
        if p:
            growth[(r["model"], r["blocks"])] = (r["ops"] / p["ops"],
                                                 r[key] / p[key])
        previous[r["model"]] = r
    return growth


def timing_ratios(row, growth):
    """The row's ratios: computed from its times, or, for a run kept only
    as printed tables (times rounded to 1 ms), the ratios it printed."""
    printed = row.get("printed_ratios")
    if printed:
        return printed
    c = row["mlir_opt_canonicalize_cse_s"]
    ratios = {"own": row["amp_o2_s"] / row["canonicalize_cse_s"],
              "mlir_opt": row["amp_o2_s"] / c if c else None,
              "passes": row["amp_o2_passes_s"] /
              row["canonicalize_cse_passes_s"]
              if row["canonicalize_cse_passes_s"] else None}
    g = growth.get((row["model"], row["blocks"]))
    if g:
        ratios["growth"] = g[1]
    return ratios


def render_timing(rows, meta):
    runs = min(r.get("runs", 0) for r in rows) if rows else 0
    out = [made_by(meta, "Measured"), "",
           "CPU time (user + system, from `wait4`) of the whole command, "
           "parsing and printing included, median of at least "
           f"{runs or 'several'} alternating runs (short commands run until "
           "each took about 1.5 s in all):", "",
           "| model | blocks | ops | amp-o2 (s) | canonicalize+cse, amp-opt "
           "(s) | ratio | canonicalize+cse, mlir-opt (s) | ratio |",
           "|---|---:|---:|---:|---:|---:|---:|---:|"]
    growth = growth_rows(rows, "amp_o2_s")
    ratios = [timing_ratios(r, growth) for r in rows]
    for r, q in zip(rows, ratios):
        g = growth.get((r["model"], r["blocks"]))
        g = f" (x{g[0]:.1f} ops: x{q['growth']:.1f} time)" if g else ""
        out.append(f"| {r['model']} | {r['blocks']} | {r['ops']} | "
                   f"{r['amp_o2_s']:.3f} | {r['canonicalize_cse_s']:.3f} | "
                   f"{q['own']:.2f}{g} | "
                   f"{fmt(r['mlir_opt_canonicalize_cse_s'], '.3f')} | "
                   f"{fmt(q['mlir_opt'], '.2f')} |")
    out += ["", "The passes alone (`--mlir-timing`; each pass with the "
            "verifier the pass manager runs after it; parsing and printing "
            "left out), amp-opt:", "",
            "| model | blocks | ops | amp-o2 pipeline (s) | "
            "canonicalize + cse (s) | ratio |", "|---|---:|---:|---:|---:|---:|"]
    for r, q in zip(rows, ratios):
        out.append(f"| {r['model']} | {r['blocks']} | {r['ops']} | "
                   f"{r['amp_o2_passes_s']:.3f} | "
                   f"{r['canonicalize_cse_passes_s']:.3f} | "
                   f"{fmt(q['passes'], '.2f')} |")
    # The ranges the text quotes, computed here rather than typed.
    pick = lambda key: [q[key] for q in ratios if q.get(key) is not None]
    grow = [q["growth"] for (r, q) in zip(rows, ratios)
            if growth.get((r["model"], r["blocks"]), (0,))[0] >= 9
            and "growth" in q]
    out += ["", "In this run, `--amp-o2` against canonicalize+cse:", ""]
    if pick("mlir_opt"):
        out.append(f"- against `mlir-opt`'s: {span(pick('mlir_opt'))}× the "
                   f"CPU time;")
    out.append(f"- against amp-opt's own: {span(pick('own'))}×;")
    if pick("passes"):
        out.append(f"- the passes alone: {span(pick('passes'))}×;")
    if grow:
        out.append(f"- about 10× the ops cost at most {max(grow):.1f}× the "
                   f"time.")
    return "\n".join(out) + "\n"


def render_instructions(rows, meta):
    if not rows:
        return ("Not measured in the run kept in `bench/results/cpu.json` "
                "(`bench/run.py --instructions MAX_BLOCKS` counts them with "
                "valgrind: about 7 minutes up to 1000 blocks; "
                "`--update-doc` then writes the table here).\n")
    out = [made_by(meta, "Counted"), "",
           "| model | blocks | ops | amp-o2 (Ginstr) | canonicalize+cse, "
           "amp-opt (Ginstr) | ratio | canonicalize+cse, mlir-opt (Ginstr) "
           "| ratio |", "|---|---:|---:|---:|---:|---:|---:|---:|"]
    growth = growth_rows(rows, "amp_o2")
    for r in rows:
        a, b, c = r["amp_o2"], r["canonicalize_cse"], \
            r["mlir_opt_canonicalize_cse"]
        g = growth.get((r["model"], r["blocks"]))
        g = f" (x{g[0]:.1f} ops: x{g[1]:.1f} instructions)" if g else ""
        out.append(f"| {r['model']} | {r['blocks']} | {r['ops']} | "
                   f"{a / 1e9:.3f} | {b / 1e9:.3f} | {a / b:.2f}{g} | "
                   f"{fmt(c and c / 1e9, '.3f')} | {ratio(a, c)} |")
    own = [r["amp_o2"] / r["canonicalize_cse"] for r in rows]
    up = [r["amp_o2"] / r["mlir_opt_canonicalize_cse"] for r in rows
          if r["mlir_opt_canonicalize_cse"]]
    out += ["", f"`--amp-o2` executes {span(own)}× the instructions of "
            f"amp-opt's canonicalize+cse"
            + (f" and {span(up)}× those of mlir-opt's." if up else ".")]
    return "\n".join(out) + "\n"


SECTIONS = [
    # (results key, doc block, title on stdout, renderer)
    ("placement", "bench-placement",
     "Conversions and bytes moved per call at O1", render_placement),
    ("examples_placement", "bench-examples-placement",
     "Cast placement on the examples at O1", render_examples_placement),
    ("low_precision", "bench-low-precision",
     "Low-precision bytes: achieved / ideal", render_low_precision),
    ("timing", "bench-compile-time",
     "Compile time: `--amp-o2` vs `--canonicalize --cse` (same inputs, same "
     "run)", render_timing),
    ("instructions", "bench-instructions",
     "Compile work in instructions: `--amp-o2` vs `--canonicalize --cse`",
     render_instructions),
]


def render(results):
    """{doc block: Markdown} of the sections RESULTS holds."""
    blocks = {}
    for key, block, _, renderer in SECTIONS:
        if key in results["sections"] or key == "instructions":
            section = results["sections"].get(key, {"rows": [], "run": {}})
            blocks[block] = renderer(section["rows"], section["run"])
    return blocks


# The figures --check compares with a fresh run: everything but times.
DETERMINISTIC = ("placement", "examples_placement", "low_precision")


def row_key(row):
    return (row["model"], row["blocks"], row.get("level"))


def check_rerun(results, fresh, out=sys.stdout):
    """1 when a freshly measured row differs from the kept row of the same
    model, size and level (counts and bytes repeat exactly)."""
    bad = 0
    for key in DETERMINISTIC:
        kept = {row_key(r): r for r in results["sections"][key]["rows"]}
        for row in fresh[key]:
            old = kept.get(row_key(row))
            if old is None:
                print(f"bench/run.py: {key} {row_key(row)}: not in the kept "
                      f"run", file=out)
                bad = 1
            elif old != row:
                print(f"bench/run.py: {key} {row_key(row)} differs: kept "
                      f"{json.dumps(old)}, measured {json.dumps(row)}",
                      file=out)
                bad = 1
        print(f"bench/run.py: {key}: {len(fresh[key])} rows re-measured"
              + (", all equal to the kept run" if not bad else ""), file=out)
    return bad


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--amp-opt", default="build/bin/amp-opt")
    parser.add_argument("--mlir-opt", default="/usr/lib/llvm-22/bin/mlir-opt",
                        help="upstream mlir-opt for the baseline ('' to skip)")
    parser.add_argument("--max-blocks", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3,
                        help="timed runs per command, at least")
    parser.add_argument("--min-seconds", type=float, default=1.5,
                        help="time short commands until each took about "
                             "this long in all")
    parser.add_argument("--json", help="write the results here; sections "
                        "this run did not measure are kept from the file "
                        "if it exists")
    parser.add_argument("--build", help="what amp-opt is, for the tables' "
                        "header (e.g. 'release build')")
    parser.add_argument("--no-timing", action="store_true")
    parser.add_argument("--instructions", type=int, metavar="MAX_BLOCKS",
                        default=0,
                        help="also count instructions (valgrind) for sizes "
                             "up to MAX_BLOCKS (100: about 2 minutes)")
    parser.add_argument("--from-json", metavar="FILE",
                        help="render the results kept in FILE instead of "
                        "measuring (with --check: and re-measure the "
                        "placement and low-precision rows up to "
                        "--max-blocks)")
    parser.add_argument("--update-doc", metavar="DOC", action="append",
                        help="write the tables between the bench-* markers "
                        "of DOC (repeatable: docs/performance.md, "
                        "docs/policies.md); every table must have its "
                        "markers in one of them")
    parser.add_argument("--check", action="store_true",
                        help="with --from-json and --update-doc: fail when "
                        "DOC's tables are not what FILE renders to, or when "
                        "a fresh run's counts and bytes differ from FILE's")
    args = parser.parse_args()
    opt = args.amp_opt
    mlir_opt = args.mlir_opt if args.mlir_opt and os.path.exists(
        args.mlir_opt) else None
    sizes = [n for n in (1, 10, 100, 1000) if n <= args.max_blocks]
    if args.check and not (args.from_json and args.update_doc):
        parser.error("--check needs --from-json and --update-doc")

    if args.from_json:
        with open(args.from_json) as f:
            results = json.load(f)
    else:
        results = {"sections": {}}
        if args.json and os.path.exists(args.json):
            with open(args.json) as f:
                results = json.load(f)
        meta = run_meta(opt)
        if args.build:
            meta["build"] = args.build
        measured = {}
        with tempfile.TemporaryDirectory() as tmp:
            measured["placement"] = measure_placement(opt, sizes, tmp)
            measured["examples_placement"] = measure_examples_placement(
                opt, tmp)
            measured["low_precision"] = measure_low_precision(opt, sizes, tmp)
            if not args.no_timing:
                measured["timing"] = measure_timing(
                    opt, mlir_opt, sizes, args.repeat, args.min_seconds, tmp)
            if args.instructions:
                measured["instructions"] = measure_instructions(
                    opt, mlir_opt, args.instructions, tmp)
        for key, rows in measured.items():
            results["sections"][key] = {"run": meta, "rows": rows}

    blocks = render(results)
    for key, block, title, _ in SECTIONS:
        if key in results["sections"]:
            print(f"## {title}\n\n{blocks[block]}")
    for r in [r for key in ("placement", "examples_placement")
              for r in results["sections"].get(key, {}).get("rows", [])]:
        if r["optimal"][2] > r["greedy"][2]:
            print(f"error: optimal moves more bytes than greedy on "
                  f"{r['model']} x{r['blocks']}", file=sys.stderr)
            return 1
    if args.json and not args.from_json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
            f.write("\n")

    status = 0
    if args.check:
        with tempfile.TemporaryDirectory() as tmp:
            fresh = {"placement": measure_placement(opt, sizes, tmp),
                     "examples_placement": measure_examples_placement(
                         opt, tmp),
                     "low_precision": measure_low_precision(opt, sizes, tmp)}
        status = check_rerun(results, fresh)
    if args.update_doc:
        placed = set()
        for doc in args.update_doc:
            with open(doc) as f:
                text = f.read()
            mine = {name: body for name, body in blocks.items()
                    if f"<!-- {name}:begin" in text}
            placed |= set(mine)
            status |= doctables.update(doc, mine, "bench/run.py",
                                       check=args.check)
        for name in sorted(set(blocks) - placed):
            print(f"bench/run.py: no {name} markers in "
                  f"{', '.join(args.update_doc)}", file=sys.stderr)
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
