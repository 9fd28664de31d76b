"""bench/cuda_gpu.py (the GPU benchmark): without a GPU it says so and exits 0;
``--emulate`` labels every line as the emulator's; and its comparison code runs
against a reference library (PyTorch on the CPU standing in for PyTorch on a GPU,
since no GPU is here)."""
import os
import subprocess
import sys

import pytest

from cygrad.cuda._driver import signature

pytestmark = pytest.mark.needs_checkout      # runs bench/, which the wheel does not carry

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(ROOT, "bench", "cuda_gpu.py")
sys.path.insert(0, os.path.join(ROOT, "bench"))
sys.path.insert(0, os.path.join(ROOT, "tests", "cuda"))
import cuda_gpu  # noqa: E402
from fake_driver import installed  # noqa: E402


def _run(*args, **env):
    full = {k: v for k, v in os.environ.items() if k != "CYGRAD_CUDA"}
    full.update(env)
    return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True,
                          cwd=ROOT, env=full, timeout=300)


def test_without_a_gpu_it_prints_no_cuda_device_and_exits_0():
    out = _run()
    assert out.returncode == 0, out.stderr
    if not out.stdout.startswith("no CUDA device"):
        pytest.skip("this machine has a GPU cygrad can use")
    # the emulator selected through the environment is never reported as a GPU
    out = _run(CYGRAD_CUDA="emulate")
    assert out.returncode == 0 and out.stdout.startswith("no CUDA device"), out.stdout + out.stderr


@pytest.mark.skipif(signature.find_cxx() is None, reason="the emulated GPU needs a host C++ compiler")
def test_emulate_labels_every_line():
    out = _run("--emulate", "--cases", "launch", "bandwidth")
    assert out.returncode == 0, out.stderr
    lines = [ln for ln in out.stdout.splitlines() if ln.strip()]
    assert any("us" in ln and "cygrad" in ln for ln in lines), out.stdout
    assert all(ln.endswith(f"[{cuda_gpu.EMU_LABEL}]") for ln in lines), out.stdout


@pytest.mark.skipif(signature.find_cxx() is None, reason="the emulated GPU needs a host C++ compiler")
def test_cases_compare_with_a_reference_library():
    torch = pytest.importorskip("torch", reason="PyTorch is the reference library")
    import cygrad
    from cygrad.cuda._driver.emulated import EmulatedDriver
    lines = []
    report = cuda_gpu.Report(True, lines.append)
    ref = cuda_gpu.Lib("torch-cpu", torch, lambda: None, device="cpu")
    with installed(EmulatedDriver(memory=1 << 30)):
        cy = cuda_gpu.Lib("cygrad", cygrad, cygrad.cuda.synchronize)
        cuda_gpu.case_launch(cy, ref, report, small=True)
        cuda_gpu.case_matmul(cy, ref, report, small=True)
    text = "\n".join(lines)
    # cygrad's time over the reference's, for the small add and each matrix size
    assert text.count("ratio") == 3 and "no reference" not in text, text
    assert "n=64" in text and "n=128" in text, text
