"""``__array_namespace_info__``: what the namespace supports, in the standard's form.

Examples
--------
>>> import cygrad.numpy as cnp
>>> info = cnp.__array_namespace_info__()
>>> info.default_dtypes()["real floating"]
cygrad.float64
>>> info.capabilities()["boolean indexing"]
True
"""
import cygrad
from . import _dtypes as D

_CPU = cygrad.device("cpu")


class Info:
    """The standard's inspection object (``capabilities``, ``default_device``,
    ``default_dtypes``, ``dtypes``, ``devices``).

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> sorted(cnp.__array_namespace_info__().dtypes(kind="signed integer"))
    ['int16', 'int32', 'int64', 'int8']
    """

    __module__ = "cygrad.numpy"

    def capabilities(self):
        """``boolean indexing`` and ``data-dependent shapes`` are supported;
        ``max dimensions`` is None (no fixed limit).

        Examples
        --------
        >>> import cygrad.numpy as cnp
        >>> cnp.__array_namespace_info__().capabilities()["data-dependent shapes"]
        True
        """
        return {"boolean indexing": True, "data-dependent shapes": True, "max dimensions": None}

    def default_device(self):
        """The CPU.

        Examples
        --------
        >>> import cygrad.numpy as cnp
        >>> cnp.__array_namespace_info__().default_device()
        device(type='cpu')
        """
        return _CPU

    def default_dtypes(self, *, device=None):
        """NumPy's defaults: float64, complex128, int64 (also for indexing).

        Examples
        --------
        >>> import cygrad.numpy as cnp
        >>> cnp.__array_namespace_info__().default_dtypes()["indexing"]
        cygrad.int64
        """
        return {"real floating": D.DEFAULT_FLOAT, "complex floating": D.DEFAULT_COMPLEX,
                "integral": D.DEFAULT_INT, "indexing": D.DEFAULT_INDEX}

    def dtypes(self, *, device=None, kind=None):
        """The supported dtypes by name, all or of ``kind`` (as ``isdtype``).

        Examples
        --------
        >>> import cygrad.numpy as cnp
        >>> list(cnp.__array_namespace_info__().dtypes(kind="bool"))
        ['bool']
        >>> list(cnp.__array_namespace_info__().dtypes(kind="complex floating"))
        ['complex64', 'complex128']
        """
        standard = (D.bool, D.int8, D.int16, D.int32, D.int64, D.uint8, D.float32, D.float64,
                    D.complex64, D.complex128)
        if kind is None:
            chosen = standard
        else:
            chosen = [d for d in standard if D.isdtype(d, kind)]
        return {d.name: d for d in chosen}

    def devices(self):
        """The devices arrays can be created on.

        Examples
        --------
        >>> import cygrad.numpy as cnp
        >>> cnp.__array_namespace_info__().devices()
        [device(type='cpu')]
        """
        devs = [_CPU]
        if cygrad.cuda.is_available():
            devs.append(cygrad.device("cuda"))
        return devs


def __array_namespace_info__():
    """The namespace's :class:`Info` object.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.__array_namespace_info__().default_device().type
    'cpu'
    """
    return Info()
