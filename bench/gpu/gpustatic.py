"""Static view of the GPU pipeline's output, without a GPU.

Parses what `amp-opt --lower-to-gpu="format=isa"` writes (host LLVM dialect
plus one gpu.binary per kernel holding its PTX text), what `ptxas -v` says
about each kernel, and the `gpu-sim:` line of `amp-run --target=gpu-sim`.
bench/gpu/run.py --static puts them together into one row per model; the
functions here are pure so that test/Bench/Inputs/gpu_static_test.py can
test them on small texts.
"""

import re
import statistics
import subprocess

# Library calls: the runtime's cuBLAS/cuDNN/check entry points. ampGpuConstant
# uploads a constant (once per process) and is not counted as one.
NOT_LIBRARY_CALLS = ("ampGpuConstant",)

_ESCAPE = re.compile(r'\\([0-9A-Fa-f]{2}|\\|")')


def decode_mlir_string(body):
    """The text of an MLIR string literal's body: MLIR prints non-printable
    bytes as \\XX (hex), and may print \\\\ and \\" for \\ and "."""
    def sub(m):
        g = m.group(1)
        return g if g in ('\\', '"') else chr(int(g, 16))
    return _ESCAPE.sub(sub, body)


_BINARY = re.compile(r'^\s*gpu\.binary @([\w.$-]+)\b(.*)$', re.M)
_ASSEMBLY = re.compile(r'assembly = "((?:[^"\\]|\\.)*)"')


def extract_kernels(ir):
    """[(binary name, PTX text)] of every gpu.binary in `ir` that holds
    assembly (format=isa). A binary with several objects (several chips)
    gives its first."""
    kernels = []
    for m in _BINARY.finditer(ir):
        a = _ASSEMBLY.search(m.group(2))
        if a:
            kernels.append((m.group(1), decode_mlir_string(a.group(1))))
    return kernels


_NTID = re.compile(r'^\s*\.(reqntid|maxntid)\s+(\d+)(?:\s*,\s*(\d+))?'
                   r'(?:\s*,\s*(\d+))?', re.M)


def ptx_block_size(ptx):
    """Threads per block that the PTX declares (.reqntid, else .maxntid:
    MLIR writes gpu.known_block_size as .maxntid), or None."""
    found = {}
    for m in _NTID.finditer(ptx):
        dims = [int(d) for d in m.groups()[1:] if d is not None]
        n = 1
        for d in dims:
            n *= d
        found.setdefault(m.group(1), n)
    return found.get("reqntid", found.get("maxntid"))


_PTXAS_ENTRY = re.compile(r"Compiling entry function '([^']+)'")
_PTXAS_PROPS = re.compile(r"Function properties for (\S+)")
_PTXAS_FRAME = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, "
                          r"(\d+) bytes spill loads")
_PTXAS_USED = re.compile(r"Used (\d+) registers")
_PTXAS_BARRIERS = re.compile(r"used (\d+) barriers")
_PTXAS_SMEM = re.compile(r"(\d+) bytes smem")


def parse_ptxas(text):
    """`ptxas -v` output -> {function: {registers, barriers, smem, stack,
    spill_stores, spill_loads}}. Entry functions get registers; device
    functions only their frame line."""
    funcs, entry, props = {}, None, None

    def get(name):
        return funcs.setdefault(name, {"registers": None, "barriers": 0,
                                       "smem": 0, "stack": 0,
                                       "spill_stores": 0, "spill_loads": 0})
    for line in text.splitlines():
        m = _PTXAS_ENTRY.search(line)
        if m:
            entry = m.group(1)
            get(entry)
            continue
        m = _PTXAS_PROPS.search(line)
        if m:
            props = m.group(1)
            get(props)
            continue
        m = _PTXAS_FRAME.search(line)
        if m and props is not None:
            f = get(props)
            f["stack"], f["spill_stores"], f["spill_loads"] = map(int, m.groups())
            continue
        m = _PTXAS_USED.search(line)
        if m and entry is not None:
            f = get(entry)
            f["registers"] = int(m.group(1))
            b = _PTXAS_BARRIERS.search(line)
            f["barriers"] = int(b.group(1)) if b else 0
            s = _PTXAS_SMEM.search(line)
            f["smem"] = int(s.group(1)) if s else 0
    return funcs


def kernel_stats(funcs):
    """One kernel's figures from parse_ptxas: the largest register count of
    its entries, spill bytes (stores + loads) and stack over all its
    functions, the largest static shared memory."""
    regs = [f["registers"] for f in funcs.values() if f["registers"] is not None]
    return {"registers": max(regs) if regs else None,
            "spill_bytes": sum(f["spill_stores"] + f["spill_loads"]
                               for f in funcs.values()),
            "stack": max((f["stack"] for f in funcs.values()), default=0),
            "smem": max((f["smem"] for f in funcs.values()), default=0),
            "barriers": max((f["barriers"] for f in funcs.values()), default=0)}


_GLOBAL_ACCESS = re.compile(r"^\s*(?:@%p\d+\s+)?(?:ld|st)\.global(\.[a-z0-9.]+)?\s",
                            re.MULTILINE)


def global_accesses(ptx):
    """(vector, all): the global load and store instructions of a kernel's
    PTX, and those of them that move a vector (.v2, .v4, .v8)."""
    vector = total = 0
    for match in _GLOBAL_ACCESS.finditer(ptx):
        total += 1
        if re.search(r"\.v[248]\b", match.group(1) or ""):
            vector += 1
    return vector, total


def run_ptxas(ptxas, ptx_path, arch="sm_90"):
    """ptxas -v on one PTX file; returns (ok, output text)."""
    out = subprocess.run([ptxas, f"-arch={arch}", "-v", ptx_path, "-o",
                          "/dev/null"], capture_output=True, text=True)
    return out.returncode == 0, out.stderr + out.stdout


_FUNC = re.compile(r'^\s*llvm\.func\s+(?:\w+\s+)*@([\w.$-]+)\(')
_CONST = re.compile(r'^\s*(%[\w.$-]+)\s*=\s*llvm\.mlir\.constant\((-?\d+)\s*:')
_LAUNCH = re.compile(r'gpu\.launch_func\s+(?:<[^>]*>\s+)?@([\w.$-]+)::@([\w.$-]+)'
                     r'\s+blocks in \(([^)]*)\)\s+threads in \(([^)]*)\)')


def host_launches(ir):
    """Every gpu.launch_func of the host code: dicts with the function it is
    in, the kernel's binary (gpu.module) name, and the threads per block when
    the three block sizes are constants of that function (else None)."""
    launches, func, consts = [], None, {}
    for line in ir.splitlines():
        m = _FUNC.match(line)
        if m:
            func, consts = m.group(1), {}
            continue
        m = _CONST.match(line)
        if m:
            consts[m.group(1)] = int(m.group(2))
            continue
        m = _LAUNCH.search(line)
        if m:
            sizes = [consts.get(v.strip()) for v in m.group(4).split(",")]
            threads = None
            if sizes and all(s is not None for s in sizes):
                threads = 1
                for s in sizes:
                    threads *= s
            launches.append({"function": func, "binary": m.group(1),
                             "kernel": m.group(2), "threads": threads})
    return launches


_CALL = re.compile(r'llvm\.call @(ampGpu\w+)\(')


def library_calls(ir):
    """{callee: count} of the ampGpu* calls of the host code (library calls:
    GEMM, convolution, finite checks), ampGpuConstant left out."""
    counts = {}
    for m in _CALL.finditer(ir):
        if m.group(1) not in NOT_LIBRARY_CALLS:
            counts[m.group(1)] = counts.get(m.group(1), 0) + 1
    return counts


_SIM_FIELDS = {
    "launches": r"(\d+) kernel launches",
    "threads": r"kernel launches \((\d+) threads\)",
    "library_calls": r"(\d+) library calls",
    "allocations": r"(\d+) device allocations",
    "frees": r"(\d+) frees",
    "live": r"(\d+) live",
    "peak_bytes": r"peak (\d+) bytes",
    "syncs": r"(\d+) synchronizations",
}


def parse_gpu_sim(text):
    """The figures of the last `gpu-sim:` line of amp-run's output, or None."""
    lines = [l for l in text.splitlines() if l.startswith("gpu-sim:")]
    if not lines:
        return None
    out = {}
    for key, pattern in _SIM_FIELDS.items():
        m = re.search(pattern, lines[-1])
        out[key] = int(m.group(1)) if m else None
    return out


def entry_results(text, entry=None):
    """How many results the function `entry` (default: the first func.func)
    of an input module returns."""
    pattern = r'func\.func\s+(?:\w+\s+)?@' + (re.escape(entry) if entry
                                                else r'[\w.$-]+') + r'\s*\('
    m = re.search(pattern, text)
    if not m:
        return None
    # Skip the arguments: to the parenthesis that closes the opening one.
    depth, i = 1, m.end()
    while depth and i < len(text):
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        i += 1
    rest = text[i:]
    m = re.match(r'\s*->\s*', rest)
    if not m:
        return 0
    rest = rest[m.end():]
    if not rest.startswith("("):
        return 1
    depth, count, i = 1, 1, 1
    while depth and i < len(rest):
        c = rest[i]
        depth += {"(": 1, ")": -1, "<": 1, ">": -1, "{": 1, "}": -1}.get(c, 0)
        if c == "," and depth == 1:
            count += 1
        i += 1
    return 0 if rest[1:i - 1].strip() == "" else count


# amp-run's own synchronizations in a --target=gpu-sim call (lib/Runner):
# one after uploading the inputs, one after the call, one per result copied
# back.
def runner_syncs(results):
    return 2 + results


def host_syncs(ir):
    """mgpuStreamSynchronize calls in the host code."""
    return len(re.findall(r'llvm\.call @mgpuStreamSynchronize\(', ir))


def summarize(launches, ptx_blocks, stats, libcalls, sim, results=None,
              host_syncs=None):
    """One row of the static table.

    launches: host_launches(); ptx_blocks: {binary: ptx_block_size()};
    stats: {binary: kernel_stats()}; libcalls: library_calls(); sim:
    parse_gpu_sim() or None; results: entry_results() of the entry (for
    the synchronizations of the call itself, amp-run's own taken off);
    host_syncs: host_syncs()."""
    threads = []
    for l in launches:
        t = l["threads"] if l["threads"] is not None else ptx_blocks.get(l["binary"])
        if t is not None:
            threads.append(t)
    regs = [s["registers"] for s in stats.values() if s["registers"] is not None]
    return {
        "kernels": len(stats),
        "launch_sites": len(launches),
        "dynamic_block_sizes": len(launches) - len(threads),
        "library_calls": sum(libcalls.values()),
        "library_calls_by_name": libcalls,
        "threads_min": min(threads) if threads else None,
        "threads_median": statistics.median(threads) if threads else None,
        "threads_max": max(threads) if threads else None,
        "one_thread_launches": sum(1 for t in threads if t == 1),
        "registers_max": max(regs) if regs else None,
        "registers_median": statistics.median(regs) if regs else None,
        "spill_bytes": sum(s["spill_bytes"] for s in stats.values()),
        "stack_max": max((s["stack"] for s in stats.values()), default=0),
        "smem_max": max((s["smem"] for s in stats.values()), default=0),
        "launches_per_call": sim["launches"] if sim else None,
        "library_calls_per_call": sim["library_calls"] if sim else None,
        "syncs_per_call": sim["syncs"] - runner_syncs(results)
        if sim and results is not None else None,
        "host_syncs": host_syncs,
        "peak_bytes": sim["peak_bytes"] if sim else None,
    }
