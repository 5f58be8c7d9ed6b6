"""fp8-cost-model-doc.py POLICIES_MD < remarks: the H100 roofline figures
that docs/policies.md quotes ("X us against Y us", and the ratios bf16/FP8
as "0.51x") are the compiler's, read from the remarks of
test/Dialect/Amp/Transforms/float8-cost-model.mlir's @small and @large (the
first two estimates). Prints one line per figure; exits 1 if the page
lacks one."""
import re
import sys

text = open(sys.argv[1]).read()
estimates = re.findall(r"estimates ([0-9.]+) us in FP8 \([0-9.]+ MB quantized\) "
                       r"against ([0-9.]+) us in bf16", sys.stdin.read())
ok = len(estimates) >= 2
for fp8, bf16 in estimates[:2]:
    pair = f"{fp8} us against {bf16} us"
    ratio = f"{float(bf16) / float(fp8):.2f}x"
    for figure in (pair, ratio):
        found = figure in text
        ok &= found
        print(f"{figure}: {'in the page' if found else 'MISSING'}")
sys.exit(0 if ok else 1)
