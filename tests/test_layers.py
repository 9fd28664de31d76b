"""The two layers of docs/architecture.md hold in the code: the autograd layer (``cygrad/ops``)
and the random family (``cygrad/random.py``) compute through the kernel table and
never import NumPy; NumPy lives in the CPU backend (``cygrad/_core``) and the interop
modules."""
import ast
import pathlib

import pytest

import cygrad

OPS = pathlib.Path(cygrad.__file__).parent / "ops"
RANDOM = pathlib.Path(cygrad.__file__).parent / "random.py"


def _numpy_imports(path):
    tree = ast.parse(path.read_text(), filename=str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names if a.name.split(".")[0] == "numpy"]
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "numpy":
            found.append((node.lineno, node.module))
    return found


def test_no_module_under_ops_imports_numpy():
    files = sorted(OPS.rglob("*.py"))
    assert len(files) > 20          # the walk found the op families
    offenders = {str(p.relative_to(OPS)): hits for p in files if (hits := _numpy_imports(p))}
    assert not offenders, f"NumPy imported in the autograd layer: {offenders}"


def test_every_family_computes_through_the_kernel_table():
    from cygrad._core import dispatch
    names = set(dispatch.primitives("cpu"))
    # one primitive of each family that moved its NumPy code into the CPU backend
    for primitive in ("gather", "index_select", "reduce_sum", "sort", "matmul_into", "cat",
                      "arange", "im2col", "max_pool_nd", "nan_to_num", "linalg_inv"):
        assert primitive in names, primitive


def test_random_module_does_not_import_numpy():
    assert RANDOM.read_text().count("def ") > 20          # the walk found the samplers
    hits = _numpy_imports(RANDOM)
    assert not hits, f"NumPy imported in cygrad/random.py: {hits}"


# each random primitive, and one public call that must draw through it
RANDOM_CALLS = {
    "generator_engine": lambda: cygrad.Generator(),
    "uniform_fill": lambda: cygrad.rand(3),
    "normal_fill": lambda: cygrad.randn(3),
    "integers_fill": lambda: cygrad.randint(0, 5, (3,)),
    "bernoulli_fill": lambda: cygrad.bernoulli(cygrad.full((3,), 0.5)),
    "multinomial_fill": lambda: cygrad.multinomial(cygrad.ones(3), 2),
    "randperm_fill": lambda: cygrad.randperm(4),
    "exponential_fill": lambda: cygrad.empty(3).exponential_(),
    "geometric_fill": lambda: cygrad.empty(3).geometric_(0.5),
    "log_normal_fill": lambda: cygrad.empty(3).log_normal_(),
    "cauchy_fill": lambda: cygrad.empty(3).cauchy_(),
    "poisson_fill": lambda: cygrad.poisson(cygrad.ones(3)),
}


@pytest.mark.parametrize("primitive", sorted(RANDOM_CALLS))
def test_random_samplers_draw_through_the_kernel_table(primitive, monkeypatch):
    from cygrad._core import dispatch
    assert primitive in dispatch.primitives("cpu")
    real = dispatch.kernel(primitive, "cpu")
    calls = []

    def spy(*args):
        calls.append(args)
        return real(*args)

    monkeypatch.setitem(dispatch._TABLE, (primitive, "cpu"), spy)
    RANDOM_CALLS[primitive]()
    assert len(calls) == 1


def test_distributions_do_not_import_numpy():
    """``cygrad.distributions`` is Python on the public Tensor API and the kernel table."""
    files = sorted((pathlib.Path(cygrad.__file__).parent / "distributions").glob("*.py"))
    assert len(files) > 30          # the walk found the package
    offenders = {p.name: hits for p in files if (hits := _numpy_imports(p))}
    assert not offenders, f"NumPy imported in cygrad.distributions: {offenders}"
