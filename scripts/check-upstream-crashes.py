#!/usr/bin/python3
"""Checks that the upstream MLIR crashes documented in a page still crash.

Usage: check-upstream-crashes.py PAGE.md MLIR_OPT

Every fenced code block of PAGE.md that comes right after a line
`<!-- upstream-crash -->` is a reproducer: its text is written to a file and
MLIR_OPT (upstream mlir-opt, no options) runs on it. A reproducer that
crashes (killed by a signal, exit status 128 and above as the shell reports
one, or an AddressSanitizer report when MLIR_OPT is an ASan build of
amp-opt, whose SEGV handler exits with 1) prints `crashes: <its first line>`; one that does not prints
`NO LONGER CRASHES (exit N): <its first line>`: upstream fixed it, and the
page should say so. The last line is `check-upstream-crashes: N reproducers,
K crash`. Exits 1 when a reproducer does not crash or none is found.
Core dumps are turned off for the children. Standard library only.
"""

import os
import re
import resource
import subprocess
import sys
import tempfile

MARKER = "<!-- upstream-crash -->"


def reproducers(text):
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        if lines[i].strip() == MARKER:
            j = i + 1
            while j < len(lines) and not lines[j].strip():
                j += 1
            if j < len(lines) and re.match(r"^\s*```", lines[j]):
                k = j + 1
                body = []
                while k < len(lines) and not re.match(r"^\s*```", lines[k]):
                    body.append(lines[k])
                    k += 1
                yield "\n".join(body) + "\n"
                i = k
        i += 1


def no_core():
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    with open(argv[1], encoding="utf-8") as f:
        found = list(reproducers(f.read()))
    crashed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for n, snippet in enumerate(found):
            path = os.path.join(tmp, f"repro{n}.mlir")
            with open(path, "w", encoding="utf-8") as f:
                f.write(snippet)
            proc = subprocess.run([argv[2], path], capture_output=True,
                                  timeout=120, preexec_fn=no_core)
            first = snippet.splitlines()[0] if snippet.strip() else ""
            if (proc.returncode < 0 or proc.returncode >= 128 or
                    b"ERROR: AddressSanitizer:" in proc.stderr):
                crashed += 1
                print(f"crashes: {first}")
            else:
                print(f"NO LONGER CRASHES (exit {proc.returncode}): {first}")
    print(f"check-upstream-crashes: {len(found)} reproducers, "
          f"{crashed} crash")
    return 0 if found and crashed == len(found) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
