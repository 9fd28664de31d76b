"""Helpers shared by the product modules of ``cygrad.ops.linalg``: PyTorch's argument
checks and dtype names, ``out=`` handling, and ``_product``/``_product_into``, the
one place a product reaches the ``matmul_into`` kernel (and ``mm_small`` for small
matrices)."""

from ..._core import tensor as _C
from ..._core import dtype as _dt
from ..._core.dispatch import kernel
from ..._core.tensor import TensorBase
from ..._device import CPU
from ..elementwise import _write_out
from ..shape._common import _refuse_tracked

_HALF_TYPES = ("float16", "bfloat16")

# C++ spellings PyTorch uses in some messages ("float != double").
_CPP_NAMES = {"bool": "bool", "uint8": "unsigned char", "int8": "signed char",
              "int16": "short int", "int32": "int", "int64": "long int",
              "float16": "c10::Half", "bfloat16": "c10::BFloat16", "float32": "float",
              "float64": "double", "complex64": "c10::complex<float>",
              "complex128": "c10::complex<double>"}


def _tname(dtype):
    """PyTorch's ScalarType name ("Float", "Long"...)."""
    return _C._torch_type_name(dtype)


def _cname(dtype):
    return _CPP_NAMES[dtype.name]


def _dims_str(shape):
    return "x".join(str(s) for s in shape)


def _check_tensor(x, opname, argname):
    if not isinstance(x, TensorBase):
        raise TypeError(f"{opname}(): argument '{argname}' must be Tensor, not {type(x).__name__}")


def _check_same_device(a, b):
    if a.is_cpu and b.is_cpu:
        return
    if a.device != b.device:
        first, second = (b.device, a.device) if a.is_cpu else (a.device, b.device)
        # PyTorch names the accelerator first, whichever operand it is
        raise RuntimeError(f"Expected all tensors to be on the same device, but found at least two "
                           f"devices, {first} and {second}!")


def _check_not_bool(dtype, kernel):
    # PyTorch has no boolean matrix product; it raises NotImplementedError (a RuntimeError).
    if dtype is _dt.bool_:
        raise NotImplementedError(f'"{kernel}" not implemented for \'Bool\'')


# ----------------------------------------------------------------------- out= handling

def _resize_out(out, shape):
    """Give ``out`` the required shape the way PyTorch's out= does (warning when a
    non-empty tensor is resized)."""
    resize = getattr(out, "resize_", None)
    if resize is None:
        raise RuntimeError(f"out= tensor has shape {list(out.shape)} but the result has shape "
                           f"{list(shape)} (resizing out= tensors is not supported)")
    if out.numel() != 0:
        import warnings
        warnings.warn(f"An output with one or more elements was resized since it had shape "
                      f"{list(out.shape)}, which does not match the required output shape "
                      f"{list(shape)}.", UserWarning, stacklevel=4)
    resize(shape)


def _copy_out(out, res):
    """``out=`` of ``inner``/``tensordot``: PyTorch builds them from other ops and
    copies the result into ``out`` with ``copy_``, which autograd records (no
    refusal with grad)."""
    return _output(out, res.shape, res.dtype, res.device).copy_(res)


def _output(out, shape, dtype, device):
    """The tensor a product writes into: ``out`` after PyTorch's checks, or a new one."""
    if out is None:
        return _C._empty(tuple(shape), dtype, device)
    _check_tensor(out, "matmul", "out")
    if out.dtype is not dtype:
        raise RuntimeError(f"Expected out tensor to have dtype {_cname(dtype)}, but got "
                           f"{_cname(out.dtype)} instead")
    if tuple(out.shape) != tuple(shape):
        _resize_out(out, tuple(shape))
    return out


def _into_out(out, res, opname, same_dtype=True):
    """Copy a product ``res`` into the caller's ``out`` after PyTorch's checks: refused
    when autograd tracks the result; the same dtype (``same_dtype``, else the
    elementwise ops' rule: one the result can be cast to); resized, with a warning,
    when its shape differs.  Writing into a user's tensor is an in-place change: its
    version moves."""
    _refuse_tracked(opname, res)
    if not same_dtype:
        return _write_out(out, res, opname)
    out = _output(out, res.shape, res.dtype, res.device)
    if res.numel():
        _C._copy_into(out, res)
    out._bump_version()
    return out


def _conj_saved(ctx):
    """The saved operands, conjugated: a product's gradients use conj(A), conj(B)
    (PyTorch's convention for complex tensors; real ones pass unchanged)."""
    return tuple(x.conj() for x in ctx.saved_tensors)


def _add_terms(*terms):
    """Sum of the terms that are not None (None if all are: a zero tangent)."""
    total = None
    for x in terms:
        if x is not None:
            total = x if total is None else total + x
    return total


def _scale(t, factor):
    return t if factor == 1 else t * factor


# ----------------------------------------------------------------------- the kernel

_matmul_into_cpu = None          # the CPU kernel, looked up once (small products are hot)


def _product_into(a, b, result):
    """``result[...] = a @ b`` with NumPy's matmul rules, on views (no copies for
    float32/float64/integers).  ``result`` must already have the right shape."""
    global _matmul_into_cpu
    if result.numel() == 0:
        return result
    if a.is_cpu:
        if _matmul_into_cpu is None:
            _matmul_into_cpu = kernel("matmul_into", "cpu")
        return _matmul_into_cpu(a, b, result)
    device_kernel = _device_kernel("matmul_into", a.device)
    if device_kernel is not None:
        return device_kernel(a, b, result)
    # Until a device kernel exists: compute on the host, copy back.
    host = _C._empty(tuple(result.shape), result.dtype, CPU)
    _product_into(a.cpu(), b.cpu(), host)
    result.copy_(host)
    return result


def _device_kernel(primitive, device):
    """The kernel of ``primitive`` on ``device``, or None where it has none yet."""
    try:
        return kernel(primitive, device.type)
    except NotImplementedError:
        return None


def _product(a, b, shape):
    """``a @ b`` (NumPy's matmul rules) in a new tensor of ``shape`` (a tuple)."""
    global _mm_small_cpu
    if len(shape) == 2 and a.is_cpu:
        if _mm_small_cpu is None:
            _mm_small_cpu = kernel("mm_small", "cpu")
        res = _mm_small_cpu(a, b)       # small contiguous matrices: the core's C loop
        if res is not None:
            return res
    return _product_into(a, b, _C._empty(shape, a.dtype, a.device))


_mm_small_cpu = None
