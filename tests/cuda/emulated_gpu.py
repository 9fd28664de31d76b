"""The emulated GPU for a test module of tests/cuda (strict mode: barrier divergence,
warp-lane misuse and out-of-bounds accesses raise), with the 'cuda' entries of the
kernel table installed. A module uses it with::

    from emulated_gpu import emulated, needs_cxx  # noqa: F401  (the fixture)
    pytestmark = needs_cxx

``both_devices`` runs one primitive's CPU and CUDA kernels on the same arguments.
"""
import os
import sys

import pytest

import cygrad
from cygrad._core import dispatch
from cygrad.cuda._driver import signature

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fake_driver import installed  # noqa: E402

needs_cxx = pytest.mark.skipif(signature.find_cxx() is None,
                               reason="the emulated CUDA driver needs a host C++ compiler")


@pytest.fixture(scope="module", autouse=True)
def emulated():
    from cygrad.cuda._driver.emulated import EmulatedDriver
    with installed(EmulatedDriver(memory=256 << 20, strict=True)) as d:
        cygrad.zeros(1, device="cuda")           # installs the 'cuda' entries
        yield d


def launched(driver, monkeypatch):
    """The names of the kernels ``driver`` (an emulated driver) launches from now on."""
    names = []
    original = driver.launch

    def counted(kernel, *args, **kwargs):
        names.append(kernel.name)
        return original(kernel, *args, **kwargs)
    monkeypatch.setattr(driver, "launch", counted)
    return names


def both_devices(name, *args):
    """The results of the CPU and of the CUDA kernel of primitive ``name`` on the same
    arguments (tensors are copied to the device for the second), as two lists of
    NumPy arrays; checks that the CUDA results are on the device."""
    want = dispatch.kernel(name, "cpu")(*args)
    got = dispatch.kernel(name, "cuda")(*[a.cuda() if isinstance(a, cygrad.Tensor) else a
                                          for a in args])
    want = want if isinstance(want, tuple) else (want,)
    got = got if isinstance(got, tuple) else (got,)
    assert all(g.is_cuda for g in got)
    return [w.numpy() for w in want], [g.cpu().numpy() for g in got]
