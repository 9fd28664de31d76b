"""CPU kernels of the indexing ops (``cygrad/ops/indexing``): gathers, scatters,
``index_*`` slices, ``take``/``put``, masked fills and selects, ``nonzero``, the
``where`` select and advanced ``t[idx]`` reads and writes.

Each kernel runs NumPy on zero-copy views of the tensors (``_C._ndarray``) and
writes into tensors cygrad allocated (or returns fresh ones).  The ops have checked
every argument before calling, index bounds included, so a kernel does not check
them again (``take`` runs in NumPy's "clip" mode); the checks that need the index
*values* (``first_out_of_bounds``, ``first_bad_index``) are kernels too, returning
the offending value so that the op raises PyTorch's error.  A number given where a
tensor could be (a fill value, ``alpha``) has been validated by the op and is
converted here like a C cast.

A small call is mostly fixed costs, so the kernels take the cheapest NumPy route for
small arrays (a list for a few index values, an assignment rather than ``copyto``).

Examples
--------
>>> import cygrad
>>> from cygrad._core.dispatch import kernel
>>> x = cygrad.tensor([[1, 2], [3, 4]])
>>> out = cygrad.empty(2, 1, dtype=cygrad.int64)
>>> kernel("gather", "cpu")(x, 1, cygrad.tensor([[1], [0]]), out).tolist()
[[2], [3]]
>>> kernel("first_out_of_bounds", "cpu")(cygrad.tensor([0, 5, -1]), 0, 3)
5
"""
import math

import numpy as np

from .. import dtype as _dt
from .. import fastpath as _fastpath
from .. import scatter_kernels as _sk
from .. import tensor as _C
from ..dispatch import register

# Python-side types the indexing ops accept (NumPy's scalars and arrays included),
# named here so that the ops need not import NumPy to recognise them.
NUMBER_TYPES = (bool, int, float, complex, np.generic)
BOOL_TYPES = (bool, np.bool_)
INT_TYPES = (int, np.integer)
ARRAY_TYPES = (np.ndarray,)

_nd = _C._ndarray
_TensorBase = _C.TensorBase

# Below this many elements the branchy masked copy is as fast as the blend and needs
# no scratch buffer.
BLEND_MIN = 2048

# Up to this many index values, Python's min/max over a list of them beat two NumPy
# reductions (each has a fixed cost of about a microsecond).
FEW_INDICES = 16

_BITS = {1: (np.int8, _dt.int8), 2: (np.int16, _dt.int16), 4: (np.int32, _dt.int32),
         8: (np.int64, _dt.int64)}


def _wrap(arr):
    """Tensor owning a fresh NumPy result (C-contiguous, writable)."""
    arr = np.asarray(arr)       # NumPy returns some 0-dim results as scalars
    return _C.from_numpy(arr if arr.flags.c_contiguous else arr.copy())


def _along(arr):
    """``arr`` seen as at least 1-D (gather/scatter treat 0-dim tensors as 1-D)."""
    return arr.reshape(1) if arr.ndim == 0 else arr


def _number(value, npdt):
    """A number the op validated, as a 0-d array of ``npdt`` (converted like a C cast:
    floats truncate toward zero into integers, negative integers wrap into unsigned)."""
    kind = npdt.kind
    if kind == "b":
        return np.asarray(bool(value))
    if kind == "i" or kind == "u":
        return np.asarray(int(value)).astype(npdt)
    if kind == "c":
        with np.errstate(over="ignore"):
            return np.asarray(complex(value), dtype=np.complex128).astype(npdt)
    if (type(value) is float or type(value) is int) and -65504.0 <= value <= 65504.0:
        # fits every float dtype: no overflow to silence (errstate costs a microsecond)
        return np.asarray(value, dtype=np.float64).astype(npdt)
    with np.errstate(over="ignore"):
        return np.asarray(value, dtype=np.float64).astype(npdt)


def _operand(value, npdt):
    """A tensor's view, or a number as NumPy writes it into an ``npdt`` array: a
    Python float or int that any float dtype holds as it is (NumPy converts it on the
    write, exactly), else a 0-d array of ``npdt`` (see :func:`_number`)."""
    if isinstance(value, _TensorBase):
        return _nd(value)
    if ((type(value) is float or type(value) is int) and npdt.kind in "fc"
            and -65504.0 <= value <= 65504.0):
        return value
    return _number(value, npdt)


def _select_value(value, dt):
    """A value operand for the strided select loop (``fastpath.select_into``): a
    tensor of ``dt`` as it is, anything else as the bytes of one ``dt`` element,
    converted as NumPy writes it (None when that is not one element: the loop then
    declines and NumPy's path runs)."""
    if isinstance(value, _TensorBase):
        if value.dtype is dt:
            return value
        value = _nd(value)
        if value.size != 1:
            return None
        return value.astype(dt.np_dtype).reshape(()).tobytes()
    if value is None:
        return None
    return _number(value, dt.np_dtype).tobytes()


def _private(vals, target):
    """``vals``, copied when it is an array sharing memory with ``target`` (a write
    must not read its own partial results)."""
    if type(vals) is np.ndarray and np.may_share_memory(vals, target):
        return vals.copy()
    return vals


# ---------------------------------------------------------------- checks on index values

def _within(idx, low, high):
    """Are all the values of the int array ``idx`` in ``[low, high)``?"""
    if idx.size <= FEW_INDICES:
        if idx.size == 0:
            return True
        values = idx.ravel().tolist()
        return low <= min(values) and max(values) < high
    flat = idx.reshape(-1)
    return low <= np.minimum.reduce(flat) and np.maximum.reduce(flat) < high


@register("first_out_of_bounds", "cpu")
def first_out_of_bounds(index, low, high):
    """The first value of ``index`` (C order) outside ``[low, high)``, or None."""
    idx = _nd(index)
    if _within(idx, low, high):
        return None
    flat = idx.reshape(-1)
    return int(flat[np.argmax((flat < low) | (flat >= high))])


@register("first_bad_index", "cpu")
def first_bad_index(indices, sizes, shape):
    """``(k, value)`` for the first index out of range among the int tensors
    ``indices`` (the k-th indexes a dim of ``sizes[k]``) broadcast to ``shape``: the
    first broadcast position in C order, the first tensor within it; None if all fit."""
    arrays = [_nd(i) for i in indices]
    if all(_within(a, -n, n) for a, n in zip(arrays, sizes)):
        return None
    bad = [(a < -n) | (a >= n) for a, n in zip(arrays, sizes)]
    any_bad = np.zeros(shape, dtype=bool)
    for b in bad:
        any_bad |= b
    pos = np.unravel_index(np.argmax(any_bad), shape)
    for k, (a, b) in enumerate(zip(arrays, bad)):
        if np.broadcast_to(b, shape)[pos]:
            return k, int(np.broadcast_to(a, shape)[pos])
    return None


# ---------------------------------------------------------------- Python index objects

def _nested_to_list(seq):
    return [(_nested_to_list(x) if isinstance(x, (list, tuple)) else
             (x.tolist() if isinstance(x, _C.TensorBase) else x)) for x in seq]


@register("index_from_sequence", "cpu")
def index_from_sequence(seq):
    """A list/tuple/ndarray index as ``(kind, tensor)``: kind ``"bool"`` (a bool
    tensor), ``"uint8"`` (a uint8 ndarray, the deprecated mask), ``"int"`` (int64;
    floats truncate, as PyTorch reads numeric lists) or ``"bad"`` (no numbers)."""
    arr = seq if isinstance(seq, np.ndarray) else np.asarray(_nested_to_list(seq))
    if arr.dtype == np.bool_:
        return "bool", _wrap(arr)
    if arr.dtype == np.uint8 and isinstance(seq, np.ndarray):
        return "uint8", _wrap(arr.astype(bool))
    if arr.dtype.kind not in "iuf":
        return "bad", None
    return "int", _wrap(arr.astype(np.int64))


@register("as_tensor_of", "cpu")
def as_tensor_of(value, dtype):
    """A list or ndarray written into a tensor (``t[idx] = [...]``) as a ``dtype``
    tensor (converted as NumPy's ``astype``)."""
    return _wrap(np.asarray(value).astype(dtype.np_dtype))


# ---------------------------------------------------------------- advanced indexing

def _basic_view(arr, basic):
    """``arr[basic]``, always an ndarray view (ints alone would give a NumPy scalar)."""
    if any(item is Ellipsis for item in basic):
        return arr[basic]
    return arr[basic + (Ellipsis,)]


def _advanced(advanced):
    if len(advanced) == 1:
        return (_nd(advanced[0]),)
    return tuple(_nd(a) if isinstance(a, _C.TensorBase) else a for a in advanced)


@register("index_get", "cpu")
def index_get(x, basic, advanced, shape):
    """A new tensor ``x[basic][advanced]`` of ``shape``: ``basic`` a tuple of ints,
    slices, None and ``...``; ``advanced`` one int64 (or bool mask) tensor per indexed
    dim of that view and ``slice(None)`` elsewhere (empty: a copy of the view)."""
    if 0 in shape:
        return _C._empty(tuple(shape), x.dtype, x.device)
    view = _basic_view(_nd(x), basic) if basic else _nd(x)
    return _wrap(view[_advanced(advanced)] if advanced else view.copy())


@register("index_put", "cpu")
def index_put(x, basic, advanced, values, accumulate):
    """In place: ``x[basic][advanced] = values`` (``+=`` with repeats counted when
    ``accumulate``); ``values`` a tensor of ``x``'s dtype broadcastable to the indexed
    shape, or a number."""
    target = _basic_view(_nd(x), basic) if basic else _nd(x)
    if target.size == 0:
        return x
    vals = _private(_operand(values, target.dtype), target)
    if not advanced:            # a plain view: nothing can repeat
        if accumulate:
            target += vals
        else:
            target[...] = vals
        return x
    index = _advanced(advanced)
    if accumulate:
        if _sk.supports("add", target.dtype):
            _index_put_add(target, index, vals)
            return x
        if len(index) == 1 and index[0].dtype == np.bool_:
            index = np.nonzero(index[0])     # ufunc.at takes integer positions
        np.add.at(target, index, vals)
    else:
        target[index] = vals
    return x


def _index_put_add(target, index, vals):
    """``target[index] += vals`` with repeats counted, by the C scatter loop.

    ``index``: int arrays (negative from the end) and bool masks for some dims,
    ``slice(None)`` for the others, as NumPy reads them.  One int array along dim k
    is an ``index_add`` along k.  Several are turned into element offsets from the
    target's start: the broadcast index positions become one dim of the loop, at the
    place NumPy puts them in the result (where the arrays were when they are
    neighbours, first otherwise), the sliced dims keep the target's strides.
    """
    items = []
    for item in index:              # a mask stands for its nonzero positions
        if type(item) is np.ndarray and item.dtype == np.bool_:
            items.extend(np.nonzero(item))
        else:
            items.append(item)
    items += [slice(None)] * (target.ndim - len(items))
    adv = [k for k, item in enumerate(items) if type(item) is np.ndarray]
    if not adv:                     # slices only: nothing repeats
        target += vals
        return
    bshape = np.broadcast_shapes(*(items[k].shape for k in adv))
    nb = math.prod(bshape)
    sliced = [k for k in range(target.ndim) if k not in adv]
    if adv == list(range(adv[0], adv[-1] + 1)):
        pre, post = sliced[:adv[0]], sliced[adv[0]:]
    else:
        pre, post = [], sliced
    shape_of = target.shape
    result = tuple(shape_of[k] for k in pre) + bshape + tuple(shape_of[k] for k in post)
    space = tuple(shape_of[k] for k in pre) + (nb,) + tuple(shape_of[k] for k in post)
    dim = len(pre)
    src = np.broadcast_to(_private(vals, target) if type(vals) is np.ndarray else
                          np.asarray(vals, dtype=target.dtype), result).reshape(space)
    if src.dtype != target.dtype:
        src = src.astype(target.dtype)
    lead = (1,) * dim
    trail = (1,) * (len(space) - dim - 1)
    if len(adv) == 1:
        k = adv[0]
        idx = items[k].reshape(lead + (nb,) + trail)
        _sk.scatter_("add", target, k, idx, src, wrap=True, check=False, opname="index_put_")
        return
    isz = target.itemsize
    offsets = np.zeros(bshape, dtype=np.int64)
    for k in adv:
        offsets += (items[k].astype(np.int64, copy=False) % shape_of[k]) * \
            (target.strides[k] // isz)
    strides = target.strides
    geometry = np.lib.stride_tricks.as_strided(
        target, tuple(shape_of[k] for k in pre) + (1,) + tuple(shape_of[k] for k in post),
        tuple(strides[k] for k in pre) + (isz,) + tuple(strides[k] for k in post))
    _sk.scatter_("add", geometry, dim, offsets.reshape(lead + (nb,) + trail), src,
                 offsets=True, opname="index_put_")


# ---------------------------------------------------------------- gather / scatter

@register("gather", "cpu")
def gather(input, dim, index, out):
    """``out[...] = take_along_axis(input, index, dim)`` (0-dim as 1-D); ``index``
    no larger than ``input`` off ``dim`` and within bounds (checked)."""
    a1, i1 = _along(_nd(input)), _along(_nd(index))
    if i1.size:
        src = a1[tuple(slice(None) if d == dim else slice(0, i1.shape[d])
                       for d in range(a1.ndim))]
        _nd(out).reshape(i1.shape)[...] = np.take_along_axis(src, i1, axis=dim)
    return out


@register("gather_broadcast", "cpu")
def gather_broadcast(input, dim, indices, out):
    """``out = take_along_axis(input, indices, dim)`` with both broadcast to ``out``'s
    shape off ``dim``; negative indices count from the end (bounds checked)."""
    res = _nd(out)
    if res.size:
        arr, idx = _nd(input), _nd(indices)
        shape = list(res.shape)
        shape[dim] = arr.shape[dim]
        src = np.broadcast_to(arr, shape)
        np.copyto(res, np.take_along_axis(src, np.broadcast_to(idx, res.shape), axis=dim))
    return out


def _scatter_positions(idx, dim):
    """Index arrays addressing ``out[..., idx[...], ...]``: ``idx`` along ``dim`` and
    the position itself along every other dim."""
    grid = list(np.indices(idx.shape, sparse=True))
    grid[dim] = idx
    return tuple(grid)


def _covered(arr, idx, dim):
    """The view of ``arr`` that an index of ``idx``'s shape reaches along ``dim``:
    its extent off ``dim`` (PyTorch's index may be smaller than the target)."""
    return arr[tuple(slice(None) if d == dim else slice(0, n) for d, n in enumerate(idx.shape))]


def _count_at(shape, idx, dim, weights=None):
    """int64 zeros of ``shape`` plus, at each place ``idx`` points to along ``dim``, one
    (or the int ``weights`` of the positions of ``idx``) per position."""
    count = np.zeros(shape, dtype=np.int64)
    if idx.size:
        src = np.ones((1,) * idx.ndim, dtype=np.int64) if weights is None else \
            weights.astype(np.int64)
        _sk.scatter_("add", _covered(count, idx, dim), dim, idx, src, check=False,
                     opname="scatter")
    return count


# reduce name -> ufunc applied with .at
_SCATTER_UFUNCS = {"add": np.add, "sum": np.add, "mean": np.add, "multiply": np.multiply,
                   "prod": np.multiply, "amax": np.maximum, "amin": np.minimum}


def _reduce_identity(reduce, npdt):
    if reduce in ("sum", "mean"):
        return np.zeros((), npdt)
    if reduce == "prod":
        return np.ones((), npdt)
    if npdt == np.bool_:
        return np.asarray(reduce == "amin")
    if npdt.kind in "iu":
        info = np.iinfo(npdt)
        return np.asarray(info.min if reduce == "amax" else info.max, npdt)
    return np.asarray(-np.inf if reduce == "amax" else np.inf).astype(npdt)


@register("scatter", "cpu")
def scatter(self, dim, index, src, value, reduce=None, include_self=True):
    """In place: write ``src`` (a tensor) or ``value`` (a number) into ``self`` at
    ``index`` along ``dim`` (all checked, 0-dim as 1-D).  ``reduce``: None (plain
    writes), "add"/"sum", "multiply"/"prod", "mean", "amax", "amin"; every write to a
    repeated position counts; ``include_self=False`` leaves the old values out."""
    a1, i1 = _along(_nd(self)), _along(_nd(index))
    if src is not None:
        vals = _private(_along(_nd(src))[tuple(slice(0, n) for n in i1.shape)], a1)
    else:
        vals = _number(value, a1.dtype)
    if reduce is None:
        a1[_scatter_positions(i1, dim)] = vals
        return self
    if not include_self:
        a1[_scatter_positions(i1, dim)] = _reduce_identity(reduce, a1.dtype)
    if _sk.supports(reduce, a1.dtype):
        if vals.ndim != a1.ndim:
            vals = vals.reshape((1,) * a1.ndim)
        _sk.scatter_(reduce, _covered(a1, i1, dim), dim, i1, vals, opname="scatter")
    else:
        _SCATTER_UFUNCS[reduce].at(a1, _scatter_positions(i1, dim),
                                   np.broadcast_to(vals, i1.shape))
    if reduce == "mean":
        # divide by how many values met at each place (self counting as one)
        count = _count_at(a1.shape, i1, dim)
        count += 1 if include_self else (count == 0)
        if a1.dtype.kind in "iu":
            a1[...] = np.floor_divide(a1, count).astype(a1.dtype)
        else:
            a1[...] = (a1 / count).astype(a1.dtype)
    return self


def _float_tensor(arr, dtype, shape):
    return _wrap(np.asarray(arr).astype(dtype.np_dtype)).reshape(shape)


@register("scatter_reduce_weights", "cpu")
def scatter_reduce_weights(x, dim, index, src, result, reduce, include_self):
    """The constant weights of ``scatter_reduce``'s derivative (floating ``x``), as
    tensors of ``x``'s dtype: ``sum``: (not reached,); ``mean``: (1/count, not
    reached); ``amax``/``amin``: (share of self, 1/ties, src hit); ``prod``: (not
    reached, src == 0 (bool), src is the only zero at its place)."""
    dtype, shape, ishape = x.dtype, tuple(x.shape), tuple(index.shape)
    i1 = _along(_nd(index))
    pos = _scatter_positions(i1, dim)
    reached = np.zeros(_along(_nd(x)).shape, dtype=bool)
    reached[pos] = True
    if reduce == "sum":
        return (_float_tensor(~reached, dtype, shape),)
    if reduce == "mean":
        count = _count_at(reached.shape, i1, dim)
        count += 1 if include_self else 0
        inv = 1.0 / np.maximum(count, 1)
        return _float_tensor(inv, dtype, shape), _float_tensor(~reached, dtype, shape)
    src_part = _along(_nd(src))[tuple(slice(0, n) for n in i1.shape)]
    res = _along(_nd(result))
    if reduce in ("amax", "amin"):
        self_hit = res == _along(_nd(x))
        if not include_self:
            self_hit &= ~reached
        src_hit = src_part == res[pos]
        hits = self_hit.astype(np.int64) + _count_at(self_hit.shape, i1, dim, src_hit)
        inv = 1.0 / np.maximum(hits, 1)
        return (_float_tensor(self_hit * inv, dtype, shape), _float_tensor(inv, dtype, shape),
                _float_tensor(src_hit, dtype, ishape))
    src_zero = src_part == 0
    zeros_at = _count_at(reached.shape, i1, dim, src_zero)
    lone_zero = src_zero & (zeros_at[pos] == 1)
    return (_float_tensor(~reached, dtype, shape), _wrap(src_zero.reshape(ishape)),
            _float_tensor(lone_zero, dtype, ishape))


# ---------------------------------------------------------------- index_* along one dim

def _moved(arr, dim):
    """``arr`` with ``dim`` moved first (a view); 0-dim arrays as 1-D."""
    return np.moveaxis(arr.reshape(1) if arr.ndim == 0 else arr, dim, 0)


def _moved_source(source, dim, target):
    src = _nd(source)
    src = _moved(src, dim) if src.ndim else src.reshape(1)
    return _private(src, target)


@register("index_select", "cpu")
def index_select(input, dim, index, out):
    """``out = take(input, index, axis=dim)`` (a 0-dim input: its value); ``index``
    1-D or 0-dim, within bounds (checked: NumPy need not check them again)."""
    arr = _nd(input)
    if arr.ndim == 0:
        _nd(out)[...] = arr
    else:
        arr.take(_nd(index).reshape(-1), dim, _nd(out), "clip")
    return out


@register("index_fill", "cpu")
def index_fill(input, dim, index, value):
    """In place: the slices of ``input`` at ``index`` along ``dim`` set to ``value``
    (a number or a 0-dim tensor); negative indices count from the end."""
    arr = _moved(_nd(input), dim)
    fill = _nd(value).astype(arr.dtype) if isinstance(value, _C.TensorBase) else \
        _number(value, arr.dtype)
    arr[_nd(index).reshape(-1)] = fill
    return input


@register("index_copy", "cpu")
def index_copy(input, dim, index, source):
    """In place: ``input``'s slices at ``index`` along ``dim`` set to ``source``'s."""
    arr = _moved(_nd(input), dim)
    arr[_nd(index).reshape(-1)] = _moved_source(source, dim, arr)
    return input


@register("index_add", "cpu")
def index_add(input, dim, index, source, alpha):
    """In place: ``alpha * source``'s slices added to ``input``'s at ``index`` along
    ``dim``; repeated indices all add up."""
    arr = _along(_nd(input))
    idx = _nd(index).reshape(-1)
    if not _sk.supports("add", arr.dtype):
        arr = _moved(arr, dim)
        src = _moved_source(source, dim, arr)
        if alpha != 1:
            src = (src * _number(alpha, arr.dtype)).astype(arr.dtype)
        np.add.at(arr, idx, src)
        return input
    src = _private(_along(_nd(source)), arr)
    if alpha != 1:
        src = (src * _number(alpha, arr.dtype)).astype(arr.dtype)
    shape = [1] * arr.ndim
    shape[dim] = idx.size
    _sk.scatter_("add", arr, dim, idx.reshape(shape), src, opname="index_add_")
    return input


# ---------------------------------------------------------------- flat take / put

def _flat(arr, idx):
    """``(target, positions)``: ``target[positions]`` are the elements of ``arr`` at
    the flat (row-major) ``idx``, negative counting from the end.  A contiguous ``arr``
    is its own flat view; another is addressed through the unravelled positions."""
    if arr.flags.c_contiguous:
        return arr.reshape(-1), idx
    target = arr.reshape(1) if arr.ndim == 0 else arr
    return target, np.unravel_index(idx % max(arr.size, 1), target.shape)


@register("take", "cpu")
def take(input, index):
    """``input`` read as flat at ``index`` (negative from the end; checked)."""
    arr, idx = _nd(input), _nd(index)
    if idx.size == 0:
        return _C._empty(tuple(index.shape), input.dtype, input.device)
    target, pos = _flat(arr, idx)
    return _wrap(target[pos])


@register("put", "cpu")
def put(input, index, source, accumulate):
    """In place: ``source`` (a tensor, or a number) written (added when ``accumulate``)
    at the flat positions ``index`` of ``input`` (negative from the end; checked)."""
    idx = _nd(index).reshape(-1)
    if idx.size:
        target, pos = _flat(_nd(input), idx)
        vals = _operand(source, target.dtype)
        if isinstance(vals, np.ndarray) and vals.ndim:
            vals = _private(vals.reshape(-1), target)
        if accumulate and _sk.supports("add", target.dtype):
            _put_add(target, pos, vals)
        elif accumulate:
            np.add.at(target, pos, vals)
        else:
            target[pos] = vals
    return input


def _put_add(target, pos, vals):
    """``target[pos] += vals`` (repeats counted) by the C scatter loop: ``pos`` the
    flat positions of a contiguous ``target`` (negative from the end), or the
    unravelled positions of another."""
    src = np.asarray(vals, dtype=target.dtype).reshape(-1)
    if type(pos) is np.ndarray:
        _sk.scatter_("add", target, 0, pos, src, wrap=True, check=False, opname="put_")
        return
    isz = target.itemsize
    offsets = np.zeros(pos[0].shape, dtype=np.int64)
    for k, p in enumerate(pos):
        offsets += p * (target.strides[k] // isz)
    geometry = np.lib.stride_tricks.as_strided(target, (1,), (isz,))
    _sk.scatter_("add", geometry, 0, offsets, src, offsets=True, opname="put_")


# ---------------------------------------------------------------- masks, nonzero, where

@register("masked_select", "cpu")
def masked_select(input, mask, shape):
    """The elements of ``input`` where ``mask`` is True, both broadcast to ``shape``."""
    m = np.broadcast_to(_nd(mask), shape)
    return _wrap(np.broadcast_to(_nd(input), shape)[m])


@register("count_true", "cpu")
def count_true(mask):
    """How many elements of the bool tensor ``mask`` are True (a Python int)."""
    return int(np.count_nonzero(_nd(mask)))


@register("nonzero", "cpu")
def nonzero(input, as_tuple=False):
    """Positions of the non-zero elements: an ``(n, ndim)`` int64 tensor, or one 1-D
    int64 tensor per dim (a 0-dim input counts as 1-D) when ``as_tuple``."""
    arr = _nd(input)
    if as_tuple:
        return tuple(_wrap(a.astype(np.int64, copy=False))
                     for a in np.nonzero(np.atleast_1d(arr)))
    return _wrap(np.argwhere(arr).astype(np.int64, copy=False))


def _array_of(value, npdt):
    """An array or number as an array of ``npdt`` (cast as by ``casting="unsafe"``)."""
    if isinstance(value, np.ndarray):
        return value.astype(npdt, copy=False)
    return np.asarray(value, dtype=npdt)


def _blend(res, cond, x, y):
    """Write ``where(cond, x, y)`` into the NumPy array ``res`` without branches.

    NumPy's masked copy branches on every element: with a mask that is not sorted, a
    branch mispredicted half the time costs ~10 ns per element.  Above ``BLEND_MIN``
    elements the choice is made on the bits of the values instead:
    ``y ^ ((x ^ y) * cond)`` over integers of the elements' width picks ``x``'s bits
    where ``cond`` is 1 and ``y``'s where it is 0, exactly (NaN payloads, -0.0 and all).
    ``y=None`` means ``res`` already holds ``y``.
    """
    bits = _BITS.get(res.dtype.itemsize)
    if bits is None:
        if y is not None:
            np.copyto(res, y, casting="unsafe")
        np.copyto(res, x, casting="unsafe", where=cond)
        return
    np_int, dt_int = bits
    y = res if y is None else _array_of(y, res.dtype)
    yi = y.view(np_int)
    # scratch from cygrad's allocator: a fresh NumPy buffer of this size costs page faults
    tmp = _nd(_C._empty(res.shape, dt_int, _C.CPU))
    np.bitwise_xor(_array_of(x, res.dtype).view(np_int), yi, out=tmp)
    np.multiply(tmp, cond, out=tmp)
    np.bitwise_xor(yi, tmp, out=res.view(np_int))


@register("where_small", "cpu")
def where_small(cond, x, y):
    """``where(cond, x, y)`` in a new tensor for small contiguous operands of one
    shape (``x``, ``y`` of one dtype), by the core's C loop; None otherwise (the
    caller then allocates and uses ``where_select``)."""
    return _fastpath.where(cond, x, y)


@register("where_select", "cpu")
def where_select(out, cond, x, y):
    """``out[...] = where(cond, x, y)``: ``cond`` a bool or uint8 tensor, ``x``/``y``
    tensors or numbers, all broadcast to ``out`` and cast to its dtype as by
    ``casting="unsafe"``."""
    if cond.dtype is _dt.bool_:
        xv, yv = _select_value(x, out.dtype), _select_value(y, out.dtype)
        if xv is not None and yv is not None and _fastpath.select_into(out, cond, xv, yv):
            return out
    res = _nd(out)
    c = _nd(cond)
    if c.dtype.kind != "b":
        c = c.astype(bool)
    x = _nd(x) if isinstance(x, _TensorBase) else _operand(x, res.dtype)
    y = _nd(y) if isinstance(y, _TensorBase) else _operand(y, res.dtype)
    n = res.size
    if n >= BLEND_MIN:
        _blend(res, c, x, y)
    elif n:
        # (an assignment casts as "unsafe" too, and costs less than copyto)
        res[...] = y
        if (type(x) is not np.ndarray or not x.ndim) and c.shape == res.shape:
            res[c] = x
        else:
            np.copyto(res, x, casting="unsafe", where=c)
    return out


@register("masked_fill", "cpu")
def masked_fill(out, mask, value, input=None):
    """``out`` set to ``value`` (a number, or a 0-dim tensor) where the bool ``mask``
    (broadcast to ``out``'s shape) is True, and to ``input`` (broadcast) elsewhere;
    ``input=None`` keeps ``out``'s values there (in place)."""
    if mask.dtype is _dt.bool_:
        v = _select_value(value, out.dtype)
        if v is not None and _fastpath.select_into(out, mask, v, input):
            return out
    res = _nd(out)
    m = _nd(mask)
    if type(value) is not float or res.dtype.kind != "f" or not -65504.0 <= value <= 65504.0:
        value = _operand(value, res.dtype)      # (the common case is used as it is)
    n = res.size
    if n >= BLEND_MIN:
        _blend(res, m, value, None if input is None else _nd(input))
    elif n:
        # (assignments cast as "unsafe" too, and cost less than copyto)
        if input is not None:
            res[...] = _nd(input)
        if m.shape == res.shape:
            res[m] = value
        else:
            np.copyto(res, value, casting="unsafe", where=m)
    return out


@register("copy_cast", "cpu")
def copy_cast(x, out=None, casting="unsafe"):
    """NumPy-style copy of the array ``x`` into ``out`` (the fallback of the core's
    elementwise ``copy`` entry used for ``out=`` arguments)."""
    np.copyto(out, x, casting=casting)
    return out
