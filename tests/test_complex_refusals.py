"""Complex inputs where PyTorch has no kernel raise PyTorch's exception (type and
message), where cygrad's CPU used to return a result (ordering a complex number
has no meaning); and ``uniform_``/``normal_`` of a complex tensor draw each part
(from [from, to); from N(mean, std**2 / 2)), as PyTorch does, so that
``nn.Linear(..., dtype=complex64)`` builds."""
import numpy as np
import pytest

import cygrad

CASES = [
    ("nansum", lambda T, x: T.nansum(x), RuntimeError,
     "nansum on CPU does not support complex inputs"),
    ("nanmean", lambda T, x: T.nanmean(x), RuntimeError,
     "nansum on CPU does not support complex inputs"),
    ("kthvalue", lambda T, x: T.kthvalue(x, 1), NotImplementedError,
     "\"kthvalue_cpu\" not implemented for 'ComplexFloat'"),
    ("median", lambda T, x: T.median(x), NotImplementedError,
     "\"median_cpu\" not implemented for 'ComplexFloat'"),
    ("median_dim", lambda T, x: T.median(x, 1), NotImplementedError,
     "\"median_out\" not implemented for 'ComplexFloat'"),
    ("nanmedian", lambda T, x: T.nanmedian(x), NotImplementedError,
     "\"median_cpu\" not implemented for 'ComplexFloat'"),
    ("mode", lambda T, x: T.mode(x), NotImplementedError,
     "\"mode_cpu\" not implemented for 'ComplexFloat'"),
    ("unique", lambda T, x: T.unique(x), NotImplementedError,
     "\"unique\" not implemented for 'ComplexFloat'"),
    ("mvlgamma", lambda T, x: T.mvlgamma(x, 1), NotImplementedError,
     "\"arange_cpu\" not implemented for 'ComplexFloat'"),
    ("scatter_reduce_amax", lambda T, x: x.scatter_reduce(1, T.tensor([[0, 0, 2]]), x, "amax"),
     NotImplementedError, "\"scatter_gather_tensor_cpu_reduce_amax\" not implemented for "
     "'ComplexFloat'"),
    ("scatter_reduce_amin", lambda T, x: x.clone().scatter_reduce_(
        1, T.tensor([[0, 0, 2]]), x, "amin", include_self=False),
     NotImplementedError, "\"scatter_gather_tensor_cpu_reduce_amin\" not implemented for "
     "'ComplexFloat'"),
    # index_reduce: a 1-D input, or include_self=False, refuses every reduction; a 2-D
    # input refuses amax/amin (prod and mean compute: tests/cuda/test_indexing_complex.py)
    ("index_reduce_1d", lambda T, x: x[0].index_reduce(0, T.tensor([0, 0, 2]), x[0], "prod"),
     NotImplementedError, "\"index_func_\" not implemented for 'ComplexFloat'"),
    ("index_reduce_exclude", lambda T, x: x.index_reduce(1, T.tensor([0, 0, 2]), x, "mean",
                                                         include_self=False),
     NotImplementedError, "\"index_reduce_func_exclude_input_init\" not implemented for "
     "'ComplexFloat'"),
    ("index_reduce_amax", lambda T, x: x.index_reduce(1, T.tensor([0, 0, 2]), x, "amax"),
     NotImplementedError, "\"maximum_cpu\" not implemented for 'ComplexFloat'"),
    ("index_reduce_amin", lambda T, x: x.index_reduce(1, T.tensor([1, 0, 2]), x, "amin"),
     NotImplementedError, "\"minimum_cpu\" not implemented for 'ComplexFloat'"),
]


@pytest.mark.parametrize("name,call,exc,message", CASES, ids=[c[0] for c in CASES])
def test_complex_input_raises_as_pytorch(name, call, exc, message):
    x = cygrad.tensor([[1 + 1j, 2 - 1j, 0.5j]])
    with pytest.raises(exc) as info:
        call(cygrad, x)
    assert str(info.value) == message


@pytest.mark.parametrize("name,call,exc,message", CASES, ids=[c[0] for c in CASES])
def test_the_expected_errors_are_pytorchs(name, call, exc, message):
    torch = pytest.importorskip("torch", reason="checks the expected messages against PyTorch")
    with pytest.raises(exc) as info:
        call(torch, torch.tensor([[1 + 1j, 2 - 1j, 0.5j]]))
    assert str(info.value) == message


def test_complex_uniform_draws_each_part():
    cygrad.manual_seed(7)
    z = cygrad.empty(500, dtype=cygrad.complex64).uniform_(2.0, 3.0)
    cygrad.manual_seed(7)
    parts = cygrad.empty(500, 2).uniform_(2.0, 3.0)
    np.testing.assert_array_equal(cygrad.view_as_real(z).numpy(), parts.numpy())
    assert ((parts >= 2) & (parts < 3)).all()
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        cygrad.zeros(2, dtype=cygrad.complex64, requires_grad=True).uniform_()


def test_complex_normal_draws_each_part_with_half_the_variance():
    cygrad.manual_seed(3)
    z = cygrad.empty(20000, dtype=cygrad.complex128).normal_(2.0, 3.0)
    cygrad.manual_seed(3)
    parts = cygrad.empty(20000, 2, dtype=cygrad.float64).normal_(2.0, 3.0 / np.sqrt(2))
    np.testing.assert_array_equal(cygrad.view_as_real(z).numpy(), parts.numpy())
    zn = z.numpy()
    # both parts have mean 2 (PyTorch), and E|z - (2 + 2j)|^2 = std^2 = 9
    # (sampling error ~ 9 * sqrt(2 / 20000) ~ 0.09)
    assert abs(np.mean(np.abs(zn - (2.0 + 2.0j)) ** 2) - 9.0) < 0.5
    assert abs(zn.real.mean() - 2.0) < 0.1 and abs(zn.imag.mean() - 2.0) < 0.1


def test_complex_linear_builds_and_computes():
    layer = cygrad.nn.Linear(4, 3, dtype=cygrad.complex128)
    assert layer.weight.dtype == cygrad.complex128
    w, b = layer.weight.detach().numpy(), layer.bias.detach().numpy()
    bound = 1 / np.sqrt(4)
    assert np.all(np.abs(w.real) <= bound) and np.all(np.abs(w.imag) <= bound)
    assert np.abs(w.imag).max() > 0            # both parts drawn
    x = np.arange(8).reshape(2, 4) * (1 - 0.5j)
    np.testing.assert_allclose(layer(cygrad.tensor(x)).detach().numpy(), x @ w.T + b,
                               rtol=1e-14)
