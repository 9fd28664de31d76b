"""``ReduceOp``: how a reducing collective combines the ranks' tensors.

The names are PyTorch's (``dist.ReduceOp.SUM`` ...). Each maps to an MPI operation;
``AVG`` is ``SUM`` followed by a division by the group's size, and on ``bool`` tensors
``SUM``/``MAX`` are logical or, ``PRODUCT``/``MIN`` logical and (what summing or
multiplying truth values means; MPI's arithmetic operations are not defined on bool).
"""
import enum

from .._core import dtype as _dt

__all__ = ["ReduceOp"]


class _RedOpType(enum.Enum):
    SUM = "sum"
    AVG = "avg"
    PRODUCT = "product"
    MIN = "min"
    MAX = "max"
    BAND = "band"
    BOR = "bor"
    BXOR = "bxor"

    def __repr__(self):
        return f"<RedOpType.{self.name}>"


class ReduceOp:
    """The reduction operations of :func:`all_reduce`, :func:`reduce` and
    :func:`reduce_scatter_tensor`.

    Examples
    --------
    >>> import cygrad.distributed as dist
    >>> dist.ReduceOp.SUM
    <RedOpType.SUM>
    >>> dist.ReduceOp.MAX in list(dist.ReduceOp.RedOpType)
    True
    """
    RedOpType = _RedOpType
    SUM = _RedOpType.SUM
    AVG = _RedOpType.AVG
    PRODUCT = _RedOpType.PRODUCT
    MIN = _RedOpType.MIN
    MAX = _RedOpType.MAX
    BAND = _RedOpType.BAND
    BOR = _RedOpType.BOR
    BXOR = _RedOpType.BXOR


# MPI operation names for each op (looked up on the MPI module when used); bool tensors
# use the logical ones.
_MPI_OP = {_RedOpType.SUM: "SUM", _RedOpType.AVG: "SUM", _RedOpType.PRODUCT: "PROD",
           _RedOpType.MIN: "MIN", _RedOpType.MAX: "MAX", _RedOpType.BAND: "BAND",
           _RedOpType.BOR: "BOR", _RedOpType.BXOR: "BXOR"}
_MPI_BOOL_OP = {_RedOpType.SUM: "LOR", _RedOpType.MAX: "LOR", _RedOpType.BOR: "LOR",
                _RedOpType.PRODUCT: "LAND", _RedOpType.MIN: "LAND", _RedOpType.BAND: "LAND",
                _RedOpType.BXOR: "LXOR"}


def check_reduce_op(op, dtype, name):
    """Raise as PyTorch would for an op that makes no sense on ``dtype``."""
    if not isinstance(op, _RedOpType):
        raise TypeError(f"{name}: op must be a dist.ReduceOp (e.g. dist.ReduceOp.SUM), got {op!r}")
    if dtype.is_complex and op in (_RedOpType.MIN, _RedOpType.MAX, _RedOpType.PRODUCT):
        raise ValueError(f"{name} does not support {op.name} on complex tensors (dtype {dtype})")
    if op in (_RedOpType.BAND, _RedOpType.BOR, _RedOpType.BXOR) and (
            dtype.is_floating_point or dtype.is_complex):
        raise ValueError(f"{name}: ReduceOp.{op.name} needs an integer or bool tensor, got {dtype}")
    if op is _RedOpType.AVG and not (dtype.is_floating_point or dtype.is_complex):
        raise ValueError(f"{name}: ReduceOp.AVG needs a floating-point or complex tensor, got "
                         f"{dtype} (use SUM and divide)")


def mpi_op(MPI, op, dtype):
    """The ``MPI.Op`` that carries out ``op`` on tensors of ``dtype``."""
    return getattr(MPI, (_MPI_BOOL_OP if dtype is _dt.bool_ else _MPI_OP)[op])
