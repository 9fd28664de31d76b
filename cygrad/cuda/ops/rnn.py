"""The 'cuda' kernels of the recurrent layers' steps (``cuda_src/rnn.cu``) and of the
small products ``mm_small`` and ``einsum``.

``lstm_step``, ``gru_step``, ``elman_step`` and their ``_backward`` have the
signatures and return values of the CPU entries (``cygrad/_core/rnn_kernels.pyx``):
contiguous float32/float64 tensors of ``N`` rows, outputs written in place, an
optional input given as None read as zero. Each is one launch of a grid-stride
kernel over the step's ``N * H`` elements; ``cygrad/nn/_ops/rnn.py`` runs the
step's products through the CUDA ``matmul_into``.

``einsum`` contracts on the device: labels held by one operand only are summed
away first (the CUDA ``reduce_sum``), then operands are multiplied pairwise as
batched products (permute, make contiguous, the CUDA ``matmul_into``).

Examples
--------
>>> from cygrad.cuda.ops import rnn
>>> "lstm_step" in rnn.PRIMITIVES
True
"""
import math

from ..._core import dispatch
from ..._core import tensor as _C
from .. import kernels as _k

_STEP_NAMES = ("lstm_step", "lstm_step_backward", "gru_step", "gru_step_backward", "elman_step",
         "elman_step_backward")
#: the primitives this module gives a 'cuda' kernel
PRIMITIVES = _STEP_NAMES + ("mm_small", "einsum")

_FLOATS = ("float32", "float64")


class _Check:
    """PyTorch-style checks of one step call (the CPU kernel's, on the device):
    dtype, device, ``(N, G * H)`` shapes, contiguity, and no output overlapping
    another argument; collects the device pointers (0 for an optional None)."""

    def __init__(self, ref, gates, what):
        self.what = what
        if ref.device.type != "cuda":
            raise RuntimeError(f"{what}: expected CUDA tensors, got one on {ref.device}")
        self.dt = ref.dtype
        self.sfx = _k.suffix(self.dt.name)
        if self.sfx is None:
            raise NotImplementedError(f"no 'cuda' kernel for primitive '{what}' for dtype "
                                      f"{self.dt} on cuda (float32 and float64 only)")
        if ref.dim() != 2 or ref.shape[1] % gates:
            raise RuntimeError(f"{what}: expected an (N, {gates} * H) tensor, got shape "
                               f"{list(ref.shape)}")
        self.n, self.hs = ref.shape[0], ref.shape[1] // gates
        self.device = ref.device
        self.ranges = []            # (start, end, written)

    def arg(self, t, gates, optional=False, written=False):
        """The device pointer of argument ``t`` (0 for an optional None), checked."""
        if t is None:
            if optional:
                return 0
            raise RuntimeError(f"{self.what}: a required tensor is None")
        if t.device != self.device or t.dtype is not self.dt:
            raise RuntimeError(f"{self.what}: expected {self.dt.name} tensors on {self.device}, "
                               f"got {t.dtype.name} on {t.device}")
        if t.dim() != 2 or t.shape[0] != self.n or t.shape[1] != gates * self.hs:
            raise RuntimeError(f"{self.what}: expected shape [{self.n}, {gates * self.hs}], "
                               f"got {list(t.shape)}")
        if not t.is_contiguous():
            raise RuntimeError(f"{self.what}: expected contiguous tensors")
        p = t.data_ptr()
        self.ranges.append((p, p + t.numel() * self.dt.itemsize, written))
        return p

    def disjoint(self):
        for i, (s1, e1, w) in enumerate(self.ranges):
            if not w:
                continue
            for j, (s2, e2, _) in enumerate(self.ranges):
                if j != i and s1 < e2 and s2 < e1:
                    raise RuntimeError(f"{self.what}: an output overlaps another argument")

    def launch(self, name, count, args):
        if count:
            _k.launch(self.device.index, "rnn.cu", f"cg_{name}_{self.sfx}", _k.grid_1d(count),
                      (_k.BLOCK, 1, 1), args)


# name: (kernel, what each tensor argument is: (gates, "in" / "opt" / "out"), the
# argument whose dtype and shape are the reference, the argument returned, whether a
# trailing ``relu`` flag follows (Elman)); the CPU entries' signatures
_STEPS = {
    "lstm_step": ("lstm_fwd", ((4, "in"), (4, "in"), (1, "in"), (4, "out"), (1, "out"),
                               (1, "out"), (1, "out")), 0, 6, False),
    "lstm_step_backward": ("lstm_bwd", ((1, "opt"), (1, "opt"), (1, "out"), (4, "in"),
                                        (1, "in"), (1, "in"), (4, "out")), 3, 6, False),
    "gru_step": ("gru_fwd", ((3, "in"), (3, "in"), (1, "in"), (3, "out"), (1, "out"),
                             (1, "out")), 0, 5, False),
    "gru_step_backward": ("gru_bwd", ((1, "opt"), (1, "opt"), (3, "in"), (1, "in"), (1, "in"),
                                      (3, "out"), (3, "out"), (1, "out")), 2, 7, False),
    "elman_step": ("elman_fwd", ((1, "in"), (1, "in"), (1, "out")), 0, 2, True),
    "elman_step_backward": ("elman_bwd", ((1, "opt"), (1, "opt"), (1, "in"), (1, "out")), 2, 3,
                            True),
}


def _step_kernel(name):
    kernel, spec, ref, ret, elman = _STEPS[name]

    def run(*args):
        tensors = args[:len(spec)]
        if len(args) != len(spec) + elman:
            raise TypeError(f"{name}() takes {len(spec) + elman} arguments ({len(args)} given)")
        k = _Check(tensors[ref], spec[ref][0], name)
        ptrs = tuple(k.arg(t, g, optional=kind == "opt", written=kind == "out")
                     for t, (g, kind) in zip(tensors, spec))
        k.disjoint()
        if elman:
            m = k.n * k.hs
            k.launch(kernel, m, (m, int(bool(args[-1]))) + ptrs)
        else:
            k.launch(kernel, k.n * k.hs, (k.n, k.hs) + ptrs)
        return tensors[ret]
    run.__name__ = run.__qualname__ = name
    run.__doc__ = f"""The 'cuda' entry of ``{name}``: the CPU entry's arguments, checks and
    result (``cygrad/_core/rnn_kernels.pyx``), one launch of ``cg_{kernel}`` of
    ``cuda_src/rnn.cu``.

    Examples
    --------
    >>> from cygrad.cuda.ops import rnn
    >>> rnn.{name}.__name__
    '{name}'
    """
    return run


lstm_step = _step_kernel("lstm_step")
lstm_step_backward = _step_kernel("lstm_step_backward")
gru_step = _step_kernel("gru_step")
gru_step_backward = _step_kernel("gru_step_backward")
elman_step = _step_kernel("elman_step")
elman_step_backward = _step_kernel("elman_step_backward")


# ---------------------------------------------------------------- products

def mm_small(a, b):
    """``a @ b`` of two contiguous 2-D CUDA tensors of float32 or float64 (one
    launch of the tiled product kernel); None where that does not apply, as the
    CPU entry (the caller then uses ``matmul_into``).

    Examples
    --------
    >>> from cygrad.cuda.ops.rnn import mm_small
    >>> mm_small.__name__
    'mm_small'
    """
    if (a.dim() != 2 or b.dim() != 2 or a.dtype is not b.dtype or _k.suffix(a.dtype.name) is None
            or a.device != b.device or a.shape[1] != b.shape[0]
            or not (a.is_contiguous() and b.is_contiguous())):
        return None
    out = _C._empty((a.shape[0], b.shape[1]), a.dtype, a.device)
    if out.numel():
        if a.shape[1] == 0:
            out.fill_(0)
        else:
            dispatch.kernel("matmul_into", "cuda")(a, b, out)
    return out


def _expand_labels(op, labels, sizes):
    target = tuple(sizes[x] for x in labels)
    return op if tuple(op.shape) == target else op.expand(*target)


def _sum_labels(op, labels, drop):
    """``op`` summed over the labels in ``drop`` (the CUDA ``reduce_sum``)."""
    axes = tuple(i for i, x in enumerate(labels) if x in drop)
    if not axes:
        return op, labels
    op = dispatch.kernel("reduce_sum", "cuda")(op, axes, False, op.dtype)
    return op, [x for x in labels if x not in drop]


def _pair(a, la, b, lb, keep):
    """Contract ``a`` (labels ``la``) with ``b`` (``lb``) as one batched product:
    labels of both that are kept form the batch, labels of both that are not are
    summed by the product, the rest are the rows (``a``) and columns (``b``)."""
    batch = [x for x in la if x in lb and x in keep]
    inner = [x for x in la if x in lb and x not in keep]
    rows = [x for x in la if x not in lb]
    cols = [x for x in lb if x not in la]
    size = dict(zip(la, a.shape))
    size.update(zip(lb, b.shape))

    def prod(labels):
        return math.prod(size[x] for x in labels)
    nb, m, k, n = prod(batch), prod(rows), prod(inner), prod(cols)
    a3 = a.permute(*[la.index(x) for x in batch + rows + inner]).contiguous().reshape(nb, m, k)
    b3 = b.permute(*[lb.index(x) for x in batch + inner + cols]).contiguous().reshape(nb, k, n)
    out = _C._empty((nb, m, n), a.dtype, a.device)
    if out.numel():
        if k == 0:
            out.fill_(0)
        else:
            dispatch.kernel("matmul_into", "cuda")(a3, b3, out)
    labels = batch + rows + cols
    return out.reshape(tuple(size[x] for x in labels)), labels


def einsum(terms, out_labels, operands, sizes, result_dtype, compute_dtype):
    """The contraction ``terms -> out_labels`` of CUDA ``operands`` (the CPU entry's
    arguments and result: a new tensor of ``result_dtype``), computed on the
    device in float32, float64, complex64 or complex128 (float16/bfloat16 operands in
    float32; a complex label summed away before the products needs a complex
    ``reduce_sum``, which CUDA lacks: that raises).

    Examples
    --------
    >>> from cygrad.cuda.ops.rnn import einsum
    >>> einsum.__name__
    'einsum'
    """
    dt = compute_dtype if compute_dtype is not None else operands[0].dtype
    if _k.suffix(dt.name) is None and not dt.is_complex:
        raise NotImplementedError(f"no 'cuda' kernel for primitive 'einsum' for dtype {dt} on "
                                  "cuda (float16, bfloat16, float32, float64 and complex only)")
    dev = operands[0].device
    ops = []
    for op, labels in zip(operands, terms):
        labels = list(labels)
        op = _expand_labels(op if op.dtype is dt else op.to(dt), labels, sizes)
        ops.append((op, labels))
    out_labels = list(out_labels)
    # a label that one operand alone holds and the output lacks is summed first
    for i, (op, labels) in enumerate(ops):
        others = set(out_labels).union(*(lb for j, (_, lb) in enumerate(ops) if j != i))
        ops[i] = _sum_labels(op, labels, {x for x in labels if x not in others})
    acc, la = ops[0]
    for j in range(1, len(ops)):
        b, lb = ops[j]
        keep = set(out_labels).union(*(lbl for _, lbl in ops[j + 1:]))
        acc, la = _pair(acc, la, b, lb, keep)
    res = acc.permute(*[la.index(x) for x in out_labels]) if la else acc
    out = _C._empty(tuple(sizes[x] for x in out_labels), result_dtype, dev)
    if out.numel():
        out.copy_(res)
    return out


def register():
    """Register this module's kernels as the 'cuda' entries of the kernel table.

    Examples
    --------
    >>> from cygrad.cuda.ops import rnn
    >>> callable(rnn.register)
    True
    """
    for name in _STEP_NAMES:
        dispatch.register(name, "cuda", dtypes=_FLOATS)(globals()[name])
    dispatch.register("mm_small", "cuda")(mm_small)
    dispatch.register("einsum", "cuda")(einsum)
