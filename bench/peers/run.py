#!/usr/bin/env python3
"""amp-mlir and the peer AMP systems side by side (issue 18).

    python bench/peers/run.py --model torchvision:resnet18 \\
        [--model torch:models:bert_block@1,128,768] [--shape 1,3,224,224] \\
        [--systems amp-mlir,onnx-float16] --json OUT [--update-doc FILE]

Models: `torchvision:NAME` (random weights), `torch:MODULE:FACTORY` (a
factory returning a module, or (module, default shape); `models` is
bench/peers/models.py), `onnx:FILE`. `--shape` (or `@SHAPE` after one
model) sets the input shape. Each model is exported once (systems.py
export: ONNX, torch.export, amp_mlir.from_torch), then every system runs
on it in a process of its own (systems.py run), and each row is measured
by the same function, metrics.measure(), from that system's converted
graph. Prints a Markdown table; --json keeps the rows; --update-doc
replaces the table between the `peers-table` markers of a Markdown file.

Needs the peers environment (scripts/install-peers.sh) and amp-mlir's tools
(AMP_MLIR_ROOT, or the repository's build/).
"""

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "scripts"))

import doctables  # noqa: E402
from systems import SYSTEMS  # noqa: E402

# The block of docs/performance.md this script writes (doctables markers).
BLOCK, SCRIPT = "peers-table", "make peers"


def kib(n):
    return f"{n / 1024:.1f}"


def seconds(s):
    return "–" if s is None else f"{s:.2f}"


def model_name(spec):
    return spec.split(":")[-1] if not spec.startswith("onnx:") else \
        os.path.basename(spec[5:])


def run_model(spec, shape, systems, work, timeout, log):
    os.makedirs(work, exist_ok=True)
    cmd = [sys.executable, os.path.join(HERE, "systems.py"), "export", spec,
           work]
    if shape:
        cmd += ["--shape", shape]
    start = time.perf_counter()
    proc = subprocess.run(cmd, stdout=log, stderr=log)
    if proc.returncode != 0:
        return {"spec": spec, "error": "export failed (see the log)",
                "rows": []}
    with open(os.path.join(work, "meta.json")) as f:
        meta = json.load(f)
    print(f"# {spec}: exported in {time.perf_counter() - start:.0f} s "
          f"(shape {meta['shape']})", file=sys.stderr)
    rows = []
    for system, level in SYSTEMS:
        if systems and system not in systems:
            continue
        out = os.path.join(work, "row.json")
        if os.path.exists(out):
            os.remove(out)
        start = time.perf_counter()
        try:
            subprocess.run([sys.executable, os.path.join(HERE, "systems.py"),
                            "run", system, level, work, out],
                           stdout=log, stderr=log, timeout=timeout)
            with open(out) as f:
                row = json.load(f)
        except subprocess.TimeoutExpired:
            row = {"system": system, "level": level,
                   "error": f"timed out after {timeout} s"}
        except (OSError, ValueError):
            row = {"system": system, "level": level,
                   "error": "crashed (see the log)"}
        row["wall_s"] = time.perf_counter() - start
        print(f"#   {system} {level}: "
              + (f"error: {row['error']}" if "error" in row else
                 f"casts {row.get('casts')}, KiB "
                 f"{row.get('bytes_converted', 0) / 1024:.1f}, low "
                 f"{_share(row.get('low_fraction'))}, rel L2 "
                 f"{row.get('rel_l2')}") + f" ({row['wall_s']:.0f} s)",
              file=sys.stderr)
        rows.append(row)
    return {"spec": spec, "shape": meta["shape"], "rows": rows,
            "export_s": meta.get("times", {})}


# The systems amp-mlir's error is compared with, per level, in order. O1
# and O2-autocast (autocast's placement) against PyTorch's autocast:
# torch.compile's first for O1, eager's first for O2-autocast, the other
# where the first stores less low than amp-mlir's row. O2 ("everything
# stored low") against the systems that store everything low too: the
# module converted whole (torch-pure-half) and ONNX float16 with f16
# inputs and outputs; against every one of them that has a row of the type.
ERROR_ANCHORS = {
    "O1": (["torch-compile-autocast", "torch-autocast"], "first"),
    "O2-autocast": (["torch-autocast", "torch-compile-autocast"], "first"),
    "O2": (["torch-pure-half", "onnx-float16-f16io"], "all"),
}
# A low share counts as "at least as much" within this.
SHARE_EPS = 1e-9
WHERE_O2 = "[where O2's error comes from](#where-o2s-error-comes-from)"


def _share(value):
    return "–" if value is None else f"{value:.3f}"


def _error_reason(anchor):
    """The documented reason an anchor's error can be below amp-mlir's,
    from the anchor's row; "" when none is known."""
    casts = anchor.get("ort_casts")
    if casts and casts[0]:
        return (f" (ONNX Runtime's CPU provider runs the ops it has no f16 "
                f"kernel for in f32, between the {casts[0]} casts it "
                f"inserts: see the notes of the rows)")
    return ""


def _share_reason(amp):
    """The documented reason an O2 row's low share is below 0.999, from
    its row; "" when none is known."""
    out = amp.get("output_f32_elements")
    total = amp.get("float_elements")
    if not out or not total:
        return ""
    if (amp["low_elements"] + out) / total >= 0.999 - SHARE_EPS:
        return (f" (the f32 it stores is the model's output, {out} "
                f"elements written by its last op: storing it low would "
                f"add a conversion and the \"+ output low\" error of "
                f"{WHERE_O2})")
    return ""


def verdict(result):
    """Issue 25's criterion for one model, per amp-mlir row (each frontend
    route, each type), like compared with like (issue 45):

    - error: rel L2 at most the anchors' of the same type (ERROR_ANCHORS:
      O1 and O2-autocast against PyTorch's autocast, O2 against the
      pure-half systems), compared only with anchors whose low share is at
      least the amp-mlir row's (an anchor that stores less low is skipped,
      and the line says so; with none left, the error is not judged);
    - O1 and O2-autocast: no more bytes converted than eager
      torch-autocast's;
    - O2: no peer (of any type) with an equal or higher low share
      converting fewer bytes, and a low share of at least 0.999.

    No verdict where an anchor's own rel L2 is 0.5 or more (the type
    cannot hold the model's output). A criterion not met carries its
    documented reason where the rows show one. Returns text lines."""
    lines = []
    rows = [r for r in result["rows"] if "error" not in r]
    peers = [r for r in rows if not r["system"].startswith("amp-mlir")]

    def peer_row(system, dtype):
        for r in peers:
            if r["system"] == system and r["level"].split()[-1] == dtype:
                return r
        return None

    for amp in rows:
        if not amp["system"].startswith("amp-mlir"):
            continue
        level, dtype = amp["level"].split()
        if level not in ERROR_ANCHORS:
            continue
        names, mode = ERROR_ANCHORS[level]
        problems = []
        notes = []
        anchors = []
        for system in names:
            anchor = peer_row(system, dtype)
            if anchor is None:
                continue
            if (anchor.get("low_fraction") is None
                    or anchor.get("rel_l2") is None):
                notes.append(f"{system} {dtype} has no low share or error")
                continue
            if anchor["low_fraction"] < amp["low_fraction"] - SHARE_EPS:
                notes.append(
                    f"{system} {dtype} stores less low "
                    f"({anchor['low_fraction']:.4f} < "
                    f"{amp['low_fraction']:.4f}): its error is not compared")
                continue
            anchors.append(anchor)
        if mode == "first":
            anchors = anchors[:1]
        failed = [a for a in anchors if a["rel_l2"] >= 0.5]
        if failed:
            # Every system's output is wrong: the type cannot hold this
            # model's output (random-weight mobilenet_v2's fp32 output is
            # ~1e-9, below f16's smallest subnormal).
            a = failed[0]
            lines.append(
                f"{amp['system']} {amp['level']}: no verdict: "
                f"{a['system']} {dtype}'s own rel L2 is "
                f"{a['rel_l2']:.1e}, the type cannot represent this "
                f"model's output")
            continue
        unjudged = ""
        if not any(peer_row(system, dtype) for system in names):
            problems.append(f"no {' or '.join(names)} {dtype} row to "
                            f"compare with")
        elif not anchors:
            unjudged = (f"rel L2 not judged: no {' or '.join(names)} "
                        f"{dtype} row stores at least as much low")
        for anchor in anchors:
            if amp["rel_l2"] > anchor["rel_l2"]:
                ratio = (f"{amp['rel_l2'] / anchor['rel_l2']:.2f}x"
                         if anchor["rel_l2"] > 0 else "above")
                problems.append(
                    f"rel L2 {amp['rel_l2']:.2e} is {ratio} "
                    f"{anchor['system']} {dtype}'s "
                    f"({anchor['rel_l2']:.2e})" + _error_reason(anchor))
        if level in ("O1", "O2-autocast"):
            eager = peer_row("torch-autocast", dtype)
            if (eager is not None and eager.get("bytes_converted")
                    is not None and
                    amp["bytes_converted"] > eager["bytes_converted"]):
                problems.append(
                    f"converts more than torch-autocast {dtype} "
                    f"({kib(eager['bytes_converted'])} KiB)")
        else:
            for peer in peers:
                if (peer.get("low_fraction") is None
                        or peer.get("bytes_converted") is None):
                    continue
                name = f"{peer['system']} {peer['level']}"
                if (peer["low_fraction"] >= amp["low_fraction"] - SHARE_EPS
                        and peer["bytes_converted"] < amp["bytes_converted"]):
                    problems.append(
                        f"{name} converts less "
                        f"({kib(peer['bytes_converted'])} KiB) at a low "
                        f"share of {peer['low_fraction']:.3f}")
            if amp["low_fraction"] < 0.999 - SHARE_EPS:
                problems.append(f"low share {amp['low_fraction']:.4f} is "
                                f"below 0.999" + _share_reason(amp))
        head = (f"{amp['system']} {amp['level']} "
                f"({kib(amp['bytes_converted'])} KiB converted, "
                f"low share {amp['low_fraction']:.3f}, rel L2 "
                f"{amp['rel_l2']:.1e})")
        if problems:
            status = "not met: " + "; ".join(problems)
            if unjudged:
                status += "; " + unjudged
        elif unjudged:
            status = unjudged + "; the other criteria met"
        else:
            status = "met"
        line = f"{head}: {status}"
        if notes:
            line += " (" + "; ".join(notes) + ")"
        lines.append(line)
    return lines


def markdown(results):
    out = []
    out.append("| model | system | level | casts | KiB converted "
               "(of it weights) | fp32 graph: casts / KiB | low share | "
               "rel L2 | convert (s) | compile (s) |")
    out.append("|---|---|---|---:|---:|---:|---:|---:|---:|---:|")
    notes = []
    for result in results:
        name = model_name(result["spec"])
        shape = "x".join(str(d) for d in result.get("shape", []))
        label = f"{name} ({shape})" if shape else name
        if result.get("error"):
            out.append(f"| {label} | all | | | | | | | | | ")
            notes.append(f"{label}: {result['error']}")
            continue
        for r in result["rows"]:
            if "error" in r:
                out.append(f"| {label} | {r['system']} | {r['level']} | "
                           f"not run: {r['error']} | | | | | | |")
                continue
            weights = (f" ({kib(r['const_bytes_converted'])})"
                       if r.get("const_bytes_converted") else "")
            fp32 = (f"{r['fp32_casts']} / {kib(r['fp32_bytes_converted'])}"
                    if "fp32_casts" in r else "–")
            casts = "–" if r.get("casts") is None else r["casts"]
            converted = ("–" if r.get("bytes_converted") is None else
                         kib(r["bytes_converted"]))
            error = "–" if r.get("rel_l2") is None else f"{r['rel_l2']:.1e}"
            out.append(
                f"| {label} | {r['system']} | {r['level']} | {casts} | "
                f"{converted}{weights} | "
                f"{fp32} | {_share(r.get('low_fraction'))} | {error} | "
                f"{seconds(r['convert_s'])} | {seconds(r['compile_s'])} |")
            if r.get("note"):
                note = f"{label}, {r['system']} {r['level']}: {r['note']}"
                notes.append(note)
            if r.get("ort_casts"):
                basic, full = r["ort_casts"]
                notes.append(f"{label}, {r['system']} {r['level']}, ONNX "
                             f"Runtime (CPU provider): "
                             f"{basic} Cast nodes in the f16 graph it runs, "
                             f"{full} after all its optimisations; the ops "
                             f"between them run in f32")
    out.append("")
    out.append("Issue 25's criterion, like compared with like (errors "
               "against the same type, and only against anchors whose low "
               "share is at least the row's): O1: rel L2 at most "
               "torch-compile-autocast's (eager autocast's where "
               "torch.compile stores less low), KiB converted at most "
               "eager autocast's; O2-autocast: rel L2 at most eager "
               "autocast's (torch.compile's where eager stores less low), "
               "KiB converted at most eager autocast's; O2 (everything "
               "stored low): rel L2 at most the pure-half systems' "
               "(torch-pure-half, onnx-float16-f16io), no peer with an "
               "equal or higher low share converting less, low share at "
               "least 0.999:")
    out.append("")
    for result in results:
        for line in verdict(result):
            out.append(f"- {model_name(result['spec'])}, {line}")
    if notes:
        out.append("")
        out.append("Notes of the rows:")
        out.append("")
        seen = set()
        for n in notes:
            if n not in seen:
                out.append(f"- {n}")
                seen.add(n)
    return "\n".join(out) + "\n"


def header(date, cpus):
    return (f"Made by `make peers` on {date} ({cpus} CPUs). Per call at the "
            f"shapes shown; times in seconds of wall time.\n")


def update_doc(path, table, header, check=False):
    """Writes the table between the peers-table markers of PATH, or with
    CHECK returns 1 when they hold something else."""
    return doctables.update(path, {BLOCK: header + "\n" + table}, SCRIPT,
                            check=check)


def main():
    parser = argparse.ArgumentParser(
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", action="append",
                        help="SPEC or SPEC@SHAPE (repeatable)")
    parser.add_argument("--from-json", metavar="FILE",
                        help="print (and --update-doc) the table of an "
                        "earlier run's --json instead of running")
    parser.add_argument("--shape", help="input shape of the (one) model, "
                        "e.g. 1,3,224,224")
    parser.add_argument("--systems", help="comma-separated systems to run "
                        "(default: all)")
    parser.add_argument("--json", help="write the rows here")
    parser.add_argument("--work", help="keep the exported models and "
                        "converted graphs here (default: a temporary "
                        "directory)")
    parser.add_argument("--timeout", type=int, default=1800,
                        help="seconds per system and model")
    parser.add_argument("--log", help="the systems' output (default: "
                        "WORK/peers.log)")
    parser.add_argument("--update-doc", metavar="FILE",
                        help="replace the table between the peers-table "
                        "markers of FILE")
    parser.add_argument("--check", action="store_true",
                        help="with --from-json and --update-doc: run "
                        "nothing, exit 1 when FILE's table is not what the "
                        "saved run renders to (make peers keeps its run in "
                        "bench/peers/results/peers.json)")
    args = parser.parse_args()
    if args.check and not (args.from_json and args.update_doc):
        parser.error("--check needs --from-json and --update-doc")
    if args.from_json:
        with open(args.from_json) as f:
            saved = json.load(f)
        table = markdown(saved["results"])
        if not args.check:
            print(table)
        if args.update_doc:
            return update_doc(args.update_doc, table,
                              header(saved["date"], saved["cpus"]),
                              check=args.check)
        return 0
    if not args.model:
        parser.error("give --model (or --from-json)")
    if args.shape and len(args.model) != 1:
        parser.error("--shape needs exactly one --model (else SPEC@SHAPE)")
    systems = set(args.systems.split(",")) if args.systems else None
    known = {s for s, _ in SYSTEMS}
    if systems and not systems <= known:
        parser.error(f"unknown systems {sorted(systems - known)}; "
                     f"known: {sorted(known)}")
    temp = None
    work = args.work
    if not work:
        temp = tempfile.TemporaryDirectory(prefix="amp-peers-")
        work = temp.name
    os.makedirs(work, exist_ok=True)
    log_path = args.log or os.path.join(work, "peers.log")
    results = []

    def save():
        # After each model, before anything is rendered: a run of an hour
        # is never lost to a failure after it (--from-json renders it).
        if args.json:
            with open(args.json, "w") as f:
                json.dump({"date": datetime.date.today().isoformat(),
                           "machine": platform.processor() or
                           platform.machine(), "cpus": os.cpu_count(),
                           "results": results}, f, indent=1)

    with open(log_path, "a") as log:
        for entry in args.model:
            spec, _, shape = entry.partition("@")
            shape = shape or args.shape
            sub = os.path.join(work, model_name(spec))
            results.append(run_model(spec, shape, systems, sub,
                                     args.timeout, log))
            save()
    table = markdown(results)
    print(table)
    if args.update_doc:
        update_doc(args.update_doc, table,
                   header(datetime.date.today().isoformat(), os.cpu_count()))
    if temp:
        temp.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
