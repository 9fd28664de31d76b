"""Every docstring example in the package runs and prints what it says (doctest)."""
import doctest
import importlib
import pkgutil

import pytest

import cygrad


def _modules():
    names = ["cygrad"]
    for info in pkgutil.walk_packages(cygrad.__path__, "cygrad."):
        if info.name.endswith("__main__") or info.name == "cygrad.info":
            continue
        names.append(info.name)
    # The course tool works on a source checkout (its lessons are the repository's
    # own files), so its examples do too.
    return [pytest.param(n, marks=pytest.mark.needs_checkout) if n.startswith("cygrad.course")
            else n for n in names]


# Modules that need an optional extra to import (their ImportError names the extra).
_EXTRAS = {"cygrad.utils.tensorboard": "tensorboard"}


@pytest.mark.parametrize("name", _modules())
def test_docstring_examples(name):
    if any(name == m or name.startswith(m + ".") for m in _EXTRAS):
        extra = next(e for m, e in _EXTRAS.items() if name == m or name.startswith(m + "."))
        pytest.importorskip(extra, reason=f"{name} needs the optional '{extra}' package")
    module = importlib.import_module(name)
    try:
        result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE,
                                 verbose=False)
    finally:
        _forget_demo_primitives()
    assert result.failed == 0, f"{result.failed} docstring example(s) failed in {name}"


def _forget_demo_primitives():
    """The kernel table's examples register ``demo_*`` primitives on the CPU: drop
    them, so that tests run later in the same process (the CUDA listing test counts
    CPU primitives without a CUDA kernel) see only cygrad's own table."""
    from cygrad._core import dispatch
    for table in (dispatch._TABLE, dispatch._DTYPES):
        for key in [k for k in table if k[0].startswith("demo_")]:
            del table[key]
