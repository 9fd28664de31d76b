"""Samplers: the orders they produce (permutations, replacement, weights), their
reproducibility from a seed, lengths and argument errors (against torch's)."""
import collections

import numpy as np
import pytest

import cygrad
from cygrad.utils.data import (BatchSampler, RandomSampler, SequentialSampler,
                               SubsetRandomSampler, WeightedRandomSampler)


def gen(seed):
    return cygrad.Generator().manual_seed(seed)


def test_sequential():
    assert list(SequentialSampler(range(4))) == [0, 1, 2, 3]
    assert len(SequentialSampler("abc")) == 3


def test_random_sampler_is_a_permutation_and_reproducible():
    a = list(RandomSampler(range(50), generator=gen(1)))
    assert sorted(a) == list(range(50)) and a != list(range(50))
    assert a == list(RandomSampler(range(50), generator=gen(1)))
    assert a != list(RandomSampler(range(50), generator=gen(2)))


def test_random_sampler_default_generator_follows_manual_seed():
    cygrad.manual_seed(123)
    s = RandomSampler(range(20))
    e1, e2 = list(s), list(s)
    assert e1 != e2                    # each epoch draws a fresh order
    cygrad.manual_seed(123)
    assert [list(s), list(s)] == [e1, e2]


def test_random_sampler_num_samples_without_replacement_repeats_permutations():
    out = list(RandomSampler(range(5), num_samples=13, generator=gen(0)))
    assert len(out) == 13
    assert sorted(out[:5]) == sorted(out[5:10]) == list(range(5))
    assert len(set(out[10:])) == 3


def test_random_sampler_with_replacement():
    out = list(RandomSampler(range(4), replacement=True, num_samples=1000, generator=gen(0)))
    assert len(out) == 1000 and set(out) == {0, 1, 2, 3}
    counts = np.bincount(out, minlength=4)
    assert counts.min() > 200               # uniform: expected 250 each
    assert len(RandomSampler(range(4), replacement=True, num_samples=70)) == 70


@pytest.mark.parametrize("kwargs", [{"replacement": 1}, {"num_samples": 0},
                                    {"num_samples": 2.5}, {"num_samples": -1}])
def test_random_sampler_errors_like_torch(kwargs):
    torch = pytest.importorskip("torch")
    with pytest.raises((TypeError, ValueError)) as theirs:
        torch.utils.data.RandomSampler(range(3), **kwargs)
    with pytest.raises((TypeError, ValueError)) as ours:
        RandomSampler(range(3), **kwargs)
    assert type(ours.value) is type(theirs.value)
    assert str(ours.value) == str(theirs.value)


def test_subset_random_sampler():
    idx = [10, 20, 30, 40]
    out = list(SubsetRandomSampler(idx, generator=gen(5)))
    assert sorted(out) == idx and len(SubsetRandomSampler(idx)) == 4
    assert out == list(SubsetRandomSampler(idx, generator=gen(5)))


def test_weighted_random_sampler_frequencies():
    w = [0.1, 0.0, 0.6, 0.3]
    out = list(WeightedRandomSampler(w, 4000, generator=gen(0)))
    counts = np.bincount(out, minlength=4) / 4000
    assert counts[1] == 0
    np.testing.assert_allclose(counts, w, atol=0.03)


def test_weighted_random_sampler_without_replacement_is_distinct():
    out = list(WeightedRandomSampler([1, 5, 1, 1, 9], 5, replacement=False, generator=gen(3)))
    assert sorted(out) == [0, 1, 2, 3, 4]


@pytest.mark.parametrize("args", [([1.0, 2.0], 0), ([1.0, 2.0], True), ([[1.0]], 2),
                                  ([1.0], 2, "yes")])
def test_weighted_random_sampler_errors_like_torch(args):
    torch = pytest.importorskip("torch")
    with pytest.raises(ValueError) as theirs:
        torch.utils.data.WeightedRandomSampler(*args)
    with pytest.raises(ValueError) as ours:
        WeightedRandomSampler(*args)
    assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize("n, bs, drop", [(10, 3, False), (10, 3, True), (9, 3, True),
                                         (2, 5, False), (2, 5, True), (0, 2, False)])
def test_batch_sampler_matches_torch(n, bs, drop):
    torch = pytest.importorskip("torch")
    theirs = torch.utils.data.BatchSampler(range(n), bs, drop)
    ours = BatchSampler(range(n), bs, drop)
    assert list(ours) == list(theirs)
    assert len(ours) == len(theirs)


@pytest.mark.parametrize("args", [(0, False), (2.0, False), (True, False), (2, "no")])
def test_batch_sampler_errors_like_torch(args):
    torch = pytest.importorskip("torch")
    with pytest.raises(ValueError) as theirs:
        torch.utils.data.BatchSampler(range(3), *args)
    with pytest.raises(ValueError) as ours:
        BatchSampler(range(3), *args)
    assert str(ours.value) == str(theirs.value)


def test_batch_sampler_over_random_sampler_covers_everything():
    batches = list(BatchSampler(RandomSampler(range(11), generator=gen(0)), 4, False))
    assert [len(b) for b in batches] == [4, 4, 3]
    assert collections.Counter(i for b in batches for i in b) == collections.Counter(range(11))
