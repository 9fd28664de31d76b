"""``Flatten`` and ``Unflatten``: reshape layers for ``Sequential`` models."""
from .module import Module

__all__ = ["Flatten", "Unflatten"]


class Flatten(Module):
    """Flatten dims ``start_dim..end_dim`` into one (by default all but the batch dim).

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> nn.Flatten()(cygrad.zeros(32, 1, 5, 5)).shape
    cygrad.Size([32, 25])
    >>> nn.Flatten(0, 2)(cygrad.zeros(32, 1, 5, 5)).shape
    cygrad.Size([160, 5])
    """

    __constants__ = ["start_dim", "end_dim"]

    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input):
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self):
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    """Expand dim ``dim`` into the shape ``unflattened_size`` (one entry may be -1).

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> nn.Unflatten(1, (2, 5, 5))(cygrad.zeros(2, 50)).shape
    cygrad.Size([2, 2, 5, 5])
    """

    __constants__ = ["dim", "unflattened_size"]

    def __init__(self, dim, unflattened_size):
        super().__init__()
        if isinstance(dim, int):
            _require_tuple_int(unflattened_size)
        else:
            # PyTorch also takes a dim name here (named tensors), which cygrad lacks.
            raise TypeError("invalid argument type for dim parameter")
        self.dim = dim
        self.unflattened_size = unflattened_size

    def forward(self, input):
        return input.unflatten(self.dim, self.unflattened_size)

    def extra_repr(self):
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"


def _require_tuple_int(value):
    if isinstance(value, (tuple, list)):
        for idx, elem in enumerate(value):
            if not isinstance(elem, int):
                raise TypeError(f"unflattened_size must be tuple of ints, but found element of "
                                f"type {type(elem).__name__} at pos {idx}")
        return
    raise TypeError(f"unflattened_size must be a tuple of ints, but found type "
                    f"{type(value).__name__}")
