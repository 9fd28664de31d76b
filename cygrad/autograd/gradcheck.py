"""Check a backward formula against finite differences: ``gradcheck``/``gradgradcheck``.

For a function ``f`` and inputs ``x_1 .. x_n`` the check builds, for every pair
(output ``k``, input ``i``), two Jacobian matrices ``J[o, j] = d out_k[o] / d x_i[j]``:

* the **numerical** one, by central differences: nudge one element of ``x_i`` by
  ``+eps`` and ``-eps`` (in place, in the input's own memory), run ``f`` twice and take
  ``(f(x + eps) - f(x - eps)) / (2 eps)``. This needs nothing but the forward pass.
* the **analytical** one, from the backward pass: ``autograd.grad(out_k, inputs, e_o)``
  with ``e_o`` a one-hot ``grad_output`` gives row ``o`` (a vector-Jacobian product).

If the two disagree by more than ``atol + rtol * |numerical|`` somewhere, the backward is
wrong (or ``f`` is not smooth at that point, or ``eps`` is too big for the dtype — use
float64). The error message prints both matrices side by side with the bad elements
marked, which is usually enough to see *which* partial derivative is off.

Two optional checks reuse the numerical Jacobian:

* ``check_forward_ad``: the Jacobian built column by column from forward mode (each
  input element gets a one-hot tangent; the outputs' tangents are column ``j``), which
  tests every ``jvp`` formula on the way.
* ``check_batched_grad``: vector-Jacobian products for a batch of dense random
  cotangents ``v`` against ``J^T v`` from the numerical Jacobian. The one-hot rows of
  the main check cannot see a backward that is right only for one-hot gradients (one
  that uses ``grad.sign()`` or ``grad != 0``, say); dense ones can. (PyTorch runs this
  batch through ``vmap``; cygrad has no vmap, so the batch is a loop.)

**Complex numbers** are checked as pairs of reals, which tests both Wirtinger
derivatives at once: a complex input element gives two columns (nudged by ``eps`` and
by ``i eps``), a complex output element two rows (its real and imaginary parts), so
``J`` is the Jacobian of the real map ``(x, y) -> (u, v)``. Backward gives row
``(o, real)`` with ``grad_output = 1`` at ``o`` and row ``(o, imag)`` with
``grad_output = 1j``: under PyTorch's convention the gradient of a complex input is
``dL/dx + i dL/dy``, i.e. the two columns of that row. Element labels in reports
end in ``,0`` (real part) or ``,1`` (imaginary part) for complex tensors.

``gradgradcheck`` checks the second derivative by running ``gradcheck`` on the function
``(inputs, grad_outputs) -> autograd.grad(f(inputs), inputs, grad_outputs,
create_graph=True)``, i.e. on the backward pass itself.
"""
import warnings

import numpy as np

from .._core import tensor as _C
from .._core.tensor import TensorBase
from .grad_mode import enable_grad
from .engine_api import grad as _autograd_grad

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]

# How much of a Jacobian the error report shows.
_MAX_ROWS = 10
_MAX_COLS = 5


class GradcheckError(RuntimeError):
    """Raised by ``gradcheck``/``gradgradcheck`` when a check fails."""


# ------------------------------------------------------------------------- helpers

def _as_tuple(x):
    if isinstance(x, tuple):
        return x
    if isinstance(x, list):
        return tuple(x)
    return (x,)


def _is_float(t):
    """Differentiable dtype: floating point or complex."""
    return t.dtype.is_floating_point or t.dtype.is_complex


def _realify(a):
    """Values of an array as a flat float64 vector; complex elements become
    (real, imag) pairs."""
    if a.dtype.kind == "c":
        return np.array(a, dtype=np.complex128).reshape(-1).view(np.float64)
    return np.array(a, dtype=np.float64).reshape(-1)


def _nreal(t):
    """How many real numbers ``t`` holds (two per complex element)."""
    return t.numel() * (2 if t.dtype.is_complex else 1)


def _real_shape(t):
    """The shape reports label ``t``'s real numbers with (a trailing 2 for complex)."""
    return tuple(t.shape) + ((2,) if t.dtype.is_complex else ())


def _unit_steps(t, scale):
    """The directions each element is moved in: 1, and i for a complex tensor."""
    return (scale, scale * 1j) if t.dtype.is_complex else (scale,)


def _differentiable_inputs(inputs):
    """(position, tensor) for every input tensor that requires grad."""
    return [(i, t) for i, t in enumerate(inputs)
            if isinstance(t, TensorBase) and t.requires_grad]


def _check_inputs(inputs, diff_inputs):
    if not diff_inputs:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, "
                         "but none of the them have requires_grad=True.")
    for pos, t in diff_inputs:
        if t.dtype.name not in ("float64", "complex128"):
            warnings.warn(
                f"Input #{pos} requires gradient and is not a double precision floating point "
                "or complex. This check will likely fail if all the inputs are not of double "
                "precision floating point or complex. ", UserWarning, stacklevel=3)
        for size, stride in zip(t.shape, t.stride()):
            if stride == 0 and size > 1 and t.numel() > 0:
                # Perturbing one memory location would move several elements at once.
                raise RuntimeError(
                    f"The {pos}th input has a dimension with stride 0. gradcheck only "
                    "supports inputs that are non-overlapping to be able to compute the "
                    "numerical gradients correctly. You should call .contiguous on the input "
                    "before passing it to gradcheck.")


def _tensor_outputs(outputs):
    return [o for o in _as_tuple(outputs) if isinstance(o, TensorBase)]


def _snapshot(outputs):
    """Copies of the float outputs' values (an output may be a view of an input, and
    the input is about to be perturbed again)."""
    return [_realify(_C._ndarray(o)) if _is_float(o) else None for o in outputs]


def _one_hot(shape, dtype, flat_index, value=1):
    g = _C.zeros(tuple(shape), dtype=dtype)
    if g.numel():
        _C._ndarray(g).reshape(-1)[flat_index] = value
    return g


# ---------------------------------------------------------------- the two Jacobians

def _numerical_jacobians(func, inputs, diff_inputs, eps):
    """``jac[k][i]``: (numel of output k, numel of input i) by central differences.

    Each element is perturbed through a zero-copy NumPy view of the input, so
    non-contiguous inputs (and inputs that are views of each other) are nudged in the
    memory the function really reads; the original value is written back exactly.
    """
    jac = None
    for col_block, (_, inp) in enumerate(diff_inputs):
        arr = _C._ndarray(inp)
        n_in = _nreal(inp)
        steps = _unit_steps(inp, eps)
        block = None
        for j, (idx, step) in enumerate((i, s) for i in np.ndindex(*arr.shape) for s in steps):
            # course: begin central-difference
            orig = arr[idx].copy()
            try:
                # Grad mode stays as it is: func may itself call autograd.grad
                # (gradgradcheck's function does).
                arr[idx] = orig + step
                plus = _snapshot(_tensor_outputs(func(*inputs)))
                arr[idx] = orig - step
                minus = _snapshot(_tensor_outputs(func(*inputs)))
            finally:
                arr[idx] = orig
            if block is None:
                block = [np.zeros((p.size, n_in)) if p is not None else None for p in plus]
            for k, (p, m) in enumerate(zip(plus, minus)):
                if p is not None:
                    block[k][:, j] = ((p - m) / (2 * eps)).reshape(-1)
            # course: end central-difference
        if block is None:  # zero-sized input: run once to learn the output sizes
            outs = _tensor_outputs(func(*inputs))
            block = [np.zeros((_nreal(o), 0)) if _is_float(o) else None for o in outs]
        if jac is None:
            jac = [[None] * len(diff_inputs) for _ in block]
        for k, b in enumerate(block):
            jac[k][col_block] = b
    return jac


def _forward_jacobians(func, inputs, diff_inputs):
    """``jac[k][i]`` from forward mode: column j = tangents of the outputs when element
    j of input i has tangent 1 and everything else tangent 0."""
    from . import forward_ad as fwAD
    jac = None
    for col_block, (pos, inp) in enumerate(diff_inputs):
        n_in = _nreal(inp)
        steps = _unit_steps(inp, 1)
        block = None
        for j in range(n_in):
            with fwAD.dual_level():
                args = list(inputs)
                tangent = _one_hot(inp.shape, inp.dtype, j // len(steps), steps[j % len(steps)])
                args[pos] = fwAD.make_dual(inp.detach(), tangent)
                outs = _tensor_outputs(func(*args))
                cols = []
                for o in outs:
                    if not _is_float(o):
                        cols.append(None)
                        continue
                    t = fwAD.unpack_dual(o).tangent
                    cols.append(np.zeros(_nreal(o)) if t is None else
                                _realify(_C._ndarray(t.contiguous())))
            if block is None:
                block = [np.zeros((c.size, n_in)) if c is not None else None for c in cols]
            for k, c in enumerate(cols):
                if c is not None:
                    block[k][:, j] = c
        if block is None:   # zero-sized input
            outs = _tensor_outputs(func(*inputs))
            block = [np.zeros((_nreal(o), 0)) if _is_float(o) else None for o in outs]
        if jac is None:
            jac = [[None] * len(diff_inputs) for _ in block]
        for k, b in enumerate(block):
            jac[k][col_block] = b
    return jac


def _from_real(values, like):
    """A tensor shaped and typed like ``like`` from its real numbers (``_realify``'s
    inverse)."""
    if like.dtype.is_complex:
        values = values.view(np.complex128)
    return _C.from_numpy(values.reshape(tuple(like.shape)).astype(like.dtype.np_dtype))


def _check_dense_vjps(outputs, numerical, diff_inputs, atol, rtol, batch=3):
    """Compare backward's VJPs for dense random cotangents with ``J^T v``; None if all
    agree, else the report."""
    rng = np.random.default_rng(0)
    tensors = [t for _, t in diff_inputs]
    for b in range(batch):
        vs = [rng.uniform(-1.0, 1.0, size=_nreal(o)) for o in outputs]
        grad_outputs = [_from_real(v, o) for v, o in zip(vs, outputs)]
        grads = _autograd_grad(outputs, tensors, grad_outputs, retain_graph=True,
                               allow_unused=True)
        for i, ((pos, inp), g) in enumerate(zip(diff_inputs, grads)):
            expected = sum(numerical[k][i].T @ vs[k].reshape(-1) for k in range(len(outputs)))
            got = np.zeros(_nreal(inp)) if g is None else _realify(_C._ndarray(g))
            if not np.allclose(got, expected, rtol=rtol, atol=atol):
                worst = int(np.argmax(np.abs(got - expected)))
                return (f"Batched grad check failed for input {pos}: the vector-Jacobian "
                        f"product for dense random cotangent #{b} differs from J^T v of the "
                        f"numerical Jacobian (a backward right only for one-hot gradients?). "
                        f"Worst element {_index_label(worst, _real_shape(inp))}: backward gave "
                        f"{got[worst]:.6g}, numerical {expected[worst]:.6g}.")
    return None


def _analytical_jacobians(outputs, diff_inputs, check_grad_dtypes):
    """``jac[k][i]`` from the backward pass: row o = grad of out_k[o] w.r.t. input i."""
    tensors = [t for _, t in diff_inputs]
    jac = []
    for k, out in enumerate(outputs):
        blocks = [np.zeros((_nreal(out), _nreal(t))) for t in tensors]
        steps = _unit_steps(out, 1)
        for o in range(_nreal(out)):
            seed = _one_hot(out.shape, out.dtype, o // len(steps), steps[o % len(steps)])
            grads = _autograd_grad(out, tensors, seed, retain_graph=True, allow_unused=True)
            for i, (g, t) in enumerate(zip(grads, tensors)):
                if g is None:
                    continue
                if tuple(g.shape) != tuple(t.shape):
                    raise GradcheckError(
                        f"Gradient for input {diff_inputs[i][0]} has shape {list(g.shape)} "
                        f"but the input has shape {list(t.shape)} (from output {k}).")
                if check_grad_dtypes and g.dtype != t.dtype:
                    raise GradcheckError(
                        f"Gradient has dtype mismatch: input {diff_inputs[i][0]} has dtype "
                        f"{t.dtype} but its gradient has dtype {g.dtype}.")
                blocks[i][o, :] = _realify(_C._ndarray(g))
        jac.append(blocks)
    return jac


# ------------------------------------------------------------------------- reporting

def _window(n, center, size):
    """A run of at most ``size`` consecutive indices in range(n) around ``center``."""
    start = min(max(center - size // 2, 0), max(n - size, 0))
    return range(start, min(start + size, n))


def _index_label(flat, shape):
    if len(shape) == 0:
        return "[]"
    return "[" + ",".join(str(int(i)) for i in np.unravel_index(flat, shape)) + "]"


def _format_side_by_side(num, ana, bad, worst, out_shape, in_shape):
    """Two matrices next to each other, rows = output elements, columns = input elements,
    ``*`` after every element outside tolerance. Big Jacobians are cut to a window
    around the worst element (``...`` marks what is left out)."""
    rows = _window(num.shape[0], worst[0], _MAX_ROWS)
    cols = _window(num.shape[1], worst[1], _MAX_COLS)
    cell_w = 12
    more_left = cols.start > 0
    more_right = cols.stop < num.shape[1]

    def line(cells):
        return (("  ..." if more_left else "") + "".join(cells)
                + ("  ..." if more_right else ""))

    def values(mat, r):
        # "+ 0.0" prints -0.0 as 0 (a zero gradient is a zero, whatever its sign).
        return line([f"{mat[r, c] + 0.0:{cell_w - 1}.5g}" + ("*" if bad[r, c] else " ")
                     for c in cols])

    header = line([f"{_index_label(c, in_shape):>{cell_w - 1}} " for c in cols])
    width = len(header)
    corner = "out \\ in"
    label_w = max([len(_index_label(r, out_shape)) for r in rows] + [len(corner)])
    lines = [f"{'':{label_w}}  {'numerical':^{width}} | {'analytical':^{width}}",
             f"{corner:>{label_w}}  {header} | {header}"]
    if rows.start > 0:
        lines.append(f"{'...':>{label_w}}")
    for r in rows:
        lines.append(f"{_index_label(r, out_shape):>{label_w}}  {values(num, r)} | "
                     f"{values(ana, r)}")
    if rows.stop < num.shape[0]:
        lines.append(f"{'...':>{label_w}}")
    return "\n".join(lines)


def _mismatch_report(k, i, num, ana, atol, rtol, out_shape, in_shape, what="Jacobian"):
    bad = np.abs(ana - num) > atol + rtol * np.abs(num)
    bad |= np.isnan(ana) != np.isnan(num)
    abs_err = np.abs(ana - num)
    rel_err = abs_err / np.maximum(np.abs(num), np.finfo(np.float64).tiny)
    worst = np.unravel_index(np.nanargmax(np.where(np.isnan(abs_err), np.inf, abs_err)),
                             abs_err.shape)
    head = (f"{what} mismatch for output {k} with respect to input {i},\n"
            f"J[o, j] = d output[o] / d input[j]; output shape {list(out_shape)}, "
            f"input shape {list(in_shape)}, Jacobian {num.shape[0]}x{num.shape[1]}; "
            f"{int(bad.sum())} element(s) outside atol + rtol * |numerical| "
            f"(atol={atol:g}, rtol={rtol:g}) are marked with *.\n")
    table = _format_side_by_side(num, ana, bad, worst, out_shape, in_shape)
    tail = (f"\nmax abs error {abs_err[worst]:.6g} at output{_index_label(worst[0], out_shape)}"
            f" / input{_index_label(worst[1], in_shape)}: numerical {num[worst]:.6g}, "
            f"analytical {ana[worst]:.6g}; max rel error {np.nanmax(rel_err):.6g}")
    return head + table + tail


def _fail(msg, raise_exception):
    if raise_exception:
        raise GradcheckError(msg)
    return False


# ---------------------------------------------------------------------------- public

def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True,
              nondet_tol=0.0, check_undefined_grad=True, check_grad_dtypes=False,
              check_batched_grad=False, check_batched_forward_grad=False,
              check_forward_ad=False, check_backward_ad=True, fast_mode=False, masked=None):
    """Compare the gradients of ``func`` from backward with finite differences.

    Parameters
    ----------
    func : callable
        Takes ``*inputs``, returns a tensor or a tuple of tensors.
    inputs : tensor or tuple
        Arguments of ``func``; tensors with ``requires_grad=True`` are checked (use
        float64: the finite differences are too noisy in float32).
    eps : float
        Step of the central differences.
    atol, rtol : float
        An element passes when ``|analytical - numerical| <= atol + rtol * |numerical|``.
    raise_exception : bool
        Raise ``GradcheckError`` with a side-by-side report (default) or return False.
    nondet_tol : float
        Allowed difference between two backward runs on the same graph (reentrancy).
    check_grad_dtypes : bool
        Also require each gradient's dtype to equal its input's.
    check_forward_ad : bool
        Also build the Jacobian with forward-mode AD (the ``jvp`` formulas) and compare.
    check_backward_ad : bool
        Compare the backward pass's Jacobian (default True).
    check_batched_grad : bool
        Also compare vector-Jacobian products for a batch of dense random cotangents.
    check_undefined_grad, check_batched_forward_grad, fast_mode, masked
        Accepted for PyTorch compatibility. Undefined output gradients are always
        exercised (each output is differentiated on its own, so the others' gradients are
        undefined); the fast variant is not implemented (the full check always runs).

    Returns
    -------
    bool
        True if every check passed.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.autograd import gradcheck
    >>> x = cygrad.tensor([0.5, 1.5], dtype=cygrad.float64, requires_grad=True)
    >>> gradcheck(lambda t: t.exp() * t, (x,))
    True
    """
    inputs = _as_tuple(inputs)
    diff_inputs = _differentiable_inputs(inputs)
    _check_inputs(inputs, diff_inputs)

    with enable_grad():
        outputs = _tensor_outputs(func(*inputs))
    diff_outputs = [(k, o) for k, o in enumerate(outputs) if o.requires_grad]
    numerical = _numerical_jacobians(func, inputs, diff_inputs, eps)

    if not diff_outputs:
        # Nothing is differentiable: the function must then really be constant.
        for k, row in enumerate(numerical):
            for i, num in enumerate(row):
                if num is not None and num.size and not np.allclose(num, 0, rtol=0, atol=atol):
                    return _fail(f"Numerical gradient for function expected to be zero "
                                 f"(output {k} does not require grad, yet it changes with "
                                 f"input {diff_inputs[i][0]})", raise_exception)
        return True

    if check_forward_ad:
        forward = _forward_jacobians(func, inputs, diff_inputs)
        for k, out in diff_outputs:
            for (pos, inp), num, fwd in zip(diff_inputs, numerical[k], forward[k]):
                if fwd.size and not np.allclose(fwd, num, rtol=rtol, atol=atol):
                    return _fail("Jacobian computed with forward mode mismatch.\n" +
                                 _mismatch_report(k, pos, num, fwd, atol, rtol, _real_shape(out),
                                                  _real_shape(inp)), raise_exception)

    if not check_backward_ad:
        return True

    outs = [o for _, o in diff_outputs]
    if check_batched_grad:
        bad = _check_dense_vjps(outs, [numerical[k] for k, _ in diff_outputs], diff_inputs,
                                atol, rtol)
        if bad is not None:
            return _fail(bad, raise_exception)
    analytical = _analytical_jacobians(outs, diff_inputs, check_grad_dtypes)
    again = _analytical_jacobians(outs, diff_inputs, check_grad_dtypes)

    for (k, out), ana_row, again_row in zip(diff_outputs, analytical, again):
        for (pos, inp), num, ana, ana2 in zip(diff_inputs, numerical[k], ana_row, again_row):
            if ana.size and not np.allclose(ana, ana2, rtol=0, atol=nondet_tol, equal_nan=True):
                return _fail(
                    "Backward is not reentrant, i.e., running backward with same input and "
                    "grad_output multiple times gives different values, although analytical "
                    "gradient matches numerical gradient. The tolerance for nondeterminism "
                    f"was {nondet_tol}.\n" + _mismatch_report(
                        k, pos, ana, ana2, nondet_tol, 0.0, _real_shape(out), _real_shape(inp),
                        what="Reentrant (first run | second run)"), raise_exception)
            if ana.size and not np.allclose(ana, num, rtol=rtol, atol=atol):
                return _fail(_mismatch_report(k, pos, num, ana, atol, rtol, _real_shape(out),
                                              _real_shape(inp)), raise_exception)
    return True


def _make_grad_outputs(outputs, non_contiguous, seed=0):
    """Random, seeded grad_outputs (requiring grad: they are inputs of the check too)."""
    from .. import from_numpy
    rng = np.random.default_rng(seed)
    result = []
    for o in outputs:
        values = rng.standard_normal(tuple(o.shape))
        if o.dtype.is_complex:      # (asarray: a 0-d sum is a NumPy scalar)
            values = np.asarray(values + 1j * rng.standard_normal(tuple(o.shape)))
        if non_contiguous and o.dim() > 0:
            # Every other element of a bigger buffer: a strided view with the same values.
            big = np.zeros(tuple(o.shape[:-1]) + (2 * o.shape[-1],), dtype=values.dtype)
            big[..., ::2] = values
            t = from_numpy(big)[..., ::2]
        else:
            t = from_numpy(values)
        if t.dtype != o.dtype:
            t = t.to(o.dtype)
        result.append(t.requires_grad_(True))
    return tuple(result)


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  gen_non_contig_grad_outputs=False, raise_exception=True, nondet_tol=0.0,
                  check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
                  check_fwd_over_rev=False, check_rev_over_rev=True, fast_mode=False,
                  masked=False):
    """Check second derivatives: ``gradcheck`` applied to the backward pass of ``func``.

    The checked function is ``(inputs, grad_outputs) -> autograd.grad(func(inputs),
    inputs, grad_outputs, create_graph=True)``; it fails when a backward formula is not
    itself differentiable correctly (e.g. it used detached values).

    Parameters
    ----------
    func, inputs, eps, atol, rtol, raise_exception, nondet_tol, check_grad_dtypes
        As for ``gradcheck``.
    grad_outputs : tensor or tuple, optional
        Vectors for the vector-Jacobian product; random (seeded, reproducible) if None.
    gen_non_contig_grad_outputs : bool
        Make the generated grad_outputs non-contiguous views.
    check_undefined_grad, check_batched_grad, check_fwd_over_rev, check_rev_over_rev,
    fast_mode, masked
        Accepted for PyTorch compatibility and ignored.

    Returns
    -------
    bool

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.autograd import gradgradcheck
    >>> x = cygrad.tensor([0.5, 1.5], dtype=cygrad.float64, requires_grad=True)
    >>> gradgradcheck(lambda t: (t * t).sin(), (x,))
    True
    """
    inputs = _as_tuple(inputs)
    if grad_outputs is None:
        with enable_grad():
            outputs = [o for o in _tensor_outputs(func(*inputs)) if o.requires_grad]
        grad_outputs = _make_grad_outputs(outputs, gen_non_contig_grad_outputs)
    else:
        grad_outputs = _as_tuple(grad_outputs)
    n_in = len(inputs)

    def backward_of_func(*args):
        ins, gos = args[:n_in], args[n_in:]
        outs = [o for o in _tensor_outputs(func(*ins)) if o.requires_grad]
        diff = [t for t in ins if isinstance(t, TensorBase) and t.requires_grad]
        grads = _autograd_grad(outs, diff, gos, create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    try:
        return gradcheck(backward_of_func, inputs + tuple(grad_outputs), eps=eps, atol=atol,
                         rtol=rtol, raise_exception=raise_exception, nondet_tol=nondet_tol,
                         check_grad_dtypes=check_grad_dtypes)
    except GradcheckError as e:
        raise GradcheckError(
            "gradgradcheck checks the function (inputs, grad_outputs) -> gradients of func: "
            f"its outputs are the gradients w.r.t. func's inputs that require grad; its inputs "
            f"0..{n_in - 1} are func's inputs, {n_in}.. the grad_outputs.\n" + str(e)) from None
