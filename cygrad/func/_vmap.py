"""``vmap``: map a function over a batch dimension, one call on the whole batch."""
import functools

from .._tensor import Tensor
from . import _batched as _b
from . import _rules, _randomness  # noqa: F401  (they fill the rule tables)
from ._batched import BatchedTensor, call
from ._pytree import tree_flatten, tree_unflatten, broadcast_prefix

__all__ = ["vmap"]


def _fname(func):
    return getattr(func, "__name__", repr(func))


def _check_in_dims(func, in_dims, args):
    name = _fname(func)
    if not isinstance(in_dims, (int, tuple)) or isinstance(in_dims, bool):
        raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): expected `in_dims` to "
                         f"be int or a (potentially nested) tuple matching the structure of "
                         f"inputs, got: {type(in_dims)}.")
    if not args:
        raise ValueError(f"vmap({name})(<inputs>): got no inputs. Maybe you forgot to add "
                         f"inputs, or you are trying to vmap over a function with no inputs. "
                         f"The latter is unsupported.")
    leaves, spec = tree_flatten(args)
    dims = broadcast_prefix(in_dims, spec)
    if dims is None:
        raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): in_dims is not "
                         f"compatible with the structure of `inputs`. in_dims has structure "
                         f"{tree_flatten(in_dims)[1]} but inputs has structure {spec}.")
    sizes = []
    for x, d in zip(leaves, dims):
        if d is None:
            continue
        if not isinstance(d, int) or isinstance(d, bool):
            raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): in_dims must be "
                             f"a (potentially nested) tuple of int or None, got {d!r}.")
        if not isinstance(x, (Tensor, BatchedTensor)):
            raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} "
                             f"for an input but the input is of type {type(x)}. We cannot vmap "
                             f"over non-Tensor arguments, please use None as the respective "
                             f"in_dim")
        r = x.dim()
        if not -r <= d < r:
            raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} "
                             f"for some input, but that input is a Tensor of dimensionality {r} "
                             f"so expected in_dim to satisfy -{r} <= in_dim < {r}.")
        sizes.append(x.shape[d])
    if not sizes:
        raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): at least one input "
                         f"must be batched (in_dims all None is not supported).")
    if any(s != sizes[0] for s in sizes):
        raise ValueError(f"vmap: Expected all tensors to have the same size in the mapped "
                         f"dimension, got sizes {sizes} for the mapped dimension")
    return leaves, spec, dims, sizes[0]


def _unwrap_out(func, out, out_dims, level, size):
    name = _fname(func)
    leaves, spec = tree_flatten(out)
    dims = broadcast_prefix(out_dims, spec)
    if dims is None:
        raise ValueError(f"vmap({name}, ..., out_dims={out_dims})(<inputs>): out_dims is not "
                         f"compatible with the structure of `outputs`. out_dims has structure "
                         f"{tree_flatten(out_dims)[1]} but outputs has structure {spec}.")
    res = []
    for x, d in zip(leaves, dims):
        batched = _b.is_batched_at(x, level)
        if d is None:
            if batched:
                raise ValueError(f"vmap({name}, ...): `{name}` can not return a BatchedTensor "
                                 f"when out_dim is None")
            res.append(x)
            continue
        if not isinstance(x, (Tensor, BatchedTensor)):
            raise ValueError(f"vmap({name}, ...): `{name}` must only return Tensors, got type "
                             f"{type(x)}. Did you mean to set out_dims= to None for output?")
        if batched:
            v = x._value
        else:
            v = call("expand", call("unsqueeze", x, 0), (size,) + tuple(x.shape))
        r = v.dim()
        if not -r <= d < r:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-r}, "
                             f"{r - 1}], but got {d})")
        res.append(call("movedim", v, 0, d) if d % r != 0 else v)
    return tree_unflatten(res, spec)


def _vmap_call(func, in_dims, out_dims, randomness, args, kwargs):
    leaves, spec, dims, size = _check_in_dims(func, in_dims, args)
    levels = _b._levels()
    level = (levels[-1][0] + 1) if levels else 1
    _b.install()
    levels.append([level, size, randomness])
    try:
        wrapped = []
        for x, d in zip(leaves, dims):
            if d is None:
                wrapped.append(x)
            else:
                v = x if d % x.dim() == 0 else call("movedim", x, d, 0)
                wrapped.append(BatchedTensor(v, level))
        out = _b.wrapper_of(func)(*tree_unflatten(wrapped, spec), **kwargs)
        return _unwrap_out(func, out, out_dims, level, size)
    finally:
        levels.pop()
        _b.uninstall()


def _chunked(func, in_dims, out_dims, randomness, chunk_size, args, kwargs):
    leaves, spec, dims, size = _check_in_dims(func, in_dims, args)
    if size <= chunk_size:
        return _vmap_call(func, in_dims, out_dims, randomness, args, kwargs)
    outs = []
    for start in range(0, size, chunk_size):
        n = min(chunk_size, size - start)
        part = [x if d is None else call("narrow", x, d, start, n) for x, d in zip(leaves, dims)]
        outs.append(_vmap_call(func, in_dims, out_dims, randomness,
                               tree_unflatten(part, spec), kwargs))
    flat = [tree_flatten(o) for o in outs]
    out_spec = flat[0][1]
    dims_out = broadcast_prefix(out_dims, out_spec)
    joined = []
    for j, d in enumerate(dims_out):
        pieces = [f[0][j] for f in flat]
        joined.append(pieces[0] if d is None else call("cat", pieces, d))
    return tree_unflatten(joined, out_spec)


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """Vectorize ``func`` over a batch dimension of its inputs, as ``torch.func.vmap``.

    ``vmap(f)(x)`` returns what stacking ``f(x[i])`` for every ``i`` would give, but
    runs ``f`` once on the whole batch: each op inside ``f`` sees a batched tensor and
    runs its batching rule (one op call for the whole batch). Ops without a rule run
    once per sample and warn ("There is a performance drop ...").

    Parameters
    ----------
    func : callable
        Takes tensors (or nests of them: tuples, lists, dicts) and returns tensors or
        nests of tensors.
    in_dims : int, None or nest
        Which dim of each input is the batch dim (``None``: not mapped, the input is
        shared by all samples). An int applies to every input; a tuple gives one entry
        per positional argument, itself an int/None or a nest matching that argument.
    out_dims : int, None or nest
        Where the batch dim goes in each output.
    randomness : {'error', 'different', 'same'}
        What random ops inside ``func`` do: raise, draw independently per sample, or
        draw once for all samples.
    chunk_size : int, optional
        Map at most this many samples at once (less memory, same result).

    Returns
    -------
    callable
        The batched function.

    Raises
    ------
    ValueError
        For ``in_dims``/``out_dims`` that do not fit the inputs/outputs, mapped
        non-tensors, or inputs whose batch sizes differ.
    RuntimeError
        For a random op under ``randomness='error'``, ``.item()`` or data-dependent
        control flow on a batched tensor.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.func import vmap
    >>> x, y = cygrad.ones(5, 3), cygrad.arange(3.0)
    >>> vmap(cygrad.dot, in_dims=(0, None))(x, y).tolist()
    [3.0, 3.0, 3.0, 3.0, 3.0]
    """
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or "
                           f"'same'. Got {randomness}")
    if chunk_size is not None and (not isinstance(chunk_size, int) or chunk_size <= 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        if chunk_size is not None:
            return _chunked(func, in_dims, out_dims, randomness, chunk_size, args, kwargs)
        return _vmap_call(func, in_dims, out_dims, randomness, args, kwargs)
    return wrapped
