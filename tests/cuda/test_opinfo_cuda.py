"""The op table on the emulated CUDA device: every row's samples run on 'cuda' and
on the CPU and must agree (values, dtypes, shapes, raised exception types),
float64 gradients of rows that support autograd included, and in-place variants.

A row whose run needs a primitive without a 'cuda' kernel is skipped with
cygrad's message as the reason (``tests/cuda/test_cuda_tensors.py`` lists and
counts those primitives); any other failure fails. The sampling and tolerances
are in ``device_axis.py``; ``CYGRAD_OPINFO_CUDA_FULL=1`` runs every sample.
"""
import os
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


def _run(check, *args):
    try:
        check(*args)
    except axis.MissingKernel as e:
        pytest.skip(str(e))


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
