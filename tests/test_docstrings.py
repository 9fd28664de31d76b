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
    return names


@pytest.mark.parametrize("name", _modules())
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE,
                             verbose=False)
    assert result.failed == 0, f"{result.failed} docstring example(s) failed in {name}"
