"""Tutorial-era names (``cygrad/_legacy.py``, ``cygrad/cuda``): typed constructors,
``autograd.Variable``, ``set_default_device`` and the CUDA calls CPU-only programs make.
Behaviour is compared with PyTorch's."""
import numpy as np
import pytest

import cygrad

TYPED = ["FloatTensor", "DoubleTensor", "LongTensor", "IntTensor", "ShortTensor", "CharTensor",
         "ByteTensor", "BoolTensor", "HalfTensor", "BFloat16Tensor"]


def _torch():
    return pytest.importorskip("torch", reason="PyTorch reference not installed")


@pytest.mark.parametrize("name", TYPED)
@pytest.mark.parametrize("data", [[1, 0, 3], [[1.5, 2.0], [0.0, -1.0]], 7.0])
def test_typed_constructor_from_data(name, data):
    torch = _torch()
    if name == "ByteTensor" and not isinstance(data, float) and np.any(np.asarray(data) < 0):
        data = np.abs(np.asarray(data)).tolist()    # uint8 from negatives is not the question here
    ref = getattr(torch, name)(data) if not isinstance(data, float) else None
    ours = getattr(cygrad, name)(data) if not isinstance(data, float) else None
    if ref is None:
        with pytest.raises(TypeError):
            getattr(torch, name)(data)
        with pytest.raises(TypeError):
            getattr(cygrad, name)(data)
        return
    assert str(ours.dtype).split(".")[1] == str(ref.dtype).split(".")[1]
    np.testing.assert_array_equal(ours.float().numpy(), ref.float().numpy())


@pytest.mark.parametrize("name", TYPED)
def test_typed_constructor_sizes_and_isinstance(name):
    torch = _torch()
    ours, ref = getattr(cygrad, name), getattr(torch, name)
    assert tuple(ours(2, 3).shape) == tuple(ref(2, 3).shape) == (2, 3)
    assert ours((4,)).tolist() == ref((4,)).tolist()          # a tuple is data
    assert tuple(ours(cygrad.Size([2, 1])).shape) == tuple(ref(torch.Size([2, 1])).shape)
    assert ours().numel() == ref().numel() == 0
    x = ours(2)
    assert isinstance(x, ours) and ours(x) is x
    others = [n for n in TYPED if n != name]
    assert not any(isinstance(x, getattr(cygrad, o)) for o in others)
    with pytest.raises(TypeError):
        ref(2, 3.0)
    with pytest.raises(TypeError):
        ours(2, 3.0)


def test_typed_constructor_refuses_a_tensor_of_another_dtype():
    torch = _torch()
    with pytest.raises(TypeError):
        torch.FloatTensor(torch.ones(2, dtype=torch.int64))
    with pytest.raises(TypeError):
        cygrad.FloatTensor(cygrad.ones(2, dtype=cygrad.int64))


def test_variable_is_a_detached_alias():
    torch = _torch()
    for lib in (torch, cygrad):
        x = lib.ones(3)
        v = lib.autograd.Variable(x)
        assert v is not x and not v.requires_grad
        w = lib.autograd.Variable(x, requires_grad=True)
        assert w.requires_grad and w.is_leaf and not x.requires_grad
        w.sum().backward()
        np.testing.assert_array_equal(w.grad.numpy(), np.ones(3))
        v.add_(1)                      # shares x's storage
        assert x.tolist() == [2.0, 2.0, 2.0]
        assert isinstance(x, lib.autograd.Variable)
        with pytest.raises(TypeError, match="Variable data has to be a tensor"):
            lib.autograd.Variable([1, 2])


def test_set_default_device():
    torch = _torch()
    cygrad.set_default_device("cpu")
    cygrad.set_default_device(cygrad.device("cpu"))
    cygrad.set_default_device(None)
    assert cygrad.get_default_device() == cygrad.device("cpu")
    assert str(torch.get_default_device()) == str(cygrad.get_default_device())
    if not cygrad.cuda.is_available():
        with pytest.raises(RuntimeError, match="cygrad.cuda:"):
            cygrad.set_default_device("cuda")
    assert cygrad.zeros(1).device.type == "cpu"


def test_cuda_calls_cpu_programs_make():
    cygrad.cuda.manual_seed(3)
    cygrad.cuda.manual_seed_all(3)
    cygrad.cuda.empty_cache()
    assert cygrad.cuda.is_available() in (True, False)
    if not cygrad.cuda.is_available():
        # As in PyTorch, synchronize needs CUDA and says so.
        with pytest.raises(RuntimeError, match="cygrad.cuda:"):
            cygrad.cuda.synchronize()
    # seeding CUDA leaves the CPU stream alone
    cygrad.manual_seed(0)
    a = cygrad.rand(3)
    cygrad.manual_seed(0)
    cygrad.cuda.manual_seed_all(99)
    np.testing.assert_array_equal(cygrad.rand(3).numpy(), a.numpy())
