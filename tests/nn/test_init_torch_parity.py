"""nn.init after ``manual_seed``: PyTorch's numbers, and the generator left where
PyTorch leaves it (the next ``rand`` agrees too)."""
import warnings

import numpy as np
import pytest

import cygrad


def _run(fn, shape, dtype, seed):
    torch = pytest.importorskip("torch", reason="PyTorch reference not installed")
    out = []
    for lib in (cygrad, torch):
        lib.manual_seed(seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t = fn(lib, lib.empty(*shape, dtype=getattr(lib, dtype)))
        out.append((t.detach().numpy().copy(), lib.rand(4).numpy().copy()))
    return out


EXACT = {
    "uniform": ((7, 5), lambda L, t: L.nn.init.uniform_(t, -0.3, 0.7)),
    "normal": ((7, 5), lambda L, t: L.nn.init.normal_(t, 0.1, 2.0)),
    "xavier_uniform": ((30, 20), lambda L, t: L.nn.init.xavier_uniform_(t, gain=1.3)),
    "xavier_normal": ((30, 20), lambda L, t: L.nn.init.xavier_normal_(t)),
    "kaiming_uniform": ((8, 3, 3, 3), lambda L, t: L.nn.init.kaiming_uniform_(t, a=5 ** 0.5)),
    "kaiming_normal": ((8, 3, 3, 3), lambda L, t: L.nn.init.kaiming_normal_(
        t, mode="fan_out", nonlinearity="relu")),
    # [a, b] holding most of the mass: out-of-range normals redrawn
    "trunc_normal_wide": ((40, 30), lambda L, t: L.nn.init.trunc_normal_(t, std=0.02)),
    "trunc_normal_std1": ((40, 30), lambda L, t: L.nn.init.trunc_normal_(t, a=-1.0, b=1.5)),
    # narrow interval: uniform proposals accepted by the density ratio
    "trunc_normal_narrow": ((40, 30), lambda L, t: L.nn.init.trunc_normal_(t, a=-0.2, b=0.3)),
    "trunc_normal_far": ((40, 30), lambda L, t: L.nn.init.trunc_normal_(
        t, mean=1.0, std=0.5, a=-1.0, b=-0.5)),
    "sparse": ((12, 5), lambda L, t: L.nn.init.sparse_(t, 0.3)),
}


@pytest.mark.parametrize("seed", [0, 3])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(EXACT))
def test_same_numbers_as_torch(name, dtype, seed):
    shape, fn = EXACT[name]
    (ours, ours_next), (ref, ref_next) = _run(fn, shape, dtype, seed)
    assert ours.tobytes() == ref.tobytes(), np.abs(ours - ref).max()
    assert ours_next.tobytes() == ref_next.tobytes()


def test_sparse_permutations_come_from_the_default_generator_as_in_torch():
    torch = pytest.importorskip("torch", reason="PyTorch reference not installed")
    res = []
    for lib in (cygrad, torch):
        lib.manual_seed(11)
        g = lib.Generator().manual_seed(5)
        res.append(lib.nn.init.sparse_(lib.empty(6, 4), 0.5, generator=g).numpy().copy())
    assert res[0].tobytes() == res[1].tobytes()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(6, 6), (10, 4), (4, 10), (5, 2, 3)])
def test_orthogonal_matches_torch_to_lapack_rounding(shape, dtype):
    # Same Gaussian draws in the tensor's dtype; the QR itself may differ from
    # PyTorch's LAPACK in the last bits.
    (ours, ours_next), (ref, ref_next) = _run(
        lambda L, t: L.nn.init.orthogonal_(t, gain=2.0), shape, dtype, 1)
    tol = 1e-5 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(ours, ref, rtol=0, atol=tol)
    assert ours_next.tobytes() == ref_next.tobytes()


def test_trunc_normal_stays_inside_and_warns_far_from_the_mean():
    with pytest.warns(UserWarning, match="more than 2 std"):
        w = cygrad.nn.init.trunc_normal_(cygrad.empty(500), mean=5.0, std=1.0, a=-1.0, b=1.0)
    values = w.numpy()
    assert values.min() >= -1.0 and values.max() <= 1.0
    # the truncated density rises towards b = 1 when the mean is far above it
    assert (values > 0).mean() > 0.8
