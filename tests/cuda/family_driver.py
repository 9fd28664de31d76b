"""The driver that tests/cuda/test_nn.py and test_optim.py run on: the emulated GPU in
strict mode, or, with ``CYGRAD_TEST_CUDA=gpu`` in the environment, the real GPU
through PyCUDA (the same tests then check the same kernels compiled by nvcc).
"""
import os

from fake_driver import installed


def family_driver():
    """A context manager installing the driver for a test module."""
    if os.environ.get("CYGRAD_TEST_CUDA", "").strip().lower() == "gpu":
        from cygrad.cuda._driver.pycuda_driver import PyCudaDriver
        return installed(PyCudaDriver())
    from cygrad.cuda._driver.emulated import EmulatedDriver
    return installed(EmulatedDriver(memory=256 << 20, strict=True))
