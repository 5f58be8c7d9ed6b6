#!/usr/bin/env python3
"""Checks that no C or C++ function in lib/ and tools/ is longer than
LIMIT lines (issue 46: a function that does one job reads in one screen or
two), unless a comment right above it says why it must stay whole:

    check-function-lengths.py [--root REPO] [--limit 150]

A function is a brace block opened at namespace or class scope after a
parenthesised parameter list; its length counts the lines from that brace
to the closing one. The exemption is a comment line starting with
`// Kept whole:` (and its reason) among the comment lines directly above
the function's signature. An exemption on a function no longer over the
limit is reported too, so that it is removed when the function is split.

Exits 1 and prints one line per problem (`file:line: N lines: signature`)."""

import argparse
import os
import re
import sys

EXEMPTION = "// Kept whole:"
FOLDERS = ["lib", "tools"]


def strip(line, state):
    """`line` without comments and string or character literals; `state`
    carries whether a /* comment is open."""
    out = ""
    i = 0
    while i < len(line):
        if state["comment"]:
            end = line.find("*/", i)
            if end < 0:
                return out
            state["comment"] = False
            i = end + 2
            continue
        c = line[i]
        if line.startswith("//", i):
            break
        if line.startswith("/*", i):
            state["comment"] = True
            i += 2
            continue
        if c in "\"'":
            j = i + 1
            while j < len(line) and line[j] != c:
                j += 2 if line[j] == "\\" else 1
            out += c + c
            i = j + 1
            continue
        out += c
        i += 1
    return out


def functions(lines):
    """(first line of the body, its last line, the text before the brace)
    of each function, 0-based."""
    state = {"comment": False}
    stack, pending = [], ""
    for number, raw in enumerate(lines):
        line = strip(raw, state)
        if line.lstrip().startswith("#"):
            continue
        for c in line:
            if c == "{":
                declaration = all(kind == "scope" for kind in stack)
                text = " ".join(pending.split())
                if (declaration and "(" in text and not text.endswith("=")
                        and not re.search(
                            r"\b(class|struct|namespace|enum|union)\b[^(]*$",
                            text)):
                    stack.append(("function", number, text))
                elif declaration and (re.search(
                        r"\b(class|struct|namespace|union)\b", text)
                        or text.startswith("extern")):
                    stack.append("scope")
                else:
                    stack.append("block")
                pending = ""
            elif c == "}":
                if stack:
                    kind = stack.pop()
                    if isinstance(kind, tuple):
                        yield kind[1], number, kind[2]
                pending = ""
            elif c == ";":
                pending = ""
            else:
                pending += c
        pending += " "


def signature_start(lines, brace):
    """The first line of the declaration whose body opens at `brace`."""
    i = brace
    while i > 0:
        previous = lines[i - 1].strip()
        if (not previous or previous.startswith(("//", "#", "}"))
                or previous.endswith((";", "{", "}"))):
            return i
        i -= 1
    return i


def exempted(lines, start):
    """Whether the comment lines right above `start` hold the exemption."""
    i = start - 1
    while i >= 0 and lines[i].strip().startswith("//"):
        if lines[i].strip().startswith(EXEMPTION):
            return True
        i -= 1
    return False


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), ".."))
    parser.add_argument("--limit", type=int, default=150)
    args = parser.parse_args()
    problems, files, count, exemptions = [], 0, 0, 0
    for folder in FOLDERS:
        for root, _, names in sorted(os.walk(os.path.join(args.root, folder))):
            for name in sorted(names):
                if not name.endswith((".c", ".cpp", ".h")):
                    continue
                path = os.path.join(root, name)
                relative = os.path.relpath(path, args.root)
                with open(path, errors="replace") as f:
                    lines = f.read().split("\n")
                files += 1
                for first, last, text in functions(lines):
                    count += 1
                    length = last - first + 1
                    start = signature_start(lines, first)
                    kept = exempted(lines, start)
                    exemptions += kept
                    if length > args.limit and not kept:
                        problems.append(f"{relative}:{start + 1}: {length} "
                                        f"lines: {text[-70:]}")
                    elif kept and length <= args.limit:
                        problems.append(
                            f"{relative}:{start + 1}: {length} lines, not "
                            f"over {args.limit}: remove '{EXEMPTION}'")
    for problem in problems:
        print(problem)
    print(f"check-function-lengths: {files} files, {count} functions, "
          f"limit {args.limit} lines, {exemptions} kept whole: "
          f"{len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
