"""Shared by the reduction modules: the ``cygrad.return_types`` named tuples, how
``dim``/``keepdim`` arguments are checked (as PyTorch's parser checks them) and
wrapped, result dtypes, which kernel an op calls, and how its result fills ``out=``.
"""
import builtins as _builtins
import collections
import functools
import inspect
import math
import os
import sys
import types
import warnings

from ..._core import tensor as _C
from ..._core import dtype as _dt
from ..._core.dispatch import kernel
from ..._core.tensor import TensorBase
from .._argcheck import _INT64_MAX, _INT64_MIN, bool_arg, int_arg, int_list_arg


return_types = types.ModuleType(
    "cygrad.return_types",
    "Named tuples returned by ops with several results (``values``, ``indices``).")
# Registered so that pickle finds the classes by their module name.
sys.modules["cygrad.return_types"] = return_types


def _result_type(name, fields=("values", "indices")):
    cls = collections.namedtuple(name, fields, module="cygrad.return_types")

    def __repr__(self):
        body = ",\n".join(f"{f}={getattr(self, f)!r}" for f in fields)
        return f"cygrad.return_types.{name}(\n{body})"

    cls.__repr__ = __repr__
    setattr(return_types, name, cls)
    return cls


_new_tuple = tuple.__new__
_MaxResult = _result_type("max")
_MinResult = _result_type("min")
_SortResult = _result_type("sort")
_TopkResult = _result_type("topk")
_MedianResult = _result_type("median")
_KthvalueResult = _result_type("kthvalue")
_ModeResult = _result_type("mode")
_AminmaxResult = _result_type("aminmax", ("min", "max"))


# C++ spellings PyTorch uses in "Expected out tensor to have dtype ..." messages.
_CPP_NAMES = {"bool": "bool", "uint8": "unsigned char", "int8": "signed char",
              "int16": "short int", "int32": "int", "int64": "long int",
              "float16": "c10::Half", "bfloat16": "c10::BFloat16", "float32": "float",
              "float64": "double", "complex64": "c10::complex<float>",
              "complex128": "c10::complex<double>"}


def _check_tensor(input, opname):
    if not isinstance(input, TensorBase):
        raise TypeError(f"{opname}(): argument 'input' (position 1) must be Tensor, "
                        f"not {type(input).__name__}")


class _Unset:
    """The default of an argument whose absence PyTorch tells apart from an explicit
    None, because its overloads differ: ``max(x)`` is the whole tensor's max but
    ``max(x, None)`` matches no overload; ``var(x, unbiased=False, out=o)`` is refused
    but ``var(x, None, False, out=o)`` is not.  It means what None means."""
    __slots__ = ()

    def __repr__(self):
        return "None"       # what help() should say leaving the argument out means


_UNSET = _Unset()


# NumPy's spelling of a keyword -> PyTorch's, for the functions that take PyTorch's
# (``axis``/``keepdims`` are also PyTorch's own aliases; ``ddof`` is NumPy's alone).
_NUMPY_KEYWORDS = (("axis", "dim"), ("keepdims", "keepdim"), ("ddof", "correction"))


def numpy_keywords(fn=None, *, cast_dtype=False):
    """Decorator: let a reduction take NumPy's keyword spellings too.

    ``axis=`` is read as ``dim=``, ``keepdims=`` as ``keepdim=`` and ``ddof=`` as
    ``correction=``, each only where ``fn`` has PyTorch's parameter; giving both
    spellings is a TypeError, as giving one argument twice.  With ``cast_dtype``,
    NumPy's ``dtype=`` (the dtype to compute in) casts the input first, for ops that
    have no ``dtype`` of their own (``std``, ``var``).  Everything else, the
    defaults included, stays PyTorch's: ``x.std(axis=0)`` is Bessel-corrected.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.tensor([[1.0, 2.0], [3.0, 5.0]])
    >>> x.std(axis=0, ddof=0, keepdims=True).tolist()
    [[1.0, 1.5]]
    """
    def wrap(f):
        params = inspect.signature(f).parameters
        renames = tuple((np_name, pt_name) for np_name, pt_name in _NUMPY_KEYWORDS
                        if pt_name in params and np_name not in params)

        @functools.wraps(f)
        def wrapper(*args, **kwargs):
            for np_name, pt_name in renames:
                if np_name in kwargs:
                    if kwargs[np_name] is None:     # NumPy's "not given" (axis=None: all)
                        del kwargs[np_name]
                        continue
                    if pt_name in kwargs:
                        raise TypeError(f"{f.__name__}() got both '{pt_name}' and its NumPy "
                                        f"spelling '{np_name}'")
                    kwargs[pt_name] = kwargs.pop(np_name)
            if cast_dtype and "dtype" in kwargs:
                dtype = kwargs.pop("dtype")
                if dtype is not None and args and isinstance(args[0], TensorBase):
                    args = (args[0].to(dtype),) + args[1:]
            return f(*args, **kwargs)
        return wrapper
    return wrap(fn) if fn is not None else wrap


def _keepdim(value, opname):
    """``keepdim`` must be a Python bool (PyTorch refuses 1, None, ...)."""
    return value if value is True or value is False else bool_arg(value, opname, "keepdim")


def _parse_dims(dim, opname):
    """``dim`` checked as PyTorch's parser checks it, before the op looks at the
    input: an int, or a tuple/list of ints (returned as a tuple), or None.

    PyTorch reads a bool after the first element of a dim list as an int (only the
    first element decides which overload matches)."""
    if dim is None:
        return None
    if isinstance(dim, (tuple, list)):
        if len(dim) > 1 and _builtins.any(type(d) is bool for d in dim[1:]):
            dim = (dim[0],) + tuple(int(d) if type(d) is bool else d for d in dim[1:])
        return int_list_arg(dim, opname, "dim", allow_int=False)
    return int_arg(dim, opname, "dim")


def _wrap_dims(input, dim):
    """Parsed ``dim`` as a sorted tuple of wrapped ints, or None for "all dims": an
    empty tuple/list means every dim, as in PyTorch, and so does the dim 0 or -1 of a
    0-d input.  This is the ``axes`` argument of the reduction kernels."""
    if dim is None:
        return None
    ndim = input.dim()
    if type(dim) is not tuple:
        dim = _C._wrap(dim, ndim)
        return (dim,) if ndim else None
    if not dim:
        return None
    dims = [_C._wrap(d, ndim) for d in dim]
    for d in dims:
        if dims.count(d) > 1:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    return tuple(sorted(dims)) if ndim else None


def _dims(input, dim, opname):
    """Reduction dims checked and wrapped: see ``_wrap_dims``."""
    if type(dim) is int and _INT64_MIN <= dim <= _INT64_MAX:   # (the common call, checked)
        ndim = input.dim()
        dim = _C._wrap(dim, ndim)
        return (dim,) if ndim else None
    return _wrap_dims(input, _parse_dims(dim, opname))


def _reduced_count(input, dims):
    """How many input elements fold into each output element."""
    if dims is None:
        return input.numel()
    return math.prod(input.shape[d] for d in dims)


def _kernel(primitive, t):
    """The kernel of ``primitive`` for the device ``t`` lives on."""
    return kernel(primitive, t.device.type)


def _emit(result, dt, out, opname, exact=False):
    """Return ``result`` (a kernel's fresh tensor of dtype ``dt``), or write it into
    ``out``.

    ``exact`` demands ``out.dtype == dt`` (PyTorch's rule for max/sort/argmax...);
    otherwise the result only has to be castable to ``out``'s dtype."""
    if out is None:
        return result
    if not isinstance(out, TensorBase):
        raise TypeError(f"{opname}(): argument 'out' must be Tensor, not {type(out).__name__}")
    if exact and out.dtype != dt:
        raise RuntimeError(f"Expected out tensor to have dtype {_CPP_NAMES[dt.name]}, but got "
                           f"{_CPP_NAMES[out.dtype.name]} instead")
    if not _C._can_cast(dt, out.dtype):
        raise RuntimeError(f"result type {_C._torch_type_name(dt)} can't be cast to the desired "
                           f"output type {_C._torch_type_name(out.dtype)}")
    if tuple(out.shape) != tuple(result.shape):
        _resize_out(out, result.shape, opname)
    _C._copy_into(out, result)
    out._bump_version()
    return out


_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _user_stacklevel():
    """The ``stacklevel`` that points a warning at the first caller outside cygrad,
    from the function that calls this one (however many cygrad frames, such as
    ``numpy_keywords``' wrapper, lie between)."""
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        frame, level = frame.f_back, level + 1
    return level


def _resize_out(out, shape, opname):
    # PyTorch resizes a mismatched out= (warning when it held elements).  The core
    # has no Python-visible resize yet, so a mismatch is an error until it does.
    resize = getattr(out, "resize_", None)
    if resize is None:
        raise RuntimeError(f"{opname}(): out= has shape {list(out.shape)} but the result has "
                           f"shape {list(shape)}; pass an out tensor of the result's shape")
    if out.numel() != 0:
        warnings.warn(f"An output with one or more elements was resized since it had shape "
                      f"{list(out.shape)}, which does not match the required output shape "
                      f"{list(shape)}.", UserWarning, stacklevel=_user_stacklevel())
    resize(tuple(shape))


def _emit_pair(cls, values, indices, dt, out, opname):
    """(values, indices) named tuple; ``out`` is an optional (values, indices) pair."""
    if out is None:
        # (the named tuple's own constructor is a Python function; this is the same
        # object, built in C)
        return _new_tuple(cls, (values, indices))
    if not isinstance(out, (tuple, list)) or len(out) != 2:
        raise TypeError(f"{opname}(): argument 'out' must be a tuple of two Tensors")
    return cls(_emit(values, dt, out[0], opname, exact=True),
               _emit(indices, _dt.int64, out[1], opname, exact=True))


def _int_result(dt):
    """Integer and bool inputs sum/multiply/scan into int64 (PyTorch's rule)."""
    return dt if dt.is_floating_point or dt.is_complex else _dt.int64


def _accumulate_dtype(input, dtype, out, opname):
    """Result dtype of sum/prod/cumsum/cumprod: ``dtype=``, else ``out``'s, else the
    input's with integers widened to int64."""
    if dtype is not None:
        dt = _dt.as_dtype(dtype)
        if out is not None and isinstance(out, TensorBase) and out.dtype != dt:
            raise RuntimeError(f"Expected out tensor to have dtype {_CPP_NAMES[dt.name]}, "
                               f"but got {_CPP_NAMES[out.dtype.name]} instead")
        return dt
    if isinstance(out, TensorBase):
        return out.dtype
    return _int_result(input.dtype)


def _refuse_complex(input, opname, kernel=None):
    """Ordering ops have no complex kernel in PyTorch: its NotImplementedError naming
    ``kernel``, or (no kernel given) its RuntimeError."""
    if input.dtype.is_complex:
        if kernel is not None:
            raise NotImplementedError(f"\"{kernel}\" not implemented for "
                                      f"'{_C._torch_type_name(input.dtype)}'")
        raise RuntimeError(f"{opname}(): does not support complex input")


def _require_float(input, opname, message=None):
    if not input.dtype.is_floating_point:
        raise RuntimeError(message or f"{opname}(): expected a floating point tensor as input, "
                                      f"got {_C._torch_type_name(input.dtype)}")


def _check_nonempty(input, dims, opname, raw_dim=None):
    """max/min-style reductions have no identity: an empty reduction is an error."""
    if input.numel() != 0:
        return
    if dims is None or input.dim() == 0:
        raise RuntimeError(f"{opname}(): Expected reduction dim to be specified for "
                           f"input.numel() == 0. Specify the reduction dim with the 'dim' "
                           f"argument.")
    for d in dims:
        if input.shape[d] == 0:
            shown = d if raw_dim is None else raw_dim
            raise IndexError(f"{opname}(): Expected reduction dim {shown} to have "
                             f"non-zero size.")


def _single_dim(input, dim, opname):
    """A single wrapped dim for ops that take exactly one (max(dim), sort, cumsum...)."""
    if not (type(dim) is int and _INT64_MIN <= dim <= _INT64_MAX):
        dim = int_arg(dim, opname, "dim")
    return _C._wrap(dim, input.dim())


def _no_overload(opname, args):
    """PyTorch's error for arguments that match none of an op's overloads."""
    got = ", ".join(type(a).__name__ for a in args)
    return TypeError(f"{opname}() received an invalid combination of arguments - got ({got})")
