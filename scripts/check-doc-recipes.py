#!/usr/bin/python3
"""Execute the recipes of a markdown page and compare with their outputs.

    /usr/bin/python3 scripts/check-doc-recipes.py --bin-dir build/bin \
        [--feature cuda-toolkit] [--keep] docs/recipes.md

The markup (documented for authors in docs/recipes.md, "How this page is
checked"):

* Every `## ` heading starts a recipe; a section without a ```sh block is
  prose, not a recipe.
* `<!-- file: PATH -->` right before a fenced block: the block is an input
  file. It is written to PATH in the recipe's working directory, which
  mirrors the page's directory. If the page's directory already has PATH
  (an input kept in the repository, e.g. docs/recipes/x.mlir), the block
  must be that file verbatim.
* A ```sh block holds commands: lines starting with `$ `, continued by a
  trailing backslash; `#` lines are comments. The next fenced block must be
  ```text: the expected output, stdout and stderr of the commands together.
  In it a line that is exactly `...` matches any number of lines, and `...`
  inside a line matches any text within that line.
* `<!-- requires: FEATURE -->` right before a ```sh block runs it only when
  `--feature FEATURE` is given; otherwise it is reported as skipped.
* Links are not this script's business: scripts/check-doc-links.py checks
  them on every page (test/Docs/links.test).

* A file named in a command (`recipes/...`, `$AMP_SRC/...`) must exist
  when the block runs.

Each recipe runs in a fresh temporary directory that starts as a copy of the
page's `recipes/` directory plus the files written so far in that recipe,
with the bin dir first on PATH, `python3` being this interpreter, and
AMP_SRC set to the repository root. The commands of one ```sh block run in
one bash (`cd` carries over), with `set -e -o pipefail`: a non-zero exit
status fails the recipe. In the output, the temporary directory is replaced
by `.` and the repository root by `$AMP_SRC`, so expected outputs hold no
absolute paths.

Prints `PASS <recipe>` or `FAIL <recipe>` (with the reason and a diff) per
recipe, then `N recipes: N passed, N failed`; exits 1 if any recipe failed
or the page has no recipe.
"""
import argparse
import difflib
import os
import re
import shutil
import subprocess
import sys
import tempfile

FENCE = re.compile(r"^(```+|~~~+)\s*([\w.+-]*)\s*$")
MARKER = re.compile(r"^<!--\s*(file|requires)\s*:\s*(\S+)\s*-->\s*$")
COMMAND_TIMEOUT_S = 300


class Block:
    def __init__(self, lang, lines, line_no, markers):
        self.lang = lang
        self.lines = lines
        self.line_no = line_no  # line of the opening fence, 1-based
        self.markers = markers  # list of (kind, value)

    def marker(self, kind):
        for k, v in self.markers:
            if k == kind:
                return v
        return None


class Recipe:
    def __init__(self, title, line_no):
        self.title = title
        self.line_no = line_no
        self.blocks = []
        self.errors = []  # markup errors found while parsing


def parse(text):
    """Split the page into sections (recipes) of blocks."""
    preamble = Recipe("(preamble)", 1)
    recipes = [preamble]
    lines = text.split("\n")
    markers = []
    i = 0
    while i < len(lines):
        line = lines[i]
        fence = FENCE.match(line)
        if line.startswith("## "):
            recipes.append(Recipe(line[3:].strip(), i + 1))
            for kind, value in markers:
                recipes[-2].errors.append(
                    "line %d: <!-- %s: %s --> is not followed by a fenced "
                    "block" % (i, kind, value))
            markers = []
        elif fence:
            closing = fence.group(1)
            start = i
            body = []
            i += 1
            while i < len(lines) and lines[i].strip() != closing:
                body.append(lines[i])
                i += 1
            if i == len(lines):
                recipes[-1].errors.append(
                    "line %d: unterminated fenced block" % (start + 1))
            recipes[-1].blocks.append(
                Block(fence.group(2), body, start + 1, markers))
            markers = []
        else:
            marker = MARKER.match(line.strip())
            if marker:
                markers.append((marker.group(1), marker.group(2)))
            elif line.strip() and markers:
                for kind, value in markers:
                    recipes[-1].errors.append(
                        "line %d: <!-- %s: %s --> is not followed by a "
                        "fenced block" % (i + 1, kind, value))
                markers = []
        i += 1
    for kind, value in markers:
        recipes[-1].errors.append(
            "<!-- %s: %s --> at the end of the page is not followed by a "
            "fenced block" % (kind, value))
    return recipes


def split_commands(block):
    """The commands of an sh block: `$ ` lines with their continuations."""
    commands, errors = [], []
    current = None
    for offset, line in enumerate(block.lines):
        line_no = block.line_no + 1 + offset
        if current is not None:
            current.append(line)
        elif line.startswith("$ "):
            current = [line[2:]]
        elif not line.strip() or line.lstrip().startswith("#"):
            continue
        else:
            errors.append("line %d: an sh block holds only `$ ` commands, "
                          "continuations and comments: %r" % (line_no, line))
            continue
        if not line.endswith("\\"):
            commands.append("\n".join(current))
            current = None
    if current is not None:
        errors.append("line %d: the last command ends with a backslash"
                      % (block.line_no + len(block.lines)))
    return commands, errors


# A number in scientific notation (an error figure: 3.759e-04).
SCIENTIFIC = re.compile(r"-?\d\.\d+e[-+]\d+")


def close_figures(pattern, line):
    """The line is the pattern but for error figures that differ in their
    last printed digit (0.2%): a CPU BLAS (OpenBLAS's kernel for the host)
    may sum a GEMM in another order than the machine the docs were made
    on. Everything else must be equal."""
    if SCIENTIFIC.sub("#", pattern) != SCIENTIFIC.sub("#", line):
        return False
    for want, got in zip(SCIENTIFIC.findall(pattern), SCIENTIFIC.findall(line)):
        a, b = float(want), float(got)
        if abs(a - b) > 2e-3 * max(abs(a), abs(b)):
            return False
    return True


def line_matches(pattern, line):
    if "..." not in pattern:
        return pattern == line or close_figures(pattern, line)
    parts = pattern.split("...")
    regex = ".*".join(re.escape(p) for p in parts)
    return re.fullmatch(regex, line) is not None


def output_matches(expected, actual):
    """`...` alone on a line matches any number of lines (doctest-like)."""
    memo = {}

    def match(i, j):
        key = (i, j)
        if key in memo:
            return memo[key]
        if i == len(expected):
            result = j == len(actual)
        elif expected[i] == "...":
            result = any(match(i + 1, k) for k in range(j, len(actual) + 1))
        else:
            result = (j < len(actual) and line_matches(expected[i], actual[j])
                      and match(i + 1, j + 1))
        memo[key] = result
        return result

    sys.setrecursionlimit(max(10000, 4 * (len(expected) + len(actual))))
    return match(0, 0)


def normalize(lines):
    lines = [l.rstrip() for l in lines]
    while lines and not lines[-1]:
        lines.pop()
    while lines and not lines[0]:
        lines.pop(0)
    return lines


def run_recipe(recipe, page_dir, args, env_base, src_root):
    """Returns (status, messages): status is PASS or FAIL."""
    problems = list(recipe.errors)
    notes = []

    work = tempfile.mkdtemp(prefix="amp-recipe-")
    real_work = os.path.realpath(work)
    try:
        recipes_dir = os.path.join(page_dir, "recipes")
        if os.path.isdir(recipes_dir):
            shutil.copytree(recipes_dir, os.path.join(work, "recipes"))
        env = dict(env_base)
        env["PWD"] = work
        blocks = recipe.blocks
        for index, block in enumerate(blocks):
            if problems:
                break
            path = block.marker("file")
            if path is not None:
                if os.path.isabs(path) or ".." in path.split("/"):
                    problems.append("line %d: file: %s must be a relative "
                                    "path inside the page's directory"
                                    % (block.line_no, path))
                    break
                content = "\n".join(block.lines) + "\n"
                in_repo = os.path.join(page_dir, path)
                if os.path.exists(in_repo):
                    with open(in_repo) as f:
                        kept = f.read()
                    if kept != content:
                        diff = difflib.unified_diff(
                            kept.splitlines(), content.splitlines(),
                            path + " (in the repository)",
                            "the block at line %d" % block.line_no,
                            lineterm="")
                        problems.append(
                            "line %d: the block differs from %s, which it "
                            "shows:\n%s" % (block.line_no, path,
                                            "\n".join(diff)))
                        break
                target = os.path.join(work, path)
                os.makedirs(os.path.dirname(target), exist_ok=True)
                with open(target, "w") as f:
                    f.write(content)
                continue
            if block.lang != "sh":
                if block.marker("requires"):
                    problems.append("line %d: <!-- requires --> belongs "
                                    "before a ```sh block" % block.line_no)
                continue
            nxt = blocks[index + 1] if index + 1 < len(blocks) else None
            if nxt is None or nxt.lang != "text" or nxt.markers:
                problems.append("line %d: the sh block has no expected "
                                "output (a ```text block right after it)"
                                % block.line_no)
                break
            commands, errors = split_commands(block)
            if errors or not commands:
                problems.extend(errors or ["line %d: the sh block has no "
                                           "`$ ` command" % block.line_no])
                break
            feature = block.marker("requires")
            if feature and feature not in args.feature:
                notes.append("line %d: skipped, needs %s"
                             % (block.line_no, feature))
                continue
            failed = None
            for command in commands:
                for ref in re.findall(r"(?:\$AMP_SRC|\$\{AMP_SRC\})"
                                      r"(/[\w./-]+)", command):
                    if not os.path.exists(src_root + ref):
                        failed = "the command names a missing file " \
                                 "$AMP_SRC%s" % ref
                for ref in re.findall(r"(?<![\w/$.-])(recipes/[\w./-]+)",
                                      command):
                    if not os.path.exists(os.path.join(work, ref)):
                        failed = "the command names a missing file %s" % ref
            output = []
            if not failed:
                # One shell per block: `cd` and variables carry over to the
                # next command; the first failing command stops the block.
                script = "exec 2>&1\nset -e -o pipefail\n" + \
                    "\n".join(commands) + "\n"
                try:
                    proc = subprocess.run(
                        ["bash", "-c", script], cwd=work, env=env,
                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                        timeout=COMMAND_TIMEOUT_S)
                    output = proc.stdout.decode("utf-8", "replace").split("\n")
                    if proc.returncode != 0:
                        failed = "exit status %d" % proc.returncode
                except subprocess.TimeoutExpired:
                    failed = "timed out after %d s" % COMMAND_TIMEOUT_S
            actual = []
            for line in output:
                line = line.replace(real_work + "/", "").replace(work + "/", "")
                line = line.replace(real_work, ".").replace(work, ".")
                line = line.replace(src_root, "$AMP_SRC")
                actual.append(line)
            actual = normalize(actual)
            expected = normalize(nxt.lines)
            if failed or not output_matches(expected, actual):
                message = "line %d: %s" % (block.line_no,
                                           failed or "the output differs")
                if output or not failed:
                    diff = difflib.unified_diff(
                        expected, actual, "expected (line %d)" % nxt.line_no,
                        "actual", lineterm="")
                    message += "\n" + "\n".join(diff)
                problems.append(message)
                break
    finally:
        if args.keep:
            notes.append("kept %s" % work)
        else:
            shutil.rmtree(work, ignore_errors=True)
    return ("FAIL" if problems else "PASS"), problems, notes


def main():
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("page", help="the markdown page, e.g. docs/recipes.md")
    parser.add_argument("--bin-dir", required=True,
                        help="the build's bin directory (amp-opt, amp-run)")
    parser.add_argument("--src-root",
                        default=os.path.dirname(os.path.dirname(
                            os.path.abspath(__file__))),
                        help="the repository root, $AMP_SRC in commands")
    parser.add_argument("--feature", action="append", default=[],
                        help="a feature that <!-- requires: --> may name")
    parser.add_argument("--keep", action="store_true",
                        help="keep the temporary directories")
    args = parser.parse_args()

    page = os.path.abspath(args.page)
    page_dir = os.path.dirname(page)
    src_root = os.path.realpath(args.src_root)
    bin_dir = os.path.abspath(args.bin_dir)
    for tool in ("amp-opt", "amp-run"):
        if not os.access(os.path.join(bin_dir, tool), os.X_OK):
            print("error: %s not found in %s" % (tool, bin_dir))
            return 2
    with open(page) as f:
        recipes = parse(f.read())

    shim = tempfile.mkdtemp(prefix="amp-recipe-python-")
    os.symlink(sys.executable, os.path.join(shim, "python3"))
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([bin_dir, shim, env.get("PATH", "")])
    env["AMP_SRC"] = src_root
    env["LC_ALL"] = "C"

    passed = failed = 0
    try:
        for recipe in recipes:
            is_recipe = any(b.lang == "sh" for b in recipe.blocks)
            if not is_recipe:
                # Prose: its markers must still be valid.
                bad = list(recipe.errors)
                if bad or any(b.markers for b in recipe.blocks):
                    bad += ["line %d: a marked block outside a recipe "
                            "(no ```sh block in this section)" % b.line_no
                            for b in recipe.blocks if b.markers]
                    print("FAIL %s" % recipe.title)
                    for message in bad:
                        print("  " + message.replace("\n", "\n  "))
                    failed += 1
                continue
            status, problems, notes = run_recipe(recipe, page_dir, args, env,
                                                 src_root)
            print("%s %s" % (status, recipe.title))
            for message in problems + notes:
                print("  " + message.replace("\n", "\n  "))
            sys.stdout.flush()
            if status == "PASS":
                passed += 1
            else:
                failed += 1
    finally:
        shutil.rmtree(shim, ignore_errors=True)
    print("%d recipes: %d passed, %d failed" % (passed + failed, passed,
                                                 failed))
    if passed + failed == 0:
        print("error: no recipe (no ```sh block) in %s" % args.page)
        return 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
