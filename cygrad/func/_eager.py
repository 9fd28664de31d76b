"""``grad``, ``vjp``, ``jvp``, ``jacrev``, ``jacfwd``, ``hessian``, ``linearize``.

They are built on the tape: ``autograd.grad(..., create_graph=True)`` for reverse
mode and forward-mode dual numbers (``autograd.forward_ad``) for ``jvp``.

How they compose
----------------
* **With vmap.** An input batched by ``vmap`` is unwrapped to its physical tensor,
  first expanded to every active vmap level (so that one backward pass over the sum
  of the samples' outputs gives each sample its own gradient: samples never mix),
  made a leaf that requires grad, and wrapped again before ``func`` sees it. The
  gradients come back wrapped the same way.
* **With each other.** A transform called inside another one keeps its graph
  (``create_graph=True``) so the outer one can differentiate through it; at top level
  results carry no graph unless the inputs required grad.
* **Forward mode nests once.** cygrad has one forward-AD level, and reverse mode run
  inside it loses the tangents of outputs a backward saved. So ``jvp`` uses dual
  numbers only at top level; nested in another transform, or when ``func`` itself runs
  a reverse transform (``jacfwd(jacrev(f))``) or an op without a forward-mode formula
  (it then runs ``func`` again), it computes ``J v`` by the double-vjp trick:
  ``g(u) = J^T u`` with a graph, then ``J v = d(g . v)/du``.
"""
import functools
import threading

from .._tensor import Tensor
from ..autograd import forward_ad as _fwad
from ..autograd.engine_api import grad as _autograd_grad
from ..autograd.grad_mode import enable_grad
from . import _batched as _b
from ._batched import BatchedTensor, call
from ._pytree import tree_flatten, tree_unflatten

__all__ = ["grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian", "linearize"]

_tls = threading.local()


class _UseReverse(Exception):
    """Raised inside a forward-mode ``jvp`` when ``func`` runs a reverse transform."""


def _depth():
    return getattr(_tls, "depth", 0)


class _nested:
    def __enter__(self):
        _tls.depth = _depth() + 1

    def __exit__(self, *exc):
        _tls.depth -= 1


def _check_reverse_allowed():
    if getattr(_tls, "forward", False):
        raise _UseReverse()


# --------------------------------------------------------- physical tensors

def _active():
    return [(lv, size) for lv, size, _ in _b._levels()]


def _check_tensor(x):
    if not isinstance(x, (Tensor, BatchedTensor)):
        raise ValueError(f"Thing passed to transform API must be Tensor, got {type(x)}")


def _to_full(x, active):
    """The physical tensor of ``x`` with one leading dim per active vmap level."""
    present = set()
    while type(x) is BatchedTensor:
        present.add(x._level)
        x = x._value
    for i, (lv, size) in enumerate(active):
        if lv not in present:
            x = x.unsqueeze(i)
            shape = list(x.shape)
            shape[i] = size
            x = x.expand(tuple(shape))
    return x


def _rewrap(x, active):
    for lv, _ in active:
        x = BatchedTensor(x, lv)
    return x


def _fresh(p):
    """A tensor to differentiate with respect to: an alias if ``p`` is already tracked (so
    an outer transform still reaches it), else a new leaf."""
    if p.requires_grad:
        return p.view_as(p)
    return p.detach().requires_grad_()


def _zeros_like(p):
    return call("zeros_like", p)


def _grads(outputs, inputs, grad_outputs, create_graph):
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o.requires_grad]
    if not pairs:
        return [_zeros_like(i) for i in inputs]
    res = _autograd_grad([o for o, _ in pairs], inputs, [g for _, g in pairs],
                         retain_graph=True, create_graph=create_graph, allow_unused=True)
    return [_zeros_like(i) if r is None else r for r, i in zip(res, inputs)]


def _argnums_tuple(argnums, nargs, name):
    single = isinstance(argnums, int)
    nums = (argnums,) if single else argnums
    if not isinstance(nums, tuple) or not nums or not all(isinstance(a, int) for a in nums):
        raise RuntimeError(f"{name}: argnums must be int or Tuple[int, ...], got: {argnums!r}")
    out = []
    for a in nums:
        if not -nargs <= a < nargs:
            raise RuntimeError(f"Got argnum={a}, but only {nargs} positional inputs")
        out.append(a % nargs)
    if len(set(out)) != len(out):
        raise RuntimeError(f"{name}: argnums must be unique, got {argnums!r}")
    return single, tuple(out)


def _split_aux(out, has_aux, name):
    if not has_aux:
        return out, None
    if not (isinstance(out, tuple) and len(out) == 2):
        raise RuntimeError(f"{name}(f, ...)(*args): output of function f should be a tuple: "
                           f"(output, aux) if has_aux is True")
    return out


def _detach_tree(tree, keep):
    if keep:
        return tree
    leaves, spec = tree_flatten(tree)
    return tree_unflatten([_detach(v) for v in leaves], spec)


def _detach(v):
    if isinstance(v, (Tensor, BatchedTensor)):
        return call("detach", v)
    return v


class _Prepared:
    """The differentiated arguments of a call: flattened, made fresh leaves, rewrapped."""

    def __init__(self, args, argnums, name):
        self.active = _active()
        self.single, self.nums = _argnums_tuple(argnums, len(args), name)
        diff = args[self.nums[0]] if self.single else tuple(args[n] for n in self.nums)
        self.leaves, self.spec = tree_flatten(diff)
        for x in self.leaves:
            _check_tensor(x)
        phys = [_to_full(x, self.active) for x in self.leaves]
        self.tracked = any(p.requires_grad for p in phys)
        self.inputs = [_fresh(p) for p in phys]
        wrapped = tree_unflatten([_rewrap(i, self.active) for i in self.inputs], self.spec)
        new = list(args)
        if self.single:
            new[self.nums[0]] = wrapped
        else:
            for n, w in zip(self.nums, wrapped):
                new[n] = w
        self.args = tuple(new)

    def create_graph(self, *extra):
        return _depth() > 0 or self.tracked or any(
            isinstance(e, Tensor) and e.requires_grad for e in extra)

    def unflatten(self, physical):
        return tree_unflatten([_rewrap(g, self.active) for g in physical], self.spec)


# ------------------------------------------------------------------- grad

def grad_and_value(func, argnums=0, has_aux=False):
    """``(gradient, value)`` of a scalar function, as ``torch.func.grad_and_value``.

    Parameters
    ----------
    func : callable
        Returns a 0-d tensor (or ``(tensor, aux)`` with ``has_aux=True``).
    argnums : int or tuple of int
        Which positional arguments to differentiate (each may be a nest of tensors).
    has_aux : bool
        ``func`` returns ``(output, aux)``; ``aux`` is returned unchanged (detached).

    Returns
    -------
    callable
        Returns ``(grad, value)``, or ``((grad, (value, aux)))`` with ``has_aux``; grad
        has the structure of the differentiated argument(s).

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.func import grad_and_value
    >>> g, v = grad_and_value(lambda x: (x ** 2).sum())(cygrad.tensor([1.0, 2.0]))
    >>> g.tolist(), v.item()
    ([2.0, 4.0], 5.0)
    """
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        _check_reverse_allowed()
        with enable_grad():
            prep = _Prepared(args, argnums, "grad_and_value")
            with _nested():
                out = func(*prep.args, **kwargs)
            out, aux = _split_aux(out, has_aux, "grad_and_value")
            if not isinstance(out, (Tensor, BatchedTensor)):
                raise RuntimeError(f"grad_and_value(f)(*args): Expected f(*args) to return a "
                                   f"Tensor, got {type(out)}")
            if out.dim() != 0:
                raise RuntimeError(f"grad_and_value(f)(*args): Expected f(*args) to return a "
                                   f"scalar Tensor, got tensor with {out.dim()} dims. Maybe you "
                                   f"wanted to use the vjp or jacrev APIs instead?")
            cg = prep.create_graph()
            o = _to_full(out, prep.active)
            gs = _grads([o], prep.inputs, [o.new_ones(tuple(o.shape))], cg)
        if not cg:
            gs = [g.detach() for g in gs]
            o = o.detach()
        value = _rewrap(o, prep.active)
        g = prep.unflatten(gs)
        if has_aux:
            return g, (value, _detach_tree(aux, cg))
        return g, value
    return wrapper


def grad(func, argnums=0, has_aux=False):
    """The gradient of a scalar function, as ``torch.func.grad``.

    ``grad(f)(x)`` is ``df/dx`` at ``x``; ``grad`` composes with itself, ``vmap`` and the
    other transforms (``vmap(grad(f))`` gives per-sample gradients).

    Parameters
    ----------
    func : callable
        Returns a 0-d tensor (or ``(tensor, aux)`` with ``has_aux=True``).
    argnums : int or tuple of int
        Which positional arguments to differentiate.
    has_aux : bool
        ``func`` returns ``(output, aux)``; then ``grad`` returns ``(gradient, aux)``.

    Returns
    -------
    callable
        Computes the gradient(s), with the structure of the differentiated argument(s).

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.func import grad
    >>> x = cygrad.tensor(0.5)
    >>> grad(cygrad.sin)(x).item() == cygrad.cos(x).item()
    True
    >>> grad(grad(lambda t: t ** 3))(cygrad.tensor(2.0)).item()
    12.0
    """
    gv = grad_and_value(func, argnums, has_aux)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        g, value = gv(*args, **kwargs)
        if has_aux:
            return g, value[1]
        return g
    return wrapper


# -------------------------------------------------------------------- vjp

def vjp(func, *primals, has_aux=False):
    """``(output, vjp_fn)``: ``func``'s output and its vector-Jacobian product function.

    As ``torch.func.vjp``: ``vjp_fn(cotangents)`` (a nest like the output) returns a
    tuple with one gradient per primal. ``vjp_fn`` may be called many times, and under
    ``vmap`` (``vmap(vjp_fn)(basis)`` gives Jacobian rows).

    Parameters
    ----------
    func : callable
        Takes the primals, returns a tensor or a nest of tensors (``(output, aux)`` with
        ``has_aux=True``).
    *primals : Tensor or nest of tensors
        Where to evaluate ``func``.
    has_aux : bool
        Returns ``(output, vjp_fn, aux)``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.func import vjp
    >>> x = cygrad.tensor([1.0, 2.0])
    >>> out, vjp_fn = vjp(lambda t: t ** 2, x)
    >>> vjp_fn(cygrad.ones(2))[0].tolist()
    [2.0, 4.0]
    """
    _check_reverse_allowed()
    with enable_grad():
        prep = _Prepared(primals, tuple(range(len(primals))) if primals else 0, "vjp") \
            if primals else None
        if prep is None:
            raise RuntimeError("vjp(f, *primals): Expected at least one primal")
        with _nested():
            out = func(*prep.args)
        out, aux = _split_aux(out, has_aux, "vjp")
    out_leaves, out_spec = tree_flatten(out)
    for o in out_leaves:
        if not isinstance(o, (Tensor, BatchedTensor)):
            raise RuntimeError(f"vjp(f, *primals): Expected f to be a function that has only "
                               f"Tensors or Numbers as output, got {type(o)}")
    outs_phys = [_to_full(o, prep.active) for o in out_leaves]
    cg_at_creation = _depth() > 0 or prep.tracked

    def vjp_fn(*cotangents, retain_graph=True, create_graph=None):
        ct = cotangents[0] if len(cotangents) == 1 else cotangents
        ct_leaves, ct_spec = tree_flatten(ct)
        extra = _extra_level(ct_leaves, prep.active)
        if extra:
            return _loop_level(lambda *c: vjp_fn(*c), cotangents, extra)
        if ct_spec != out_spec and not (len(ct_leaves) == len(out_leaves) == 1):
            raise RuntimeError(f"Expected pytree structure of cotangents to be the same as "
                               f"pytree structure of outputs to the function. cotangents: "
                               f"{ct_spec}, primal output: {out_spec}")
        phys = []
        for c, o, op in zip(ct_leaves, out_leaves, outs_phys):
            _check_tensor(c)
            if tuple(c.shape) != tuple(o.shape):
                raise RuntimeError(f"Mismatch in shape: grad_output[0] has a shape of "
                                   f"{tuple(c.shape)} and output[0] has a shape of "
                                   f"{tuple(o.shape)}.")
            phys.append(_to_full(c, prep.active))
        cg = create_graph if create_graph is not None else (
            cg_at_creation or any(p.requires_grad for p in phys))
        with enable_grad():
            gs = _grads(outs_phys, prep.inputs, phys, cg)
        if not cg:
            gs = [g.detach() for g in gs]
        return tuple(prep.unflatten(gs)) if len(primals) > 1 else (prep.unflatten(gs)[0],)

    out_value = tree_unflatten([_rewrap(o if cg_at_creation else o.detach(), prep.active)
                                for o in outs_phys], out_spec)
    if has_aux:
        return out_value, vjp_fn, _detach_tree(aux, cg_at_creation)
    return out_value, vjp_fn


def _extra_level(leaves, active):
    """The highest vmap level of ``leaves`` that is not among ``active`` (vjp_fn called
    under a vmap that started after vjp), or 0."""
    known = {lv for lv, _ in active}
    best = 0
    for x in leaves:
        while type(x) is BatchedTensor:
            if x._level not in known:
                best = max(best, x._level)
            x = x._value
    return best


def _loop_level(fn, args, level):
    """Run ``fn`` once per sample of vmap level ``level`` and stack the results."""
    size = _b.level_size(level)
    outs = []
    for i in range(size):
        sliced = [tree_unflatten([_b._select(v, level, i) for v in tree_flatten(a)[0]],
                                 tree_flatten(a)[1]) for a in args]
        outs.append(fn(*sliced))
    leaves0, spec = tree_flatten(outs[0])
    cols = [[tree_flatten(o)[0][j] for o in outs] for j in range(len(leaves0))]
    return tree_unflatten([BatchedTensor(call("stack", c, 0), level) for c in cols], spec)


# -------------------------------------------------------------------- jvp

def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """``(output, jvp_out)``: ``func(*primals)`` and its Jacobian times ``tangents``.

    As ``torch.func.jvp``. At top level this is forward mode (dual numbers: one pass);
    nested inside another transform it uses the double-vjp trick (see the module
    docstring), which gives the same values.

    Parameters
    ----------
    func : callable
        Takes the primals, returns a tensor or nest of tensors.
    primals : tuple
        The arguments (tensors or nests of tensors).
    tangents : tuple
        Same structure and shapes as ``primals``.
    strict : bool
        Accepted for PyTorch's signature; cygrad raises no extra errors with it.
    has_aux : bool
        ``func`` returns ``(output, aux)``; returns ``(output, jvp_out, aux)``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.func import jvp
    >>> x = cygrad.tensor([1.0, 2.0])
    >>> out, t = jvp(lambda v: v ** 3, (x,), (cygrad.ones(2),))
    >>> t.tolist()
    [3.0, 12.0]
    """
    if not isinstance(primals, tuple):
        raise RuntimeError(f"jvp(f, primals, tangents): Expected primals to be a tuple. E.g. "
                           f"it should be valid to call f(*primals). Got {type(primals)}")
    if not isinstance(tangents, tuple):
        raise RuntimeError(f"jvp(f, primals, tangents): Expected tangents to be a tuple. Got "
                           f"{type(tangents)}")
    p_leaves, p_spec = tree_flatten(primals)
    t_leaves, t_spec = tree_flatten(tangents)
    if p_spec != t_spec:
        raise RuntimeError(f"jvp(f, primals, tangents): Expected primals and tangents to have "
                           f"the same python structure. For example, if primals is a tuple of "
                           f"3 tensors, tangents also must be. Got primals with structure "
                           f"{p_spec} and tangents with structure {t_spec}")
    for p, t in zip(p_leaves, t_leaves):
        _check_tensor(p)
        _check_tensor(t)
        if tuple(p.shape) != tuple(t.shape):
            raise RuntimeError(f"jvp(f, primals, tangents): Expected primals and tangents to "
                               f"have the same shape. Got {tuple(p.shape)} and "
                               f"{tuple(t.shape)}")
    use_forward = (_fwad._current_level < 0 and _depth() == 0
                   and not getattr(_tls, "forward", False))
    if use_forward:
        try:
            return _jvp_forward(func, primals, tangents, has_aux)
        except _UseReverse:
            pass
        except NotImplementedError as e:
            # an op without a forward-mode formula: reverse mode gives the same J v
            if "jvp" not in str(e) and "forward" not in str(e).lower():
                raise
    return _jvp_double_vjp(func, primals, tangents, has_aux)


def _jvp_forward(func, primals, tangents, has_aux):
    active = _active()
    p_leaves, spec = tree_flatten(primals)
    t_leaves, _ = tree_flatten(tangents)
    _tls.forward = True
    try:
        with _fwad.dual_level():
            duals = []
            for p, t in zip(p_leaves, t_leaves):
                pp, tp = _to_full(p, active), _to_full(t, active)
                if not pp.is_floating_point():
                    duals.append(_rewrap(pp, active))
                    continue
                duals.append(_rewrap(_fwad.make_dual(pp, tp.to(pp.dtype)), active))
            with _nested():
                out = func(*tree_unflatten(duals, spec))
            out, aux = _split_aux(out, has_aux, "jvp")
            o_leaves, o_spec = tree_flatten(out)
            values, tans = [], []
            for o in o_leaves:
                _check_tensor(o)
                op = _to_full(o, active)
                primal, tangent = _fwad.unpack_dual(op)
                values.append(_rewrap(primal, active))
                tans.append(_rewrap(_zeros_like(primal) if tangent is None else tangent,
                                    active))
    finally:
        _tls.forward = False
    res = (tree_unflatten(values, o_spec), tree_unflatten(tans, o_spec))
    return res + (aux,) if has_aux else res


def _jvp_double_vjp(func, primals, tangents, has_aux):
    with enable_grad():
        prep = _Prepared(primals, tuple(range(len(primals))), "jvp")
        with _nested():
            out = func(*prep.args)
        out, aux = _split_aux(out, has_aux, "jvp")
        o_leaves, o_spec = tree_flatten(out)
        for o in o_leaves:
            _check_tensor(o)
        outs = [_to_full(o, prep.active) for o in o_leaves]
        t_phys = [_to_full(t, prep.active) for t in tree_flatten(tangents)[0]]
        cg = prep.create_graph(*t_phys)
        tans = _double_vjp(outs, prep.inputs, t_phys, cg)
    if not cg:
        outs = [o.detach() for o in outs]
        tans = [t.detach() for t in tans]
    res = (tree_unflatten([_rewrap(o, prep.active) for o in outs], o_spec),
           tree_unflatten([_rewrap(t, prep.active) for t in tans], o_spec))
    return res + (_detach_tree(aux, cg),) if has_aux else res


def _double_vjp(outs, inputs, tangents, create_graph):
    """``J v`` from reverse mode: ``g(u) = J^T u`` built with a graph, then
    ``d(g . v)/du = J v``. ``u`` is zero: ``g`` is linear in it."""
    us = [o.new_zeros(tuple(o.shape)).requires_grad_() for o in outs]
    tracked = [(o, u) for o, u in zip(outs, us) if o.requires_grad]
    if not tracked:
        return [_zeros_like(o) for o in outs]
    gs = _autograd_grad([o for o, _ in tracked], inputs, [u for _, u in tracked],
                        retain_graph=True, create_graph=True, allow_unused=True)
    pairs = [(g, t) for g, t in zip(gs, tangents) if g is not None and g.requires_grad]
    if not pairs:
        return [_zeros_like(o) for o in outs]
    res = _autograd_grad([g for g, _ in pairs], us, [t.to(g.dtype) for g, t in pairs],
                         retain_graph=True, create_graph=create_graph, allow_unused=True)
    return [_zeros_like(o) if r is None else r for r, o in zip(res, outs)]


def linearize(func, *primals):
    """``(output, jvp_fn)``: ``func(*primals)`` and a function computing ``J v`` there.

    As ``torch.func.linearize``. ``func`` runs once; ``jvp_fn(*tangents)`` reuses the
    graph of that run (``J v`` through the double-vjp trick), so each call costs two
    backward passes and no new evaluation of ``func``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.func import linearize
    >>> out, jvp_fn = linearize(cygrad.sin, cygrad.tensor([0.0, 1.0]))
    >>> [round(v, 4) for v in jvp_fn(cygrad.ones(2)).tolist()]
    [1.0, 0.5403]
    """
    with enable_grad():
        prep = _Prepared(primals, tuple(range(len(primals))), "linearize")
        with _nested():
            out = func(*prep.args)
        o_leaves, o_spec = tree_flatten(out)
        outs = [_to_full(o, prep.active) for o in o_leaves]
        us = [o.new_zeros(tuple(o.shape)).requires_grad_() for o in outs]
        tracked = [(o, u) for o, u in zip(outs, us) if o.requires_grad]
        gs = (_autograd_grad([o for o, _ in tracked], prep.inputs, [u for _, u in tracked],
                             retain_graph=True, create_graph=True, allow_unused=True)
              if tracked else [None] * len(prep.inputs))
    cg = prep.create_graph()

    def jvp_fn(*tangents):
        t_leaves, _ = tree_flatten(tangents)
        if len(t_leaves) != len(prep.inputs):
            raise RuntimeError(f"linearize: expected {len(prep.inputs)} tangents, got "
                               f"{len(t_leaves)}")
        t_phys = [_to_full(t, prep.active) for t in t_leaves]
        pairs = [(g, t) for g, t in zip(gs, t_phys) if g is not None and g.requires_grad]
        if not pairs:
            res = [_zeros_like(o) for o in outs]
        else:
            with enable_grad():
                res = _autograd_grad([g for g, _ in pairs], us, [t for _, t in pairs],
                                     retain_graph=True, create_graph=cg, allow_unused=True)
            res = [_zeros_like(o) if r is None else (r if cg else r.detach())
                   for r, o in zip(res, outs)]
        return tree_unflatten([_rewrap(r, prep.active) for r in res], o_spec)

    value = tree_unflatten([_rewrap(o if cg else o.detach(), prep.active) for o in outs], o_spec)
    return value, jvp_fn


# ------------------------------------------------------------- jacobians

def _one_hot(o, k):
    """An unbatched tensor of ``o``'s shape and dtype: 1 at flat index ``k``, else 0."""
    e = o.new_zeros((o.numel(),))
    e[k] = 1
    return e.reshape(tuple(o.shape))


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None, _preallocate_and_copy=False):
    """The Jacobian by reverse mode, as ``torch.func.jacrev``: one vjp per output element.

    For an output of shape ``O`` and an input of shape ``I`` the Jacobian has shape
    ``O + I``. With several outputs or inputs (nests, tuple ``argnums``) the result is
    nested: outer structure of the output, inner of the differentiated arguments.

    Parameters
    ----------
    func : callable
        Returns a tensor or a nest of tensors.
    argnums : int or tuple of int
        Which positional arguments to differentiate.
    has_aux : bool
        ``func`` returns ``(output, aux)``; returns ``(jacobian, aux)``.
    chunk_size : int, optional
        Accepted for PyTorch's signature (the rows are computed one at a time anyway).

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.func import jacrev
    >>> jacrev(lambda x: x ** 2)(cygrad.tensor([1.0, 3.0])).tolist()
    [[2.0, 0.0], [0.0, 6.0]]
    """
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        single, nums = _argnums_tuple(argnums, len(args), "jacrev")

        def f(*diff):
            full = list(args)
            for n, d in zip(nums, diff):
                full[n] = d
            return func(*full, **kwargs)
        res = vjp(f, *[args[n] for n in nums], has_aux=has_aux)
        out, vjp_fn = res[0], res[1]
        o_leaves, o_spec = tree_flatten(out)
        in_specs = [tree_flatten(args[n]) for n in nums]
        per_out = []
        for j, o in enumerate(o_leaves):
            n_out = o.numel()
            rows = []
            for k in range(n_out):
                cts = [x.new_zeros(tuple(x.shape)) for x in o_leaves]
                cts[j] = _one_hot(o, k)
                rows.append(vjp_fn(tree_unflatten(cts, o_spec)))
            jac_args = []
            for a, (leaves, spec) in enumerate(in_specs):
                jl = []
                for li, leaf in enumerate(leaves):
                    col = [tree_flatten(r[a])[0][li] for r in rows]
                    shape = tuple(o.shape) + tuple(leaf.shape)
                    if col:
                        jl.append(call("reshape", call("stack", col, 0), shape))
                    else:
                        jl.append(leaf.new_zeros(shape))
                jac_args.append(tree_unflatten(jl, spec))
            per_out.append(jac_args[0] if single else tuple(jac_args))
        jac = tree_unflatten(per_out, o_spec)
        return (jac, res[2]) if has_aux else jac
    return wrapper


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """The Jacobian by forward mode, as ``torch.func.jacfwd``: one jvp per input element.

    Same result layout as :func:`jacrev` (``O + I`` per output/input pair). Cheaper than
    ``jacrev`` when the inputs are fewer than the outputs.

    Parameters
    ----------
    func : callable
        Returns a tensor or a nest of tensors.
    argnums : int or tuple of int
        Which positional arguments to differentiate.
    has_aux : bool
        ``func`` returns ``(output, aux)``; returns ``(jacobian, aux)``.
    randomness : str
        Accepted for PyTorch's signature ('error', 'different', 'same').

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.func import jacfwd
    >>> jacfwd(lambda x: x.sum() * x)(cygrad.tensor([1.0, 2.0])).tolist()
    [[4.0, 1.0], [2.0, 5.0]]
    """
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or "
                           f"'same'. Got {randomness}")

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        single, nums = _argnums_tuple(argnums, len(args), "jacfwd")
        diff = [args[n] for n in nums]
        flat = [tree_flatten(d) for d in diff]
        all_leaves = [leaf for leaves, _ in flat for leaf in leaves]
        for x in all_leaves:
            _check_tensor(x)

        def f(*leaves):
            pos = 0
            full = list(args)
            for n, (lv, spec) in zip(nums, flat):
                full[n] = tree_unflatten(list(leaves[pos:pos + len(lv)]), spec)
                pos += len(lv)
            return func(*full, **kwargs)
        cols, out, aux = _jacfwd_columns(f, all_leaves, has_aux)
        o_leaves, o_spec = tree_flatten(out)
        per_out = []
        for j, o in enumerate(o_leaves):
            jl, pos = [], 0
            for i, x in enumerate(all_leaves):
                shape = tuple(o.shape) + tuple(x.shape)
                if cols[i]:
                    stacked = call("stack", [c[j] for c in cols[i]], -1)
                    jl.append(call("reshape", stacked, shape))
                else:
                    jl.append(o.new_zeros(shape))
            jac_args, pos = [], 0
            for lv, spec in flat:
                jac_args.append(tree_unflatten(jl[pos:pos + len(lv)], spec))
                pos += len(lv)
            per_out.append(jac_args[0] if single else tuple(jac_args))
        jac = tree_unflatten(per_out, o_spec)
        return (jac, aux) if has_aux else jac
    return wrapper


def _columns_forward(f, leaves, has_aux):
    """One forward-mode jvp per input element (``f`` runs once per column)."""
    cols, out, aux = [], None, None
    for i, x in enumerate(leaves):
        per_elem = []
        for k in range(x.numel()):
            tangents = [y.new_zeros(tuple(y.shape)) for y in leaves]
            tangents[i] = _one_hot(x, k)
            res = _jvp_forward(f, tuple(leaves), tuple(tangents), has_aux)
            out, aux = res[0], (res[2] if has_aux else None)
            per_elem.append(tree_flatten(res[1])[0])
        cols.append(per_elem)
    return cols, out, aux


def _columns_linearized(f, leaves, has_aux):
    """``f`` runs once; each column is one pass through its linearization."""
    stash = []

    def g(*a):
        res = f(*a)
        out, aux = _split_aux(res, has_aux, "jacfwd")
        stash.append(aux)
        return out
    out, jvp_fn = linearize(g, *leaves)
    cols = []
    for i, x in enumerate(leaves):
        per_elem = []
        for k in range(x.numel()):
            tangents = [y.new_zeros(tuple(y.shape)) for y in leaves]
            tangents[i] = _one_hot(x, k)
            per_elem.append(tree_flatten(jvp_fn(*tangents))[0])
        cols.append(per_elem)
    return cols, out, _detach_tree(stash[0], _depth() > 0) if stash else None


def _jacfwd_columns(f, leaves, has_aux):
    """Per input leaf, per element: the output tangents. Forward mode at top level;
    inside another transform, or when ``f`` needs reverse mode or lacks a forward
    formula, the linearization (one run of ``f``, then one backward pass per column)."""
    if _fwad._current_level < 0 and _depth() == 0 and not getattr(_tls, "forward", False):
        try:
            cols, out, aux = _columns_forward(f, leaves, has_aux)
            if out is not None:
                return cols, out, aux
        except _UseReverse:
            pass
        except NotImplementedError as e:
            if "jvp" not in str(e) and "forward" not in str(e).lower():
                raise
    return _columns_linearized(f, leaves, has_aux)


def hessian(func, argnums=0):
    """The Hessian of a scalar function, ``jacfwd(jacrev(func, argnums), argnums)``.

    As ``torch.func.hessian``: for an input of shape ``I`` the result has shape ``I + I``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.func import hessian
    >>> hessian(lambda x: (x ** 3).sum())(cygrad.tensor([1.0, 2.0])).tolist()
    [[6.0, 0.0], [0.0, 12.0]]
    """
    return jacfwd(jacrev(func, argnums), argnums)
