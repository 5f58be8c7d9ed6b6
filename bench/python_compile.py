#!/usr/bin/env python3
"""Wall and CPU time of the Python API on the bundled examples
(examples/*.mlir), for one or more builds side by side in one run:

  compile()    every function of each example at O0, O1 and O2,
               JIT-compiled for the CPU (the first use compiles them all);
  transform()  each example at O2 (the module as text);
  report()     each example at O1 and O2;
  graph        precision_graph() of each example at O2.

    /usr/bin/python3 bench/python_compile.py [--rounds 3]
        [--variant NAME=PYTHON_DIR:ROOT ...] [--json FILE]
        [--update-doc docs/performance.md] [--from-json FILE] [--check]

Each variant is a python/ package directory and the build tree or install
prefix it runs with (AMP_MLIR_ROOT); without --variant, this checkout's
python/ and build/. Each measurement is a fresh process: a warm-up round
(the libraries loaded, the caches warm), then one timed round; the
variants alternate, --rounds times, and the table gives the medians. CPU
time counts the process and its children (what a subprocess of amp-opt
spends). The first variant is the baseline of the speed-up column.

--update-doc writes the table between the python-api markers
(scripts/doctables.py) from this run, or from --from-json; with --check it
fails when the document differs from the rendering of --from-json's run.
"""

import argparse
import glob
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
import warnings

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import doctables  # noqa: E402

BLOCK = "python-api"
SCRIPT = "bench/python_compile.py"
OPERATIONS = ("compile", "transform", "report", "graph")


def _cpu():
    self = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (self.ru_utime + self.ru_stime + children.ru_utime +
            children.ru_stime)


def _round(amp_mlir, examples):
    """{operation: (wall seconds, CPU seconds)} of one round."""
    times = {}

    def timed(name, work):
        wall, cpu = time.perf_counter(), _cpu()
        work()
        times[name] = (time.perf_counter() - wall, _cpu() - cpu)

    def compile_all():
        for path in examples:
            for level in ("O0", "O1", "O2"):
                try:
                    module = amp_mlir.compile(path, level=level)
                except amp_mlir.AmpError:
                    continue
                for name in module.function_names:
                    try:
                        module[name]
                    except amp_mlir.AmpError:
                        pass  # a forward-backward function at O1/O2

    def transform_all():
        for path in examples:
            amp_mlir.transform(path, level="O2")

    def report_all():
        for path in examples:
            for level in ("O1", "O2"):
                amp_mlir.report(path, level=level)

    def graph_all():
        for path in examples:
            amp_mlir.precision_graph(path, level="O2")

    timed("compile", compile_all)
    timed("transform", transform_all)
    timed("report", report_all)
    timed("graph", graph_all)
    return times


def worker():
    """One warm-up round, then one timed round; prints its JSON."""
    warnings.simplefilter("ignore")
    import amp_mlir
    examples = sorted(glob.glob(os.path.join(ROOT, "examples", "*.mlir")))
    _round(amp_mlir, examples)
    print(json.dumps(_round(amp_mlir, examples)))


def measure(variants, rounds):
    results = {name: {op: [] for op in OPERATIONS} for name, _, _ in variants}
    for _ in range(rounds):
        for name, package, root in variants:
            env = dict(os.environ, PYTHONPATH=package, AMP_MLIR_ROOT=root)
            out = subprocess.run([sys.executable, os.path.abspath(__file__),
                                  "--worker"], env=env, check=True,
                                 capture_output=True, text=True).stdout
            for op, pair in json.loads(out.splitlines()[-1]).items():
                results[name][op].append(pair)
    return {
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs",
        "rounds": rounds,
        "examples": [os.path.relpath(p, ROOT) for p in sorted(
            glob.glob(os.path.join(ROOT, "examples", "*.mlir")))],
        "variants": [{"name": name, "times": results[name]}
                     for name, _, _ in variants],
    }


def render(run):
    base = run["variants"][0]

    def median(values, index):
        return statistics.median(v[index] for v in values)

    lines = [
        f"Seconds for the bundled examples ({', '.join(run['examples'])}), "
        f"median of {run['rounds']} alternating rounds, each in a fresh "
        f"process after a warm-up round ({run['machine']}); CPU counts the "
        f"process and its children; speed-up: the first row's wall time "
        f"over the row's.",
        "",
        "| build | operation | wall (s) | CPU (s) | speed-up |",
        "|---|---|---|---|---|",
    ]
    for variant in run["variants"]:
        for op in OPERATIONS:
            wall = median(variant["times"][op], 0)
            cpu = median(variant["times"][op], 1)
            speedup = median(base["times"][op], 0) / wall if wall else 0
            lines.append(f"| {variant['name']} | {op} | {wall:.3f} | "
                         f"{cpu:.3f} | {speedup:.2f}x |")
    return "\n".join(lines) + "\n"


def main(argv):
    if argv == ["--worker"]:
        return worker()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--variant", action="append", default=[],
                        metavar="NAME=PYTHON_DIR:ROOT")
    doctables.add_arguments(parser)
    args = parser.parse_args(argv)
    doctables.check_arguments(parser, args)

    def measure_run():
        variants = []
        for spec in args.variant or [
                f"this checkout={os.path.join(ROOT, 'python')}:"
                f"{os.path.join(ROOT, 'build')}"]:
            name, _, paths = spec.partition("=")
            package, _, root = paths.rpartition(":")
            variants.append((name, os.path.abspath(package),
                             os.path.abspath(root)))
        return measure(variants, args.rounds)

    run = doctables.load_or_measure(args, measure_run)
    return doctables.publish(args, {BLOCK: render(run)}, SCRIPT)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
