"""A device call before the first CUDA tensor (``cygrad.cuda.init()``,
``get_device_name()``, ``synchronize()``, as scripts often print the device
first) must still connect the CUDA tensor backend: the first CUDA tensor after
them once failed with "TypeError: 'NoneType' object is not callable" (found by
bench/cuda_gpu.py). A fresh process, since the backend stays connected once it is."""
import os
import subprocess
import sys

import pytest

from cygrad.cuda._driver import signature

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.mark.skipif(signature.find_cxx() is None, reason="the emulated GPU needs a host C++ compiler")
def test_device_calls_before_the_first_cuda_tensor():
    code = ("import cygrad; cygrad.cuda.init(); cygrad.cuda.get_device_name(); "
            "cygrad.cuda.synchronize(); x = cygrad.ones(3, device='cuda') * 2; "
            "print(x.device, x.sum().item())")
    env = dict(os.environ, CYGRAD_CUDA="emulate")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         cwd=ROOT, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["cuda:0", "6.0"]
