"""``cygrad.device``: where a tensor's memory lives (``cpu`` or ``cuda:N``)."""


class device:
    """A device specification, as ``torch.device``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.device("cpu")
    device(type='cpu')
    >>> cygrad.device("cuda:1").index
    1
    """

    __slots__ = ("type", "index")

    def __init__(self, type, index=None):
        if isinstance(type, device):
            type, index = type.type, type.index
        elif isinstance(type, str) and ":" in type:
            if index is not None:
                raise ValueError(f"device string {type!r} already has an index")
            type, idx = type.split(":", 1)
            try:
                index = int(idx)
            except ValueError:
                raise RuntimeError(f"Invalid device string: '{type}:{idx}'") from None
        if type not in ("cpu", "cuda"):
            raise RuntimeError(
                f"Expected one of cpu, cuda device type at start of device string: {type}")
        if index is not None and index < 0:
            raise RuntimeError(f"Device index must not be negative, got {index}")
        object.__setattr__(self, "type", type)
        object.__setattr__(self, "index", index)

    def __setattr__(self, name, value):
        raise AttributeError("cygrad.device is immutable")

    def __eq__(self, other):
        if isinstance(other, str):
            other = device(other)
        return isinstance(other, device) and self.type == other.type and self.index == other.index

    def __hash__(self):
        return hash((self.type, self.index))

    def __repr__(self):
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __reduce__(self):
        return (device, (self.type, self.index))


CPU = device("cpu")
