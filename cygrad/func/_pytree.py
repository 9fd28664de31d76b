"""Flattening nested tuples, lists, dicts and namedtuples of tensors ("pytrees").

The function transforms take and return such nests, as ``torch.func`` does. A
:class:`TreeSpec` records the structure; leaves are everything else (tensors,
numbers, None).

Examples
--------
>>> from cygrad.func._pytree import tree_flatten, tree_unflatten
>>> leaves, spec = tree_flatten({"a": 1, "b": (2, [3])})
>>> leaves
[1, 2, 3]
>>> tree_unflatten([4, 5, 6], spec)
{'a': 4, 'b': (5, [6])}
"""


class TreeSpec:
    """The structure of a nest: its container kind, context and child specs.

    Examples
    --------
    >>> from cygrad.func._pytree import tree_flatten
    >>> tree_flatten((1, 2))[1]
    TreeSpec(tuple, [*, *])
    """
    __slots__ = ("kind", "context", "children", "num_leaves")

    def __init__(self, kind, context, children):
        self.kind = kind            # None for a leaf, else tuple/list/dict/a namedtuple class
        self.context = context      # dict keys, in order
        self.children = children
        self.num_leaves = 1 if kind is None else sum(c.num_leaves for c in children)

    def is_leaf(self):
        return self.kind is None

    def __eq__(self, other):
        return (isinstance(other, TreeSpec) and self.kind == other.kind
                and self.context == other.context and self.children == other.children)

    def __repr__(self):
        if self.kind is None:
            return "*"
        name = getattr(self.kind, "__name__", str(self.kind))
        return f"TreeSpec({name}, {list(self.children)!r})".replace("'", "")


_LEAF = TreeSpec(None, None, ())


def _is_namedtuple(x):
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


def tree_flatten(tree):
    """``(leaves, spec)`` of a nest of tuples, lists, dicts and namedtuples.

    Examples
    --------
    >>> from cygrad.func._pytree import tree_flatten
    >>> tree_flatten([1, (2, 3)])[0]
    [1, 2, 3]
    """
    leaves = []
    return leaves, _flatten(tree, leaves)


def _flatten(tree, leaves):
    if isinstance(tree, (tuple, list)):
        kind = type(tree) if _is_namedtuple(tree) else (tuple if isinstance(tree, tuple) else list)
        return TreeSpec(kind, None, tuple(_flatten(c, leaves) for c in tree))
    if isinstance(tree, dict):
        keys = list(tree)
        return TreeSpec(dict, keys, tuple(_flatten(tree[k], leaves) for k in keys))
    leaves.append(tree)
    return _LEAF


def tree_unflatten(leaves, spec):
    """Rebuild the nest described by ``spec`` from ``leaves``.

    Examples
    --------
    >>> from cygrad.func._pytree import tree_flatten, tree_unflatten
    >>> tree_unflatten(["x", "y"], tree_flatten((0, [0]))[1])
    ('x', ['y'])
    """
    it = iter(leaves)
    return _unflatten(it, spec)


def _unflatten(it, spec):
    if spec.kind is None:
        return next(it)
    kids = [_unflatten(it, c) for c in spec.children]
    if spec.kind is dict:
        return dict(zip(spec.context, kids))
    if spec.kind is tuple or spec.kind is list:
        return spec.kind(kids)
    return spec.kind(*kids)


def tree_map(fn, tree):
    """Apply ``fn`` to every leaf, keeping the structure.

    Examples
    --------
    >>> from cygrad.func._pytree import tree_map
    >>> tree_map(lambda v: v * 10, {"a": (1, 2)})
    {'a': (10, 20)}
    """
    leaves, spec = tree_flatten(tree)
    return tree_unflatten([fn(v) for v in leaves], spec)


def broadcast_prefix(prefix, spec):
    """Expand ``prefix`` (an int/None, or a nest matching a prefix of ``spec``) to one value
    per leaf of ``spec``; ``None`` when the structures do not match."""
    out = []
    return out if _broadcast(prefix, spec, out) else None


def _broadcast(prefix, spec, out):
    if not isinstance(prefix, (tuple, list, dict)):
        out.extend([prefix] * spec.num_leaves)
        return True
    if spec.kind is None:
        return False
    if isinstance(prefix, dict):
        if spec.kind is not dict or set(prefix) != set(spec.context):
            return False
        return all(_broadcast(prefix[k], c, out) for k, c in zip(spec.context, spec.children))
    if spec.kind is dict or len(prefix) != len(spec.children):
        return False
    if isinstance(prefix, list) != (spec.kind is list):
        return False
    return all(_broadcast(p, c, out) for p, c in zip(prefix, spec.children))
