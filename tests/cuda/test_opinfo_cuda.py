"""The op table on the emulated CUDA device: every row's samples run on 'cuda' and
on the CPU and must agree (values, dtypes, shapes, raised exception types),
float64 gradients of rows that support autograd included, and in-place variants.

A row whose run needs one of the primitives docs/cuda.md's table "Not on CUDA"
lists (FFT, ``linalg_eig``) is skipped with cygrad's message as the reason;
any other missing kernel, like any other failure, fails. The sampling and tolerances
are in ``device_axis.py``; ``CYGRAD_OPINFO_CUDA_FULL=1`` runs every sample.
"""
import os
import re
import sys

import pytest

from opinfo import op_db
from cygrad.cuda._driver import signature

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import device_axis as axis  # noqa: E402
from fake_driver import installed  # noqa: E402

pytestmark = pytest.mark.skipif(signature.find_cxx() is None,
                                reason="the emulated CUDA driver needs a host C++ compiler")


@pytest.fixture(scope="module", autouse=True)
def emulated():
    from cygrad.cuda._driver.emulated import EmulatedDriver
    with installed(EmulatedDriver(memory=1 << 30)) as d:    # strict with CYGRAD_CUDA_EMU_STRICT=1
        yield d


def _not_on_cuda():
    """The primitives of docs/cuda.md's table "Not on CUDA" (each listed with its reason)."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    with open(os.path.join(root, "docs", "cuda.md")) as f:
        section = f.read().split("### Not on CUDA", 1)[1].split("\n#", 1)[0]
    return {line.split("`")[1] for line in section.splitlines() if line.startswith("| `")}


def _run(check, *args):
    try:
        check(*args)
    except axis.MissingKernel as e:
        name = re.search(r"primitive '(\w+)'", str(e)).group(1)
        if name not in _not_on_cuda():
            raise
        pytest.skip(f"{e} (docs/cuda.md lists it as not on CUDA)")


@pytest.mark.parametrize("op_info,dtype", [
    pytest.param(op, dt, id=f"{op.id}-{dt.name}") for op in op_db for dt in axis.DTYPES
    if dt in op.dtypes])
def test_values_on_cuda(op_info, dtype):
    _run(axis.check_values, op_info, dtype)


@pytest.mark.parametrize("op_info", [pytest.param(op, id=op.id) for op in op_db
                                     if op.supports_autograd])
def test_gradients_on_cuda(op_info):
    _run(axis.check_grads, op_info)


@pytest.mark.parametrize("op_info,dtype", [
    pytest.param(op, dt, id=f"{op.id}-{dt.name}") for op in op_db if op.inplace
    for dt in axis.DTYPES if dt in op.dtypes])
def test_inplace_on_cuda(op_info, dtype):
    _run(axis.check_inplace, op_info, dtype)


@pytest.mark.parametrize("dtype", axis.ALL_DTYPES, ids=lambda d: d.name)
def test_strided_copies_of_every_dtype(dtype):
    """A broadcast and a transposed CUDA tensor of each dtype made contiguous and copied
    back: the CPU's values (a missing copy kernel once recursed without end)."""
    _run(axis.check_strided_copies, dtype)
