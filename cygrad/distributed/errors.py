"""The exceptions of :mod:`cygrad.distributed` (PyTorch's names).

Both are ``RuntimeError`` subclasses, as in PyTorch, so code that catches
``RuntimeError`` around a collective keeps working.
"""

__all__ = ["DistError", "DistBackendError"]


class DistError(RuntimeError):
    """An error in the distributed package.

    Examples
    --------
    >>> import cygrad.distributed as dist
    >>> issubclass(dist.DistError, RuntimeError)
    True
    """


class DistBackendError(DistError):
    """The communication itself failed: a peer died, or a collective timed out.

    After this error the process group is broken: the collective may be half done on
    some ranks. Destroy the group and end the program (cygrad aborts the MPI job at exit
    so that no other rank waits forever).

    Examples
    --------
    >>> import cygrad.distributed as dist
    >>> issubclass(dist.DistBackendError, dist.DistError)
    True
    """
