#!/usr/bin/python3
"""Writes the seed corpus of amp-opt-fuzzer from the lit tests.

Usage: fuzz-seeds.py OUT_DIR [SRC_ROOT]

Every `*.mlir` file under SRC_ROOT/test and SRC_ROOT/examples (SRC_ROOT
defaults to the repository that holds this script) is cut at its
`-split-input-file` markers (`// -----` lines) and each chunk becomes one
file of OUT_DIR, named by the SHA-1 of its text (identical chunks are written
once). Full-line `//` comments (RUN, CHECK and expected-* lines) are dropped:
they do not reach the parser and only make the inputs longer. Chunks that
are left empty are skipped. Nothing else is filtered: chunks that do not
parse, or that crash upstream MLIR, are seeds too (docs/reliability.md).

Prints `fuzz-seeds: N seeds from M files in OUT_DIR`. Standard library only.
"""

import hashlib
import os
import re
import sys

SPLIT = re.compile(r"^\s*//\s*-----\s*$")
COMMENT = re.compile(r"^\s*//")


def chunks(text):
    """The -split-input-file chunks of `text`, comment lines dropped."""
    current = []
    for line in text.splitlines():
        if SPLIT.match(line):
            yield current
            current = []
        elif not COMMENT.match(line):
            current.append(line)
    yield current


def main(argv):
    if len(argv) not in (2, 3):
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    out_dir = argv[1]
    root = argv[2] if len(argv) == 3 else os.path.dirname(
        os.path.dirname(os.path.abspath(__file__)))
    os.makedirs(out_dir, exist_ok=True)
    seen = set()
    files = 0
    for top in ("test", "examples"):
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
            dirnames.sort()
            for name in sorted(filenames):
                if not name.endswith(".mlir"):
                    continue
                files += 1
                with open(os.path.join(dirpath, name), encoding="utf-8",
                          errors="replace") as f:
                    text = f.read()
                for lines in chunks(text):
                    seed = "\n".join(lines).strip()
                    if not seed:
                        continue
                    seed += "\n"
                    digest = hashlib.sha1(seed.encode()).hexdigest()
                    if digest in seen:
                        continue
                    seen.add(digest)
                    with open(os.path.join(out_dir, digest), "w",
                              encoding="utf-8") as f:
                        f.write(seed)
    print(f"fuzz-seeds: {len(seen)} seeds from {files} files in {out_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
