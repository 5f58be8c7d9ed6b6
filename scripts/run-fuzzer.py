#!/usr/bin/python3
"""Runs amp-opt-fuzzer on the lit tests' inputs for a while (`make fuzz`).

Usage: run-fuzzer.py FUZZER WORK_DIR SECONDS [LIBFUZZER_ARG ...]
       run-fuzzer.py --triage FUZZER REPRODUCER...

  WORK_DIR/seeds      the -split-input-file chunks of test/ and examples/
                      (scripts/fuzz-seeds.py), rewritten on every run
  WORK_DIR/corpus     what libFuzzer adds; kept between runs
  WORK_DIR/artifacts  crash-*, timeout-*, oom-*, leak-* reproducers

libFuzzer runs in fork mode (-fork=1) with -ignore_crashes, -ignore_timeouts
and -ignore_ooms, so that one crash does not end the run: every reproducer
found within SECONDS is kept. Each new reproducer is then run once more
through the fuzzer binary (its report printed) and through upstream
`mlir-opt` (MLIR_OPT, default /usr/lib/llvm-22/bin/mlir-opt) to tell whether
the crash is upstream MLIR's alone (docs/reliability.md lists the known
ones). A report says `triage: crashes inside upstream libMLIR/libLLVM (...)`
when the innermost frames are upstream's. `--triage` prints only these
reports, for reproducers given. Exits 1 when the run left any new
reproducer, whatever its origin, or when libFuzzer did not run; 0
otherwise; the last line is the summary
`run-fuzzer: N runs, E exec/s, K new reproducers in WORK_DIR/artifacts`.
"""

import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
MLIR_OPT = os.environ.get("MLIR_OPT", "/usr/lib/llvm-22/bin/mlir-opt")
PREFIXES = ("crash-", "timeout-", "oom-", "leak-", "slow-unit-")


def reproducers(directory):
    return sorted(name for name in os.listdir(directory)
                  if name.startswith(PREFIXES))


def report(fuzzer, path, env, log_path):
    """Prints what one reproducer does: the fuzzer's report on it, whether
    the crash is inside upstream code, whether upstream mlir-opt crashes."""
    print(f"\n=== {path}")
    with open(path, "rb") as f:
        print(f.read()[:400].decode("utf-8", "replace"))
    again = subprocess.run([fuzzer, path], env=env, capture_output=True,
                           text=True, errors="replace", timeout=300)
    lines = [line for line in again.stderr.splitlines()
             if re.search(r"ERROR|SUMMARY|runtime error|amp-opt-fuzzer:"
                          r"|^\s+#\d+ ", line)
             and "Running 1 inputs" not in line]
    print("\n".join(lines[:25]) if lines else
          "does not reproduce when run alone (exit "
          f"{again.returncode}); see {log_path}")
    # The frames of the first report, each with its binary or source file:
    # the crash is upstream's when the innermost frames (past the C library
    # and the sanitizer's interceptors) are in libMLIR/libLLVM.
    frames = re.findall(r"^\s+#\d+ 0x[0-9a-f]+ (?:in (.*?) )?"
                        r"(\(\S+?\+0x[0-9a-f]+\)|/\S+)", again.stderr, re.M)
    upstream = ("libMLIR.so", "libLLVM.so")
    runtime = ("libc.so", "libstdc++.so", "Interceptor", "memcmp",
               "memmove", "memcpy", "strlen", "/usr/lib/llvm-22/include/")
    inner = [f for f in frames if not any(r in f[0] + f[1] for r in runtime)]
    if inner and any(u in inner[0][1] for u in upstream):
        caller = next((f[0] for f in inner
                       if not any(u in f[1] for u in upstream)), "?")
        named = next((f[0] for f in inner
                      if any(u in f[1] for u in upstream) and f[0]), "?")
        print(f"triage: crashes inside upstream libMLIR/libLLVM ({named}), "
              f"called from {caller}")
    if os.path.exists(MLIR_OPT):
        up = subprocess.run([MLIR_OPT, path], capture_output=True,
                            timeout=300)
        if up.returncode < 0 or up.returncode >= 128:
            print(f"upstream: {MLIR_OPT} crashes on it too (exit "
                  f"{up.returncode}): an upstream MLIR bug, see "
                  "docs/reliability.md")
        else:
            print(f"upstream: {MLIR_OPT} does not crash on it (exit "
                  f"{up.returncode}; it may lack a dialect the input uses)")


def main(argv):
    if len(argv) >= 4 and argv[1] == "--triage":
        for path in argv[3:]:
            report(os.path.abspath(argv[2]), path, dict(os.environ), "-")
        return 0
    if len(argv) < 4:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    fuzzer, work, seconds = os.path.abspath(argv[1]), argv[2], int(argv[3])
    extra = argv[4:]
    seeds = os.path.join(work, "seeds")
    corpus = os.path.join(work, "corpus")
    artifacts = os.path.join(work, "artifacts")
    shutil.rmtree(seeds, ignore_errors=True)
    for d in (corpus, artifacts):
        os.makedirs(d, exist_ok=True)
    subprocess.run([sys.executable, os.path.join(HERE, "fuzz-seeds.py"),
                    seeds], check=True)
    before = set(reproducers(artifacts))

    env = dict(os.environ)
    # -fno-sanitize-recover makes every UBSan report fatal; stack traces for
    # both sanitizers.
    env.setdefault("UBSAN_OPTIONS", "print_stacktrace=1")
    env.setdefault("ASAN_OPTIONS", "abort_on_error=1")
    cmd = [fuzzer, "-fork=1", "-ignore_crashes=1", "-ignore_timeouts=1",
           "-ignore_ooms=1", f"-max_total_time={seconds}", "-timeout=30",
           "-rss_limit_mb=4096", "-print_final_stats=1",
           "-artifact_prefix=" + artifacts + "/"] + extra + [corpus, seeds]
    print("run-fuzzer: " + " ".join(cmd), flush=True)
    log_path = os.path.join(work, "fuzz.log")
    with open(log_path, "w") as log:
        proc = subprocess.run(cmd, env=env, stdout=log,
                              stderr=subprocess.STDOUT)
    with open(log_path, errors="replace") as f:
        log_text = f.read()
    # Fork mode: the parent prints "#N: cov: ... exec/s: E ..." lines.
    stats = re.findall(r"#(\d+):.*?exec/s: (\d+)", log_text)
    runs, rate = (stats[-1] if stats else ("?", "?"))
    print("\n".join(log_text.splitlines()[-15:]))

    new = [name for name in reproducers(artifacts) if name not in before]
    for name in new:
        report(fuzzer, os.path.join(artifacts, name), env, log_path)
    print(f"run-fuzzer: {runs} runs, {rate} exec/s, {len(new)} new "
          f"reproducers in {artifacts} (libFuzzer exited with "
          f"{proc.returncode})")
    if not stats:
        print("run-fuzzer: error: libFuzzer did not run; see " + log_path)
        return 1
    return 1 if new else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
