"""Wall time of amp_mlir.compile() on the bundled examples (examples/*.mlir):
every function of each, at O0, O1 and O2, and at O2 with pipeline options,
JIT-compiled for the CPU. Prints the seconds of each round after a warm-up.

    AMP_MLIR_ROOT=build python3 bench/python_compile.py [rounds]

Compare two builds by running it with each AMP_MLIR_ROOT (and the python/
package of the same checkout) in the same session, alternating.
"""

import glob
import os
import sys
import time
import warnings

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.environ.get("AMP_MLIR_PYTHON",
                                  os.path.join(REPO, "python")))
import amp_mlir  # noqa: E402

CONFIGS = (("O0", {}), ("O1", {}), ("O2", {}),
           ("O2", {"placement": "greedy", "arg_precision": "keep"}))


def one_round(examples):
    start = time.perf_counter()
    for path in examples:
        for level, options in CONFIGS:
            try:
                module = amp_mlir.compile(path, level=level, **options)
            except amp_mlir.AmpError:
                continue  # a module the C API cannot parse
            for name in module.function_names:
                try:
                    module[name]
                except amp_mlir.AmpError:
                    pass  # a forward-backward function at O1/O2
    return time.perf_counter() - start


def main():
    warnings.simplefilter("ignore")
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    examples = sorted(glob.glob(os.path.join(REPO, "examples", "*.mlir")))
    one_round(examples)
    print(" ".join(f"{one_round(examples):.3f}" for _ in range(rounds)))


if __name__ == "__main__":
    main()
