"""The two layers of DESIGN.md hold in the code: the autograd layer (``cygrad/ops``)
computes through the kernel table and never imports NumPy; NumPy lives in the CPU
backend (``cygrad/_core``) and the interop modules."""
import ast
import pathlib

import cygrad

OPS = pathlib.Path(cygrad.__file__).parent / "ops"


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
