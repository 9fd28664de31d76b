"""Containers: Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict."""
from collections import OrderedDict

import numpy as np
import pytest

import cygrad
from cygrad import nn


def _ids(mods):
    return [id(m) for m in mods]


def test_sequential_forward_matches_numpy(rng):
    net = nn.Sequential(nn.Linear(4, 3), nn.Flatten(0), nn.Unflatten(0, (2, 3))).double()
    x = rng.standard_normal((2, 4))
    W, b = net[0].weight.detach().numpy(), net[0].bias.detach().numpy()
    np.testing.assert_allclose(net(cygrad.from_numpy(x)).detach().numpy(), x @ W.T + b)


def test_sequential_indexing_and_editing():
    a, b, c, d = (nn.Linear(1, 1) for _ in range(4))
    seq = nn.Sequential(a, b, c)
    assert seq[0] is a and seq[-1] is c and len(seq) == 3
    assert _ids(seq) == _ids([a, b, c])
    sliced = seq[1:]
    assert type(sliced) is nn.Sequential and _ids(sliced) == _ids([b, c])
    assert [n for n, _ in sliced.named_children()] == ["1", "2"]     # names are kept
    with pytest.raises(IndexError, match="index 3 is out of range"):
        seq[3]
    seq[1] = d
    assert seq[1] is d
    seq.append(b)
    assert _ids(seq) == _ids([a, d, c, b])
    seq.insert(-1, a)
    assert _ids(seq) == _ids([a, d, c, a, b])
    del seq[0]
    assert _ids(seq) == _ids([d, c, a, b])
    assert list(seq._modules) == ["0", "1", "2", "3"]               # renumbered
    del seq[1:3]
    assert _ids(seq) == _ids([d, b])
    assert seq.pop(0) is d and _ids(seq) == _ids([b])
    seq.extend([c, d])
    assert _ids(seq) == _ids([b, c, d])
    with pytest.raises(IndexError):
        seq.insert(10, a)
    with pytest.raises(AssertionError):
        seq.insert(0, 3)


def test_sequential_operators():
    a, b = nn.Identity(), nn.Flatten()
    s = nn.Sequential(a) + nn.Sequential(b)
    assert _ids(s) == _ids([a, b])
    s += nn.Sequential(a)
    assert _ids(s) == _ids([a, b, a])
    assert _ids(nn.Sequential(a, b) * 2) == _ids([a, b, a, b])
    assert _ids(2 * nn.Sequential(a)) == _ids([a, a])
    t = nn.Sequential(b)
    t *= 3
    assert _ids(t) == _ids([b, b, b])
    with pytest.raises(ValueError, match="only objects of Sequential class"):
        nn.Sequential(a) + nn.ModuleList([b])
    with pytest.raises(ValueError, match="Non-positive multiplication factor"):
        nn.Sequential(a) * 0
    with pytest.raises(TypeError):
        nn.Sequential(a) * 1.5
    assert "0" not in dir(nn.Sequential(a))


def test_sequential_from_ordered_dict():
    net = nn.Sequential(OrderedDict([("fc", nn.Linear(2, 2)), ("flat", nn.Flatten())]))
    assert list(net.state_dict()) == ["fc.weight", "fc.bias"]
    assert net.fc is net[0]


def test_module_list():
    a, b, c = nn.Identity(), nn.Flatten(), nn.Linear(1, 1)
    ml = nn.ModuleList([a, b])
    ml.append(c)
    assert _ids(ml) == _ids([a, b, c]) and ml[-1] is c and len(ml) == 3
    assert _ids(ml[::2]) == _ids([a, c]) and type(ml[1:]) is nn.ModuleList
    ml.insert(0, c)
    assert _ids(ml) == _ids([c, a, b, c])
    del ml[0]
    assert list(ml._modules) == ["0", "1", "2"]
    assert ml.pop(-1) is c
    ml += [c]
    ml[0] = b
    assert _ids(ml) == _ids([b, b, c])
    assert _ids(ml + nn.ModuleList([a])) == _ids([b, b, c, a])
    assert [n for n, _ in ml.named_parameters()] == ["2.weight", "2.bias"]
    with pytest.raises(IndexError):
        ml[5]
    with pytest.raises(TypeError, match="extend should be called with an iterable"):
        ml.extend(3)
    with pytest.raises(NotImplementedError, match='missing the required "forward"'):
        ml(cygrad.ones(1))


def test_module_dict():
    a, b = nn.Identity(), nn.Linear(2, 2)
    md = nn.ModuleDict({"z": a, "a": b})            # insertion order is kept
    assert list(md) == ["z", "a"] and list(md.keys()) == ["z", "a"]
    assert md["a"] is b and "z" in md and len(md) == 2
    md.update([("c", nn.Flatten())])
    assert list(md) == ["z", "a", "c"]
    assert md.pop("z") is a and list(md) == ["a", "c"]
    assert [k for k, _ in md.items()] == ["a", "c"] and len(list(md.values())) == 2
    with pytest.raises(ValueError, match="has length 3; 2 is required"):
        md.update([("x", a, 3)])
    with pytest.raises(TypeError):
        md.update(5)
    md.clear()
    assert len(md) == 0


def test_parameter_list():
    p = nn.Parameter(cygrad.ones(2))
    pl = nn.ParameterList([p, cygrad.zeros(3)])
    assert pl[0] is p and isinstance(pl[1], nn.Parameter) and len(pl) == 2
    pl.append(cygrad.ones(1, dtype=cygrad.float64))
    assert [n for n, _ in pl.named_parameters()] == ["0", "1", "2"]
    assert isinstance(pl[-1], nn.Parameter) and pl[-1].dtype is cygrad.float64
    sub = pl[1:]
    assert len(sub) == 2 and sub[0] is pl[1]
    pl[0] = cygrad.full((2,), 5.0)
    assert pl[0].tolist() == [5.0, 5.0]
    pl.extend([cygrad.ones(1)])
    assert len(pl) == 4
    with pytest.raises(TypeError, match="extend should be called with an iterable"):
        pl.extend(cygrad.ones(2))
    with pytest.raises(RuntimeError, match="should not be called"):
        pl()


def test_parameter_dict():
    pd = nn.ParameterDict({"b": cygrad.ones(1), "a": cygrad.zeros(2)})
    assert list(pd) == ["a", "b"]                    # a plain dict is taken sorted, as in PyTorch
    od = nn.ParameterDict(OrderedDict([("b", cygrad.ones(1)), ("a", cygrad.zeros(2))]))
    assert list(od) == ["b", "a"]
    assert isinstance(pd["a"], nn.Parameter) and "a" in pd and len(pd) == 2
    pd["c"] = nn.Parameter(cygrad.ones(3))
    assert [n for n, _ in pd.named_parameters()] == ["a", "b", "c"]
    assert pd.pop("a").shape == (2,) and list(pd) == ["b", "c"]
    assert pd.get("zz") is None and pd.setdefault("d", cygrad.ones(1)) is pd["d"]
    k, v = pd.popitem()
    assert k == "d" and "d" not in pd
    merged = pd | nn.ParameterDict({"e": cygrad.ones(1)})
    assert list(merged) == ["b", "c", "e"] and list(pd) == ["b", "c"]
    assert merged["b"] is pd["b"]
    with pytest.raises(TypeError, match="not a string"):
        pd[1] = cygrad.ones(1)
    pd.clear()
    assert len(pd) == 0 and not list(pd.parameters())


def _container_reprs(L):
    lnn = L.nn
    return [
        repr(lnn.ModuleList([lnn.Linear(1, 1), lnn.Linear(1, 1), lnn.Identity(),
                             lnn.Linear(1, 1)])),
        repr(lnn.ModuleList()),
        repr(lnn.ModuleDict({"a": lnn.Flatten(), "b": lnn.Sequential(lnn.Identity())})),
        repr(lnn.ParameterList([lnn.Parameter(L.ones(2)),
                                lnn.Parameter(L.ones(2, 3, dtype=L.float64))])),
        repr(lnn.ParameterDict({"a": lnn.Parameter(L.ones(2))})),
        repr(lnn.ParameterDict({"a": L.ones(2), "b": L.ones(1, 4)})),
    ]


def test_container_reprs_match_torch():
    torch = pytest.importorskip("torch")
    ours = _container_reprs(cygrad)
    theirs = [r.replace("torch", "cygrad") for r in _container_reprs(torch)]
    assert ours == theirs
