"""Adapter: the kernels Inductor generates for a torch.compile'd graph
(after its fusion) to the neutral Graph. Needs torch (2.14.1: it reads the
scheduler's nodes, an internal interface).

Inductor's post-grad FX graph still has every `convert_element_type`,
including the upcasts it computes inside a fused kernel (a bf16 matmul
result widened to f32 for GELU, then narrowed): those never reach memory.
What reaches memory is what its kernels read and write, so the graph is
built from the scheduler's nodes once fusion is done, just before code
generation:

- one op per kernel: an extern kernel (aten's mm, addmm, bmm, convolution:
  a contraction, or another library call such as the CPU's flash
  attention, whose several outputs are its op's) or a generated kernel (a
  fused group of pointwise and reduction nodes);
- its inputs are the buffers and graph inputs it reads, its outputs the
  buffers it writes that something outside it reads (a kernel's internal
  buffers stay in registers: Inductor removes them), each with the dtype it
  is stored in;
- a generated kernel is a conversion ('convert') when every FX node it was
  made from is a `convert_element_type`/`_to_copy` (or a view), it reads
  one float tensor and writes one; otherwise it computes. Conversions fused
  into a kernel that computes are not conversions: that kernel reads and
  writes its tensors in their stored types. No-op kernels are views;
- the graph inputs that are the model's parameters and buffers (as
  `capture` is told) are constants.
"""

from metrics import Graph, numel

_CONVERTS = {"_to_copy", "to", "convert_element_type"}
_VIEWS = {"view", "_unsafe_view", "reshape", "permute", "transpose", "t",
          "expand", "squeeze", "unsqueeze", "select", "slice", "alias",
          "as_strided", "clone", "getitem"}
_CONTRACTIONS = ("mm", "addmm", "bmm", "baddbmm", "convolution", "linear",
                 "matmul", "_convolution", "mkldnn", "conv")


def _dtype_name(torch, dtype):
    return {torch.float32: "f32", torch.float16: "f16",
            torch.bfloat16: "bf16", torch.float64: "f64"}.get(
                dtype, str(dtype).replace("torch.", ""))


def _target_name(node):
    target = node.target
    packet = getattr(target, "_overloadpacket", None)
    name = packet.__name__ if packet is not None else getattr(
        target, "__name__", str(target))
    return name.split(".")[0]


def _multi_output(buffer):
    """Whether an Inductor buffer stands for several outputs (its layout is
    a MultiOutputLayout, which has no size)."""
    return type(getattr(buffer, "layout", None)).__name__ == \
        "MultiOutputLayout"


def kernel_graph(scheduler, const_inputs=()):
    """The neutral Graph of an Inductor Scheduler after fusion."""
    import torch
    from torch._inductor import ir
    from torch._inductor import scheduler as sched
    from torch._inductor.virtualized import V
    graph = V.graph
    g = Graph()
    const_names = {graph.graph_input_names[i] for i in const_inputs
                   if i < len(graph.graph_input_names)}

    multi = {}   # a kernel with several outputs -> its op's index

    def declare(name):
        if name in g.values:
            return name
        buffer = graph.try_get_buffer(name)
        if buffer is None or not hasattr(buffer, "get_size") or \
                _multi_output(buffer):
            return None
        sizes = [int(graph.sizevars.optimization_hint(s)) for s in
                 buffer.get_size()]
        return g.value(name, _dtype_name(torch, buffer.get_dtype()),
                       numel(sizes), const=name in const_names
                       or name in graph.constants)

    for node in scheduler.nodes:
        members = list(node.get_nodes())
        written = set(node.get_buffer_names())
        outputs = []
        for buffer in node.get_outputs():
            outside = any(not isinstance(user.node, sched.BaseSchedulerNode)
                          or user.node not in members
                          for user in buffer.users if not user.is_weak)
            if outside and declare(buffer.get_name()):
                outputs.append(buffer.get_name())
        inputs = []
        for dep in node.read_writes.reads:
            if dep.name in written or dep.name in inputs or \
                    type(dep).__name__ == "WeakDep":
                continue
            if declare(dep.name):
                inputs.append(dep.name)
        if isinstance(node, sched.NopKernelSchedulerNode):
            g.op(node.get_name(), "view", inputs, outputs)
            continue
        if isinstance(node.node, ir.MultiOutput):
            # One of the outputs of a kernel with several (attention's
            # output and its log-sum-exp): that kernel writes it.
            parents = [d.name for d in node.read_writes.reads
                       if d.name in multi]
            if parents:
                g.ops[multi[parents[0]]]["outputs"] += outputs
                continue
        if isinstance(node, sched.ExternKernelSchedulerNode):
            for buffer in node.get_outputs():
                if _multi_output(buffer.node):
                    multi[buffer.get_name()] = len(g.ops)
            kernel = str(getattr(node.node, "python_kernel_name", "") or
                         getattr(node.node, "op_overload", "") or "")
            leaf = kernel.split(".")
            contraction = any(part in _CONTRACTIONS for part in leaf)
            g.op(f"extern {kernel}", "compute", inputs, outputs,
                 contraction=contraction)
            continue
        targets = set()
        for member in members:
            for origin in getattr(member.node, "origins", ()) or ():
                if origin.op == "call_function":
                    targets.add(_target_name(origin))
        floats = lambda names: [n for n in names  # noqa: E731
                                if g.values[n][0] in ("f32", "f16", "bf16",
                                                      "f64")]
        is_convert = (targets and targets <= _CONVERTS | _VIEWS
                      and targets & _CONVERTS and len(floats(inputs)) == 1
                      and len(floats(outputs)) == 1)
        g.op("kernel " + "+".join(sorted(targets)),
             "convert" if is_convert else "compute",
             floats(inputs)[:1] if is_convert else inputs,
             outputs)
    g.outputs = [n for n in graph.get_output_names() if n in g.values]
    return g


class Capture:
    """Records the kernel graph of every graph Inductor compiles while
    installed (`with Capture(model) as capture: ...`), in `graphs`.
    `backend` is a torch.compile backend that calls Inductor and records
    which of a graph's inputs are the model's parameters and buffers."""

    def __init__(self, model):
        self.weights = {t.data_ptr() for t in
                        list(model.parameters()) + list(model.buffers())}
        self.const_inputs = []
        self.graphs = []
        self._original = None

    def backend(self, gm, example_inputs):
        import torch
        from torch._inductor.compile_fx import compile_fx
        self.const_inputs.append(
            [i for i, t in enumerate(example_inputs)
             if isinstance(t, torch.Tensor) and t.data_ptr() in self.weights])
        return compile_fx(gm, example_inputs)

    def __enter__(self):
        from torch._inductor import scheduler as sched
        self._original = sched.Scheduler.codegen
        capture = self

        def codegen(scheduler):
            index = len(capture.graphs)
            consts = (capture.const_inputs[index]
                      if index < len(capture.const_inputs) else [])
            capture.graphs.append(kernel_graph(scheduler, consts))
            return capture._original(scheduler)

        sched.Scheduler.codegen = codegen
        return self

    def __exit__(self, *exc):
        from torch._inductor import scheduler as sched
        sched.Scheduler.codegen = self._original
        return False
