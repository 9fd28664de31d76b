"""cygrad.save / cygrad.load: round trips, shared storage, safety, corruption, map_location."""
import copy
import io
import json
import os
import pickle
import struct
from collections import Counter, OrderedDict

import numpy as np
import pytest

import cygrad
from cygrad.optim import Adam


def roundtrip(obj, **load_kwargs):
    buf = io.BytesIO()
    cygrad.save(obj, buf)
    buf.seek(0)
    return cygrad.load(buf, **load_kwargs)


def saved_bytes(obj):
    buf = io.BytesIO()
    cygrad.save(obj, buf)
    return buf.getvalue()


def assert_same_tensor(a, b):
    assert type(a) is type(b)
    assert a.dtype == b.dtype and a.shape == b.shape
    assert a.requires_grad == b.requires_grad
    np.testing.assert_array_equal(np.asarray(a.detach().float().tolist()),
                                  np.asarray(b.detach().float().tolist()))


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int8", "int16", "int32", "int64",
                                   "float16", "bfloat16", "float32", "float64"])
def test_every_dtype_round_trips_bit_exactly(dtype, rng):
    dt = getattr(cygrad, dtype)
    values = rng.normal(size=(3, 5)) * 50
    x = cygrad.tensor(values.tolist(), dtype=cygrad.float64).to(dt)
    y = roundtrip(x)
    assert y.dtype == dt and y.shape == (3, 5)
    if dtype == "bfloat16":     # compare the bits, through the same-size integer view
        assert y.view(cygrad.int16).tolist() == x.view(cygrad.int16).tolist()
    else:
        assert y.tolist() == x.tolist()


def test_nested_containers_and_python_leaves():
    x = cygrad.arange(4.0)
    obj = {
        "list": [1, 2.5, "s", None, True, False, b"\x00\xffbytes"],
        "tuple": (x, (1, (2,))),
        "od": OrderedDict([("b", 1), ("a", 2)]),
        0: "int key", (1, "k"): "tuple key", 2.5: "float key", None: "none key",
        "floats": [float("inf"), float("-inf"), 1e300, -0.0, 2 ** 70],
        "meta": [cygrad.bfloat16, cygrad.device("cpu"), cygrad.Size([2, 3]), cygrad.int64],
        "empty": [[], {}, (), OrderedDict(), ""],
    }
    out = roundtrip(obj)
    assert type(out["od"]) is OrderedDict and list(out["od"]) == ["b", "a"]
    assert type(out["tuple"]) is tuple and type(out["tuple"][1][1]) is tuple
    assert out["list"] == obj["list"] and [type(v) for v in out["list"]] == \
        [type(v) for v in obj["list"]]
    assert out[0] == "int key" and out[(1, "k")] == "tuple key" and out[2.5] == "float key"
    assert out[None] == "none key"
    assert out["floats"] == obj["floats"] and type(out["floats"][-1]) is int
    assert str(out["floats"][3]) == "-0.0"
    assert out["meta"] == obj["meta"] and type(out["meta"][2]) is cygrad.Size
    assert out["empty"] == obj["empty"] and type(out["empty"][3]) is OrderedDict
    assert list(out) == list(obj)
    assert_same_tensor(out["tuple"][0], x)
    nan = roundtrip([float("nan")])[0]
    assert nan != nan


def test_views_saved_together_share_one_storage():
    base = cygrad.arange(24.0).reshape(4, 6)
    obj = {"t": base.t(), "row": base[2], "block": base[1:3, 2:5], "base": base}
    out = roundtrip(obj)
    for key, value in obj.items():
        assert_same_tensor(out[key], value)
        assert out[key].stride() == value.stride()
        assert out[key].storage_offset() == value.storage_offset()
    ptrs = {out[k].untyped_storage().data_ptr() for k in out}
    assert len(ptrs) == 1
    out["row"][3] = -1.0         # a write through one view shows through the others
    assert out["base"][2, 3].item() == -1.0 and out["t"][3, 2].item() == -1.0
    assert out["block"][1, 1].item() == -1.0


def test_a_view_saved_alone_keeps_its_geometry():
    base = cygrad.arange(30.0).reshape(5, 6)
    view = base[1:4:2, ::3]
    out = roundtrip(view)
    assert_same_tensor(out, view)
    assert out.stride() == view.stride() and out.storage_offset() == view.storage_offset()


def test_same_tensor_twice_is_one_object_and_distinct_tensors_stay_distinct():
    x, y = cygrad.ones(3), cygrad.ones(3)
    out = roundtrip([x, x, y])
    assert out[0] is out[1] and out[0] is not out[2]
    assert out[0].untyped_storage().data_ptr() != out[2].untyped_storage().data_ptr()


def test_same_size_reinterpreting_views_share_storage():
    f = cygrad.tensor([1.0, -2.0, 0.5])
    i = f.view(cygrad.int32)
    out = roundtrip((f, i))
    assert out[1].tolist() == i.tolist() and out[0].tolist() == f.tolist()
    out[1][0] = 0
    assert out[0][0].item() == 0.0


def test_requires_grad_and_leafness():
    w = cygrad.tensor([1.0, 2.0], requires_grad=True)
    h = w * 3                  # a non-leaf: comes back as a leaf, as in PyTorch
    out = roundtrip({"w": w, "h": h, "c": cygrad.ones(1)})
    assert out["w"].requires_grad and out["w"].is_leaf
    assert out["h"].requires_grad and out["h"].is_leaf and out["h"].tolist() == [3.0, 6.0]
    assert not out["c"].requires_grad
    (out["w"] * out["w"]).sum().backward()
    assert out["w"].grad.tolist() == [2.0, 4.0]


def test_parameters_come_back_as_parameters():
    Parameter = getattr(cygrad.nn, "Parameter", None)
    if Parameter is None:
        pytest.skip(reason="cygrad.nn.Parameter is not available in this checkout")
    p = Parameter(cygrad.ones(2))
    frozen = Parameter(cygrad.zeros(1), requires_grad=False)
    out = roundtrip(OrderedDict(weight=p, frozen=frozen))
    assert type(out["weight"]) is Parameter and out["weight"].requires_grad
    assert type(out["frozen"]) is Parameter and not out["frozen"].requires_grad


def test_paths_and_file_objects(tmp_path):
    x = cygrad.arange(5, dtype=cygrad.int64)
    path = tmp_path / "x.cyg"
    cygrad.save({"x": x}, path)              # pathlib.Path
    assert cygrad.load(str(path))["x"].tolist() == x.tolist()
    with open(path, "wb") as fh:
        cygrad.save([x], fh)
    with open(path, "rb") as fh:
        assert cygrad.load(fh)[0].tolist() == x.tolist()


def test_the_file_is_a_safetensors_file_with_the_storages():
    safetensors_numpy = pytest.importorskip("safetensors.numpy")
    x = cygrad.arange(6.0, dtype=cygrad.float64).reshape(2, 3)
    data = saved_bytes({"x": x.t()})
    arrays = safetensors_numpy.load(data)
    np.testing.assert_array_equal(arrays["0"], np.arange(6.0))
    (n,) = struct.unpack("<Q", data[:8])
    doc = json.loads(json.loads(data[8:8 + n])["__metadata__"]["cygrad"])
    assert doc["tensors"] == [{"storage": 0, "dtype": "float64", "shape": [3, 2],
                               "stride": [1, 3], "offset": 0, "requires_grad": False,
                               "parameter": False}]


def test_plain_safetensors_files_load_as_a_dict():
    safetensors_numpy = pytest.importorskip("safetensors.numpy")
    data = safetensors_numpy.save({"a": np.arange(6, dtype=np.int32).reshape(2, 3),
                                   "b": np.ones(2, dtype=np.float16)})
    out = cygrad.load(io.BytesIO(data))
    assert out["a"].dtype == cygrad.int32 and out["a"].tolist() == [[0, 1, 2], [3, 4, 5]]
    assert out["b"].dtype == cygrad.float16 and out["b"].tolist() == [1.0, 1.0]


def _steps(opt, x, n):
    for _ in range(n):
        opt.zero_grad()
        ((x - 3.0) ** 4).sum().backward()
        opt.step()


def test_optimizer_state_through_a_file_continues_identically(tmp_path):
    x = cygrad.tensor([1.0, -2.0, 0.5], dtype=cygrad.float64, requires_grad=True)
    opt = Adam([x], lr=0.1, amsgrad=True)
    _steps(opt, x, 5)
    cygrad.save({"opt": opt.state_dict(), "x": x}, tmp_path / "ckpt")
    _steps(opt, x, 5)
    ckpt = cygrad.load(tmp_path / "ckpt")
    x2 = ckpt["x"]
    opt2 = Adam([x2])
    opt2.load_state_dict(ckpt["opt"])
    _steps(opt2, x2, 5)
    assert x2.tolist() == x.tolist()
    assert opt2.state[x2]["step"].item() == 10.0


def test_state_dict_from_torch_shapes_round_trips():
    # betas tuples, None, strings and int-keyed state all survive the JSON form
    sd = {"state": {0: {"step": cygrad.tensor(3.0), "buf": cygrad.zeros(2)}},
          "param_groups": [{"lr": 0.1, "betas": (0.9, 0.999), "foreach": None,
                            "line_search_fn": "strong_wolfe", "params": [0]}]}
    out = roundtrip(sd)
    assert out["param_groups"] == sd["param_groups"]
    assert list(out["state"]) == [0] and out["state"][0]["step"].item() == 3.0


def test_scheduler_state_dicts_need_no_pickle():
    sched_mod = cygrad.optim.lr_scheduler
    opt = cygrad.optim.SGD([cygrad.zeros(1, requires_grad=True)], lr=0.1, momentum=0.9)
    scheds = [sched_mod.MultiStepLR(opt, [2, 2, 5]), sched_mod.ReduceLROnPlateau(opt),
              sched_mod.CyclicLR(opt, 0.01, 0.1, step_size_up=3),
              sched_mod.OneCycleLR(opt, max_lr=1.0, total_steps=10),
              sched_mod.SequentialLR(opt, [sched_mod.ConstantLR(opt),
                                           sched_mod.ExponentialLR(opt, 0.9)], [3])]
    for s in scheds:
        sd = s.state_dict()
        out = roundtrip(sd)              # weights_only=True
        assert out == sd
    assert type(roundtrip(scheds[0].state_dict())["milestones"]) is Counter


# --- objects that need pickle -----------------------------------------------------------

SENTINEL = {}


def _run_payload(path):
    """Stands in for os.system: leaves a trace if a loader ever calls it."""
    with open(path, "w") as fh:
        fh.write("ran")


class Evil:
    def __init__(self, path):
        self.path = path

    def __reduce__(self):
        return (_run_payload, (self.path,))


class Box:
    def __init__(self, a, b):
        self.a, self.b = a, b


def test_objects_that_need_pickle_load_only_when_trusted():
    x = cygrad.arange(4.0)
    data = saved_bytes({"box": Box(x, x[1:]), "x": x})
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed"):
        cygrad.load(io.BytesIO(data))
    out = cygrad.load(io.BytesIO(data), weights_only=False)
    assert out["box"].a is out["x"] and out["box"].b.tolist() == [1.0, 2.0, 3.0]
    out["x"][2] = 9.0
    assert out["box"].b[1].item() == 9.0


def test_add_safe_globals_allows_a_class():
    data = saved_bytes([Box(1, cygrad.ones(1))])
    cygrad.serialization.add_safe_globals([Box])
    try:
        out = cygrad.load(io.BytesIO(data))
    finally:
        cygrad.serialization.clear_safe_globals()
    assert out[0].a == 1 and out[0].b.tolist() == [1.0]


def test_malicious_pickle_payload_in_a_cygrad_file_is_refused(tmp_path):
    trace = tmp_path / "trace"
    data = saved_bytes({"w": cygrad.ones(2), "evil": Evil(str(trace))})
    with pytest.raises(pickle.UnpicklingError, match="Unsupported global"):
        cygrad.load(io.BytesIO(data))
    assert not trace.exists()
    cygrad.load(io.BytesIO(data), weights_only=False)     # the payload really runs code
    assert trace.exists()


@pytest.mark.parametrize("protocol", [2, 4, 5])
def test_malicious_plain_pickle_is_refused(tmp_path, protocol):
    trace = tmp_path / "trace"
    data = pickle.dumps({"a": Evil(str(trace))}, protocol=protocol)
    with pytest.raises(pickle.UnpicklingError, match="Unsupported global"):
        cygrad.load(io.BytesIO(data))
    assert not trace.exists()
    data = pickle.dumps([os.system], protocol=protocol)
    with pytest.raises(pickle.UnpicklingError, match="system"):
        cygrad.load(io.BytesIO(data))


def test_plain_pickles_of_safe_containers_and_trusted_tensors():
    safe = pickle.dumps(OrderedDict(a={1, 2}, b=(b"x", complex(1, 2))), protocol=2)
    assert cygrad.load(io.BytesIO(safe)) == OrderedDict(a={1, 2}, b=(b"x", complex(1, 2)))
    tensor_pickle = pickle.dumps({"x": cygrad.arange(3.0)})
    with pytest.raises(pickle.UnpicklingError):
        cygrad.load(io.BytesIO(tensor_pickle))
    assert cygrad.load(io.BytesIO(tensor_pickle), weights_only=False)["x"].tolist() == \
        [0.0, 1.0, 2.0]


def test_explicit_pickle_module_means_weights_only_false():
    # as torch.load: a pickle_module makes the default weights_only False; asking
    # for both is an error
    data = saved_bytes([1])
    with pytest.raises(RuntimeError, match="explicit pickle_module"):
        cygrad.load(io.BytesIO(data), pickle_module=pickle, weights_only=True)
    assert cygrad.load(io.BytesIO(data), pickle_module=pickle) == [1]
    assert cygrad.load(io.BytesIO(data), pickle_module=pickle, weights_only=False) == [1]


# --- damaged files ----------------------------------------------------------------------

def test_truncated_files_raise_runtime_error():
    data = saved_bytes({"w": cygrad.arange(100.0), "b": [1, 2]})
    for cut in [0, 3, 8, 20, len(data) // 2, len(data) - 1]:
        with pytest.raises(RuntimeError, match="truncated or corrupted"):
            cygrad.load(io.BytesIO(data[:cut]))


def test_flipped_data_byte_is_detected():
    data = bytearray(saved_bytes({"w": cygrad.arange(100.0)}))
    data[-50] ^= 0xFF
    with pytest.raises(RuntimeError, match="checksum"):
        cygrad.load(io.BytesIO(bytes(data)))


def _rewrite(data, edit):
    """The same file with its cygrad document changed by ``edit``."""
    import safetensors.numpy as stn
    (n,) = struct.unpack("<Q", data[:8])
    doc = json.loads(json.loads(data[8:8 + n])["__metadata__"]["cygrad"])
    edit(doc)
    return stn.save(stn.load(data), metadata={"cygrad": json.dumps(doc)})


@pytest.mark.parametrize("edit,message", [
    (lambda d: d["tensors"][0].update(shape=[1000]), "past the end of its storage"),
    (lambda d: d["tensors"][0].update(offset=99, shape=[2]), "past the end of its storage"),
    (lambda d: d["tensors"][0].update(stride=[-1]), "geometry"),
    (lambda d: d["tensors"][0].update(storage=5), "storage index"),
    (lambda d: d["tensors"][0].update(dtype="complex128"), "dtype"),
    (lambda d: d["storages"][0].update(numel=7), "bytes, expected"),
    (lambda d: d.update(tree={"$": "tensor", "i": 3}), "tensor reference"),
    (lambda d: d.update(tree={"$": "eval", "code": "1"}), "unknown node type"),
    (lambda d: d.update(tree={"$": "dict", "items": [[{"$": "list", "items": []}, 1]]}),
     "unhashable"),
])
def test_inconsistent_documents_are_refused(edit, message):
    data = _rewrite(saved_bytes({"w": cygrad.arange(100.0)}), edit)
    with pytest.raises(RuntimeError, match=message):
        cygrad.load(io.BytesIO(data))


def test_zip_checkpoints_get_a_clear_error(tmp_path):
    torch = pytest.importorskip("torch")
    torch.save({"x": torch.ones(2)}, tmp_path / "t.pt")
    with pytest.raises(RuntimeError, match="zip archive"):
        cygrad.load(tmp_path / "t.pt")


# --- map_location -----------------------------------------------------------------------

def test_map_location_cpu_forms():
    data = saved_bytes({"x": cygrad.arange(3.0)})
    for loc in ["cpu", cygrad.device("cpu"), {"cpu": "cpu"}, {"cuda:0": "cpu"}]:
        assert cygrad.load(io.BytesIO(data), map_location=loc)["x"].tolist() == [0.0, 1.0, 2.0]


def test_map_location_callable_sees_each_storage():
    base = cygrad.arange(6.0)
    data = saved_bytes([base[:2], base[3:], cygrad.ones(2, dtype=cygrad.int64)])
    seen = []

    def where(storage, location):
        seen.append((storage.numel(), storage.dtype, location))
        return storage

    out = cygrad.load(io.BytesIO(data), map_location=where)
    assert seen == [(6, cygrad.float32, "cpu"), (2, cygrad.int64, "cpu")]
    assert out[1].tolist() == [3.0, 4.0, 5.0]
    assert cygrad.load(io.BytesIO(data), map_location=lambda s, loc: None)[2].tolist() == [1, 1]
    with pytest.raises(TypeError, match="map_location function"):
        cygrad.load(io.BytesIO(data), map_location=lambda s, loc: "cuda")


@pytest.mark.parametrize("loc", ["cuda", "cuda:0", {"cpu": "cuda:0"}])
def test_map_location_cuda_raises_the_cuda_unavailable_error(loc):
    if cygrad.cuda.is_available():
        pytest.skip(reason="a usable CUDA device is present")
    data = saved_bytes({"x": cygrad.arange(3.0)})
    with pytest.raises(RuntimeError, match="cygrad.cuda"):
        cygrad.load(io.BytesIO(data), map_location=loc)


def test_deepcopy_of_loaded_state_is_independent():
    out = roundtrip({"x": cygrad.ones(2)})
    dup = copy.deepcopy(out)
    dup["x"][0] = 5.0
    assert out["x"].tolist() == [1.0, 1.0]
