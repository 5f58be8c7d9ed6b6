#!/usr/bin/env python3
"""Checks the layering of docs/architecture.md ("Layers and what each
folder may include") on the sources:

    check-layers.py [--root REPO]

* Include rules: each folder's C and C++ files (sources and headers) may
  not include the headers the RULES below forbid it. A quoted include
  that names a file relative to the including one (`"../lib/Internal.h"`)
  is resolved and must stay inside the folder's allowed tree.
* Code rules: some folders may not contain some constructs (the dialect
  libraries do not emit calls of the runtime's ABI).
* EXCEPTIONS: a known violation that is being removed, with the reason.
  An exception that no longer matches anything fails the check, so it is
  deleted as soon as the code is fixed.

Exits 1 and prints one line per violation (`file:line: rule: text`)."""

import argparse
import os
import re
import sys

# (folder, forbidden include prefixes, why). A prefix ending in "/" matches
# a directory of headers; "amp/" forbids all of amp-mlir's compiler headers
# (amp/runtime/ is the runtime's own).
COMPILER = ["amp/Analysis/", "amp/Conversion/", "amp/Dialect/",
            "amp/Pipelines/", "amp/Runner/", "amp/Target/", "amp/Transforms/",
            "amp/InitAll.h", "amp-c/"]
RULES = [
    ("runtime", COMPILER + ["mlir/", "mlir-c/", "llvm/", "llvm-c/"],
     "the runtime builds without MLIR and without the compiler's libraries"),
    ("lib/Analysis", [p for p in COMPILER if p != "amp/Analysis/"]
     + ["amp/runtime/"],
     "analyses are pure algorithms under the dialect"),
    ("lib/Dialect", ["amp/Conversion/", "amp/Pipelines/", "amp/Runner/",
                     "amp/Target/", "amp/Transforms/", "amp/InitAll.h",
                     "amp-c/", "amp/runtime/"],
     "the dialect and its transforms depend on no lowering, pipeline, "
     "runner or runtime"),
    ("lib/Transforms", ["amp/Conversion/", "amp/Pipelines/", "amp/Runner/",
                        "amp/Target/", "amp/InitAll.h", "amp-c/",
                        "amp/runtime/"],
     "the lowering transforms that are not conversions sit under the "
     "conversions that use them, and emit no runtime call"),
    ("lib/Conversion", ["amp/Pipelines/", "amp/Runner/", "amp/InitAll.h",
                        "amp-c/"],
     "conversions are used by pipelines, not the other way round"),
    ("lib/Target", ["amp/Conversion/", "amp/Pipelines/", "amp/Runner/",
                    "amp/Transforms/", "amp/InitAll.h", "amp-c/",
                    "amp/runtime/"],
     "translations depend on the dialect only"),
    ("lib/Pipelines", ["amp/Runner/", "amp-c/", "amp/runtime/"],
     "pipelines assemble passes; running them is the runner's"),
    ("lib/InitAll", ["amp/Runner/", "amp-c/", "amp/runtime/"],
     "registration of dialects, passes and pipelines only"),
    ("lib/Runner", ["amp-c/"],
     "the runner is below its C API"),
]

# The runtime's X-macro tables (amp/runtime/*.def: the library calls, the
# dtypes, the mgpu* ABI, the scaler presets) are data both sides share;
# including one links nothing.
SHARED_TABLES = re.compile(r"^amp/runtime/[A-Za-z0-9_]+\.def$")

# Headers may not leave their folder through relative paths either: a
# relative include must resolve inside one of these trees.
OWN_TREE = {"runtime": ["runtime"]}

# (folder, regex, rule name, why): constructs a folder may not contain.
RUNTIME_CALLS = re.compile(
    r"LLVM::CallOp::create|LLVM::LLVMFuncOp::create|createRuntimeCall|"
    r"\"(?:amp|mgpu)[A-Z][A-Za-z0-9]*\"")
CODE_RULES = [
    ("lib/Dialect", RUNTIME_CALLS, "runtime-abi",
     "dialect libraries do not emit (or declare) runtime ABI calls; the "
     "conversions to LLVM and to library calls do"),
    ("lib/Analysis", RUNTIME_CALLS, "runtime-abi",
     "analyses do not emit runtime ABI calls"),
    ("lib/Transforms", RUNTIME_CALLS, "runtime-abi",
     "lowering transforms do not emit runtime ABI calls; the conversions "
     "do"),
]

# (file, rule name, why, until): known violations being removed. Each must
# still match: once the code is fixed the check fails until it is deleted.
EXCEPTIONS = []

SOURCES = (".c", ".h", ".cpp", ".hpp", ".cc", ".cu", ".cuh", ".inc", ".def")
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')


def files_under(root, folder):
    base = os.path.join(root, folder)
    for dirpath, dirnames, filenames in os.walk(base):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in sorted(filenames):
            if name.endswith(SOURCES):
                yield os.path.join(dirpath, name)


def check(root):
    problems, used = [], set()
    excepted = {(f, r): (why, until) for f, r, why, until in EXCEPTIONS}
    for folder, forbidden, why in RULES:
        trees = [os.path.join(root, t) for t in OWN_TREE.get(folder, [])]
        for path in files_under(root, folder):
            rel = os.path.relpath(path, root)
            with open(path, errors="replace") as f:
                lines = f.read().splitlines()
            for number, line in enumerate(lines, 1):
                match = INCLUDE.match(line)
                if not match:
                    continue
                quote, header = match.groups()
                bad = next((p for p in forbidden if header.startswith(p)),
                           None)
                if bad and SHARED_TABLES.match(header):
                    bad = None
                if bad and (rel, "include") in excepted:
                    used.add((rel, "include"))
                elif bad:
                    problems.append(f"{rel}:{number}: include: {folder} may "
                                    f"not include {bad} ({why}): {header}")
                elif quote == '"' and trees and header.startswith(".."):
                    target = os.path.normpath(
                        os.path.join(os.path.dirname(path), header))
                    if not any(target.startswith(t + os.sep)
                               for t in trees):
                        problems.append(
                            f"{rel}:{number}: include: {folder} may not "
                            f"include files outside "
                            f"{', '.join(OWN_TREE[folder])} ({why}): "
                            f"{header}")
    for folder, pattern, rule, why in CODE_RULES:
        for path in files_under(root, folder):
            rel = os.path.relpath(path, root)
            with open(path, errors="replace") as f:
                lines = f.read().splitlines()
            hits = [(n, l.strip()) for n, l in enumerate(lines, 1)
                    if pattern.search(l)]
            if not hits:
                continue
            if (rel, rule) in excepted:
                used.add((rel, rule))
                continue
            for number, text in hits:
                problems.append(f"{rel}:{number}: {rule}: {why}: {text}")
    for f, rule, why, until in EXCEPTIONS:
        if (f, rule) not in used:
            problems.append(
                f"{f}: exception: the {rule} exception ({why}) is no longer "
                f"needed: delete it from EXCEPTIONS in "
                f"scripts/check-layers.py and from docs/architecture.md")
    return problems


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=os.path.dirname(
        os.path.dirname(os.path.abspath(__file__))))
    args = parser.parse_args(argv)
    problems = check(args.root)
    for p in problems:
        print(p)
    count = sum(1 for f in RULES for _ in files_under(args.root, f[0]))
    print(f"check-layers: {count} files, {len(RULES)} include rules, "
          f"{len(CODE_RULES)} code rules, {len(EXCEPTIONS)} exceptions: "
          f"{len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
