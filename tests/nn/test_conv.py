"""Convolutions, transposed convolutions and unfold/fold: values and gradients against
PyTorch over a grid of geometries, gradcheck/gradgradcheck/forward-mode in float64,
layers (init, padding modes, reprs, state_dict keys) and error messages."""
import math

import numpy as np
import pytest

import cygrad
import cygrad.nn.functional as F
from cygrad import nn
from cygrad.autograd import gradcheck, gradgradcheck

from ._torch_helpers import copy_state


def _pair(rng, torch, shape):
    a = rng.standard_normal(shape)
    return cygrad.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)


def _compare(torch, cy_fn, th_fn, cy_args, th_args, rng, atol=1e-10):
    """Forward values and the gradient of every argument, against PyTorch."""
    th_out = th_fn(*th_args)
    cy_out = cy_fn(*cy_args)
    assert tuple(cy_out.shape) == tuple(th_out.shape)
    np.testing.assert_allclose(cy_out.detach().numpy(), th_out.detach().numpy(), atol=atol)
    g = rng.standard_normal(tuple(th_out.shape))
    th_out.backward(torch.tensor(g))
    cy_out.backward(cygrad.tensor(g))
    for c, t in zip(cy_args, th_args):
        if t is not None:
            np.testing.assert_allclose(c.grad.numpy(), t.grad.numpy(), atol=atol)


CONV_CASES = [
    # (n, input shape, weight shape, kwargs)
    (2, (2, 4, 7, 6), (6, 2, 3, 2), dict(stride=(2, 1), padding=(1, 2), dilation=(1, 2), groups=2)),
    (2, (2, 4, 7, 6), (6, 4, 4, 2), dict(padding="same")),              # even kernel: asymmetric
    (2, (2, 4, 7, 6), (6, 4, 4, 3), dict(padding="same", dilation=2)),
    (2, (1, 3, 5, 5), (2, 3, 1, 1), dict()),                            # batch 1, 1x1 kernel
    (2, (2, 3, 6, 6), (4, 3, 3, 3), dict(padding="valid", stride=3)),
    (2, (2, 4, 5, 5), (4, 1, 3, 3), dict(groups=4, padding=1)),         # depthwise
    (2, (3, 5, 5), (2, 3, 2, 2), dict(padding=1)),                      # unbatched
    (1, (2, 4, 9), (4, 1, 3), dict(groups=4, stride=2, padding=1)),
    (1, (2, 3, 8), (5, 3, 2), dict(padding="same", dilation=3)),
    (1, (3, 8), (5, 3, 2), dict(stride=2)),
    (3, (2, 2, 3, 4, 3), (3, 2, 2, 2, 2), dict(stride=2, padding=1)),
]


@pytest.mark.parametrize("n, xs, ws, kw", CONV_CASES)
@pytest.mark.parametrize("bias", [True, False])
def test_conv_matches_torch(rng, n, xs, ws, kw, bias):
    torch = pytest.importorskip("torch")
    cx, tx = _pair(rng, torch, xs)
    cw, tw = _pair(rng, torch, ws)
    cb, tb = _pair(rng, torch, ws[0]) if bias else (None, None)
    name = f"conv{n}d"
    with __import__("warnings").catch_warnings():
        __import__("warnings").simplefilter("ignore")      # torch's 'same' + even kernel note
        _compare(torch, lambda *a: getattr(F, name)(*a, **kw),
                 lambda *a: getattr(torch.nn.functional, name)(*a, **kw),
                 (cx, cw, cb), (tx, tw, tb), rng)


def test_conv_non_contiguous_input(rng):
    torch = pytest.importorskip("torch")
    a = rng.standard_normal((3, 6, 9, 2))
    w = rng.standard_normal((4, 3, 3, 3))
    # A permuted, sliced view: strides the as_strided window view has to follow.
    cx = cygrad.tensor(a).permute(3, 0, 2, 1)[:, :, 1:, ::2]
    tx = torch.tensor(a).permute(3, 0, 2, 1)[:, :, 1:, ::2]
    assert not cx.is_contiguous()
    out = F.conv2d(cx, cygrad.tensor(w), padding=1, stride=(1, 2))
    np.testing.assert_allclose(out.numpy(), torch.nn.functional.conv2d(
        tx, torch.tensor(w), padding=1, stride=(1, 2)).numpy(), atol=1e-10)


TRANSPOSE_CASES = [
    (2, (2, 4, 5, 4), (4, 3, 3, 2), dict(stride=2, padding=1, output_padding=1)),
    (2, (2, 4, 5, 4), (4, 3, 3, 2), dict(groups=2, stride=(2, 3), padding=(1, 0),
                                         output_padding=(0, 2), dilation=(1, 2))),
    (2, (2, 4, 5, 4), (4, 3, 3, 2), dict(dilation=2, output_padding=1)),   # op < dilation
    (2, (1, 2, 3, 3), (2, 2, 1, 1), dict()),
    (1, (2, 4, 5), (4, 3, 3), dict(stride=2, padding=1, output_padding=1)),
    (1, (4, 5), (4, 3, 3), dict(stride=3)),
    (3, (1, 2, 2, 3, 2), (2, 2, 2, 2, 2), dict(stride=2)),
]


@pytest.mark.parametrize("n, xs, ws, kw", TRANSPOSE_CASES)
def test_conv_transpose_matches_torch(rng, n, xs, ws, kw):
    torch = pytest.importorskip("torch")
    cx, tx = _pair(rng, torch, xs)
    cw, tw = _pair(rng, torch, ws)
    cb, tb = _pair(rng, torch, ws[1] * kw.get("groups", 1))
    name = f"conv_transpose{n}d"
    _compare(torch, lambda *a: getattr(F, name)(*a, **kw),
             lambda *a: getattr(torch.nn.functional, name)(*a, **kw),
             (cx, cw, cb), (tx, tw, tb), rng)


@pytest.mark.parametrize("kw", [dict(kernel_size=2), dict(kernel_size=(2, 3), dilation=(1, 2),
                                                          padding=1, stride=(2, 1)),
                                dict(kernel_size=3, stride=2, padding=1)])
def test_unfold_fold_match_torch(rng, kw):
    torch = pytest.importorskip("torch")
    cx, tx = _pair(rng, torch, (2, 3, 6, 7))
    _compare(torch, lambda x: F.unfold(x, **kw), lambda x: torch.nn.functional.unfold(x, **kw),
             (cx,), (tx,), rng)
    cols = torch.nn.functional.unfold(torch.zeros(2, 3, 6, 7), **kw)
    cc, tc = _pair(rng, torch, tuple(cols.shape))
    _compare(torch, lambda c: F.fold(c, (6, 7), **kw),
             lambda c: torch.nn.functional.fold(c, (6, 7), **kw), (cc,), (tc,), rng)
    cc, tc = _pair(rng, torch, tuple(cols.shape[1:]))       # unbatched
    _compare(torch, lambda c: F.fold(c, (6, 7), **kw),
             lambda c: torch.nn.functional.fold(c, (6, 7), **kw), (cc,), (tc,), rng)


def test_unfold_is_the_adjoint_of_fold(rng):
    # <unfold(x), c> == <x, fold(c)> for any x, c: the pair are each other's transposes.
    x = cygrad.tensor(rng.standard_normal((2, 3, 5, 6)))
    kw = dict(kernel_size=(2, 3), dilation=(2, 1), padding=(1, 1), stride=(1, 2))
    cols = F.unfold(x, **kw)
    c = cygrad.tensor(rng.standard_normal(tuple(cols.shape)))
    lhs = (cols * c).sum().item()
    rhs = (x * F.fold(c, (5, 6), **kw)).sum().item()
    assert math.isclose(lhs, rhs, rel_tol=1e-12)


def _leaf(rng, *shape):
    return cygrad.tensor(rng.standard_normal(shape), requires_grad=True)


def test_conv2d_gradcheck_groups_dilation_stride(rng):
    x, w, b = _leaf(rng, 2, 4, 5, 4), _leaf(rng, 6, 2, 3, 2), _leaf(rng, 6)

    def f(x, w, b):
        return F.conv2d(x, w, b, stride=(2, 1), padding=1, dilation=(1, 2), groups=2)
    assert gradcheck(f, (x, w, b), check_forward_ad=True)
    assert gradgradcheck(f, (x, w, b))


def test_conv_transpose2d_gradcheck(rng):
    x, w, b = _leaf(rng, 2, 4, 3, 3), _leaf(rng, 4, 3, 3, 2), _leaf(rng, 6)

    def f(x, w, b):
        return F.conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1, groups=2)
    assert gradcheck(f, (x, w, b), check_forward_ad=True)
    assert gradgradcheck(f, (x, w, b))


def test_conv1d_same_and_unfold_fold_gradcheck(rng):
    x, w = _leaf(rng, 1, 2, 6), _leaf(rng, 3, 2, 4)
    assert gradcheck(lambda x, w: F.conv1d(x, w, padding="same", dilation=2), (x, w),
                     check_forward_ad=True)
    img = _leaf(rng, 1, 2, 4, 5)
    assert gradcheck(lambda t: F.unfold(t, (2, 3), padding=1, stride=(2, 1)), (img,),
                     check_forward_ad=True)
    cols = _leaf(rng, 1, 8, 10)
    assert gradcheck(lambda c: F.fold(c, (4, 5), 2, padding=(1, 0), stride=(1, 2)), (cols,),
                     check_forward_ad=True)
    assert gradgradcheck(lambda t: F.unfold(t, 2, dilation=2), (img,))


def test_conv_node_names():
    x = cygrad.ones(1, 1, 3, 3, requires_grad=True)
    w = cygrad.ones(1, 1, 2, 2)
    assert type(F.conv2d(x, w).grad_fn).__name__ == "ConvolutionBackward0"
    assert type(F.conv_transpose2d(x, w).grad_fn).__name__ == "ConvolutionBackward0"
    assert type(F.unfold(x, 2).grad_fn).__name__ == "Im2ColBackward0"
    assert type(F.fold(F.unfold(x, 2), (3, 3), 2).grad_fn).__name__ == "Col2ImBackward0"


def test_conv_integer_and_float32(rng):
    torch = pytest.importorskip("torch")
    a = rng.integers(-3, 4, (1, 2, 4, 4))
    w = rng.integers(-2, 3, (3, 2, 2, 2))
    got = F.conv2d(cygrad.tensor(a), cygrad.tensor(w))
    assert got.dtype == cygrad.int64
    np.testing.assert_array_equal(got.numpy(), torch.nn.functional.conv2d(
        torch.tensor(a), torch.tensor(w)).numpy())
    a32, w32 = a.astype(np.float32), w.astype(np.float32)
    assert F.conv2d(cygrad.tensor(a32), cygrad.tensor(w32)).dtype == cygrad.float32


def test_empty_batch():
    out = F.conv2d(cygrad.ones(0, 2, 4, 4), cygrad.ones(3, 2, 3, 3))
    assert tuple(out.shape) == (0, 3, 2, 2)


BAD_CALLS = [
    ("conv2d", lambda m: m.conv2d(m_t(m, 3, 4), m_t(m, 2, 3, 1, 1))),
    ("conv2d", lambda m: m.conv2d(m_t(m, 1, 3, 4, 4), m_t(m, 2, 2, 1, 1))),
    ("conv2d", lambda m: m.conv2d(m_t(m, 1, 4, 4, 4), m_t(m, 3, 2, 1, 1), groups=2)),
    ("conv2d", lambda m: m.conv2d(m_t(m, 1, 4, 4, 4), m_t(m, 2, 4, 5, 5))),
    ("conv2d", lambda m: m.conv2d(m_t(m, 1, 4, 4, 4), m_t(m, 2, 4, 3, 3), stride=2, padding="same")),
    ("conv2d", lambda m: m.conv2d(m_t(m, 1, 4, 4, 4), m_t(m, 2, 4, 3, 3), padding="foo")),
    ("conv2d", lambda m: m.conv2d(m_t(m, 1, 4, 4, 4), m_t(m, 2, 4, 3, 3), padding=-1)),
    ("conv2d", lambda m: m.conv2d(m_t(m, 1, 4, 4, 4), m_t(m, 2, 4, 3, 3), stride=0)),
    ("conv2d", lambda m: m.conv2d(m_t(m, 1, 4, 4, 4), m_t(m, 2, 4, 3, 3), dilation=0)),
    ("conv2d", lambda m: m.conv2d(m_t(m, 1, 4, 4, 4), m_t(m, 2, 4, 3, 3), groups=0)),
    ("conv2d", lambda m: m.conv2d(m_t(m, 1, 4, 4, 4), m_t(m, 2, 4, 3, 3), m_t(m, 3))),
    ("conv2d", lambda m: m.conv2d(m_t(m, 2, 4, 4, 4), m_t(m, 2, 4, 3, 3), stride=(1, 2, 3))),
    ("conv1d", lambda m: m.conv1d(m_t(m, 1, 4, 4, 4), m_t(m, 2, 4, 3))),
    ("conv_transpose2d", lambda m: m.conv_transpose2d(m_t(m, 1, 4, 4, 4), m_t(m, 3, 2, 3, 3))),
    ("conv_transpose2d", lambda m: m.conv_transpose2d(m_t(m, 1, 4, 4, 4), m_t(m, 4, 2, 3, 3),
                                                      output_padding=1)),
    ("conv_transpose2d", lambda m: m.conv_transpose2d(m_t(m, 4, 4), m_t(m, 4, 2, 3, 3))),
    ("conv_transpose2d", lambda m: m.conv_transpose2d(m_t(m, 1, 4, 4, 4), m_t(m, 4, 2, 3, 3),
                                                      padding=5)),
    ("unfold", lambda m: m.unfold(m_t(m, 1, 2, 4, 4), 5)),
    ("fold", lambda m: m.fold(m_t(m, 1, 7, 9), (4, 4), 2)),
    ("fold", lambda m: m.fold(m_t(m, 1, 8, 8), (4, 4), 2)),
    ("fold", lambda m: m.fold(m_t(m, 1, 1, 8, 9), (4, 4), 2)),
]


def m_t(m, *shape):
    """``ones(shape)`` in the library ``m`` belongs to (cygrad or torch's functional)."""
    lib = cygrad if m is F else __import__("torch")
    return lib.ones(*shape)


@pytest.mark.parametrize("i", range(len(BAD_CALLS)))
def test_error_messages_match_torch(i):
    torch = pytest.importorskip("torch")
    _, call = BAD_CALLS[i]
    with pytest.raises(Exception) as theirs:
        call(torch.nn.functional)
    with pytest.raises(type(theirs.value)) as ours:
        call(F)
    assert str(ours.value) == str(theirs.value)


# ----------------------------------------------------------------------- layers

LAYERS = [
    ("Conv1d", (4, 6, 3), dict(stride=2, padding=1), (2, 4, 9)),
    ("Conv2d", (4, 6, (3, 2)), dict(padding="same", dilation=(2, 1), groups=2), (2, 4, 6, 5)),
    ("Conv2d", (3, 4, 3), dict(padding=(1, 2), padding_mode="reflect"), (2, 3, 5, 6)),
    ("Conv2d", (3, 4, 3), dict(padding=1, padding_mode="replicate", bias=False), (2, 3, 5, 6)),
    ("Conv2d", (3, 4, 4), dict(padding="same", padding_mode="circular"), (1, 3, 5, 6)),
    ("Conv3d", (2, 3, 2), dict(padding=1), (1, 2, 3, 3, 3)),
    ("ConvTranspose1d", (4, 2, 3), dict(stride=2, output_padding=1), (2, 4, 5)),
    ("ConvTranspose2d", (4, 6, 3), dict(stride=2, padding=1, groups=2), (2, 4, 3, 4)),
    ("ConvTranspose3d", (2, 2, 2), dict(stride=2), (1, 2, 2, 2, 2)),
]


@pytest.mark.parametrize("name, args, kw, shape", LAYERS)
def test_layers_match_torch(rng, name, args, kw, shape):
    torch = pytest.importorskip("torch")
    theirs = getattr(torch.nn, name)(*args, **kw).double()
    ours = getattr(nn, name)(*args, **kw).double()
    assert repr(ours) == repr(theirs)
    copy_state(ours, theirs)
    cx, tx = _pair(rng, torch, shape)
    _compare(torch, ours, theirs, (cx,), (tx,), rng)
    for (k, p), (_, q) in zip(ours.named_parameters(), theirs.named_parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), atol=1e-10, err_msg=k)


def test_conv_transpose_output_size(rng):
    torch = pytest.importorskip("torch")
    theirs = torch.nn.ConvTranspose2d(3, 2, 3, stride=2, padding=1).double()
    ours = nn.ConvTranspose2d(3, 2, 3, stride=2, padding=1).double()
    copy_state(ours, theirs)
    a = rng.standard_normal((1, 3, 4, 4))
    for size in [(7, 7), (8, 8), (1, 2, 8, 7)]:
        got = ours(cygrad.tensor(a), output_size=size)
        want = theirs(torch.tensor(a), output_size=size)
        np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), atol=1e-10)
    with pytest.raises(ValueError) as err:
        ours(cygrad.tensor(a), output_size=(9, 9))
    with pytest.raises(ValueError) as terr:
        theirs(torch.tensor(a), output_size=(9, 9))
    assert str(err.value) == str(terr.value).replace("torch.Size", "cygrad.Size")


def test_default_init_bounds():
    cygrad.manual_seed(0)
    conv = nn.Conv2d(8, 64, 3)
    bound = 1 / math.sqrt(8 * 9)                # kaiming_uniform_(a=sqrt(5)) on fan_in 72
    w = conv.weight.detach().numpy()
    assert np.abs(w).max() <= bound
    assert abs(w.std() - bound / math.sqrt(3)) < 0.05 * bound     # U(-b, b) has std b/sqrt(3)
    assert np.abs(conv.bias.detach().numpy()).max() <= bound
    tconv = nn.ConvTranspose2d(8, 6, 3, groups=2)
    assert tuple(tconv.weight.shape) == (8, 3, 3, 3)
    assert np.abs(tconv.bias.detach().numpy()).max() <= 1 / math.sqrt(3 * 9)


def test_layer_state_dict_keys():
    torch = pytest.importorskip("torch")
    for name in ("Conv2d", "ConvTranspose2d"):
        for bias in (True, False):
            ours = getattr(nn, name)(2, 4, 3, bias=bias)
            theirs = getattr(torch.nn, name)(2, 4, 3, bias=bias)
            assert list(ours.state_dict()) == list(theirs.state_dict())


@pytest.mark.parametrize("kw", [dict(groups=3), dict(padding="full"), dict(padding_mode="zero"),
                                dict(padding="same", stride=2)])
def test_layer_argument_errors(kw):
    torch = pytest.importorskip("torch")
    with pytest.raises(ValueError) as theirs:
        torch.nn.Conv2d(4, 6, 3, **kw)
    with pytest.raises(ValueError) as ours:
        nn.Conv2d(4, 6, 3, **kw)
    assert _sorted_sets(str(ours.value)) == _sorted_sets(str(theirs.value))


def _sorted_sets(message):
    """The message with each printed set's items sorted: both libraries print a Python
    set of padding modes, whose order changes with the string hash seed per process."""
    import re
    return re.sub(r"\{([^{}]*)\}",
                  lambda m: "{" + ", ".join(sorted(m.group(1).split(", "))) + "}", message)


def test_fold_unfold_layers(rng):
    torch = pytest.importorskip("torch")
    a = rng.standard_normal((2, 3, 4, 5))
    for ours, theirs in [(nn.Unfold(2, padding=1), torch.nn.Unfold(2, padding=1))]:
        assert repr(ours) == repr(theirs)
        np.testing.assert_allclose(ours(cygrad.tensor(a)).numpy(), theirs(torch.tensor(a)).numpy())
    cols = rng.standard_normal((2, 12, 12))
    ours, theirs = nn.Fold((4, 5), 2), torch.nn.Fold((4, 5), 2)
    assert repr(ours) == repr(theirs)
    np.testing.assert_allclose(ours(cygrad.tensor(cols)).numpy(), theirs(torch.tensor(cols)).numpy())


def test_small_cnn_trains():
    """A conv -> relu -> pool -> linear net fits a tiny separable task (loss falls)."""
    cygrad.manual_seed(0)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((32, 1, 8, 8)).astype(np.float32)
    y = (x[:, 0, :4].sum((1, 2)) > x[:, 0, 4:].sum((1, 2))).astype(np.int64)
    model = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                          nn.Flatten(), nn.Linear(64, 2))
    opt = cygrad.optim.Adam(model.parameters(), lr=0.02)
    xs, ys = cygrad.tensor(x), cygrad.tensor(y)
    losses = []
    for _ in range(30):
        opt.zero_grad()
        loss = F.cross_entropy(model(xs), ys)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < 0.5 * losses[0]
