"""``cygrad.numpy.random``: NumPy's ``default_rng()`` Generator API on cygrad's
random number generator.

The streams are cygrad's (PyTorch's algorithm), not NumPy's PCG64: the same seed
gives reproducible numbers, but not NumPy's numbers.

Examples
--------
>>> import cygrad.numpy as cnp
>>> rng = cnp.random.default_rng(0)
>>> x = rng.normal(2.0, 0.5, size=(2, 3))
>>> x.shape, x.dtype
(cygrad.Size([2, 3]), cygrad.float64)
>>> bool(cnp.all(cnp.random.default_rng(0).normal(2.0, 0.5, size=(2, 3)) == x))
True
"""
import operator

import cygrad
from . import _dtypes as D
from ._helpers import tensor

__all__ = ["default_rng", "Generator"]


def _size(size):
    if size is None:
        return ()
    if isinstance(size, (tuple, list)):
        return tuple(operator.index(s) for s in size)
    return (operator.index(size),)


class Generator:
    """A seeded source of random arrays with NumPy's ``Generator`` method names.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> rng = cnp.random.default_rng(1)
    >>> v = rng.integers(0, 10, size=5)
    >>> bool(((v >= 0) & (v < 10)).all()), v.dtype
    (True, cygrad.int64)
    """

    def __init__(self, seed=None):
        self._gen = cygrad.Generator()
        if seed is None:
            self._gen.seed()
        else:
            self._gen.manual_seed(int(seed))

    def random(self, size=None, dtype=D.float64):
        """Uniform floats in ``[0, 1)``.

        Examples
        --------
        >>> import cygrad.numpy as cnp
        >>> cnp.random.default_rng(0).random(3).shape
        cygrad.Size([3])
        """
        return cygrad.rand(_size(size), generator=self._gen, dtype=D.as_dtype(dtype))

    def standard_normal(self, size=None, dtype=D.float64):
        """Standard normal floats.

        Examples
        --------
        >>> import cygrad.numpy as cnp
        >>> cnp.random.default_rng(0).standard_normal((2, 2)).dtype
        cygrad.float64
        """
        return cygrad.randn(_size(size), generator=self._gen, dtype=D.as_dtype(dtype))

    def normal(self, loc=0.0, scale=1.0, size=None):
        """Normal floats with mean ``loc`` and standard deviation ``scale`` (arrays
        broadcast).

        Examples
        --------
        >>> import cygrad.numpy as cnp
        >>> cnp.random.default_rng(0).normal(size=4).shape
        cygrad.Size([4])
        """
        shape = _size(size) if size is not None else _broadcast_shape(loc, scale)
        return self.standard_normal(shape) * scale + loc

    def uniform(self, low=0.0, high=1.0, size=None):
        """Uniform floats in ``[low, high)``.

        Examples
        --------
        >>> import cygrad.numpy as cnp
        >>> u = cnp.random.default_rng(0).uniform(-1, 1, size=100)
        >>> bool(((u >= -1) & (u < 1)).all())
        True
        """
        shape = _size(size) if size is not None else _broadcast_shape(low, high)
        return self.random(shape) * (high - low) + low

    def integers(self, low, high=None, size=None, dtype=D.int64, endpoint=False):
        """Integers in ``[low, high)`` (``[low, high]`` with ``endpoint=True``; ``[0, low)``
        when ``high`` is None).

        Examples
        --------
        >>> import cygrad.numpy as cnp
        >>> v = cnp.random.default_rng(0).integers(3, size=50)
        >>> int(v.min()) >= 0 and int(v.max()) <= 2
        True
        """
        if high is None:
            low, high = 0, low
        if endpoint:
            high = high + 1
        if high <= low:
            raise ValueError("high <= low")
        return cygrad.randint(int(low), int(high), _size(size), generator=self._gen,
                              dtype=D.as_dtype(dtype))

    def permutation(self, x):
        """A random permutation of ``range(x)`` (an int) or of the first axis of ``x``
        (a copy).

        Examples
        --------
        >>> import cygrad.numpy as cnp
        >>> sorted(cnp.random.default_rng(0).permutation(4).tolist())
        [0, 1, 2, 3]
        """
        if isinstance(x, int):
            return cygrad.randperm(x, generator=self._gen)
        x = tensor(x)
        return x[cygrad.randperm(x.shape[0], generator=self._gen)]

    def shuffle(self, x):
        """Shuffle ``x`` in place along its first axis.

        Examples
        --------
        >>> import cygrad.numpy as cnp
        >>> a = cnp.arange(5); cnp.random.default_rng(0).shuffle(a)
        >>> sorted(a.tolist())
        [0, 1, 2, 3, 4]
        """
        perm = cygrad.randperm(x.shape[0], generator=self._gen)
        x.copy_(x[perm].clone())

    def choice(self, a, size=None, replace=True, p=None):
        """Random samples from ``a`` (an array, or ``range(a)`` for an int), with or without
        replacement, optionally with probabilities ``p``.

        Examples
        --------
        >>> import cygrad.numpy as cnp
        >>> c = cnp.random.default_rng(0).choice(5, size=3, replace=False)
        >>> len(set(c.tolist()))
        3
        """
        pool = cygrad.arange(a) if isinstance(a, int) else tensor(a)
        n = pool.shape[0]
        shape = _size(size)
        count = 1
        for s in shape:
            count *= s
        if not replace and count > n:
            raise ValueError("Cannot take a larger sample than population when replace=False")
        if p is None:
            if replace:
                idx = cygrad.randint(0, n, (count,), generator=self._gen)
            else:
                idx = cygrad.randperm(n, generator=self._gen)[:count]
        else:
            weights = tensor(p).to(D.float64)
            idx = cygrad.multinomial(weights, count, replacement=replace, generator=self._gen)
        out = pool[idx]
        if size is None:
            return out.reshape(out.shape[1:]) if out.shape[0] == 1 else out
        return out.reshape(shape + tuple(pool.shape[1:]))


def _broadcast_shape(*args):
    shapes = [tuple(tensor(a).shape) for a in args]
    return tuple(cygrad.broadcast_shapes(*shapes))


def default_rng(seed=None):
    """A new :class:`Generator` seeded with ``seed`` (fresh entropy when None).

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> a = cnp.random.default_rng(7).random(3)
    >>> bool((a == cnp.random.default_rng(7).random(3)).all())
    True
    """
    if isinstance(seed, Generator):
        return seed
    return Generator(seed)
