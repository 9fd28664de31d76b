"""Forward-mode AD of every differentiable ``cygrad.numpy`` function (main namespace,
``linalg``, ``fft``), from the table in ``tests/numpy_cases.py`` that the gradcheck
tests use too.

Two checks per row, both against central finite differences of the forward pass:

* the full Jacobian built by forward mode, one one-hot tangent per input element
  (``gradcheck(..., check_forward_ad=True, check_backward_ad=False)``; complex inputs
  and outputs as pairs of reals);
* one dense random tangent on every input at once, through ``forward_ad`` dual
  tensors: the outputs' tangents must equal ``(f(x + h v) - f(x - h v)) / 2h``. The
  one-hot columns see one input at a time, so this is what catches a ``jvp`` that
  drops a term when several inputs carry tangents together.

And the table is complete: every public function of the three namespaces is either
in it or in ``NON_DIFFERENTIABLE`` (with the reason), never both.
"""
import inspect

import numpy as np
import pytest

import cygrad
import cygrad.numpy as cnp
from cygrad.autograd import forward_ad as fwAD
from cygrad.autograd import gradcheck
from cygrad._core.tensor import TensorBase

from numpy_cases import CASES, NON_DIFFERENTIABLE, params

EPS, ATOL, RTOL = 1e-6, 1e-5, 1e-4


def _leaf(a):
    return cygrad.from_numpy(np.array(a)).requires_grad_()


def _outputs(result):
    items = result if isinstance(result, (tuple, list)) else (result,)
    return [o for o in items if isinstance(o, TensorBase)
            and (o.dtype.is_floating_point or o.dtype.is_complex)]


def _real_values(t, like=None):
    """A tensor's values as float64 (complex as (re, im) pairs); None means zeros
    shaped like ``like``."""
    if t is None:
        dt = np.complex128 if like.dtype.is_complex else np.float64
        a = np.zeros(tuple(like.shape), dtype=dt)
    else:
        a = np.array(t.detach().numpy())
    if a.dtype.kind == "c":
        return a.astype(np.complex128).reshape(-1).view(np.float64)
    return a.astype(np.float64).reshape(-1)


def _known_bug(test):
    """Run a check of a row with a known bug with its failure cut to the message:
    pytest formats a deep traceback of an expected failure at ~0.1 s a time."""
    def run(case):
        if not case.fwd_bug:
            return test(case)
        try:
            test(case)
        except Exception as e:
            raise AssertionError(f"{type(e).__name__}: {e}") from None
    run.__name__ = test.__name__
    run.__doc__ = test.__doc__
    return run


@pytest.mark.parametrize("case", params("fwd_bug"))
@_known_bug
def test_forward_jacobian(case):
    leaves = tuple(_leaf(a) for a in case.inputs)
    # a differentiable function has a floating result (gradcheck skips the others)
    assert _outputs(case.fn(*leaves))
    assert gradcheck(case.fn, leaves, eps=EPS, atol=ATOL, rtol=RTOL, check_forward_ad=True,
                     check_backward_ad=False)


@pytest.mark.parametrize("case", params("fwd_bug"))
@_known_bug
def test_dense_tangent(case):
    rng = np.random.default_rng(0)
    primals = [np.array(a) for a in case.inputs]
    tangents = [np.asarray(rng.standard_normal(p.shape) + (1j * rng.standard_normal(p.shape)
                                                           if p.dtype.kind == "c" else 0))
                for p in primals]
    with fwAD.dual_level():
        duals = [fwAD.make_dual(cygrad.from_numpy(p.copy()), cygrad.from_numpy(v))
                 for p, v in zip(primals, tangents)]
        outs = _outputs(case.fn(*duals))
        assert outs, "no floating result"
        got = [_real_values(fwAD.unpack_dual(o).tangent, like=o) for o in outs]

    def at(step):
        shifted = [cygrad.from_numpy(np.asarray(p + step * v)) for p, v in zip(primals, tangents)]
        return [_real_values(o) for o in _outputs(case.fn(*shifted))]

    plus, minus = at(EPS), at(-EPS)
    assert len(got) == len(plus)
    for k, (g, p, m) in enumerate(zip(got, plus, minus)):
        want = (p - m) / (2 * EPS)
        # where the value itself is not finite (nan_to_num's inputs), nothing moves
        want = np.where(np.isfinite(p) & np.isfinite(m), want, 0.0)
        np.testing.assert_allclose(g, want, rtol=RTOL, atol=ATOL,
                                   err_msg=f"tangent of output {k} along a dense random direction")


# ------------------------------------------------------------------------ coverage

def _public_functions():
    """Qualified names of the public callables of cygrad.numpy, .linalg and .fft."""
    names = set()
    for prefix, mod in (("", cnp), ("linalg.", cnp.linalg), ("fft.", cnp.fft)):
        if mod is cnp:
            found = [n for n in dir(mod) if not n.startswith("_")]
        else:
            # the exported names, and any function defined there and left out of __all__
            found = list(mod.__all__) + [n for n, v in vars(mod).items() if not n.startswith("_")
                                         and inspect.isfunction(v) and v.__module__ == mod.__name__]
        for n in found:
            obj = getattr(mod, n)
            if callable(obj) and not inspect.ismodule(obj):
                names.add(prefix + n)
    return names


def test_every_public_function_is_classified():
    public = _public_functions()
    tested = {c.func for c in CASES}
    assert not tested & set(NON_DIFFERENTIABLE), "in the table and called non-differentiable"
    unclassified = public - tested - set(NON_DIFFERENTIABLE)
    assert not unclassified, (f"add these to tests/numpy_cases.py (CASES, or NON_DIFFERENTIABLE "
                              f"with the reason): {sorted(unclassified)}")
    stale = (tested | set(NON_DIFFERENTIABLE)) - public
    assert not stale, f"not public functions of cygrad.numpy: {sorted(stale)}"


def test_case_ids_are_unique():
    labels = [c.label for c in CASES]
    assert len(labels) == len(set(labels))


def test_complex_rows_cover_complex_inputs():
    """The complex variants really run on complex128 leaves."""
    rows = [c for c in CASES if c.label.endswith(" complex")]
    assert rows
    for c in rows:
        assert any(np.asarray(a).dtype == np.complex128 for a in c.inputs), c.label


@pytest.mark.parametrize("fn,shape", [
    (lambda a: cnp.linalg.svd(a, full_matrices=True).U, (4, 3)),
    (lambda a: cnp.linalg.qr(a).Q, (3, 4)),
    (lambda a: cnp.linalg.qr(a, mode="complete").R, (4, 3)),
], ids=["svd full non-square", "qr wide", "qr complete tall"])
def test_undefined_derivatives_are_refused(fn, shape):
    """As in backward (tests/numpy_api/test_np_grad.py): no tangent is invented."""
    primal = cygrad.from_numpy(np.random.default_rng(1).standard_normal(shape))
    with fwAD.dual_level():
        with pytest.raises(NotImplementedError):
            fn(fwAD.make_dual(primal, cygrad.ones(shape, dtype=cygrad.float64)))
