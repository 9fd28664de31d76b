"""F.embedding and nn.Embedding against PyTorch: values, gradients (padding_idx,
scale_grad_by_freq), max_norm renormalisation, errors; gradcheck in float64."""
import numpy as np
import pytest

import cygrad
import cygrad.nn.functional as F
from cygrad import nn
from cygrad.autograd import gradcheck, gradgradcheck

from ._torch_helpers import close, copy_state

IDX = [[0, 5, 2, 2], [2, 1, 5, 3]]


@pytest.mark.parametrize("kwargs", [{}, {"padding_idx": 2}, {"padding_idx": -1},
                                    {"scale_grad_by_freq": True},
                                    {"padding_idx": 5, "scale_grad_by_freq": True}])
def test_values_and_weight_grad_match_torch(rng, kwargs):
    torch = pytest.importorskip("torch")
    w = rng.standard_normal((6, 3))
    g = rng.standard_normal((2, 4, 3))
    wc, wt = cygrad.tensor(w, requires_grad=True), torch.tensor(w, requires_grad=True)
    yc = F.embedding(cygrad.tensor(IDX), wc, **kwargs)
    yt = torch.nn.functional.embedding(torch.tensor(IDX), wt, **kwargs)
    close(yc, yt, atol=0)
    yc.backward(cygrad.tensor(g))
    yt.backward(torch.tensor(g))
    close(wc.grad, wt.grad, atol=1e-12)


def test_gradcheck(rng):
    # padding_idx and scale_grad_by_freq deliberately alter the gradient (checked
    # against PyTorch above), so only the plain lookup is a true derivative.
    w = cygrad.tensor(rng.standard_normal((6, 3)), requires_grad=True)
    f = lambda w: F.embedding(cygrad.tensor(IDX), w)  # noqa: E731
    assert gradcheck(f, (w,), check_forward_ad=True)
    assert gradgradcheck(f, (w,))


def test_int32_indices_and_node_name(rng):
    w = cygrad.tensor(rng.standard_normal((4, 2)), requires_grad=True)
    y = F.embedding(cygrad.tensor([3, 0], dtype=cygrad.int32), w)
    np.testing.assert_array_equal(y.detach().numpy(), w.detach().numpy()[[3, 0]])
    assert type(y.grad_fn).__name__ == "EmbeddingBackward0"


def test_max_norm_renormalises_looked_up_rows_in_place(rng):
    torch = pytest.importorskip("torch")
    w = rng.standard_normal((6, 3)) * 3
    wc, wt = cygrad.tensor(w), torch.tensor(w)
    yc = F.embedding(cygrad.tensor(IDX), wc, max_norm=1.5)
    yt = torch.nn.functional.embedding(torch.tensor(IDX), wt, max_norm=1.5)
    close(wc, wt, atol=1e-12)
    close(yc, yt, atol=1e-12)
    assert np.allclose(wc.numpy()[4], w[4])          # row 4 was not looked up


def test_errors_match_torch():
    torch = pytest.importorskip("torch")
    for idx, exc in (([5], IndexError), ([-1], IndexError)):
        with pytest.raises(exc, match="index out of range in self"):
            F.embedding(cygrad.tensor(idx), cygrad.ones(3, 2))
    with pytest.raises(RuntimeError) as c:
        F.embedding(cygrad.tensor([1.0]), cygrad.ones(3, 2))
    with pytest.raises(RuntimeError) as t:
        torch.nn.functional.embedding(torch.tensor([1.0]), torch.ones(3, 2))
    assert str(c.value) == str(t.value).replace("torch.", "cygrad.")
    with pytest.raises(AssertionError, match="Padding_idx must be within num_embeddings"):
        F.embedding(cygrad.tensor([1]), cygrad.ones(3, 2), padding_idx=3)
    with pytest.raises(AssertionError, match="Padding_idx must be within num_embeddings"):
        nn.Embedding(3, 2, padding_idx=-4)


def test_module_init_padding_row_state_dict_and_repr(rng):
    torch = pytest.importorskip("torch")
    cygrad.manual_seed(0)
    e = nn.Embedding(1000, 50, padding_idx=3)
    w = e.weight.detach().numpy()
    assert (w[3] == 0).all()
    assert abs(w.mean()) < 0.01 and abs(w.std() - 1) < 0.01      # N(0, 1)
    t = torch.nn.Embedding(1000, 50, padding_idx=3)
    assert list(e.state_dict()) == list(t.state_dict())
    assert repr(e) == repr(t)
    kwargs = dict(max_norm=2.0, norm_type=1.0, scale_grad_by_freq=True)
    assert repr(nn.Embedding(5, 2, **kwargs)) == repr(torch.nn.Embedding(5, 2, **kwargs))


def test_module_forward_and_backward_match_torch(rng):
    torch = pytest.importorskip("torch")
    c, t = nn.Embedding(6, 4, padding_idx=0), torch.nn.Embedding(6, 4, padding_idx=0)
    copy_state(c, t)
    idx = [[0, 1, 1], [5, 0, 2]]
    (c(cygrad.tensor(idx)) ** 2).sum().backward()
    (t(torch.tensor(idx)) ** 2).sum().backward()
    close(c.weight.grad, t.weight.grad)
    assert (c.weight.grad.numpy()[0] == 0).all()


def test_from_pretrained():
    table = cygrad.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    e = nn.Embedding.from_pretrained(table)
    assert not e.weight.requires_grad
    assert e(cygrad.tensor([2, 0])).tolist() == [[5.0, 6.0], [1.0, 2.0]]
    e = nn.Embedding.from_pretrained(table, freeze=False, padding_idx=1)
    assert e.weight.requires_grad and e.padding_idx == 1
    assert e.weight[1].tolist() == [3.0, 4.0]     # a pretrained padding row is kept
