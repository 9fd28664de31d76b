"""``cygrad.ops.indexing`` as a package (issue 8): the split into one module per family
keeps every name the single module had, packaging ships the subpackage, and the
indexing Functions exist once in the code base."""
import ast
import configparser
import importlib
import pathlib

import pytest

pytestmark = pytest.mark.needs_checkout
import setuptools

import cygrad
from cygrad.ops import indexing

ROOT = pathlib.Path(__file__).resolve().parents[1]
PACKAGE_DIR = ROOT / "cygrad" / "ops" / "indexing"

# The names cygrad.ops.indexing had as one module that code uses: its public functions
# and Functions, and the private names other modules and tests import.
OLD_NAMES = [
    "Index", "IndexScatter", "IndexPut", "index_put_", "index_put", "IndexSelect",
    "index_select", "Gather", "gather", "Scatter", "ScatterValue", "ScatterWithReduce",
    "scatter_", "scatter", "ScatterAdd", "scatter_add_", "scatter_add", "ScatterReduce",
    "scatter_reduce_", "scatter_reduce", "take_along_dim", "Take", "take", "Put", "put_", "put",
    "IndexFill", "IndexFillTensor", "index_fill_", "index_fill", "IndexCopy", "index_copy_",
    "index_copy", "IndexAdd", "index_add_", "index_add", "MaskedFill", "MaskedFillTensor",
    "masked_fill_", "masked_fill", "MaskedSelect", "masked_select", "nonzero", "argwhere",
    "Where", "where",
    "_Pad", "_plan_index", "_IndexPlan", "_warned", "_getitem_hook", "_setitem_hook",
]
PUBLIC = ["index_select", "gather", "scatter", "scatter_add", "scatter_reduce", "masked_fill",
          "masked_select", "where", "nonzero", "argwhere", "take", "take_along_dim",
          "index_fill", "index_copy", "index_add", "index_put", "put"]


def _submodules():
    return sorted(p.stem for p in PACKAGE_DIR.glob("*.py") if p.stem != "__init__")


@pytest.mark.parametrize("name", OLD_NAMES)
def test_package_reexports_the_old_names(name):
    obj = getattr(indexing, name)
    defined = [m for m in _submodules()
               if name in vars(importlib.import_module(f"cygrad.ops.indexing.{m}"))
               and getattr(importlib.import_module(f"cygrad.ops.indexing.{m}"), name) is obj]
    assert defined, f"{name} is not the object of any indexing submodule"


def test_public_names_are_cygrads():
    assert sorted(indexing.__all__) == sorted(PUBLIC)
    for name in PUBLIC:
        assert getattr(cygrad, name) is getattr(indexing, name), name


def test_submodule_all_lists_add_up_to_the_package_all():
    listed = []
    for m in _submodules():
        listed += getattr(importlib.import_module(f"cygrad.ops.indexing.{m}"), "__all__", [])
    assert sorted(listed) == sorted(PUBLIC)


@pytest.mark.parametrize("module", ["__init__"] + _submodules())
def test_every_module_has_a_docstring_with_examples(module):
    tree = ast.parse((PACKAGE_DIR / f"{module}.py").read_text())
    doc = ast.get_docstring(tree)
    assert doc and "Examples\n--------" in doc, module


def test_setup_cfg_packages_include_the_subpackage():
    cfg = configparser.ConfigParser()
    cfg.read(ROOT / "setup.cfg")
    assert cfg["options"]["packages"].strip() == "find:"
    include = cfg["options.packages.find"]["include"].split()
    found = setuptools.find_packages(str(ROOT), include=include)
    assert "cygrad.ops.indexing" in found and "cygrad.ops" in found


def test_index_select_and_index_add_are_defined_once():
    defined = {}
    for path in (ROOT / "cygrad").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef) and node.name in ("IndexSelect", "IndexAdd"):
                defined.setdefault(node.name, []).append(str(path.relative_to(ROOT)))
    assert defined == {"IndexSelect": ["cygrad/ops/indexing/index_ops.py"],
                       "IndexAdd": ["cygrad/ops/indexing/index_ops.py"]}
