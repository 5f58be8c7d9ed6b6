#!/usr/bin/python3
"""Draw the precision graph of an MLIR module at an AMP level.

    precision-graph.py MODULE.mlir -o graph.svg --level O2 [--dtype bf16]
    precision-graph.py MODULE.mlir -o graph.png --level O1 \\
        --amp-options "placement=greedy custom-black-list=tosa.add"
    precision-graph.py MODULE.mlir -o graph.dot --level O0   # no AMP

Runs amp-opt on MODULE: `--amp-o1`/`--amp-o2` with `graph-file=...` (the
graph of the result), or `--amp-precision-graph` alone for O0 (the module as
written). Then renders the DOT with Graphviz's `dot` in the format of the
output's extension (svg, png, pdf; .dot writes the DOT text and needs no
Graphviz). Nodes are filled by precision (fp32 blue, f16 orange, bf16
green, grey for ops that are not float ops) and conversions are red
hexagons with their types and bytes per call; see docs/precision-graph.md.
"""

import argparse
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

REPO = pathlib.Path(__file__).resolve().parent.parent
FORMATS = ("svg", "png", "pdf", "dot")


def fail(message):
    print(f"precision-graph.py: error: {message}", file=sys.stderr)
    sys.exit(1)


def amp_opt_command(args, dot_path):
    """The amp-opt command line that writes the graph to `dot_path`."""
    command = [args.amp_opt, args.module, "-o", os.devnull]
    if args.level == "O0":
        options = [f"output={dot_path}", "title=amp-o0"]
        if args.max_nodes is not None:
            options.append(f"max-nodes={args.max_nodes}")
        command.append("--amp-precision-graph=" + " ".join(options))
        return command
    options = [f"graph-file={dot_path}"]
    if args.dtype:
        options.append(f"dtype={args.dtype}")
    if args.amp_options:
        options.append(args.amp_options)
    command.append(f"--amp-{args.level.lower()}=" + " ".join(options))
    return command


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("module", help="the MLIR module (.mlir)")
    parser.add_argument("-o", "--output", required=True,
                        help="the picture: .svg, .png, .pdf, or .dot for the "
                             "DOT text")
    parser.add_argument("--level", default="O2",
                        type=lambda s: s.upper(), choices=["O0", "O1", "O2"],
                        help="O0 (the module as written), O1 or O2 (default)")
    parser.add_argument("--dtype", choices=["f16", "bf16"],
                        help="the low-precision type at O1/O2 (default: f16, "
                             "or a policy file's)")
    parser.add_argument("--amp-options", default="",
                        help="more options of --amp-o1/--amp-o2, "
                             "space-separated (e.g. \"placement=greedy\")")
    parser.add_argument("--max-nodes", type=int,
                        help="amp-precision-graph's node limit (O0 only; "
                             "default 500)")
    parser.add_argument("--format", choices=FORMATS,
                        help="output format (default: from the extension)")
    parser.add_argument("--amp-opt", default=str(REPO / "build/bin/amp-opt"),
                        help="amp-opt to run (default: build/bin/amp-opt of "
                             "this checkout)")
    parser.add_argument("--dot", default="dot",
                        help="Graphviz's dot (default: dot on PATH)")
    args = parser.parse_args()

    fmt = args.format or pathlib.Path(args.output).suffix.lstrip(".").lower()
    if fmt not in FORMATS:
        fail(f"cannot tell the format of '{args.output}': use an extension "
             f"or --format ({', '.join(FORMATS)})")
    if args.level != "O0" and args.max_nodes is not None:
        fail("--max-nodes applies to O0 only (the pipelines use the default)")
    if not pathlib.Path(args.module).is_file():
        fail(f"no such module: '{args.module}'")
    if not (shutil.which(args.amp_opt) or os.access(args.amp_opt, os.X_OK)):
        fail(f"amp-opt not found at '{args.amp_opt}' (build it with "
             "`make`, or pass --amp-opt PATH)")
    dot = None
    if fmt != "dot":
        dot = shutil.which(args.dot)
        if not dot:
            fail(f"Graphviz's `dot` not found ('{args.dot}'): install "
                 "Graphviz (apt-get install graphviz), pass --dot PATH, or "
                 "write a .dot file")

    with tempfile.TemporaryDirectory(prefix="amp-graph-") as tmp:
        dot_path = os.path.join(tmp, "graph.dot")
        command = amp_opt_command(args, dot_path)
        result = subprocess.run(command, stderr=subprocess.PIPE, text=True)
        sys.stderr.write(result.stderr)
        if result.returncode != 0 or not os.path.exists(dot_path):
            fail(f"amp-opt failed (exit status {result.returncode}): "
                 + " ".join(command))
        if fmt == "dot":
            shutil.copyfile(dot_path, args.output)
            return
        result = subprocess.run([dot, f"-T{fmt}", dot_path, "-o",
                                 args.output], stderr=subprocess.PIPE,
                                text=True)
        sys.stderr.write(result.stderr)
        if result.returncode != 0:
            fail(f"dot failed (exit status {result.returncode})")


if __name__ == "__main__":
    main()
