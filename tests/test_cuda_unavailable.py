"""Without a usable GPU, cygrad says so and CUDA tensors fail with a clear RuntimeError.

The fake-PyCUDA tests below swap a stand-in ``pycuda`` into ``sys.modules`` to
reach each "what is missing" branch (no PyCUDA, no driver, no device, no
backend) on any machine.
"""
import sys
import types

import pytest

import cygrad
import cygrad.cuda as cuda


def _real_gpu_present():
    try:
        import pycuda.driver as drv
        drv.init()
        return drv.Device.count() > 0
    except Exception:
        return False


requires_no_gpu = pytest.mark.skipif(
    _real_gpu_present(), reason="PyCUDA and a CUDA device are present on this machine")


@pytest.fixture
def fresh_probe(monkeypatch):
    """Forget the cached probe (before and after), so each test probes anew."""
    monkeypatch.setattr(cuda, "_probe_result", None)
    monkeypatch.setattr(cuda, "_initialized", False)
    yield
    cuda._probe_result = None


def _fake_pycuda(monkeypatch, init=None, count=None, driver_import_error=None):
    """Install a fake ``pycuda`` package whose driver behaves as asked."""
    pkg = types.ModuleType("pycuda")
    pkg.__path__ = []
    monkeypatch.setitem(sys.modules, "pycuda", pkg)
    if driver_import_error is not None:
        # A None entry in sys.modules makes `import pycuda.driver` raise ImportError,
        # as it does when libcuda.so cannot be loaded.
        monkeypatch.setitem(sys.modules, "pycuda.driver", None)
        return
    drv = types.ModuleType("pycuda.driver")
    drv.init = init or (lambda: None)

    class Device:
        @staticmethod
        def count():
            return count() if callable(count) else count

    drv.Device = Device
    pkg.driver = drv
    monkeypatch.setitem(sys.modules, "pycuda.driver", drv)


def _cuda_requests():
    """Each way a user asks for a CUDA tensor, as pytest params (label, thunk)."""
    t = cygrad.ones(2)
    cases = [
        ("zeros(device='cuda')", lambda: cygrad.zeros(2, device="cuda")),
        ("to('cuda')", lambda: t.to("cuda")),
        ("cuda()", lambda: t.cuda()),
        ("to(device='cuda:0')", lambda: t.to(device="cuda:0")),
    ]
    return [pytest.param(label, thunk, id=label) for label, thunk in cases]


# ---- this machine ------------------------------------------------------------

@requires_no_gpu
def test_is_available_false_here(fresh_probe):
    assert cuda.is_available() is False
    assert cuda.device_count() == 0
    assert cuda._unavailable_reason().startswith("cygrad.cuda: ")


@requires_no_gpu
@pytest.mark.parametrize("label,request_cuda", _cuda_requests())
def test_cuda_tensor_raises_here(fresh_probe, label, request_cuda):
    reason = cuda._unavailable_reason()
    with pytest.raises(RuntimeError) as info:
        request_cuda()
    # what is missing, then how to run on the emulated GPU instead
    assert str(info.value) == reason + "; to run cygrad's CUDA kernels on the emulated GPU " \
        "instead, set CYGRAD_CUDA=emulate or call cygrad.cuda.use_emulator()", label
    assert cuda.is_initialized() is False


def test_is_available_never_raises(fresh_probe, monkeypatch):
    def broken_count():
        raise OSError("driver exploded")
    _fake_pycuda(monkeypatch, count=broken_count)
    assert cuda.is_available() is False
    assert cuda.device_count() == 0


# ---- each missing piece, simulated ----------------------------------------------

def test_message_without_pycuda(fresh_probe, monkeypatch):
    monkeypatch.setitem(sys.modules, "pycuda", None)
    assert cuda.is_available() is False
    with pytest.raises(RuntimeError, match=r"PyCUDA is not installed \(pip install 'cygrad\[cuda\]'\)"):
        cygrad.zeros(2, device="cuda")


def test_message_when_driver_library_missing(fresh_probe, monkeypatch):
    _fake_pycuda(monkeypatch, driver_import_error=True)
    assert cuda.is_available() is False
    with pytest.raises(RuntimeError, match="no CUDA driver found"):
        cygrad.ones(2).to("cuda")


def test_message_when_driver_init_fails(fresh_probe, monkeypatch):
    def init():
        raise RuntimeError("cuInit failed: unknown error")
    _fake_pycuda(monkeypatch, init=init)
    assert cuda.is_available() is False
    with pytest.raises(RuntimeError, match="no CUDA driver found.*cuInit failed"):
        cygrad.ones(2).cuda()


def test_message_when_no_device_at_init(fresh_probe, monkeypatch):
    def init():
        raise RuntimeError("cuInit failed: no CUDA-capable device is detected")
    _fake_pycuda(monkeypatch, init=init)
    with pytest.raises(RuntimeError, match="no CUDA device"):
        cygrad.zeros(3, device="cuda")


def test_message_when_zero_devices(fresh_probe, monkeypatch):
    _fake_pycuda(monkeypatch, count=0)
    assert cuda.is_available() is False
    assert cuda.device_count() == 0
    with pytest.raises(RuntimeError, match="^cygrad.cuda: no CUDA device; to run cygrad's CUDA kernels on the emulated GPU"):
        cygrad.zeros(2, device="cuda")


def test_device_found_but_backend_missing(fresh_probe, monkeypatch):
    # PyCUDA and a device are there, but the GPU tensor backend is a later
    # piece of work: the error must say that, not crash inside the core.
    _fake_pycuda(monkeypatch, count=2)
    monkeypatch.setattr(cuda, "_backend_ready", False)
    assert cuda.is_available() is True
    assert cuda.device_count() == 2
    with pytest.raises(RuntimeError, match="backend is not implemented yet"):
        cygrad.zeros(2, device="cuda")
    assert cuda.is_initialized() is False


def test_probe_is_cached(fresh_probe, monkeypatch):
    calls = []

    def count():
        calls.append(1)
        return 0
    _fake_pycuda(monkeypatch, count=count)
    for _ in range(3):
        cuda.is_available()
        cuda.device_count()
    assert len(calls) == 1


def test_cpu_tensors_unaffected(fresh_probe, monkeypatch):
    monkeypatch.setitem(sys.modules, "pycuda", None)
    t = cygrad.arange(4)
    assert t.to("cpu") is t
    assert t.cpu().tolist() == [0, 1, 2, 3]
    assert t.is_cuda is False
