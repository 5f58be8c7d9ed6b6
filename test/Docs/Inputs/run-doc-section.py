"""Runs the ```python blocks of one section of a Markdown page, in order,
in one namespace, and checks what they print against the block's own
`# ` comment lines that follow its last print (the output the page
shows):

    run-doc-section.py PAGE "HEADING TEXT"

Prints each block's output, then `run-doc-section: N blocks, output as
shown` (exit 0) or a FAIL line naming the block (exit 1)."""

import contextlib
import io
import re
import sys
from pathlib import Path


def section(text, heading):
    """The text under the heading that starts with `heading`, up to the
    next heading of the same level or above (outside code blocks)."""
    lines = text.splitlines(keepends=True)
    fenced, start, level = False, None, 0
    for index, line in enumerate(lines):
        if line.startswith("```"):
            fenced = not fenced
            continue
        match = None if fenced else re.match(r"(#+) (.*)", line)
        if not match:
            continue
        if start is None and match.group(2).startswith(heading):
            start, level = index + 1, len(match.group(1))
        elif start is not None and len(match.group(1)) <= level:
            return "".join(lines[start:index])
    if start is None:
        sys.exit(f"FAIL: no heading starting with {heading!r}")
    return "".join(lines[start:])


def shown_output(block):
    """The `# ` lines after the block's last code line: what it prints."""
    lines = block.rstrip().splitlines()
    shown = []
    while lines and lines[-1].startswith("# "):
        shown.insert(0, lines.pop()[2:])
    return shown


def main():
    page, heading = Path(sys.argv[1]), sys.argv[2]
    blocks = re.findall(r"```python\n(.*?)```", section(page.read_text(),
                                                        heading), re.DOTALL)
    if not blocks:
        sys.exit(f"FAIL: no python block under {heading!r}")
    namespace = {"__name__": "__doc__"}
    for index, block in enumerate(blocks):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(block, f"{page.name} block {index}", "exec"),
                 namespace)
        printed = out.getvalue().splitlines()
        print("\n".join(printed))
        shown = shown_output(block)
        if shown and printed[-len(shown):] != shown:
            print(f"FAIL: block {index} printed {printed!r}, the page "
                  f"shows {shown!r}")
            return 1
    print(f"run-doc-section: {len(blocks)} blocks, output as shown")
    return 0


if __name__ == "__main__":
    sys.exit(main())
