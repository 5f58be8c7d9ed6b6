#!/usr/bin/env python3
"""amp-mlir demo: run amp-opt on a bundled example and say what it did.

For now (the foundation), the demo parses and verifies the example, checks
that it round-trips through MLIR's generic form unchanged, checks that it
uses every op of the amp dialect, and prints the operation count per dialect.
Later steps replace this with the AMP pipeline itself.
"""

import argparse
import collections
import re
import subprocess
import sys

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


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--amp-opt", default="build/bin/amp-opt")
    parser.add_argument("input")
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
    return 0


if __name__ == "__main__":
    sys.exit(main())
