"""default_collate / default_convert against torch.utils.data's: same output structure,
types, dtypes and values for nested samples."""
import collections

import numpy as np
import pytest

import cygrad
from cygrad.utils.data import collate, default_collate, default_convert

Point = collections.namedtuple("Point", "x y")


class MyList(list):
    pass


def plain(obj):
    """A comparable picture of a collated object: container kinds, dtypes and values."""
    mod = type(obj).__module__.split(".")[0]
    if mod in ("cygrad", "torch") and hasattr(obj, "dtype") and hasattr(obj, "shape"):
        return ("tensor", str(obj.dtype).split(".")[-1], tuple(obj.shape), obj.tolist())
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        return (type(obj).__name__, tuple(plain(v) for v in obj))
    if isinstance(obj, dict):
        return (type(obj).__name__, {k: plain(v) for k, v in obj.items()})
    if isinstance(obj, (list, tuple)):
        return (type(obj).__name__, [plain(v) for v in obj])
    if isinstance(obj, np.ndarray):
        return ("ndarray", obj.dtype.str, obj.tolist())
    return obj


def samples(make):
    """Three samples built by ``make(i, rng)``, and the same samples with tensors as
    torch tensors (for torch's collate)."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    ours = [make(i, rng, cygrad) for i in range(3)]
    rng = np.random.default_rng(0)
    theirs = [make(i, rng, torch) for i in range(3)]
    return ours, theirs, torch


CASES = {
    "ints": lambda i, rng, lib: i,
    "floats": lambda i, rng, lib: float(i) / 3,
    "bools": lambda i, rng, lib: bool(i % 2),
    "strings": lambda i, rng, lib: f"s{i}",
    "bytes": lambda i, rng, lib: bytes([i]),
    "ndarray_f32": lambda i, rng, lib: rng.standard_normal((2, 3)).astype(np.float32),
    "ndarray_i32": lambda i, rng, lib: rng.integers(0, 9, (4,)).astype(np.int32),
    "ndarray_bool": lambda i, rng, lib: rng.integers(0, 2, (2,)).astype(bool),
    "np_scalars_f64": lambda i, rng, lib: np.float64(rng.standard_normal()),
    "np_scalars_i32": lambda i, rng, lib: np.int32(i),
    "tensors": lambda i, rng, lib: lib.from_numpy(rng.standard_normal((3,))),
    "tensor_int64": lambda i, rng, lib: lib.tensor([i, i + 1]),
    "tuple": lambda i, rng, lib: (i, float(i), "a"),
    "list": lambda i, rng, lib: [lib.tensor(float(i)), i],
    "list_subclass": lambda i, rng, lib: MyList([i, 2 * i]),
    "namedtuple": lambda i, rng, lib: Point(i, np.float32(i)),
    "dict": lambda i, rng, lib: {"a": i, "b": {"c": [i, i], "d": "x"}},
    "ordered_dict": lambda i, rng, lib: collections.OrderedDict(z=float(i), a=i),
    "nested": lambda i, rng, lib: {"img": rng.standard_normal((2, 2)), "meta": Point(
        (i, "n"), [np.int64(i)]), "label": i},
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_default_collate_matches_torch(case):
    ours, theirs, torch = samples(CASES[case])
    from torch.utils.data import default_collate as torch_collate
    assert plain(default_collate(ours)) == plain(torch_collate(theirs))


@pytest.mark.parametrize("case", sorted(CASES))
def test_default_convert_matches_torch(case):
    ours, theirs, torch = samples(CASES[case])
    from torch.utils.data import default_convert as torch_convert
    for a, b in zip(ours, theirs):
        assert plain(default_convert(a)) == plain(torch_convert(b))


def test_collate_of_tensors_stacks_values(rng):
    parts = [rng.standard_normal((2, 3)) for _ in range(4)]
    out = default_collate([cygrad.from_numpy(p) for p in parts])
    np.testing.assert_array_equal(out.numpy(), np.stack(parts))
    assert not out.is_shared()      # only workers collate into shared memory


@pytest.mark.parametrize("bad, err", [
    ([[1, 2], [3]], RuntimeError),                                   # ragged sequences
    ([np.array(["a"]), np.array(["b"])], TypeError),                 # text arrays
    ([np.array([{}], dtype=object)] * 2, TypeError),                  # object arrays
    ([object(), object()], TypeError),                               # unknown type
    ([1 + 2j, 3j], TypeError),                                       # complex numbers
])
def test_errors_match_torch(bad, err):
    pytest.importorskip("torch")
    from torch.utils.data import default_collate as torch_collate
    with pytest.raises(err) as theirs:
        torch_collate(bad)
    with pytest.raises(err) as ours:
        default_collate(bad)
    assert str(ours.value) == str(theirs.value)


def test_unknown_type_message():
    with pytest.raises(TypeError, match="batch must contain tensors, numpy arrays, numbers"):
        default_collate([object()])


def test_custom_collate_fn_map_exact_then_isinstance():
    class Base:
        pass

    class Derived(Base):
        pass

    fmap = {Base: lambda b, *, collate_fn_map: f"{len(b)} bases",
            int: lambda b, *, collate_fn_map: sum(b)}
    assert collate([Derived(), Derived()], collate_fn_map=fmap) == "2 bases"
    assert collate([{"k": 1}, {"k": 2}], collate_fn_map=fmap) == {"k": 3}
