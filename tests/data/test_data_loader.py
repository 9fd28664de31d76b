"""DataLoader in the main process (num_workers=0): batch order, sizes, drop_last,
samplers, shuffling reproducibility, automatic batching off, iterable datasets, and
argument errors; compared with torch's DataLoader on the same data."""
import numpy as np
import pytest

import cygrad
from cygrad.utils.data import (BatchSampler, DataLoader, IterableDataset, SequentialSampler,
                               TensorDataset)


def as_lists(batches):
    out = []
    for b in batches:
        if isinstance(b, (list, tuple)):
            out.append([x.tolist() for x in b])
        elif isinstance(b, dict):
            out.append({k: v.tolist() if hasattr(v, "tolist") else v for k, v in b.items()})
        else:
            out.append(b.tolist() if hasattr(b, "tolist") else b)
    return out


class Counting(IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return iter(range(self.n))

    def __len__(self):
        return self.n


@pytest.fixture
def data(rng):
    return rng.standard_normal((10, 3)), np.arange(10)


@pytest.mark.parametrize("bs, drop", [(1, False), (3, False), (3, True), (5, True), (12, False),
                                      (12, True)])
def test_batches_match_torch(data, bs, drop):
    torch = pytest.importorskip("torch")
    x, y = data
    ours = DataLoader(TensorDataset(cygrad.from_numpy(x), cygrad.from_numpy(y)), batch_size=bs,
                      drop_last=drop)
    theirs = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(
        torch.from_numpy(x), torch.from_numpy(y)), batch_size=bs, drop_last=drop)
    assert len(ours) == len(theirs)
    assert as_lists(ours) == as_lists(theirs)


def test_plain_list_dataset_of_dicts_matches_torch():
    torch = pytest.importorskip("torch")
    items = [{"v": float(i), "name": f"n{i}", "arr": np.full(2, i, dtype=np.int32)}
             for i in range(5)]
    ours = list(DataLoader(items, batch_size=2))
    theirs = list(torch.utils.data.DataLoader(items, batch_size=2))
    for a, b in zip(ours, theirs):
        assert a["name"] == b["name"]
        assert a["v"].tolist() == b["v"].tolist() and str(a["v"].dtype)[7:] == str(b["v"].dtype)[6:]
        assert a["arr"].tolist() == b["arr"].tolist()
        assert str(a["arr"].dtype)[7:] == str(b["arr"].dtype)[6:]


def test_batch_size_none_converts_each_sample_like_torch():
    torch = pytest.importorskip("torch")
    items = [np.arange(3, dtype=np.float32) * i for i in range(3)]
    ours = list(DataLoader(items, batch_size=None))
    theirs = list(torch.utils.data.DataLoader(items, batch_size=None))
    assert [t.tolist() for t in ours] == [t.tolist() for t in theirs]
    assert ours[0].dtype == cygrad.float32
    assert len(DataLoader(items, batch_size=None)) == 3


def test_shuffle_reproducible_and_a_permutation():
    ds = list(range(20))

    def epoch(loader):
        return [i for b in loader for i in b.tolist()]

    cygrad.manual_seed(0)
    loader = DataLoader(ds, batch_size=4, shuffle=True)
    e1, e2 = epoch(loader), epoch(loader)
    assert sorted(e1) == ds and e1 != ds and e1 != e2
    cygrad.manual_seed(0)
    assert [epoch(loader), epoch(loader)] == [e1, e2]
    g1 = DataLoader(ds, batch_size=4, shuffle=True, generator=cygrad.Generator().manual_seed(7))
    g2 = DataLoader(ds, batch_size=4, shuffle=True, generator=cygrad.Generator().manual_seed(7))
    assert epoch(g1) == epoch(g2)


def test_sampler_and_batch_sampler():
    ds = [10 * i for i in range(7)]
    rev = list(range(6, -1, -1))
    assert [b.tolist() for b in DataLoader(ds, batch_size=3, sampler=rev)] == \
        [[60, 50, 40], [30, 20, 10], [0]]
    bs = [[0, 6], [1], [2, 3, 4, 5]]
    loader = DataLoader(ds, batch_sampler=bs)
    assert [b.tolist() for b in loader] == [[0, 60], [10], [20, 30, 40, 50]]
    assert len(loader) == 3 and loader.batch_size is None
    loader = DataLoader(ds, batch_sampler=BatchSampler(SequentialSampler(ds), 4, True))
    assert [b.tolist() for b in loader] == [[0, 10, 20, 30]]


def test_custom_collate_fn():
    loader = DataLoader(range(5), batch_size=2, collate_fn=lambda b: sum(b))
    assert list(loader) == [1, 5, 4]


def test_iterable_dataset_in_main_process():
    loader = DataLoader(Counting(7), batch_size=3)
    assert [b.tolist() for b in loader] == [[0, 1, 2], [3, 4, 5], [6]]
    assert len(loader) == 3
    loader = DataLoader(Counting(7), batch_size=3, drop_last=True)
    assert [b.tolist() for b in loader] == [[0, 1, 2], [3, 4, 5]] and len(loader) == 2
    assert list(DataLoader(Counting(2), batch_size=None)) == [0, 1]    # ints stay ints


def test_pin_memory_is_accepted_and_warns_like_torch():
    with pytest.warns(UserWarning, match="no accelerator is found"):
        out = [b.tolist() for b in DataLoader(range(3), batch_size=2, pin_memory=True)]
    assert out == [[0, 1], [2]]


BAD_ARGS = [
    dict(num_workers=-1),
    dict(timeout=-1),
    dict(prefetch_factor=2),
    dict(persistent_workers=True),
    dict(sampler=[0, 1], shuffle=True),
    dict(batch_sampler=[[0]], batch_size=2),
    dict(batch_sampler=[[0]], drop_last=True),
    dict(batch_sampler=[[0]], sampler=[0]),
    dict(batch_size=None, drop_last=True),
    dict(num_workers=0, multiprocessing_context="fork"),
    dict(num_workers=1, multiprocessing_context="nonsense"),
    dict(num_workers=1, multiprocessing_context=3),
]


@pytest.mark.parametrize("kwargs", BAD_ARGS, ids=[",".join(k) for k in BAD_ARGS])
def test_argument_errors_like_torch(kwargs):
    torch = pytest.importorskip("torch")
    with pytest.raises((ValueError, TypeError)) as theirs:
        torch.utils.data.DataLoader(list(range(4)), **kwargs)
    with pytest.raises((ValueError, TypeError)) as ours:
        DataLoader(list(range(4)), **kwargs)
    assert type(ours.value) is type(theirs.value)
    assert str(ours.value) == str(theirs.value).replace("torch", "cygrad")


@pytest.mark.parametrize("kwargs", [dict(shuffle=True), dict(sampler=[0]),
                                    dict(batch_sampler=[[0]])])
def test_iterable_dataset_argument_errors_like_torch(kwargs):
    torch = pytest.importorskip("torch")

    class TStream(torch.utils.data.IterableDataset):
        def __iter__(self):
            return iter(range(3))

    with pytest.raises(ValueError) as theirs:
        torch.utils.data.DataLoader(TStream(), **kwargs)
    with pytest.raises(ValueError) as ours:
        DataLoader(Counting(3), **kwargs)
    assert str(ours.value) == str(theirs.value)


def test_attributes_frozen_after_init_like_torch():
    loader = DataLoader(range(3))
    for name in ("batch_size", "sampler", "drop_last", "dataset", "batch_sampler"):
        with pytest.raises(ValueError, match=f"{name} attribute should not be set after "
                                              "DataLoader is initialized"):
            setattr(loader, name, None)
    loader.collate_fn = list                  # others can change
    assert list(loader) == [[0], [1], [2]]
