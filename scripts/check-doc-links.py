#!/usr/bin/python3
"""Checks the relative links of the documentation.

Usage: check-doc-links.py [ROOT] [FILE.md ...]

Checks README.md and docs/**/*.md under ROOT (default: the repository that
holds this script), or only the given FILEs (paths relative to ROOT or
absolute). For every relative markdown link, image, reference definition and
HTML href/src:

  - the target must exist (a file or a directory) inside ROOT;
  - a `#anchor` into a markdown page (or into the page itself) must match
    one of its headings under GitHub's slug rules: the heading's text,
    lowercased, with everything but letters, digits, spaces, '-' and '_'
    dropped and spaces turned into '-'; a repeated heading gets '-1', '-2'.
    Explicit `<a name=...>` / `id=...` anchors count too.

Links with a scheme (https:, mailto:, ...) are not checked, nor is anything
inside code blocks or inline code. Each broken link is printed as
`file:line: ...`; the last line is the summary
`check-doc-links: N links in M files, K broken`. The exit status is 1 when a
link is broken, 2 on a usage error. Standard library only.
"""

import os
import re
import sys
import urllib.parse

# Inline links and images: [text](target "title"), ![alt](<target>).
# The text may hold one level of nested brackets (an image inside a link).
INLINE_LINK = re.compile(
    r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]"
    r"\(\s*(<[^<>\n]*>|(?:[^\s()\\]|\\.|\([^\s()]*\))*)"
    r"(?:\s+(?:\"[^\"]*\"|'[^']*'|\([^()]*\)))?\s*\)")
# Reference definitions: [label]: target "title".
REFERENCE_DEF = re.compile(r"^ {0,3}\[[^\]\n]+\]:[ \t]*(<[^<>\n]*>|\S+)",
                           re.M)
# HTML attributes that hold links.
HTML_LINK = re.compile(
    r"<(?:a|img|source)\b[^>]*?\b(?:href|src)\s*=\s*(\"[^\"]*\"|'[^']*')",
    re.I)
# Explicit anchors in HTML.
HTML_ANCHOR = re.compile(r"<[a-z][^>]*?\b(?:name|id)\s*=\s*(\"[^\"]*\"|'[^']*')",
                         re.I)
ATX_HEADING = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$")
# A fence opens with 3+ backticks (whose info string has no backtick) or 3+
# tildes, and closes with at least as many of the same, and nothing else.
FENCE = re.compile(r"^ {0,3}(?:(`{3,})[^`]*|(~{3,}).*)$")
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def fence_lines(lines):
    """Yields (line, inside) for each line: whether it belongs to a fenced
    code block (the fences included)."""
    fence = None
    for line in lines:
        m = FENCE.match(line)
        if fence is None:
            if m:
                fence = m.group(1) or m.group(2)
                yield line, True
            else:
                yield line, False
            continue
        closing = m and (m.group(1) or m.group(2))
        if closing and closing[0] == fence[0] and len(closing) >= len(fence) \
                and not line.strip()[len(closing):].strip():
            fence = None
        yield line, True


def blank(match):
    """Replaces a match by spaces, keeping its newlines (and so line numbers)."""
    return re.sub(r"[^\n]", " ", match.group(0))


def strip_code(text):
    """Blanks fenced and indented code blocks and inline code spans."""
    out = []
    prev_blank = True
    for line, inside in fence_lines(text.split("\n")):
        if inside:
            out.append(" " * len(line))
            prev_blank = False
            continue
        # An indented code block starts after a blank line (not inside lists,
        # which these docs indent by two or three spaces).
        if prev_blank and (line.startswith("    ") or line.startswith("\t")) \
                and not re.match(r"^\s*([-*+]|\d+[.)])\s", line):
            out.append(" " * len(line))
            continue
        prev_blank = not line.strip()
        out.append(line)
    text = "\n".join(out)
    # Inline code: a run of N backticks up to the next run of exactly N,
    # not across a blank line.
    return re.sub(r"(?<!`)(`+)(?!`)(?:(?!\n[ \t]*\n).)*?(?<!`)\1(?!`)", blank,
                  text, flags=re.S)


def heading_text(raw):
    """The text GitHub renders for a heading's markdown source."""
    raw = re.sub(r"[ \t]+#+[ \t]*$", "", raw)       # closing hashes
    if re.fullmatch(r"#+", raw.strip()):
        raw = ""
    raw = re.sub(r"!\[([^\]]*)\]\([^)]*\)", r"\1", raw)   # images: alt
    raw = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", raw)    # links: text
    raw = re.sub(r"\[([^\]]*)\]\[[^\]]*\]", r"\1", raw)   # reference links
    raw = re.sub(r"<[^>]+>", "", raw)                     # HTML tags
    return raw


def slug(text):
    """GitHub's heading anchor: lowercase, keep letters, digits, spaces, '-'
    and '_', then spaces to '-'."""
    text = text.strip().lower()
    kept = "".join(c for c in text
                   if c.isalnum() or c in " -_" or c.isdigit())
    return kept.replace(" ", "-")


def anchors_of(path, cache={}):
    """The anchors a markdown page defines."""
    if path in cache:
        return cache[path]
    with open(path, encoding="utf-8") as f:
        text = f.read()
    anchors = set()
    counts = {}
    lines = strip_code_keep_headings(text)
    prev = None
    for line in lines:
        m = ATX_HEADING.match(line)
        title = None
        if m:
            title = m.group(2) or ""
        elif prev is not None and prev.strip() and re.match(r"^ {0,3}(=+|-+)[ \t]*$", line) \
                and not prev.lstrip().startswith(("|", "-", "*", "+", ">")) \
                and not ATX_HEADING.match(prev):
            title = prev.strip()
        if title is not None:
            base = slug(heading_text(title))
            n = counts.get(base, 0)
            counts[base] = n + 1
            anchors.add(base if n == 0 else "%s-%d" % (base, n))
            prev = None
            continue
        prev = line
    for m in HTML_ANCHOR.finditer(text):
        anchors.add(m.group(1)[1:-1])
    cache[path] = anchors
    return anchors


def strip_code_keep_headings(text):
    """The page's lines, with fenced code blocks emptied (inline code kept:
    GitHub keeps the text of code spans in the anchor)."""
    return ["" if inside else line
            for line, inside in fence_lines(text.split("\n"))]


def links_of(text):
    """(offset, target) of every link of a page, code excluded."""
    code_free = strip_code(text)
    found = []
    for m in INLINE_LINK.finditer(code_free):
        found.append((m.start(1), m.group(1)))
    for m in REFERENCE_DEF.finditer(code_free):
        found.append((m.start(1), m.group(1)))
    for m in HTML_LINK.finditer(code_free):
        found.append((m.start(1), m.group(1)[1:-1]))
    found.sort()
    return found


def check_link(root, page, target):
    """None if `target` (written in `page`) resolves, else the reason."""
    if target.startswith("<") and target.endswith(">"):
        target = target[1:-1]
    target = target.strip()
    if not target:
        return "empty link target"
    if SCHEME.match(target) or target.startswith("//"):
        return None                      # external: not checked
    path, _, anchor = target.partition("#")
    path = urllib.parse.unquote(re.sub(r"\\(.)", r"\1", path))
    anchor = urllib.parse.unquote(anchor)
    path = path.split("?", 1)[0]
    if not path:
        dest = page
    elif path.startswith("/"):
        dest = os.path.normpath(os.path.join(root, path.lstrip("/")))
    else:
        dest = os.path.normpath(os.path.join(os.path.dirname(page), path))
    rel = os.path.relpath(dest, root)
    if rel == os.pardir or rel.startswith(os.pardir + os.sep):
        return "points outside the repository (%s)" % rel
    if not os.path.exists(dest):
        return "no such file: %s" % rel
    if anchor and os.path.isfile(dest) and dest.endswith(".md"):
        if anchor not in anchors_of(dest):
            return "no heading for #%s in %s" % (anchor, rel)
    return None


def pages_under(root):
    pages = []
    readme = os.path.join(root, "README.md")
    if os.path.isfile(readme):
        pages.append(readme)
    for dirpath, dirnames, filenames in os.walk(os.path.join(root, "docs")):
        dirnames.sort()
        for name in sorted(filenames):
            if name.endswith(".md"):
                pages.append(os.path.join(dirpath, name))
    return pages


def main(argv):
    if any(a in ("-h", "--help") for a in argv):
        print(__doc__.strip())
        return 0
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    args = list(argv)
    if args and os.path.isdir(args[0]):
        root = os.path.abspath(args.pop(0))
    pages = []
    for a in args:
        p = a if os.path.isabs(a) else os.path.join(root, a)
        if not os.path.isfile(p):
            print("check-doc-links: no such page: %s" % a, file=sys.stderr)
            return 2
        pages.append(os.path.abspath(p))
    if not args:
        pages = pages_under(root)
    if not pages:
        print("check-doc-links: no README.md or docs/*.md under %s" % root,
              file=sys.stderr)
        return 2
    total = broken = 0
    for page in pages:
        with open(page, encoding="utf-8") as f:
            text = f.read()
        rel = os.path.relpath(page, root)
        for offset, target in links_of(text):
            total += 1
            reason = check_link(root, page, target)
            if reason:
                broken += 1
                line = text.count("\n", 0, offset) + 1
                print("%s:%d: broken link '%s': %s" % (rel, line, target,
                                                        reason))
    print("check-doc-links: %d links in %d files, %d broken"
          % (total, len(pages), broken))
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
