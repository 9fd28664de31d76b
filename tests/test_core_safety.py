"""Regression tests for the memory-safety bugs of issue 6, each fixed in the Cython core.

Each crash-prone case runs in a child process, so a regression shows as a failed test
(with the child's exit signal), not as a dead test run.
"""
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import cygrad


def run_child(code, timeout=120):
    """Run ``code`` in a fresh interpreter; return (returncode, stdout+stderr)."""
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(code)],
                          capture_output=True, text=True, timeout=timeout)
    return proc.returncode, proc.stdout + proc.stderr


def test_training_loop_above_small_int_cache_does_not_crash():
    # The node's shape tuple held freed ints (dims > 256 are not cached by CPython).
    rc, out = run_child("""
        import cygrad
        for n in (255, 256, 257, 1000, 4099):
            for i in range(1500):
                x = cygrad.ones(n, requires_grad=True)
                x.exp().sum().backward()
            assert x.grad.shape == (n,)
        print("done")
    """)
    assert rc == 0 and "done" in out, out


def test_node_metadata_shape_survives_gc_of_the_output():
    x = cygrad.ones(300, 513, requires_grad=True)
    y = x.exp()
    s = y.sum()
    del y
    junk = [list(range(1000)) for _ in range(50)]    # reuse freed int memory
    s.backward()
    assert x.grad.shape == (300, 513)
    np.testing.assert_allclose(x.grad.numpy(), np.full((300, 513), np.e, np.float32), rtol=1e-6)
    del junk


# ---------------------------------------------------------------- bounds and sizes

def test_basic_index_past_max_dims_raises_instead_of_overflowing_the_stack():
    x = cygrad.ones(*[1] * 64)
    with pytest.raises(RuntimeError, match="at most 64 dimensions"):
        x[(None,) * 8]
    with pytest.raises(RuntimeError, match="at most 64 dimensions"):
        x[(Ellipsis,) + (None,) * 3]
    # up to the limit it still works, and agrees with NumPy
    y = cygrad.ones(*[1] * 40)[(None,) * 24]
    assert y.shape == np.ones([1] * 40)[(None,) * 24].shape


@pytest.mark.parametrize("make", [
    lambda: cygrad.zeros((1 << 62,)),
    lambda: cygrad.empty(1 << 40, 1 << 40),
    lambda: cygrad.ones(1).expand(1 << 62) + 1,
    lambda: cygrad.ones(1).expand(1 << 62).exp(),
    lambda: cygrad.ones(2).resize_(1 << 62),
])
def test_storage_size_overflow_raises(make):
    with pytest.raises(RuntimeError, match="overflow"):
        make()


def test_view_with_overflowing_numel_raises():
    with pytest.raises(RuntimeError, match="overflow"):
        cygrad.zeros(0).view(1 << 32, 1 << 32)
    with pytest.raises(RuntimeError, match="overflow"):
        cygrad.zeros(0).reshape(1 << 32, -1, 1 << 32)


# ------------------------------------------------------------------ in-place writes

@pytest.mark.parametrize("write", [
    lambda t: t.add_(1),
    lambda t: t.mul_(cygrad.ones(2, 3)),
    lambda t: t.exp_(),
    lambda t: t.copy_(cygrad.ones(2, 3)),
    lambda t: cygrad.add(cygrad.ones(2, 3), 1, out=t),
])
def test_writing_into_self_overlapping_view_raises_and_leaves_data(write):
    base = cygrad.tensor([1.0, 2.0, 3.0])
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        write(base.expand(2, 3))
    np.testing.assert_array_equal(base.numpy(), [1.0, 2.0, 3.0])


def test_fill_into_expanded_view_is_allowed_as_in_pytorch():
    base = cygrad.zeros(3)
    base.expand(2, 3).fill_(7)
    np.testing.assert_array_equal(base.numpy(), [7.0, 7.0, 7.0])


def test_partial_overlap_in_place_gives_numpy_result():
    # PyTorch refuses this; cygrad reads a copy of the input, which is NumPy's answer.
    x = cygrad.arange(6, dtype=cygrad.float64)
    x[1:].add_(x[:-1])
    a = np.arange(6, dtype=np.float64)
    np.add(a[1:], a[:-1], out=a[1:])
    np.testing.assert_array_equal(x.numpy(), a)


# ------------------------------------------------------------------------- threads

def test_concurrent_backward_into_one_leaf_loses_nothing():
    import threading
    n, reps, workers = 1_000_000, 10, 4
    leaf = cygrad.zeros(n, requires_grad=True)

    def work():
        for _ in range(reps):
            (leaf * 2.0).sum().backward()

    threads = [threading.Thread(target=work) for _ in range(workers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    g = leaf.grad.numpy()
    assert g.min() == g.max() == 2.0 * reps * workers


def test_kernel_keeps_its_storage_while_another_thread_swaps_it():
    # One thread runs large GIL-free kernels on x while another replaces x's memory
    # and shape; the kernels must work on the memory they started with.
    rc, out = run_child("""
        import threading, numpy as np, cygrad
        x = cygrad.ones(2_000_000)
        stop = False
        def swap():
            i = 0
            while not stop:
                x.data = cygrad.full((2_000_000 + (i % 7),), 2.0)
                x.resize_(1_000_000 + (i % 5))
                i += 1
        t = threading.Thread(target=swap); t.start()
        try:
            for _ in range(300):
                y = x.exp()
                z = x * 3.0
                v = float(y[-1])
                assert abs(v - np.e) < 1e-5 or abs(v - np.exp(2.0)) < 1e-5, v
                assert float(z[-1]) in (3.0, 6.0)
        finally:
            stop = True
            t.join()
        print("done")
    """)
    assert rc == 0 and "done" in out, out


# ---------------------------------------------------------------------- reclaiming

def test_tensor_whose_hook_refers_back_to_it_is_collected():
    import gc
    import weakref
    x = cygrad.ones(3, requires_grad=True)
    x.register_hook(lambda g: g * x.sum().item())
    y = (x * 2)
    y.register_hook(lambda g: g + y.detach())     # non-leaf: the hook lives on y's node
    refs = [weakref.ref(x), weakref.ref(y)]
    del x, y
    gc.collect()
    assert [r() for r in refs] == [None, None]


def test_graph_freed_without_cyclic_gc():
    import gc
    import weakref
    gc.disable()
    try:
        x = cygrad.ones(300, requires_grad=True)
        h = (x * 3).exp()
        loss = h.sum()
        refs = [weakref.ref(x), weakref.ref(h), weakref.ref(loss), weakref.ref(loss.grad_fn)]
        loss.backward()
        del x, h, loss
        assert [r() for r in refs] == [None] * 4
    finally:
        gc.enable()


def test_custom_function_storing_its_output_on_ctx_is_collected():
    import gc
    import weakref

    class KeepsOutput(cygrad.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            out = x * 2
            ctx.out = out          # a cycle: out -> grad_fn (ctx) -> out
            return out

        @staticmethod
        def backward(ctx, g):
            return g * 2

    x = cygrad.ones(3, requires_grad=True)
    with pytest.warns(UserWarning, match="stored a tensor as ctx.out"):
        y = KeepsOutput.apply(x)
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 2.0, 2.0])
    ref = weakref.ref(y)
    del y
    gc.collect()
    assert ref() is None


@pytest.mark.parametrize("call", [
    lambda: cygrad.empty(1 << 64),
    lambda: cygrad.zeros(2, 1 << 64),
    lambda: cygrad.ones(2).view(1 << 63),
    lambda: cygrad.ones(2).reshape(-1, 1 << 70),
    lambda: cygrad.ones(1).expand(1 << 64),
])
def test_sizes_beyond_64_bits_raise_pytorchs_type_error(call):
    # PyTorch: "argument 'size' failed to unpack the object ... Overflow when unpacking long long"
    with pytest.raises(TypeError, match="Overflow when unpacking long long"):
        call()


def test_as_strided_with_overflowing_extent_raises_instead_of_reading_the_heap():
    x = cygrad.ones(3, 2, dtype=cygrad.int8)
    with pytest.raises(RuntimeError, match="overflow"):
        x.as_strided((3, 2), (1 << 62, 2), 100)
    with pytest.raises(RuntimeError, match="out of bounds"):
        x.as_strided((3, 2), (1 << 61, 1), 0)


@pytest.mark.parametrize("dtype, step", [(cygrad.int32, -4), (cygrad.int64, -8),
                                         (cygrad.int16, -3), (cygrad.int8, -5)])
def test_in_place_integer_neg_on_negative_strides(dtype, step):
    # NumPy 2.4's np.negative is wrong in place at these strides; cygrad must not be.
    base = cygrad.arange(1, 41, dtype=dtype)
    view = base[::step]
    expected = -np.arange(1, 41)[::step]
    view.neg_()
    np.testing.assert_array_equal(view.numpy(), expected)
    untouched = np.ones(40, dtype=bool)
    untouched[::step] = False
    np.testing.assert_array_equal(base.numpy()[untouched], np.arange(1, 41)[untouched])


@pytest.mark.parametrize("call, message", [
    (lambda: cygrad.exp(5), "exp(): argument 'input' (position 1) must be Tensor, not int"),
    (lambda: cygrad.sqrt(1e-30), "sqrt(): argument 'input' (position 1) must be Tensor, not float"),
    (lambda: cygrad.maximum(2, cygrad.ones(2)), "maximum(): argument 'input'"),
    (lambda: cygrad.eq(2, cygrad.ones(2)), "eq(): argument 'input'"),
])
def test_function_forms_want_a_tensor_input_as_in_pytorch(call, message):
    with pytest.raises(TypeError, match=message.replace("(", r"\(").replace(")", r"\)")):
        call()


def test_numbers_still_work_where_pytorch_takes_them():
    t = cygrad.tensor([1.0, 2.0])
    np.testing.assert_array_equal((2 + t).numpy(), [3.0, 4.0])           # operators
    np.testing.assert_array_equal(cygrad.remainder(5, t).numpy(), [0.0, 1.0])
    np.testing.assert_array_equal(cygrad.maximum(t, cygrad.tensor(1.5)).numpy(), [1.5, 2.0])


@pytest.mark.parametrize("call", [
    lambda x: x.sum(dim=1 << 64),
    lambda x: x.transpose(1 << 63, 0),
    lambda x: x.softmax(1 << 64),
    lambda x: x.narrow(1 << 63, 0, 1),
    lambda x: cygrad.cat([x, x], dim=1 << 63),
])
def test_dims_beyond_64_bits_raise_pytorchs_value_error(call):
    with pytest.raises(ValueError, match="Overflow when unpacking long long"):
        call(cygrad.ones(2, 3))


@pytest.mark.parametrize("name", ["maximum", "minimum", "fmax", "fmin", "atan2", "hypot",
                                  "logical_and", "logical_or", "logical_xor"])
def test_ops_whose_other_must_be_a_tensor_refuse_a_number(name):
    t = cygrad.tensor([1.0, 2.0])
    with pytest.raises(TypeError, match=rf"{name}\(\): argument 'other' \(position 2\) must be Tensor, not float"):
        getattr(cygrad, name)(t, 2.5)
    assert getattr(cygrad, name)(t, cygrad.tensor(2.5)).shape == (2,)
