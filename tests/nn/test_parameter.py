"""nn.Parameter: a leaf tensor subclass sharing memory with the data it wraps."""
import copy
import pickle

import numpy as np
import pytest

import cygrad
from cygrad import nn


def test_shares_memory_and_version_counter_with_data():
    data = cygrad.arange(4.0)
    p = nn.Parameter(data)
    assert isinstance(p, nn.Parameter) and isinstance(p, cygrad.Tensor)
    assert p.data_ptr() == data.data_ptr()
    data.add_(1)
    np.testing.assert_array_equal(p.detach().numpy(), np.arange(4.0) + 1)
    assert p._version == data._version == 1


def test_requires_grad_default_and_flag():
    assert nn.Parameter(cygrad.ones(2)).requires_grad
    q = nn.Parameter(cygrad.ones(2), requires_grad=False)
    assert not q.requires_grad and q.is_leaf and q.grad_fn is None


def test_from_non_leaf_is_detached_leaf():
    x = cygrad.ones(3, requires_grad=True)
    p = nn.Parameter(x * 2)
    assert p.is_leaf and p.grad_fn is None and p.requires_grad


def test_empty_default():
    p = nn.Parameter()
    assert tuple(p.shape) == (0,) and p.requires_grad


def test_ops_return_plain_tensors_and_grads_accumulate():
    p = nn.Parameter(cygrad.tensor([1.0, 2.0]))
    y = p * 3
    assert type(y) is cygrad.Tensor
    y.sum().backward()
    np.testing.assert_array_equal(p.grad.numpy(), [3.0, 3.0])
    assert type(p.data) is cygrad.Tensor


def test_errors_match_torch():
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError):
        nn.Parameter(cygrad.ones(2, dtype=cygrad.int64))
    with pytest.raises(RuntimeError):
        torch.nn.Parameter(torch.ones(2, dtype=torch.int64))
    with pytest.raises(TypeError):
        nn.Parameter([1.0, 2.0])


def test_repr_matches_torch():
    torch = pytest.importorskip("torch")
    values = [[1.5, -2.0], [0.25, 3.0]]
    for rg in (True, False):
        ours = repr(nn.Parameter(cygrad.tensor(values), requires_grad=rg))
        theirs = repr(torch.nn.Parameter(torch.tensor(values), requires_grad=rg))
        assert ours == theirs
    assert repr(nn.Parameter()) == repr(torch.nn.Parameter())


def test_deepcopy_and_pickle_give_independent_parameters():
    p = nn.Parameter(cygrad.tensor([1.0, 2.0]), requires_grad=False)
    for q in (copy.deepcopy(p), pickle.loads(pickle.dumps(p))):
        assert type(q) is nn.Parameter and q.requires_grad is False
        assert q.data_ptr() != p.data_ptr()
        np.testing.assert_array_equal(q.numpy(), p.numpy())
    memo = {}
    assert copy.deepcopy(p, memo) is copy.deepcopy(p, memo)
