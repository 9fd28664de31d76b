"""Dropout family: statistics of the masks, exact scaling, channel-wise masks,
train/eval, gradients, reproducibility under manual_seed, errors as PyTorch."""
import warnings

import numpy as np
import pytest

import cygrad
import cygrad.nn.functional as F
from cygrad import nn


@pytest.mark.parametrize("p", [0.1, 0.5, 0.8])
def test_fraction_zeroed_and_exact_scaling(p):
    cygrad.manual_seed(0)
    n = 200_000
    y = F.dropout(cygrad.ones(n, dtype=cygrad.float64), p).numpy()
    zero = y == 0
    # binomial std of the fraction is sqrt(p(1-p)/n) < 0.0012: 5 sigma
    assert abs(zero.mean() - p) < 0.006
    np.testing.assert_array_equal(y[~zero], 1.0 / (1.0 - p))


def test_gradient_is_the_mask(rng):
    x = cygrad.tensor(rng.standard_normal((50, 40)), requires_grad=True)
    y = F.dropout(x, 0.3)
    y.backward(cygrad.ones_like(y))
    kept = y.detach().numpy() != 0
    np.testing.assert_array_equal(x.grad.numpy(), np.where(kept, 1 / 0.7, 0.0))


def test_identity_when_not_training_or_p_zero():
    x = cygrad.ones(4)
    assert F.dropout(x, 0.5, training=False) is x
    assert F.dropout(x, 0.0) is x
    m = nn.Dropout(0.9).eval()
    assert m(x) is x
    assert F.dropout(x, 1.0).tolist() == [0.0] * 4


def test_reproducible_with_manual_seed():
    cygrad.manual_seed(7)
    a = F.dropout(cygrad.ones(100), 0.5).tolist()
    cygrad.manual_seed(7)
    assert F.dropout(cygrad.ones(100), 0.5).tolist() == a


def test_inplace_modifies_input():
    x = cygrad.ones(1000)
    y = F.dropout(x, 0.5, inplace=True)
    assert y is x
    assert set(x.tolist()) == {0.0, 2.0}


@pytest.mark.parametrize("fn,shape,batched", [(F.dropout1d, (8, 16, 5), True),
                                               (F.dropout1d, (16, 5), False),
                                               (F.dropout2d, (8, 16, 3, 3), True),
                                               (F.dropout3d, (4, 16, 2, 2, 2), True),
                                               (F.dropout3d, (16, 2, 2, 2), False)])
def test_channel_dropout_zeroes_whole_channels(fn, shape, batched):
    cygrad.manual_seed(3)
    y = fn(cygrad.ones(shape, dtype=cygrad.float64), 0.5).numpy()
    lead = 2 if batched else 1
    per_channel = y.reshape(int(np.prod(shape[:lead])), -1)
    assert all(len(set(row)) == 1 for row in per_channel.tolist())
    assert set(np.unique(per_channel)) == {0.0, 2.0}


def test_dropout2d_on_3d_input_is_channelwise_1d_with_torch_warning():
    torch = pytest.importorskip("torch")
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        y = F.dropout2d(cygrad.ones(4, 6, 5), 0.5)
    with warnings.catch_warnings(record=True) as want:
        warnings.simplefilter("always")
        torch.nn.functional.dropout2d(torch.ones(4, 6, 5), 0.5)
    assert [str(w.message) for w in got] == [str(w.message) for w in want]
    assert all(len(set(r)) == 1 for r in y.reshape(24, 5).tolist())


def test_alpha_dropout_values_match_torch_formula():
    torch = pytest.importorskip("torch")
    p = 0.3
    torch.manual_seed(0)
    t = torch.nn.functional.alpha_dropout(torch.zeros(10_000, dtype=torch.float64), p, True)
    y = F.alpha_dropout(cygrad.zeros(10_000, dtype=cygrad.float64), p, True)
    # on zeros only two values occur: the kept value and the dropped value
    np.testing.assert_allclose(np.unique(y.numpy()), np.unique(t.numpy()), rtol=1e-12)
    x = cygrad.randn(200_000, dtype=cygrad.float64)
    z = F.alpha_dropout(x, 0.2, True)
    assert abs(z.mean().item()) < 0.01 and abs(z.std().item() - 1) < 0.01
    assert F.alpha_dropout(x, 0.2) is x      # training defaults to False, as PyTorch


def test_modules_reprs_and_errors_match_torch():
    torch = pytest.importorskip("torch")
    for name in ["Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout",
                 "FeatureAlphaDropout"]:
        assert repr(getattr(nn, name)(0.2, inplace=True)) == \
            repr(getattr(torch.nn, name)(0.2, inplace=True))
        assert list(getattr(nn, name)().state_dict()) == []
    for bad in (-0.1, 1.5):
        with pytest.raises(ValueError) as c:
            F.dropout(cygrad.ones(2), bad)
        with pytest.raises(ValueError) as t:
            torch.nn.functional.dropout(torch.ones(2), bad)
        assert str(c.value) == str(t.value)
        with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1"):
            nn.Dropout(bad)
    with pytest.raises(RuntimeError) as c:
        F.dropout1d(cygrad.ones(2, 3, 4, 5))
    with pytest.raises(RuntimeError) as t:
        torch.nn.functional.dropout1d(torch.ones(2, 3, 4, 5))
    assert str(c.value) == str(t.value)


def test_module_train_eval():
    m = nn.Dropout(0.5)
    x = cygrad.ones(1000)
    assert (m(x) == 0).any().item()
    m.eval()
    assert m(x).tolist() == x.tolist()
