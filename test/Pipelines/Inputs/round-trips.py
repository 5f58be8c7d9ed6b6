"""Counts the roundings inside loop nests that lowered IR (LLVM dialect)
still has: an llvm.fpext of the result of an llvm.fptrunc (a value rounded
to f16/bf16 and widened again without going through memory), and float
arithmetic done in f16/bf16 (which rounds its result). Reads stdin; prints
one line per function that has any, "@name: N round trips, M low ops", and
a last line "total: N round trips, M low ops"."""
import re
import sys

VALUE = r'(%[\w.$#-]+)'
TRUNC = re.compile(VALUE + r' = (?:llvm\.fptrunc|"llvm\.fptrunc"\()\s*' + VALUE)
EXT = re.compile(r'(?:llvm\.fpext|"llvm\.fpext"\()\s*' + VALUE)
LOW_OP = re.compile(
    r'(?:llvm\.(?:fadd|fsub|fmul|fdiv|frem|fneg|fcmp|intr\.\w+)|'
    r'"llvm\.(?:fadd|fsub|fmul|fdiv|frem|fneg|fcmp|intr\.\w+)")'
    r'.*:\s*(?:\(.*\)\s*->\s*)?(?:vector<[\dx]*)?(?:f16|bf16)\b')
FUNC = re.compile(r'llvm\.func (?:\w+ )*@([\w.$-]+)|sym_name = "([\w.$-]+)"')

trips, low = {}, {}
func = "?"
truncs = set()
for line in sys.stdin:
    m = FUNC.search(line)
    if m:
        func = m.group(1) or m.group(2)
        truncs = set()
    m = TRUNC.search(line)
    if m:
        truncs.add(m.group(1))
    for value in EXT.findall(line):
        if value in truncs:
            trips[func] = trips.get(func, 0) + 1
    if LOW_OP.search(line) and "fptrunc" not in line and "fpext" not in line:
        low[func] = low.get(func, 0) + 1
for name in sorted(set(trips) | set(low)):
    print(f"@{name}: {trips.get(name, 0)} round trips, {low.get(name, 0)} low ops")
print(f"total: {sum(trips.values())} round trips, {sum(low.values())} low ops")
