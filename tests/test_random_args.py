"""Sampling factories' argument errors as PyTorch's parser raises them, empty
non-float normals, and randperm's vectorised shuffle against PyTorch."""
import numpy as np
import pytest

import cygrad

CASES = [
    "{T}.rand(dtype={T}.bfloat16)", "{T}.randn(dtype={T}.int16)", "{T}.rand(dtype={T}.bool)",
    "{T}.rand(2**64)", "{T}.randn(2**63)", "{T}.rand(2, 2**63)", "{T}.rand([2, None])",
    "{T}.randn(2, None)", "{T}.randint(2**63, (2, None))", "{T}.randint(5, (2, 2**63))",
    "{T}.normal(0., 1., (2**63,))", "{T}.normal(0., 1., (2, None))",
    "{T}.randint(2**63, (2,))",
    # dtypes the samplers do not fill
    "{T}.randperm(5, dtype={T}.complex64)", "{T}.empty(3, dtype={T}.complex64).random_()",
    "{T}.empty(3, dtype={T}.complex64).random_(0, 5)",
    "{T}.empty(3, dtype={T}.complex64).random_(2, None)",
    "{T}.randint(0, 5, (3,), dtype={T}.complex64)",
    # values checked before drawing
    "{T}.bernoulli({T}.tensor([0.5, 1.5]))", "{T}.bernoulli({T}.tensor([float('nan')]))",
    "{T}.zeros(2).bernoulli_({T}.tensor([-0.1]))",
    "{T}.multinomial({T}.tensor([1.0, float('nan')]), 1)",
    "{T}.multinomial({T}.tensor([1.0, -1.0]), 1, True)",
    "{T}.multinomial({T}.tensor([[1.0, 1.0], [0.0, 0.0]]), 1)",
    "{T}.multinomial({T}.empty(0), 1, True)", "{T}.multinomial({T}.empty(2, 0), 1, True)",
    "{T}.multinomial({T}.empty(2, 0), 2, True)", "{T}.multinomial({T}.empty(2, 0), 1)",
    "{T}.poisson({T}.tensor([1.0, -1.0]))",
    "{T}.normal({T}.zeros(2), {T}.tensor([1.0, -1.0]))",
    "{T}.Generator().set_state({T}.zeros(10, dtype={T}.uint8))",
    "{T}.Generator().set_state({T}.zeros(5056))",
]


@pytest.mark.parametrize("case", CASES)
def test_errors_match_torch(case):
    torch = pytest.importorskip("torch", reason="PyTorch reference not installed")
    with pytest.raises(Exception) as ref:
        eval(case.format(T="torch"))
    with pytest.raises(Exception) as ours:
        eval(case.format(T="cygrad"))
    assert type(ours.value) is type(ref.value)
    # PyTorch's overflow message runs on with a C++ trace before its closing quote.
    assert str(ref.value).splitlines()[0].startswith(str(ours.value).rstrip('"'))


def test_non_int_size_element_is_a_type_error():
    with pytest.raises(TypeError, match="must be tuple of ints, but found element of type float"):
        cygrad.randint(5, (2.0,))


@pytest.mark.parametrize("dtype", ["int64", "bool", "int16"])
def test_empty_non_float_normals_are_allowed_as_in_torch(dtype):
    dt = getattr(cygrad, dtype)
    assert cygrad.randn((0,), dtype=dt).dtype is dt
    assert cygrad.normal(0.0, 1.0, (0,), dtype=dt).shape == (0,)
    assert cygrad.empty(0, dtype=dt).normal_().numel() == 0
    with pytest.raises(NotImplementedError, match="normal_kernel_cpu"):
        cygrad.randn((2,), dtype=dt)
    with pytest.raises(NotImplementedError, match="check_uniform_bounds"):
        cygrad.rand((0,), dtype=dt)


@pytest.mark.parametrize("n", [2, 3, 4, 5, 64, 1000, 54321])
@pytest.mark.parametrize("seed", [0, 9])
def test_randperm_matches_torch(n, seed):
    torch = pytest.importorskip("torch", reason="PyTorch reference not installed")
    torch.manual_seed(seed)
    cygrad.manual_seed(seed)
    assert np.array_equal(cygrad.randperm(n).numpy(), torch.randperm(n).numpy())
    assert cygrad.rand(2).tolist() == torch.rand(2).tolist()


def test_swap_shuffle_is_the_sequential_swap_loop():
    from cygrad._core.backend_cpu.random import _swap_shuffle
    rng = np.random.default_rng(1)
    for n in (2, 3, 10, 300):
        offsets = np.array([rng.integers(0, n - i) for i in range(n - 1)], dtype=np.int64)
        perm = list(range(n))
        for i, z in enumerate(offsets.tolist()):
            perm[i], perm[i + z] = perm[i + z], perm[i]
        assert _swap_shuffle(offsets).tolist() == perm


@pytest.mark.parametrize("shape, k, replacement", [((0, 0), 1, True), ((0, 3), 2, False),
                                                   ((0, 3), 2, True)])
def test_multinomial_without_rows_is_empty_as_in_torch(shape, k, replacement):
    torch = pytest.importorskip("torch", reason="PyTorch reference not installed")
    ref = torch.multinomial(torch.empty(shape), k, replacement)
    ours = cygrad.multinomial(cygrad.empty(shape), k, replacement)
    assert tuple(ours.shape) == tuple(ref.shape) and ours.dtype is cygrad.int64
