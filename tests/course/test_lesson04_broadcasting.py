"""Checks of lesson 04's exercises (broadcasting) against NumPy's rules."""
import numpy as np
import pytest

import cygrad

CASES = [((2, 1), (3,)), ((5, 1, 4), (3, 1)), ((), (2, 3)), ((1,), (0,)), ((7,), (7,)),
         ((4, 1, 1), (1, 5, 1), (1, 1, 6))]


def test_broadcast_shapes_match_numpy():
    for shapes in CASES:
        assert tuple(cygrad.broadcast_shapes(*shapes)) == np.broadcast_shapes(*shapes)


@pytest.mark.parametrize("shapes", [((2, 3), (4,)), ((5, 2, 1), (3, 1))])
def test_broadcast_shapes_refuse_a_mismatch(shapes):
    with pytest.raises(RuntimeError) as err:
        cygrad.broadcast_shapes(*shapes)
    assert type(err.value) is RuntimeError      # as PyTorch; not a subclass
    with pytest.raises(ValueError):
        np.broadcast_shapes(*shapes)            # NumPy agrees that they do not broadcast


def test_expand_gradient_sums_the_repeats(rng):
    x = cygrad.tensor(rng.standard_normal((3, 1)), requires_grad=True)
    w = rng.standard_normal((2, 3, 4))
    (x.expand(2, 3, 4) * cygrad.tensor(w)).sum().backward()
    # x[i, 0] was used at every [n, i, k]: its gradient is the sum of those weights
    np.testing.assert_allclose(x.grad.numpy(), w.sum(axis=(0, 2))[:, None], rtol=1e-12)
