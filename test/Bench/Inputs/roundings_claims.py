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
    claim(r["output"] > 1.5,
          f"bert_block {dtype}: output low costs over 1.5x autocast's", r)
    for model in ("transformer_encoder", "bert_block", "hf_bert"):
        r = rows[(model, dtype)]
        # O2 rounds once: below '+ all three', and above autocast (the
        # three classes cost more than rounding once wins back).
        claim(1 < r["o2"] < r["all"],
              f"{model} {dtype}: O2 between autocast and '+ all three'", r)
print(f"roundings-table: {len(rows)} rows, "
      f"{'a claim fails' if failed else 'the claims hold'}")
sys.exit(1 if failed else 0)
