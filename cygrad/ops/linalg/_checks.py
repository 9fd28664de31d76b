"""PyTorch's argument checks of the ``linalg`` functions (same exception types and
messages) and their named result tuples in ``cygrad.return_types``."""
from ..._core import tensor as _C
from ..._core.tensor import TensorBase
from ..reduction._common import _result_type

# torch.return_types.<name> and their fields
SLOGDET = _result_type("linalg_slogdet", ("sign", "logabsdet"))
EIGH = _result_type("linalg_eigh", ("eigenvalues", "eigenvectors"))
EIG = _result_type("linalg_eig", ("eigenvalues", "eigenvectors"))
QR = _result_type("linalg_qr", ("Q", "R"))
SVD = _result_type("linalg_svd", ("U", "S", "Vh"))
LSTSQ = _result_type("linalg_lstsq", ("solution", "residuals", "rank", "singular_values"))
LU_FACTOR = _result_type("linalg_lu_factor", ("LU", "pivots"))
LU_FACTOR_EX = _result_type("linalg_lu_factor_ex", ("LU", "pivots", "info"))
LU = _result_type("linalg_lu", ("P", "L", "U"))
INV_EX = _result_type("linalg_inv_ex", ("inverse", "info"))
CHOLESKY_EX = _result_type("linalg_cholesky_ex", ("L", "info"))
SOLVE_EX = _result_type("linalg_solve_ex", ("result", "info"))
LDL_FACTOR = _result_type("linalg_ldl_factor", ("LD", "pivots"))
LDL_FACTOR_EX = _result_type("linalg_ldl_factor_ex", ("LD", "pivots", "info"))


def tname(dtype):
    return _C._torch_type_name(dtype)


def check_tensor(x, fname, argname="A", position=1):
    if not isinstance(x, TensorBase):
        raise TypeError(f"{fname}(): argument '{argname}' (position {position}) must be Tensor, "
                        f"not {type(x).__name__}")


def check_matrix(a, name, square=False, argname="A", kernel=None, half_kernel=None):
    """``a`` is a float or complex batch of matrices (square if asked), as PyTorch's
    linalg checks it: rank first, then dtype, then shape.  ``kernel``: the name of
    the PyTorch kernel whose dtype dispatch refuses other dtypes instead (a
    ``NotImplementedError``); ``half_kernel``: the same for float16/bfloat16 only."""
    check_tensor(a, name.replace(".", "_"), argname)
    if a.dim() < 2:
        raise RuntimeError(f"{name}: The input tensor {argname} must have at least 2 dimensions.")
    if kernel is not None:
        check_kernel_dtype(a, kernel)
    if half_kernel is not None and a.dtype.name in ("float16", "bfloat16"):
        check_kernel_dtype(a, half_kernel)
    check_float(a, name)
    if square and a.shape[-1] != a.shape[-2]:
        raise RuntimeError(f"{name}: {argname} must be batches of square matrices, but they are "
                           f"{a.shape[-2]} by {a.shape[-1]} matrices")


def check_float(a, name):
    dt = a.dtype
    if not (dt.is_floating_point or dt.is_complex):
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. "
                           f"Got {tname(dt)}")
    if dt.name in ("float16", "bfloat16"):
        raise RuntimeError(f"{name}: Low precision dtypes not supported. Got {tname(dt)}")


def check_same_dtype(a, b, name, an="A", bn="B"):
    if a.dtype is not b.dtype:
        raise RuntimeError(f"{name}: Expected {an} and {bn} to have the same dtype, but found "
                           f"{an} of type {tname(a.dtype)} and {bn} of type {tname(b.dtype)} "
                           f"instead")


def broadcast_batch(a, b):
    """``a`` (..., n, n) and ``b`` (..., n, k) expanded to one batch shape (views)."""
    from ..shape.broadcasting import broadcast_shapes
    batch = tuple(broadcast_shapes(tuple(a.shape[:-2]), tuple(b.shape[:-2])))
    return (a.expand(*(batch + tuple(a.shape[-2:]))), b.expand(*(batch + tuple(b.shape[-2:]))))


def check_kernel_dtype(a, kernel):
    """PyTorch's dispatch error of a kernel defined for float32/64 and complex only."""
    dt = a.dtype
    if not (dt.is_floating_point or dt.is_complex) or dt.name in ("float16", "bfloat16"):
        raise NotImplementedError(f'"{kernel}" not implemented for \'{tname(dt)}\'')
