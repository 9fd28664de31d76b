"""``einsum``: the equation parsed and checked as PyTorch does, repeated labels and
broadcast dims turned into views, and one ``Einsum`` Function whose forward is the
``einsum`` primitive and whose gradients are einsums again.
"""
import numbers

from ..._core import dtype as _dt
from ..._core import tensor as _C
from ..._core.dispatch import kernel
from ..._core.tensor import TensorBase
from ...autograd.function import Function
from ...autograd.forward_ad import saved_for_jvp
from ._common import (_HALF_TYPES, _add_terms, _check_not_bool, _check_same_device,
                      _device_kernel, _tname)

__all__ = ["einsum"]


# ----------------------------------------------------------------------- einsum

def _label_code(c, equation, pos):
    if not (("a" <= c <= "z") or ("A" <= c <= "Z")):
        raise RuntimeError(f"einsum(): invalid subscript given at index {pos} in the equation "
                           f"string, subscripts must be in [a-zA-Z]")
    return c


def _parse_term(term, equation, start):
    """Labels of one operand (or the output): a list of letters and at most one '...'."""
    labels, i = [], 0
    while i < len(term):
        c = term[i]
        if c == " ":
            i += 1
        elif c == ".":
            if term[i:i + 3] != "..." or "..." in labels:
                raise RuntimeError(f"einsum(): found '.' for operand at position {start + i} "
                                   f"that is not part of any ellipsis")
            labels.append("...")
            i += 3
        else:
            labels.append(_label_code(c, equation, start + i))
            i += 1
    return labels


def _sublist_equation(args):
    """einsum(op0, [0, 1], op1, [1, 2], [0, 2]) -> ("ab,bc->ac", [op0, op1])."""
    def letters(sub):
        out = []
        for s in sub:
            if s is Ellipsis:
                out.append("...")
            elif isinstance(s, numbers.Integral) and 0 <= s < 52:
                out.append(chr(ord("A") + s) if s < 26 else chr(ord("a") + s - 26))
            else:
                raise ValueError(f"einsum(): expected subscript to be in [0, 52) but got {s}")
        return "".join(out)
    operands = list(args[0::2])
    subs = list(args[1::2])
    eq = ",".join(letters(s) for s in subs[:len(operands)])
    if len(subs) > len(operands):
        raise ValueError("einsum(): more sublists than operands")
    if len(args) % 2 == 1:
        # an odd number of arguments: the last one is the output sublist
        operands, out_sub = operands[:-1], args[-1]
        eq = ",".join(letters(s) for s in subs) + "->" + letters(out_sub)
    return eq, operands


def einsum(*args):
    """Einstein summation: ``einsum("ij,jk->ik", a, b)`` multiplies matrices.

    Accepts operands as separate arguments or as one list, the ``...`` ellipsis
    (broadcast batch dims), implicit output (labels seen once, alphabetically), the
    sublist form ``einsum(a, [0, 1], b, [1, 2])``, and size-1 dims broadcasting
    against a label's size, as PyTorch does.  All operands must share a dtype.

    Examples
    --------
    >>> import cygrad
    >>> a, b = cygrad.ones(2, 3), cygrad.ones(3, 4)
    >>> cygrad.einsum("ij,jk->ik", a, b).shape
    cygrad.Size([2, 4])
    >>> cygrad.einsum("ii", cygrad.eye(3)).item()
    3.0
    >>> cygrad.einsum("bij,bjk->bik", [cygrad.ones(5, 2, 3), cygrad.ones(5, 3, 4)]).shape
    cygrad.Size([5, 2, 4])
    """
    if args and not isinstance(args[0], (str, TensorBase)) and len(args) > 1:
        raise TypeError(f"einsum(): argument 'equation' (position 1) must be str, not "
                        f"{type(args[0]).__name__}")
    if isinstance(args[0] if args else None, str):
        equation, operands = args[0], list(args[1:])
        if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
            operands = list(operands[0])
    elif len(args) > 1:
        equation, operands = _sublist_equation(args)
    else:
        operands = []
    if not operands:
        raise ValueError("einsum(): must specify the equation string and at least one operand, "
                         "or at least one operand and its subscripts list")
    for i, op in enumerate(operands):
        if not isinstance(op, TensorBase):
            raise TypeError(f"einsum(): operand {i} must be a Tensor, not {type(op).__name__}")
    terms, out_labels = _parse_equation(equation, operands)
    if len({op.dtype for op in operands}) > 1 and not _multiplies_away(terms, out_labels,
                                                                        operands):
        # PyTorch multiplies operands elementwise (promoting) unless a label must be
        # contracted by a matrix product, which needs one dtype.
        dtype = _C.result_type(*operands)
        operands = [op.to(dtype) for op in operands]
    _check_einsum_operands(operands)
    terms, out_labels = _name_ellipsis_dims(terms, out_labels, operands)
    sizes, plain = _label_sizes(terms, operands)
    plan = (sizes,) + _einsum_dtypes(terms, out_labels, operands)
    if not plain:
        terms, operands = _plain_form(terms, operands, sizes)
    return Einsum.apply(tuple(map(tuple, terms)), tuple(out_labels), plan, *operands)


def _plain_form(terms, operands, sizes):
    """The operands in the plain form where every label names exactly one dim, of
    the label's full size: the dims of a repeated label become their diagonal,
    size-1 dims are expanded.  Both are views, which autograd differentiates (a
    diagonal's gradient lands on the diagonal, an expanded dim's gradient is
    summed), so ``Einsum`` itself only deals with the plain case."""
    plain_terms, plain_ops = [], []
    for labels, op in zip(terms, operands):
        op, labels = _diagonal_view(op, labels)
        full = tuple(sizes[x] for x in labels)
        if op.shape != full:
            op = op.expand(*full)
        plain_terms.append(labels)
        plain_ops.append(op)
    return plain_terms, plain_ops


def _parse_equation(equation, operands):
    lhs, arrow, rhs = equation.partition("->")
    pieces = lhs.split(",")
    if len(pieces) > len(operands):
        raise RuntimeError("einsum(): fewer operands were provided than specified in the equation")
    if len(pieces) < len(operands):
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    terms, pos = [], 0
    for i, (piece, op) in enumerate(zip(pieces, operands)):
        labels = _parse_term(piece, equation, pos)
        pos += len(piece) + 1
        n_named = len([x for x in labels if x != "..."])
        if "..." in labels:
            if n_named > op.dim():
                raise RuntimeError(f"einsum(): the number of subscripts in the equation "
                                   f"({n_named}) is more than the number of dimensions "
                                   f"({op.dim()}) for operand {i}")
        elif n_named != op.dim():
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({n_named}) "
                               f"does not match the number of dimensions ({op.dim()}) for "
                               f"operand {i} and no ellipsis was given")
        terms.append(labels)
    counts = {}
    for labels in terms:
        for x in labels:
            counts[x] = counts.get(x, 0) + 1
    if arrow:
        out_labels = _parse_term(rhs, equation, len(lhs) + 2)
        seen = set()
        for x in out_labels:
            if x in seen and x != "...":
                raise RuntimeError(f"einsum(): output subscript {x} appears more than once in "
                                   f"the output")
            if x != "..." and x not in counts:
                raise RuntimeError(f"einsum(): output subscript {x} does not appear in the "
                                   f"equation for any input operand")
            seen.add(x)
    else:
        # Implicit output: ellipsis dims first, then labels seen exactly once, sorted
        # (upper case before lower case, as in PyTorch).
        out_labels = (["..."] if "..." in counts else []) + sorted(
            x for x, n in counts.items() if n == 1 and x != "...")
    return terms, out_labels


def _check_einsum_operands(operands):
    dtype = operands[0].dtype
    for op in operands[1:]:
        if op.dtype is not dtype:
            raise RuntimeError(f"expected scalar type {_tname(dtype)} but found {_tname(op.dtype)}")
        _check_same_device(operands[0], op)


def _einsum_dtypes(terms, out_labels, operands):
    """PyTorch's dtypes for an einsum of operands of one dtype: the result's, and
    the one the contraction runs in (None: the operands')."""
    dtype = operands[0].dtype
    if dtype.name in _HALF_TYPES:
        return dtype, _dt.float32
    if not (dtype.is_floating_point or dtype.is_complex) and _sums_a_label(terms, out_labels, operands):
        # PyTorch sums a label away with torch.sum, which turns integers/bools into int64.
        return _dt.int64, _dt.int64
    if dtype is _dt.bool_ and any(x not in out_labels for t in terms for x in t):
        _check_not_bool(dtype, "bmm")
    return dtype, None


def _contract(terms, out_labels, operands, sizes, result_dtype, compute_dtype):
    """The einsum primitive: ``operands`` checked, their labels named, ``sizes`` the
    labels' sizes, the dtypes as :func:`_einsum_dtypes` says."""
    dev = operands[0].device
    device_kernel = _device_kernel("einsum", dev)
    if device_kernel is not None:
        return device_kernel(terms, out_labels, operands, sizes, result_dtype, compute_dtype)
    # Until a device kernel exists: contract on the host, move the result back.
    host = kernel("einsum", "cpu")(terms, out_labels, [op.cpu() for op in operands], sizes,
                                   result_dtype, compute_dtype)
    return host.to(dev)


def _label_sizes_of(labels, op):
    """``{label: size}`` of one operand's named labels (around an ellipsis)."""
    if "..." not in labels:
        return dict(zip(labels, op.shape))
    cut = labels.index("...")
    before, after = labels[:cut], labels[cut + 1:]
    sizes = dict(zip(before, op.shape))
    sizes.update(zip(after, op.shape[op.dim() - len(after):]))
    return sizes


def _multiplies_away(terms, out_labels, operands):
    """Does PyTorch's einsum contract some label by a matrix product: a label missing
    from the output that two or more operands hold with a size above 1?"""
    sized = [_label_sizes_of(labels, op) for labels, op in zip(terms, operands)]
    reduced = {x for labels in terms for x in labels if x not in out_labels}
    if "..." in reduced and sum("..." in labels for labels in terms) > 1:
        return True
    return any(sum(s.get(x, 1) > 1 for s in sized) > 1 for x in reduced)


def _sums_a_label(terms, out_labels, operands):
    """Does PyTorch's einsum reduce some label with a sum rather than a product?

    It does for a label missing from the output that only one operand holds with
    a size above 1 (the others lack it or broadcast it): that operand is summed over
    it before any product.  A lone operand's reduction is a sum too."""
    sized = [dict(zip(labels, op.shape)) for labels, op in zip(terms, operands)]
    reduced = {x for labels in terms for x in labels if x not in out_labels}
    if len(operands) == 1:
        return bool(reduced)
    return any(sum(s.get(x, 1) > 1 for s in sized) == 1 for x in reduced)


def _spec(terms, out_labels):
    return ",".join("".join(t) for t in terms) + "->" + "".join(out_labels)


def _diagonal_view(op, labels):
    """``op`` viewed with each repeated label's dims collapsed into one (the diagonal:
    its stride is the sum of theirs), and the labels without repeats."""
    if len(set(labels)) == len(labels):
        return op, list(labels)
    order, shape, strides = [], [], []
    for x, n, st in zip(labels, op.shape, op.stride()):
        if x in order:
            strides[order.index(x)] += st
        else:
            order.append(x)
            shape.append(n)
            strides.append(st)
    return op._as_strided_any(tuple(shape), tuple(strides), op.storage_offset()), order


class Einsum(Function):
    """einsum of operands whose labels are all distinct and full-sized (``plan``:
    the labels' sizes, the result's dtype and the dtype it is computed in, worked
    out by :func:`einsum`).

    The result is linear in each operand, and the gradient of operand ``i`` is
    another einsum: the output gradient contracted with the other operands, giving
    back operand ``i``'s labels.
    """
    _node_name = "EinsumBackward0"

    @staticmethod
    def forward(ctx, terms, out_labels, plan, *operands):
        ctx.save_for_backward(*operands)
        ctx.terms, ctx.out_labels = terms, out_labels
        return _contract(terms, out_labels, operands, *plan)

    @staticmethod
    def backward(ctx, grad):
        operands = ctx.saved_tensors
        if operands and operands[0].is_complex():
            # PyTorch's convention: the gradient uses the conjugate of the other operands
            operands = tuple(o.conj() for o in operands)
        grads = [None, None, None]
        for i in range(len(operands)):
            if ctx.needs_input_grad[i + 3]:
                grads.append(_einsum_operand_grad(grad, i, ctx.terms, ctx.out_labels, operands))
            else:
                grads.append(None)
        return tuple(grads)

    @staticmethod
    def jvp(ctx, _terms, _out_labels, _plan, *tangents):
        # Linear in each operand: the sum over operands of einsum with the tangent in
        # that operand's place.
        operands = saved_for_jvp(ctx)
        spec = _spec(ctx.terms, ctx.out_labels)
        parts = []
        for i, tangent in enumerate(tangents):
            if tangent is not None:
                parts.append(einsum(spec, *operands[:i], tangent, *operands[i + 1:]))
        return _add_terms(*parts)


def _einsum_operand_grad(grad, i, terms, out_labels, operands):
    """Gradient of operand ``i`` of a plain einsum.  A label that only operand ``i``
    has was summed away in the forward; the gradient is constant along it, so it is
    left out of the einsum and the result expanded back."""
    others = [t for j, t in enumerate(terms) if j != i]
    seen = set(out_labels).union(*others)
    kept = [x for x in terms[i] if x in seen]
    g = einsum(_spec([out_labels] + others, kept), grad,
               *[op for j, op in enumerate(operands) if j != i])
    if len(kept) < len(terms[i]):
        full = tuple(operands[i].shape)
        g = g.reshape(tuple(n if x in seen else 1 for x, n in zip(terms[i], full))).expand(*full)
    return g


def _name_ellipsis_dims(terms, out_labels, operands):
    """Replace each '...' by letters of its own, right-aligned across operands, so
    that ellipsis dims broadcast like named ones and may be summed away when the
    output leaves them out (NumPy's einsum refuses that, PyTorch allows it)."""
    n_ell = 0
    for labels, op in zip(terms, operands):
        if "..." in labels:
            n_ell = max(n_ell, op.dim() - (len(labels) - 1))
    if n_ell == 0:
        return terms, [x for x in out_labels if x != "..."]
    used = {x for t in terms for x in t} | set(out_labels)
    free = [c for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz" if c not in used]
    if len(free) < n_ell:
        raise RuntimeError("einsum(): too many subscripts and ellipsis dims for 52 letters")
    ell = free[:n_ell]
    named = []
    for labels, op in zip(terms, operands):
        if "..." in labels:
            k = labels.index("...")
            own = op.dim() - (len(labels) - 1)
            labels = labels[:k] + ell[n_ell - own:] + labels[k + 1:]
        named.append(labels)
    out = []
    for x in out_labels:
        out.extend(ell if x == "..." else [x])
    return named, out


def _label_sizes(terms, operands):
    """Size of every label; size-1 dims broadcast against a larger size, other
    mismatches raise PyTorch's errors.  Also says whether the operands are in the
    plain form already (no repeated label, nothing to broadcast)."""
    sizes, plain = {}, True
    for i, (labels, op) in enumerate(zip(terms, operands)):
        own = {}
        for x, n in zip(labels, op.shape):
            if x in own:
                if own[x] != n:
                    raise RuntimeError(f"einsum(): subscript {x} is repeated for operand {i} "
                                       f"but the sizes don't match, {n} != {own[x]}")
                plain = False
            own[x] = n
            prev = sizes.get(x)
            if prev is None or prev == 1:
                sizes[x] = n
                plain = plain and (prev is None or n == 1)
            elif n != prev:
                if n != 1:
                    raise RuntimeError(f"einsum(): subscript {x} has size {n} for operand {i} "
                                       f"which does not broadcast with previously seen size "
                                       f"{prev}")
                plain = False
    return sizes, plain
