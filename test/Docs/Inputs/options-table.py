"""Compares the options of --amp-o1/--amp-o2 in `amp-opt --help` (argv[1])
with the first column of the options table of a policies page (argv[2])."""
import re
import sys

help_lines = open(sys.argv[1]).read().splitlines()
options = set()
inside = False
for line in help_lines:
    if re.match(r"^\s{6}--amp-o[12]\s", line):
        inside = True
        continue
    if inside and re.match(r"^\s{8}--", line):
        options.add(re.match(r"^\s{8}--([a-z0-9-]+)", line).group(1))
        continue
    # The values of a typed (enum) option, listed under it: "    =keep".
    if inside and re.match(r"^\s+=", line):
        continue
    inside = False

page = open(sys.argv[2]).read()
section = page.split("## Options", 1)[1].split("\n## ", 1)[0]
table = set(re.findall(r"^\| `([a-z0-9-]+)` \|", section, re.M))

status = 0
for name in sorted(options - table):
    print(f"options-table: error: in the help but not in the table: {name}",
          file=sys.stderr)
    status = 1
for name in sorted(table - options):
    print(f"options-table: error: in the table but not in the help: {name}",
          file=sys.stderr)
    status = 1
if status == 0:
    print(f"options-table: {len(options)} options, all in the table")
sys.exit(status)
