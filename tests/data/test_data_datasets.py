"""Datasets and random_split, checked against torch.utils.data where it has the same
class (same items, lengths, errors) and against NumPy for tensor values."""
import warnings

import numpy as np
import pytest

import cygrad
from cygrad.utils.data import (ChainDataset, ConcatDataset, Dataset, IterableDataset,
                               StackDataset, Subset, TensorDataset, random_split)


class Stream(IterableDataset):
    def __init__(self, items):
        self.items = list(items)

    def __iter__(self):
        return iter(self.items)

    def __len__(self):
        return len(self.items)


def test_tensor_dataset_indexes_first_dim(rng):
    a = rng.standard_normal((5, 3))
    b = np.arange(5)
    ds = TensorDataset(cygrad.from_numpy(a), cygrad.from_numpy(b))
    assert len(ds) == 5
    for i in (0, 3, -1):
        x, y = ds[i]
        np.testing.assert_array_equal(x.numpy(), a[i])
        assert y.item() == b[i]
    x, y = ds[1:4]
    np.testing.assert_array_equal(x.numpy(), a[1:4])


def test_tensor_dataset_size_mismatch_like_torch():
    torch = pytest.importorskip("torch")
    with pytest.raises(AssertionError) as theirs:
        torch.utils.data.TensorDataset(torch.zeros(3), torch.zeros(4))
    with pytest.raises(AssertionError) as ours:
        TensorDataset(cygrad.zeros(3), cygrad.zeros(4))
    assert str(ours.value) == str(theirs.value)


def test_stack_dataset_matches_torch():
    torch = pytest.importorskip("torch")
    from torch.utils.data import StackDataset as TStack
    a, b = [1, 2, 3], ["x", "y", "z"]
    for args, kwargs in (((a, b), {}), ((), {"num": a, "name": b})):
        ours, theirs = StackDataset(*args, **kwargs), TStack(*args, **kwargs)
        assert len(ours) == len(theirs)
        assert [ours[i] for i in range(3)] == [theirs[i] for i in range(3)]
        assert ours.__getitems__([2, 0]) == theirs.__getitems__([2, 0])
    batched = StackDataset(Subset(a, [2, 1, 0]), b)       # a column with __getitems__
    assert batched.__getitems__([0, 2]) == [(3, "x"), (1, "z")]
    for args, kwargs in (((a, b[:2]), {}), ((a,), {"k": b}), ((), {})):
        with pytest.raises(ValueError) as t_err:
            TStack(*args, **kwargs)
        with pytest.raises(ValueError) as o_err:
            StackDataset(*args, **kwargs)
        assert type(o_err.value) is type(t_err.value)


def test_concat_dataset_matches_torch():
    torch = pytest.importorskip("torch")
    from torch.utils.data import ConcatDataset as TConcat
    parts = [[1, 2], [], [3, 4, 5], [6]]
    ours, theirs = ConcatDataset(parts), TConcat(parts)
    assert len(ours) == len(theirs) == 6
    assert ours.cumulative_sizes == theirs.cumulative_sizes
    assert [ours[i] for i in range(-6, 6)] == [theirs[i] for i in range(-6, 6)]
    with pytest.raises(ValueError, match="absolute value of index"):
        ours[-7]
    with pytest.raises(AssertionError, match="empty iterable"):
        ConcatDataset([])
    with pytest.raises(AssertionError, match="does not support IterableDataset"):
        ConcatDataset([Stream([1])])


def test_add_operators():
    class Seq(Dataset):
        def __init__(self, items):
            self.items = items

        def __getitem__(self, i):
            return self.items[i]

        def __len__(self):
            return len(self.items)

    both = Seq("ab") + Seq("cde")
    assert isinstance(both, ConcatDataset)
    assert [both[i] for i in range(len(both))] == list("abcde")
    chained = Stream("ab") + Stream("c")
    assert isinstance(chained, ChainDataset)
    assert list(chained) == list("abc") and len(chained) == 3


def test_chain_dataset_rejects_map_style():
    with pytest.raises(AssertionError, match="only supports IterableDataset"):
        list(ChainDataset([Stream("a"), [1, 2]]))


def test_base_classes_raise_not_implemented():
    with pytest.raises(NotImplementedError):
        Dataset()[0]
    with pytest.raises(NotImplementedError):
        iter(IterableDataset())


def test_subset():
    base = list("abcdef")
    s = Subset(base, [5, 0, 3])
    assert len(s) == 3 and [s[i] for i in range(3)] == ["f", "a", "d"]
    assert s.__getitems__([2, 0]) == ["d", "f"]
    nested = Subset(s, [1, 2])                 # the inner subset's __getitems__ is used
    assert nested.__getitems__([1, 0]) == ["d", "a"]

    class Bad(Subset):
        def __getitem__(self, idx):
            return None

    with pytest.raises(NotImplementedError, match="__getitems__"):
        Bad(base, [0])


@pytest.mark.parametrize("n, fractions", [(10, [0.3, 0.7]), (11, [0.5, 0.5]),
                                          (7, [0.2, 0.2, 0.6]), (5, [0.1, 0.1, 0.8]),
                                          (30, [1 / 3] * 3)])
def test_random_split_fraction_lengths_match_torch(n, fractions):
    torch = pytest.importorskip("torch")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = torch.utils.data.random_split(range(n), fractions)
        ours = random_split(range(n), fractions)
    assert [len(s) for s in ours] == [len(s) for s in theirs]
    flat = [x for s in ours for x in s]
    assert sorted(flat) == list(range(n))


def test_random_split_zero_length_warns_like_torch():
    torch = pytest.importorskip("torch")
    with pytest.warns(UserWarning) as theirs:
        torch.utils.data.random_split(range(1), [0.3, 0.3, 0.4])
    with pytest.warns(UserWarning) as ours:
        parts = random_split(range(1), [0.3, 0.3, 0.4])
    assert [str(w.message) for w in ours] == [str(w.message) for w in theirs]
    assert [len(p) for p in parts] == [1, 0, 0]


def test_random_split_generator_reproducible_and_seed_dependent():
    def split(seed):
        a, b = random_split(range(20), [5, 15], generator=cygrad.Generator().manual_seed(seed))
        return list(a), list(b)

    assert split(3) == split(3)
    assert split(3) != split(4)
    a, b = split(3)
    assert sorted(a + b) == list(range(20))
    cygrad.manual_seed(9)
    first = [list(s) for s in random_split(range(20), [10, 10])]
    cygrad.manual_seed(9)
    assert first == [list(s) for s in random_split(range(20), [10, 10])]


def test_random_split_bad_lengths_like_torch():
    torch = pytest.importorskip("torch")
    with pytest.raises(ValueError) as theirs:
        torch.utils.data.random_split(range(5), [2, 2])
    with pytest.raises(ValueError) as ours:
        random_split(range(5), [2, 2])
    assert str(ours.value) == str(theirs.value)
    with pytest.raises(ValueError, match="Fraction at index 0 is not between 0 and 1"):
        random_split(range(5), [1.5, -0.5])
