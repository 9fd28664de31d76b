"""The ``torch.*`` forms of the nn functions (``cygrad/nn/torch_forms.py``) take
PyTorch's ATen arguments and give PyTorch's results."""
import numpy as np
import pytest

import cygrad

torch = pytest.importorskip("torch", reason="these tests compare with PyTorch")

rng = np.random.default_rng(0)
X3 = rng.standard_normal((2, 3, 6))
X4 = rng.standard_normal((2, 3, 4, 4))
X5 = rng.standard_normal((1, 2, 4, 4, 4))
W1, W2, W3 = (rng.standard_normal(s) for s in ((4, 3, 2), (4, 3, 2, 2), (3, 2, 2, 2, 2)))
A, B = rng.standard_normal((4, 5)), rng.standard_normal((4, 5))
T = np.array([1.0, -1.0, 1.0, -1.0])
P01 = rng.uniform(0.1, 0.9, (4, 5))

# name: (args, kwargs); ndarray args become tensors on both sides
CASES = {
    "conv1d": ((X3, W1), {"padding": 1}),
    "conv2d": ((X4, W2), {"stride": 2}),
    "conv3d": ((X5, W3), {}),
    "conv_transpose1d": ((X3, W1.transpose(1, 0, 2).copy()), {}),
    "conv_transpose2d": ((X4, W2.transpose(1, 0, 2, 3).copy()), {"stride": 2}),
    "conv_transpose3d": ((X5, rng.standard_normal((2, 3, 2, 2, 2))), {}),
    "adaptive_avg_pool1d": ((X3, 4), {}),
    "adaptive_max_pool1d": ((X3, 3), {}),
    "avg_pool1d": ((X3, 2), {}),
    "max_pool1d": ((X3, 2), {}),
    "max_pool1d_with_indices": ((X3, 3, 2), {}),
    "max_pool2d": ((X4, 2), {}),
    "max_pool3d": ((X5, 2), {}),
    "bilinear": ((A, B, rng.standard_normal((3, 5, 5))), {}),
    "cosine_similarity": ((A, B), {}),
    "pairwise_distance": ((A, B), {}),
    "hardshrink": ((A,), {}),
    "prelu": ((X3, np.array([0.25])), {}),
    "celu": ((A, 0.5), {}),
    "selu": ((A,), {}),
    "threshold": ((A, 0.1, -1.0), {}),
    "dropout": ((A, 0.5, False), {}),
    "alpha_dropout": ((A, 0.5, False), {}),
    "feature_alpha_dropout": ((X4, 0.5, False), {}),
    "batch_norm": ((X4, np.ones(3), np.zeros(3), np.zeros(3), np.ones(3), True, 0.1, 1e-5, False), {}),
    "group_norm": ((X4, 3, np.ones(3), np.zeros(3), 1e-5, False), {}),
    "layer_norm": ((X4, (4, 4)), {}),
    "embedding": ((A, np.array([3, 0, 1])), {}),
    "binary_cross_entropy_with_logits": ((A, P01), {"reduction": 2}),
    "cosine_embedding_loss": ((A, B, T), {"margin": 0.1}),
    "hinge_embedding_loss": ((A[:, 0].copy(), T), {"reduction": 0}),
    "kl_div": ((np.log(P01), P01[::-1].copy()), {}),
    "kl_div_mean": ((np.log(P01), P01[::-1].copy(), 1), {"log_target": False}),
    "margin_ranking_loss": ((A[:, 0].copy(), B[:, 0].copy(), T), {}),
    "poisson_nll_loss": ((A, np.abs(B), True, False, 1e-8, 1), {}),
    "triplet_margin_loss": ((A, B, A[::-1].copy()), {"reduction": 2}),
}


def _conv(lib, v):
    if isinstance(v, np.ndarray):
        return lib.from_numpy(v.copy())
    return v


@pytest.mark.parametrize("name", sorted(CASES))
def test_torch_form_matches_torch(name):
    args, kwargs = CASES[name]
    fn = name.split("_mean")[0]
    ours = getattr(cygrad, fn)(*[_conv(cygrad, a) for a in args], **kwargs)
    theirs = getattr(torch, fn)(*[_conv(torch, a) for a in args], **kwargs)
    ours = ours if isinstance(ours, tuple) else (ours,)
    theirs = theirs if isinstance(theirs, tuple) else (theirs,)
    assert len(ours) == len(theirs)
    for o, t in zip(ours, theirs):
        assert tuple(o.shape) == tuple(t.shape)
        np.testing.assert_allclose(o.detach().numpy(), t.detach().numpy(), rtol=1e-6, atol=1e-9)


def test_inplace_forms_and_bad_reduction():
    for name, args in (("dropout_", (0.0, True)), ("alpha_dropout_", (0.5, False)),
                       ("celu_", ()), ("selu_", ()), ("threshold_", (0.1, 0.0))):
        c, t = cygrad.from_numpy(A.copy()), torch.from_numpy(A.copy())
        assert getattr(cygrad, name)(c, *args) is c
        getattr(torch, name)(t, *args)
        np.testing.assert_allclose(c.numpy(), t.numpy(), rtol=1e-6)
    for reduction in (None, 0, 1, 2, 5):          # defaults to none; 5 is none too, as in ATen
        kw = {} if reduction is None else {"reduction": reduction}
        ours = cygrad.kl_div(cygrad.from_numpy(np.log(P01)), cygrad.from_numpy(P01.copy()), **kw)
        theirs = torch.kl_div(torch.from_numpy(np.log(P01)), torch.from_numpy(P01.copy()), **kw)
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6, atol=1e-12)
