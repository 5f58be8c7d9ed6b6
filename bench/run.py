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
numbers.
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
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
    total = 0.0
    for line in log.splitlines():
        # Top-level rows only: nested ones (analyses) are indented further.
        match = TIMING_ROW.match(line)
        if match and match.group(2).strip() not in NOT_PASSES:
            total += float(match.group(1))
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
    parser.add_argument("--json")
    parser.add_argument("--no-timing", action="store_true")
    parser.add_argument("--instructions", type=int, metavar="MAX_BLOCKS",
                        default=0,
                        help="also count instructions (valgrind) for sizes "
                             "up to MAX_BLOCKS (100: about 2 minutes)")
    args = parser.parse_args()
    opt = args.amp_opt
    mlir_opt = args.mlir_opt if args.mlir_opt and os.path.exists(
        args.mlir_opt) else None
    sizes = [n for n in (1, 10, 100, 1000) if n <= args.max_blocks]
    results = {"placement": [], "low_precision": [], "timing": [],
               "instructions": []}

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "model.mlir")
        print("## Conversions and bytes moved per call at O1\n")
        print("Casts / KiB converted; then the KiB every compute op and "
              "conversion reads and writes (the cost optimal placement "
              "minimises).\n")
        print("| model | blocks | ops | per-use | greedy | optimal | "
              "moved, greedy | moved, optimal |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|")
        for model, dialect in MODELS:
            for blocks in sizes:
                generate(model, dialect, blocks, path)
                ops = count_ops(opt, path)
                greedy = report(opt, path, "greedy", tmp)
                optimal = report(opt, path, "optimal", tmp)
                row = {"model": f"{model} ({dialect})", "blocks": blocks,
                       "ops": ops,
                       "per_use": [greedy["per_use_casts"],
                                   greedy["per_use_bytes_converted"]],
                       "greedy": [greedy["casts"], greedy["bytes_converted"],
                                  greedy["bytes_moved"]],
                       "optimal": [optimal["casts"],
                                   optimal["bytes_converted"],
                                   optimal["bytes_moved"]]}
                results["placement"].append(row)
                if optimal["bytes_moved"] > greedy["bytes_moved"]:
                    print(f"error: optimal moves more bytes than greedy on "
                          f"{row['model']} x{blocks}", file=sys.stderr)
                    return 1
                print(f"| {row['model']} | {blocks} | {ops} | "
                      f"{row['per_use'][0]} / {kib(row['per_use'][1])} | "
                      f"{row['greedy'][0]} / {kib(row['greedy'][1])} | "
                      f"{row['optimal'][0]} / {kib(row['optimal'][1])} | "
                      f"{kib(row['greedy'][2])} | "
                      f"{kib(row['optimal'][2])} |")

        print("\n## Low-precision bytes: achieved / ideal\n")
        print("Float tensor bytes that compute ops read and write in the low "
              "type (at its width), as a share of the ideal's (Apex O2 for "
              "O2, autocast for O1); in brackets, the KiB.\n")
        print("| model | blocks | O1 | O2 |")
        print("|---|---:|---:|---:|")
        inputs = [(f"{model} ({dialect})", blocks, (model, dialect))
                  for model, dialect in MODELS
                  for blocks in [n for n in (1, 10, 100) if n in sizes]]
        inputs += [(f"examples/{name}", "", None) for name in EXAMPLES]
        for name, blocks, generated in inputs:
            if generated:
                generate(generated[0], generated[1], blocks, path)
                source = path
            else:
                source = os.path.join(HERE, "..", name)
            cells = []
            for level in ("o1", "o2"):
                r = report(opt, source, "optimal", tmp, level)
                cells.append(f"{r['ideal_fraction']:.3f} "
                             f"({kib(r['ideal_reached_bytes'])} / "
                             f"{kib(r['ideal_low_precision_bytes'])})")
                results["low_precision"].append(
                    {"model": name, "blocks": blocks, "level": level.upper(),
                     "ideal_fraction": r["ideal_fraction"],
                     "reached_bytes": r["ideal_reached_bytes"],
                     "ideal_bytes": r["ideal_low_precision_bytes"],
                     "low_bytes": r["low_precision_bytes"]})
            print(f"| {name} | {blocks} | {cells[0]} | {cells[1]} |")

        if not args.no_timing:
            print("\n## Compile time: `--amp-o2` vs `--canonicalize --cse`"
                  " (same inputs, same run)\n")
            print("CPU time (user + system) of the whole command, median of "
                  f"at least {args.repeat} alternating runs (as many as take "
                  f"about {args.min_seconds:g} s per command):\n")
            print("| model | blocks | ops | amp-o2 (s) | canonicalize+cse, "
                  "amp-opt (s) | ratio | canonicalize+cse, mlir-opt (s) | "
                  "ratio |")
            print("|---|---:|---:|---:|---:|---:|---:|---:|")
            passes = []
            for model, dialect in MODELS:
                previous = None
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
                    # Small models run for tens of milliseconds, mostly
                    # process start-up, with the machine's noise on top: run
                    # each command for about --min-seconds in all.
                    runs = max(args.repeat, min(20 * args.repeat, int(
                        args.min_seconds / max(timed(base_cmd), 1e-3))))
                    for _ in range(runs):
                        amp.append(timed(amp_cmd))
                        base.append(timed(base_cmd))
                        if upstream_cmd:
                            upstream.append(timed(upstream_cmd))
                        amp_pass.append(pass_time(amp_cmd))
                        base_pass.append(pass_time(base_cmd))
                    a, b = statistics.median(amp), statistics.median(base)
                    c = statistics.median(upstream) if upstream else None
                    growth = ""
                    if previous:
                        growth = (f" (x{ops / previous[0]:.1f} ops: "
                                  f"x{a / previous[1]:.1f} time)")
                    previous = (ops, a)
                    pa = statistics.median(amp_pass)
                    pb = statistics.median(base_pass)
                    results["timing"].append(
                        {"model": f"{model} ({dialect})", "blocks": blocks,
                         "ops": ops, "amp_o2_s": a, "canonicalize_cse_s": b,
                         "mlir_opt_canonicalize_cse_s": c,
                         "amp_o2_passes_s": pa,
                         "canonicalize_cse_passes_s": pb})
                    passes.append((model, dialect, blocks, ops, pa, pb))
                    print(f"| {model} ({dialect}) | {blocks} | {ops} | "
                          f"{a:.3f} | {b:.3f} | {a / b:.2f}{growth} | "
                          f"{fmt(c, '.3f')} | {ratio(a, c)} |")
            print("\nThe passes alone (`--mlir-timing`, each pass with the "
                  "verifier after it; parsing and printing left out), "
                  "amp-opt:\n")
            print("| model | blocks | ops | amp-o2 pipeline (s) | "
                  "canonicalize + cse (s) | ratio |")
            print("|---|---:|---:|---:|---:|---:|")
            for model, dialect, blocks, ops, pa, pb in passes:
                print(f"| {model} ({dialect}) | {blocks} | {ops} | {pa:.3f} "
                      f"| {pb:.3f} | {ratio(pa, pb)} |")
        if args.instructions:
            print("\n## Compile work in instructions: `--amp-o2` vs "
                  "`--canonicalize --cse`\n")
            print("| model | blocks | ops | amp-o2 (Ginstr) | "
                  "canonicalize+cse, amp-opt (Ginstr) | ratio | "
                  "canonicalize+cse, mlir-opt (Ginstr) | ratio |")
            print("|---|---:|---:|---:|---:|---:|---:|---:|")
            for model, dialect in MODELS:
                previous = None
                for blocks in [n for n in (10, 100, 1000)
                               if n <= args.instructions]:
                    generate(model, dialect, blocks, path)
                    ops = count_ops(opt, path)
                    a = instructions([opt, path, "--amp-o2", "-o",
                                      os.devnull], tmp)
                    b = instructions([opt, path, "--canonicalize", "--cse",
                                      "-o", os.devnull], tmp)
                    c = instructions([mlir_opt, path, "--canonicalize",
                                      "--cse", "-o", os.devnull],
                                     tmp) if mlir_opt else None
                    growth = ""
                    if previous:
                        growth = (f" (x{ops / previous[0]:.1f} ops: "
                                  f"x{a / previous[1]:.1f} instructions)")
                    previous = (ops, a)
                    results["instructions"].append(
                        {"model": f"{model} ({dialect})", "blocks": blocks,
                         "ops": ops, "amp_o2": a, "canonicalize_cse": b,
                         "mlir_opt_canonicalize_cse": c})
                    print(f"| {model} ({dialect}) | {blocks} | {ops} | "
                          f"{a / 1e9:.3f} | {b / 1e9:.3f} | "
                          f"{a / b:.2f}{growth} | "
                          f"{fmt(c and c / 1e9, '.3f')} | {ratio(a, c)} |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
