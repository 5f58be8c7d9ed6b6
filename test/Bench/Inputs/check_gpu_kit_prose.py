"""The figures quoted in the prose of docs/performance.md's section on the
H200 runs of 2026-12-04 are the kept runs' (bench/gpu/results/): each
figure is computed here from the results files and must appear, so
formatted, in that section.

    check_gpu_kit_prose.py ROOT
"""

import glob
import json
import os
import sys

ROOT = sys.argv[1]
SECTION = "### H200, 2026-12-04: ResNet-50 and GPT-2 at real size"

rows = {}
for path in sorted(glob.glob(os.path.join(
        ROOT, "bench/gpu/results/h200-2026-12-04-kit-d63d663-*.json"))):
    with open(path) as f:
        for row in json.load(f)["rows"]:
            if row["status"] != "skipped":
                rows[row["test"]] = row
with open(os.path.join(ROOT, "docs/performance.md")) as f:
    doc = f.read()
section = doc[doc.index(SECTION):]
section = section[:section.index("<!-- gpu-kit-h200-table:begin")]

o1, o2 = rows["model/resnet50_b256 O1 f16"], rows["model/resnet50_b256 O2 f16"]


def top(row, name):
    return next(k for k in row["profile"]["amp"]["top"]
                if k["name"].startswith(name))


def share(row, *names):
    return sum(sum(k["share"] for k in row["profile"]["amp"]["top"]
                   if k["name"].startswith(n)) for n in names)


gpt2 = [r for t, r in rows.items() if t.startswith("model/gpt2_b8 ")]
gpt2_low = [r for r in gpt2 if r["level"].startswith("O2")]
figures = [
    f"O2 f16\n  {o2['median_ms']:.1f} ms",
    f"autocast's {o2['torch_ms']:.1f} ms ({o2['speedup_vs_torch']:.2f}×)",
    f"{o2['torch']['compile']['median_ms']:.1f} ms "
    f"({o2['speedup_vs_compile']:.2f}×)",
    f"{100 * top(o2, 'main_kernel')['share']:.0f}% in amp-mlir's generated",
    f"{top(o2, 'main_kernel')['launches_per_call']:.0f} launches: the batch",
    f"{100 * share(o2, 'void cudnn::engines_precompiled::nchwToNhwc', 'void cudnn::engines_precompiled::nhwcToNchw'):.0f}% in cuDNN's",
    f"{o2['estimate_pct']:.0f}% of the simulator's",
    f"({o1['median_ms']:.0f} ms)",
    f"{100 * top(o1, 'void gemmk1_kernel')['share']:.0f}% of its time",
    f"`gemmk1_kernel`, {top(o1, 'void gemmk1_kernel')['launches_per_call']:.0f} launches",
    f"{top(o1, 'void gemmk1_kernel')['us_per_call'] / 1000:.1f} ms a call",
    f"({o1['estimate_pct']:.0f}%",
    f"{min(r['rel_l2'] for r in gpt2):.3f}–{max(r['rel_l2'] for r in gpt2):.3f}",
    f"O0 {rows['model/gpt2_b8 O0']['median_ms']:.1f} ms",
    f"O2 {min(r['median_ms'] for r in gpt2_low):.1f}–"
    f"{max(r['median_ms'] for r in gpt2_low):.1f} ms",
    f"autocast's {min(r['torch_ms'] for r in gpt2_low):.1f}–"
    f"{max(r['torch_ms'] for r in gpt2_low):.1f} ms",
    f"pool {o2['peak_mem_MiB']:.0f} MiB at O2 f16",
    f"{o1['peak_mem_MiB']:.0f} MiB at O1 f16",
    f"PyTorch's {o2['torch']['eager_amp']['peak_mem_MiB']:.0f} MiB",
    f"{rows['copy bandwidth (d2d 512 MiB)']['effective_GBps']:.0f} GB/s",
]
if "ScaledFloat8GemmScalesAndWritesBf16" in \
        rows["gtest AmpGpuContractTests"]["note"]:
    figures.append("Contract.ScaledFloat8GemmScalesAndWritesBf16")
missing = [f for f in figures if f not in section]
for f in missing:
    print(f"missing from the H200 section: {f!r}")
print(f"{len(figures) - len(missing)} of {len(figures)} figures found")
sys.exit(1 if missing else 0)
