#!/usr/bin/env python3
"""amp-mlir demo: run amp-opt on the bundled examples and say what it did.

1. The dialect: parse and verify an example that uses every amp op, check
   that it round-trips through MLIR's generic form unchanged, and print the
   operation count per dialect.
2. The AMP pipelines: run --amp-o1 and --amp-o2 on each model example and
   print their precision reports; TOSA outputs are also checked with
   `mlir-opt --tosa-validate` when mlir-opt is available.
3. Execution: run one model with amp-run at O1 and O2 on the CPU, against
   its fp32 original (--compare), and print the error table.
"""

import argparse
import collections
import os
import re
import shutil
import subprocess
import sys
import tempfile

AMP_OPS = [
    "amp.cast",
    "amp.check_finite_and_unscale",
    "amp.fp16_guard",
    "amp.scale_loss",
    "amp.update_loss_scaling",
    "amp.yield",
]


def run(cmd, stdin=None):
    proc = subprocess.run(cmd, input=stdin, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr)
        sys.exit(f"demo: error: '{' '.join(cmd)}' exited with {proc.returncode}")
    return proc


def run_pipelines(opt, mlir_opt, example):
    """Runs --amp-o1 and --amp-o2 on `example` and prints the reports."""
    print(f"\n{example}")
    for level in ("o1", "o2"):
        with tempfile.TemporaryDirectory() as tmp:
            report = os.path.join(tmp, "report.txt")
            output = os.path.join(tmp, "out.mlir")
            run([opt, example, f"--amp-{level}=report=text report-file={report}",
                 "-o", output])
            with open(report) as f:
                lines = f.read().rstrip().splitlines()
            print("  " + lines[0])
            for line in lines[1:]:
                print("  " + line)
            checks = ["output verifies"]
            with open(output) as f:
                text = f.read()
            if "amp.fp16_guard" in text or "amp.cast" in text:
                sys.exit(f"demo: error: amp.fp16_guard/amp.cast left in the "
                         f"--amp-{level} output of {example}")
            checks.append("upstream dialects only")
            if "tosa." in text and mlir_opt:
                run([mlir_opt, output, "--tosa-validate", "-o", os.devnull])
                checks.append("passes --tosa-validate")
            print("    (" + ", ".join(checks) + ")")


def run_models(amp_run, model):
    """Runs `model` with amp-run at O1 and O2 against fp32 and prints it."""
    print(f"\namp-run (CPU, JIT): AMP against the fp32 original, random "
          f"inputs")
    shown = os.path.relpath(model)
    if shown.startswith(".."):
        shown = model
    for level in ("O1", "O2"):
        output = run([amp_run, shown, f"--level={level}", "--compare"]).stdout
        for line in output.rstrip().splitlines():
            print("  " + line)


def find_amp_run(amp_opt):
    """amp-run next to amp-opt (as built), or None."""
    path = shutil.which(amp_opt) or amp_opt
    candidate = os.path.join(os.path.dirname(os.path.abspath(path)), "amp-run")
    return candidate if os.access(candidate, os.X_OK) else None


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--amp-opt", default="build/bin/amp-opt")
    parser.add_argument("--mlir-opt", default=shutil.which(
        "mlir-opt", path="/usr/lib/llvm-22/bin:" + os.environ.get("PATH", "")))
    parser.add_argument("input", help="example that uses every amp op")
    parser.add_argument("models", nargs="*",
                        help="examples to run the AMP pipelines on")
    parser.add_argument("--amp-run", default=None,
                        help="amp-run to execute --run-model with (default: "
                             "the one next to amp-opt; skipped if none)")
    parser.add_argument("--run-model", default=os.path.join(
        os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
        "examples", "tosa_mlp_classifier.mlir"),
                        help="model that amp-run executes")
    args = parser.parse_args()
    opt = args.amp_opt

    print(f"amp-mlir demo: {args.input}")

    # 1. Parse and verify (amp-opt verifies after parsing and after printing).
    custom = run([opt, args.input]).stdout
    print("  parsed and verified:            ok")

    # 2. Round trip through the generic form and back.
    generic = run([opt, args.input, "--mlir-print-op-generic"]).stdout
    back = run([opt, "-"], stdin=generic).stdout
    again = run([opt, "-"], stdin=custom).stdout
    if back != custom or again != custom:
        sys.exit("demo: error: the module does not round-trip unchanged")
    print("  custom -> generic -> custom:    identical")
    print("  custom -> custom:               identical")

    # 3. Operation counts per dialect.
    stats = run([opt, args.input, "--print-op-stats", "-o", "/dev/null"])
    counts = collections.Counter()
    for line in (stats.stderr + stats.stdout).splitlines():
        match = re.match(r"^\s+([\w.]+)\s*,\s*(\d+)$", line)
        if match:
            counts[match.group(1)] += int(match.group(2))
    if not counts:
        sys.exit("demo: error: no operation statistics from amp-opt")

    missing = [op for op in AMP_OPS if op not in counts]
    if missing:
        sys.exit(f"demo: error: the example does not use {', '.join(missing)}")
    print(f"  uses every amp op:              yes ({len(AMP_OPS)} of "
          f"{len(AMP_OPS)})")

    per_dialect = collections.defaultdict(dict)
    for name, count in counts.items():
        dialect, _, op = name.partition(".")
        per_dialect[dialect][op] = count
    total = sum(counts.values())
    print(f"  operations per dialect ({total} in all, counting the bodies "
          f"of linalg named ops):")
    for dialect in sorted(per_dialect, key=lambda d: (-sum(
            per_dialect[d].values()), d)):
        ops = per_dialect[dialect]
        detail = ", ".join(f"{op} {n}" for op, n in sorted(ops.items()))
        print(f"    {dialect:<10}{sum(ops.values()):>4}   ({detail})")

    if args.models:
        print("\nAMP pipelines (amp-opt --amp-o1 / --amp-o2):")
    for model in args.models:
        run_pipelines(opt, args.mlir_opt, model)

    amp_run = args.amp_run or find_amp_run(opt)
    if amp_run:
        run_models(amp_run, args.run_model)
    else:
        print("\namp-run: not built, execution skipped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
