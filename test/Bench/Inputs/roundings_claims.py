"""The claims docs/performance.md makes from roundings.py's table (see
roundings-table.test): each fails with the row it read."""
import sys

rows = {}
for line in open(sys.argv[1]):
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    if len(cells) == 9 and cells[1] in ("f16", "bf16"):
        ratios = [float(c.rstrip("×")) for c in cells[3:8]]
        rows[(cells[0], cells[1])] = dict(
            zip(("input", "stream", "output", "all", "o2"), ratios))

failed = False


def claim(ok, what, row):
    global failed
    if not ok:
        print(f"roundings-table: claim fails: {what}: {row}")
        failed = True


for dtype in ("f16", "bf16"):
    r = rows[("hf_bert", dtype)]
    claim(r["stream"] > 4 and r["stream"] > r["input"] + r["output"] - 1,
          f"hf_bert {dtype}: the stream costs the most", r)
    claim(abs(r["o2"] / r["all"] - 1) < 0.1,
          f"hf_bert {dtype}: O2 within 10% of '+ all three'", r)
    r = rows[("bert_block", dtype)]
    claim(r["output"] > 1.5 and r["o2"] < 1,
          f"bert_block {dtype}: output low costs the error line", r)
    r = rows[("transformer_encoder", dtype)]
    claim(r["o2"] < 1, f"transformer_encoder {dtype}: O2 below autocast", r)
print(f"roundings-table: {len(rows)} rows, "
      f"{'a claim fails' if failed else 'the claims hold'}")
sys.exit(1 if failed else 0)
