"""``cygrad.save`` / ``cygrad.load``: tensors and nested containers in a file that loads
without running code.

The file is a `safetensors <https://github.com/huggingface/safetensors>`_ file. Its
tensors are the raw storages (one flat tensor per distinct storage, named ``"0"``,
``"1"``, ...), and its metadata entry ``"cygrad"`` holds a JSON document describing
the storages, every tensor as a view into one of them (dtype, shape, strides,
offset), and the saved object as a tree of tagged JSON nodes that refer to the
tensors by index. Views saved together come back as views of one storage, and a
tensor appearing twice comes back as one object. See ``docs/serialization.md``.

Objects that the JSON tree cannot describe (instances of arbitrary classes) are
pickled instead, with tensors still stored out of band. Such files load only with
``weights_only=False`` (or with their classes passed to :func:`add_safe_globals`),
because unpickling can run code; so do plain pickle files.

Examples
--------
>>> import io, cygrad
>>> x = cygrad.arange(6.0).reshape(2, 3)
>>> buf = io.BytesIO()
>>> cygrad.save({"x": x, "row": x[1], "step": 3}, buf)
>>> _ = buf.seek(0)
>>> out = cygrad.load(buf)
>>> out["row"].tolist(), out["step"]
([3.0, 4.0, 5.0], 3)
>>> out["row"].untyped_storage().data_ptr() == out["x"].untyped_storage().data_ptr()
True
"""
import base64
import io
import json
import math
import os
import pickle
import struct
import warnings
import zlib
from collections import Counter, OrderedDict

import numpy as np

from ._tensor import Tensor
from ._device import device as _device
from ._core import dtype as _dtypes
from ._core.tensor import Size, from_numpy

__all__ = ["save", "load", "add_safe_globals", "get_safe_globals", "clear_safe_globals",
           "safe_globals", "DEFAULT_PROTOCOL"]

DEFAULT_PROTOCOL = 2
_FORMAT_VERSION = 1
_META_KEY = "cygrad"

_DTYPES = {d.name: d for d in (
    _dtypes.bool_, _dtypes.uint8, _dtypes.int8, _dtypes.int16, _dtypes.int32, _dtypes.int64,
    _dtypes.float16, _dtypes.bfloat16, _dtypes.float32, _dtypes.float64, _dtypes.complex64,
    _dtypes.complex128)}
# NumPy (and so safetensors' NumPy interface) has no bfloat16: its bits go in as uint16;
# safetensors has no complex128: its (real, imag) pairs go in as float64
_STORED_AS = {"bfloat16": np.dtype(np.uint16), "complex128": np.dtype(np.float64)}
# safetensors dtype codes, for reading plain safetensors files
_SAFETENSORS_DTYPES = {"BOOL": "bool", "U8": "uint8", "I8": "int8", "I16": "int16",
                       "I32": "int32", "I64": "int64", "F16": "float16", "BF16": "bfloat16",
                       "F32": "float32", "F64": "float64", "U16": "uint16"}

_safe_globals = []


def _stored_np_dtype(name):
    return _STORED_AS.get(name, np.dtype(_DTYPES[name].np_dtype))


def _parameter_class():
    try:
        from .nn import Parameter
    except ImportError:
        return None
    return Parameter


# --------------------------------------------------------------------------- save


class _Unsupported(Exception):
    """The object holds something the JSON tree has no node for: pickle it instead."""


class _TensorTable:
    """Assigns each distinct tensor, and each distinct storage, an index."""

    def __init__(self):
        self.tensors = []        # JSON entries
        self.storages = []       # JSON entries
        self.flats = []          # one flat tensor per storage: its bytes go in the file
        self._tensor_index = {}  # id(tensor) -> index; the tensors are kept alive below
        self._keep = []
        self._storage_index = {}  # data_ptr -> index

    def add(self, t):
        key = id(t)
        if key in self._tensor_index:
            return self._tensor_index[key]
        self._keep.append(t)
        storage = t.untyped_storage()
        plain = t.detach()
        location = str(t.device)            # a CUDA storage's bytes are copied to the host
        skey = (location, storage.data_ptr())
        s = self._storage_index.get(skey) if storage.nbytes else None
        if s is not None and self.storages[s]["dtype"] != t.dtype.name:
            if t.dtype.itemsize != _DTYPES[self.storages[s]["dtype"]].itemsize:
                warnings.warn(f"cygrad.save: a {t.dtype.name} view of a storage also viewed as "
                              f"{self.storages[s]['dtype']} is saved as a copy (reinterpreting "
                              "views of another item size are not supported)", stacklevel=3)
                s = None
                plain = plain.clone()
                storage = plain.untyped_storage()
        if s is None:
            s = len(self.storages)
            numel = storage.nbytes // t.dtype.itemsize
            entry = {"dtype": t.dtype.name, "numel": numel}
            if location != "cpu":
                entry["location"] = location        # absent: "cpu" (files of older cygrads)
            self.storages.append(entry)
            self.flats.append(plain._as_strided_any((numel,), (1,), 0).cpu())
            if storage.nbytes:
                self._storage_index[skey] = s
        param = _parameter_class()
        self.tensors.append({
            "storage": s, "dtype": plain.dtype.name, "shape": list(plain.shape),
            "stride": list(plain.stride()), "offset": plain.storage_offset(),
            "requires_grad": bool(t.requires_grad),
            "parameter": param is not None and isinstance(t, param)})
        self._tensor_index[key] = len(self.tensors) - 1
        return self._tensor_index[key]


def _encode(obj, table):
    """The JSON node for ``obj``: JSON scalars as themselves, all else a tagged object."""
    kind = type(obj)
    if obj is None or kind in (bool, int, str):
        return obj
    if kind is float:
        return obj if math.isfinite(obj) else {"$": "float", "v": repr(obj)}
    if isinstance(obj, Tensor):
        return {"$": "tensor", "i": table.add(obj)}
    if kind in (list, tuple):
        return {"$": kind.__name__, "items": [_encode(v, table) for v in obj]}
    if kind is Size:
        return {"$": "size", "items": list(obj)}
    if kind in (dict, OrderedDict, Counter):
        return {"$": {dict: "dict", OrderedDict: "odict", Counter: "counter"}[kind],
                "items": [[_encode(k, table), _encode(v, table)] for k, v in obj.items()]}
    if kind is bytes:
        return {"$": "bytes", "b64": base64.b64encode(obj).decode("ascii")}
    if kind is _dtypes.dtype:
        return {"$": "dtype", "name": obj.name}
    if kind is _device:
        return {"$": "device", "name": str(obj)}
    raise _Unsupported(kind)


class _TensorPickler(pickle.Pickler):
    """Pickles the object graph, keeping tensors, dtypes and devices out of the pickle."""

    def __init__(self, file, protocol, table):
        super().__init__(file, protocol)
        self._table = table

    def persistent_id(self, obj):
        if isinstance(obj, Tensor):
            return ("tensor", self._table.add(obj))
        if type(obj) is _dtypes.dtype:
            return ("dtype", obj.name)
        if type(obj) is _device:
            return ("device", str(obj))
        return None


def save(obj, f, pickle_module=pickle, pickle_protocol=DEFAULT_PROTOCOL):
    """Save an object (tensors, state dicts, nested containers) to a file.

    Tensors, lists, tuples, dicts, OrderedDicts, ``Size``, dtypes, devices, bytes
    and plain scalars (int, float, bool, str, None) are written as data. Anything
    else makes the object tree be pickled (tensors still go in as data); loading
    that back needs ``weights_only=False``.

    Parameters
    ----------
    obj : object
    f : str, os.PathLike or binary file object
    pickle_module : module, default pickle
        Used only when the object needs pickling.
    pickle_protocol : int, default 2

    Examples
    --------
    >>> import io, cygrad
    >>> buf = io.BytesIO()
    >>> cygrad.save([cygrad.tensor([1, 2], dtype=cygrad.bfloat16), cygrad.float64], buf)
    >>> _ = buf.seek(0)
    >>> cygrad.load(buf)
    [tensor([1., 2.], dtype=cygrad.bfloat16), cygrad.float64]
    """
    table = _TensorTable()
    header = {"version": _FORMAT_VERSION}
    try:
        header["tree"] = _encode(obj, table)
    except _Unsupported:
        table = _TensorTable()
        buf = io.BytesIO()
        pickler = _TensorPickler(buf, pickle_protocol, table)
        if pickle_module is not pickle:
            pickler = _custom_pickler(pickle_module, buf, pickle_protocol, table)
        pickler.dump(obj)
        header["pickle"] = base64.b64encode(buf.getvalue()).decode("ascii")
    arrays = {}
    for i, (entry, flat) in enumerate(zip(table.storages, table.flats)):
        arr = flat.numpy()
        if entry["dtype"] in _STORED_AS:
            arr = arr.view(_STORED_AS[entry["dtype"]])
        entry["crc32"] = zlib.crc32(arr.data if arr.size else b"")
        arrays[str(i)] = arr
    header["storages"] = table.storages
    header["tensors"] = table.tensors
    from safetensors.numpy import save as st_save
    data = st_save(arrays, metadata={_META_KEY: json.dumps(header, allow_nan=False)})
    if isinstance(f, (str, os.PathLike)):
        with open(f, "wb") as fh:
            fh.write(data)
    else:
        f.write(data)


def _custom_pickler(pickle_module, buf, protocol, table):
    class Pickler(pickle_module.Pickler):
        def persistent_id(self, obj):
            return _TensorPickler.persistent_id(self, obj)
    p = Pickler(buf, protocol)
    p._table = table
    return p


# --------------------------------------------------------------------------- load


def add_safe_globals(safe_globals):
    """Allow these classes or functions in pickled payloads loaded with ``weights_only=True``.

    Parameters
    ----------
    safe_globals : list
        Classes or functions, or ``(obj, "module.name")`` pairs.

    Examples
    --------
    >>> import cygrad.serialization as ser
    >>> ser.add_safe_globals([complex]); complex in ser.get_safe_globals()
    True
    >>> ser.clear_safe_globals()
    """
    _safe_globals.extend(safe_globals)


def get_safe_globals():
    """The objects allowed by :func:`add_safe_globals`.

    Examples
    --------
    >>> import cygrad.serialization as ser
    >>> ser.get_safe_globals()
    []
    """
    return list(_safe_globals)


def clear_safe_globals():
    """Forget every object allowed by :func:`add_safe_globals`.

    Examples
    --------
    >>> import cygrad.serialization as ser
    >>> ser.clear_safe_globals(); ser.get_safe_globals()
    []
    """
    _safe_globals.clear()


class safe_globals:
    """Context manager: allow ``safe_globals`` (what :func:`add_safe_globals` takes)
    inside the ``with`` block only, as ``torch.serialization.safe_globals``.

    Examples
    --------
    >>> import cygrad.serialization as ser
    >>> with ser.safe_globals([complex]):
    ...     complex in ser.get_safe_globals()
    True
    >>> complex in ser.get_safe_globals()
    False
    """

    def __init__(self, safe_globals):
        self.safe_globals = list(safe_globals)

    def __enter__(self):
        add_safe_globals(self.safe_globals)

    def __exit__(self, *exc):
        for g in self.safe_globals:
            if g in _safe_globals:
                _safe_globals.remove(g)


# PyTorch's switches, read under both names: a program ported from PyTorch keeps its
# environment, and cygrad's own spelling says what it does in a cygrad deployment.
_FORCE_WEIGHTS_ONLY = ("TORCH_FORCE_WEIGHTS_ONLY_LOAD", "CYGRAD_FORCE_WEIGHTS_ONLY_LOAD")
_FORCE_NO_WEIGHTS_ONLY = ("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD",
                          "CYGRAD_FORCE_NO_WEIGHTS_ONLY_LOAD")
_TRUE_VALUES = ("1", "y", "yes", "true")


def _env_set(names):
    return any(os.environ.get(n, "0").lower() in _TRUE_VALUES for n in names)


def _resolve_weights_only(weights_only, pickle_module):
    """``load``'s ``weights_only`` after PyTorch's rules: None means True unless a
    ``pickle_module`` is given; ``TORCH_FORCE_WEIGHTS_ONLY_LOAD`` makes it True whatever
    was passed; ``TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD`` makes it False only where the
    caller did not pass it (with a warning); both set is an error."""
    not_set = weights_only is None
    if not_set:
        weights_only = pickle_module is None
    force, force_no = _env_set(_FORCE_WEIGHTS_ONLY), _env_set(_FORCE_NO_WEIGHTS_ONLY)
    if force and force_no:
        raise RuntimeError("Only one of `TORCH_FORCE_WEIGHTS_ONLY_LOAD` or "
                           "`TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD` (or their CYGRAD_ spellings) "
                           "should be set, but both were set.")
    if force:
        return True
    if force_no and not_set:
        warnings.warn("Environment variable TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD detected: since "
                      "the `weights_only` argument was not explicitly passed to `cygrad.load`, "
                      "forcing weights_only=False.", UserWarning, stacklevel=3)
        return False
    return bool(weights_only)


# The globals a weights-only pickle may name: containers and plain values only.
_DEFAULT_SAFE = {
    ("collections", "OrderedDict"): OrderedDict, ("collections", "Counter"): Counter,
    ("builtins", "set"): set, ("builtins", "frozenset"): frozenset,
    ("builtins", "complex"): complex, ("builtins", "slice"): slice,
    ("builtins", "range"): range, ("builtins", "bytearray"): bytearray,
    ("_codecs", "encode"): __import__("codecs").encode,   # protocol 2 writes bytes with it
}


def _allowed_globals():
    allowed = dict(_DEFAULT_SAFE)
    # protocols 0-2 name the builtins module by its Python 2 name
    allowed.update({("__builtin__", name): obj for (module, name), obj in _DEFAULT_SAFE.items()
                    if module == "builtins"})
    for g in _safe_globals:
        if isinstance(g, tuple):
            obj, name = g
            module, _, qualname = name.rpartition(".")
        else:
            obj, module, qualname = g, g.__module__, g.__qualname__
        allowed[(module, qualname)] = obj
    return allowed


def _weights_only_message(detail):
    return ("Weights only load failed. This file can still be loaded, to do so you have two "
            "options, do those steps only if you trust the source of the checkpoint.\n"
            "    (1) Re-running `cygrad.load` with `weights_only` set to `False` will likely "
            "succeed, but it can result in arbitrary code execution.\n"
            "    (2) Alternatively, allow the global with "
            "`cygrad.serialization.add_safe_globals([...])`.\n\n"
            f"WeightsUnpickler error: {detail}")


def _weights_only_build(self):
    """BUILD (``obj.__setstate__(state)``) under ``weights_only``: only on an instance
    of an allowed class, as PyTorch's weights-only unpickler (so a NumPy array needs
    its dtype's class allowed too, not just ``ndarray`` and ``_reconstruct``)."""
    inst = self.stack[-2]       # (the state is on top)
    if type(inst) is not OrderedDict and type(inst) not in self.allowed_types:
        raise pickle.UnpicklingError(_weights_only_message(
            f"Can only build Tensor, Parameter, OrderedDict or types allowlisted via "
            f"`add_safe_globals`, but got {type(inst)}"))
    pickle._Unpickler.load_build(self)


def _unpickler(pickle_module, data, weights_only, tensors, load_args):
    # the Python unpickler under weights_only, for its dispatch table (BUILD is checked)
    base = pickle._Unpickler if weights_only else pickle_module.Unpickler
    allowed = _allowed_globals() if weights_only else None

    class Unpickler(base):
        if weights_only:
            dispatch = dict(pickle._Unpickler.dispatch)
            dispatch[pickle.BUILD[0]] = _weights_only_build
            allowed_types = tuple(v for v in allowed.values() if isinstance(v, type))

        def find_class(self, module, name):
            if allowed is None:
                return super().find_class(module, name)
            if (module, name) in allowed:
                return allowed[(module, name)]
            raise pickle.UnpicklingError(_weights_only_message(
                f"Unsupported global: GLOBAL {module}.{name} was not an allowed global by "
                "default."))

        def persistent_load(self, pid):
            if tensors is None or not (isinstance(pid, tuple) and len(pid) == 2):
                raise pickle.UnpicklingError(f"cygrad.load: unknown persistent id {pid!r}")
            kind, value = pid
            if kind == "tensor" and type(value) is int and 0 <= value < len(tensors):
                return tensors[value]
            if kind == "dtype" and value in _DTYPES:
                return _DTYPES[value]
            if kind == "device" and type(value) is str:
                return _device(value)
            raise pickle.UnpicklingError(f"cygrad.load: bad persistent id {pid!r}")

    return Unpickler(io.BytesIO(data), **load_args)


def _corrupt(detail):
    return RuntimeError(f"cygrad.load: the file is truncated or corrupted ({detail})")


def _read_header(data):
    """The safetensors JSON header (metadata included), checked against the file length."""
    if len(data) < 8:
        raise _corrupt(f"{len(data)} bytes is shorter than a safetensors header")
    (n,) = struct.unpack("<Q", data[:8])
    if n > len(data) - 8:
        raise _corrupt(f"header of {n} bytes, but only {len(data) - 8} follow")
    try:
        header = json.loads(data[8:8 + n])
    except (UnicodeDecodeError, ValueError) as e:
        raise _corrupt(f"unreadable header: {e}") from None
    if not isinstance(header, dict):
        raise _corrupt("the header is not a JSON object")
    return header


def _deserialize(data):
    import safetensors
    try:
        return {name: info for name, info in safetensors.deserialize(data)}
    except Exception as e:   # SafetensorError, or a Rust panic surfacing as another type
        raise _corrupt(f"{type(e).__name__}: {e}") from None


def _check(cond, what):
    if not cond:
        raise _corrupt(what)


def _is_int(v, lo=0):
    return type(v) is int and v >= lo


def _array_from_bytes(data, dtype_name):
    """A writable, aligned copy of raw little-endian bytes as an array of ``dtype_name``."""
    arr = np.frombuffer(data, dtype=_stored_np_dtype(dtype_name)).copy()
    if dtype_name in _STORED_AS:
        arr = arr.view(_DTYPES[dtype_name].np_dtype)
    return arr


def _build_storages(header, raw):
    storages = header.get("storages")
    _check(isinstance(storages, list), "no storage list")
    flats = []
    for i, entry in enumerate(storages):
        _check(isinstance(entry, dict) and entry.get("dtype") in _DTYPES
               and _is_int(entry.get("numel")), f"storage {i} entry")
        info = raw.get(str(i))
        _check(info is not None, f"storage {i} is missing")
        itemsize = _DTYPES[entry["dtype"]].itemsize
        _check(len(info["data"]) == entry["numel"] * itemsize,
               f"storage {i} holds {len(info['data'])} bytes, expected "
               f"{entry['numel'] * itemsize}")
        _check(zlib.crc32(info["data"]) == entry.get("crc32"), f"storage {i} checksum mismatch")
        _check(isinstance(entry.get("location", "cpu"), str), f"storage {i} location")
        flats.append(_array_from_bytes(info["data"], entry["dtype"]))
    return flats


def _check_view(i, entry, flats):
    _check(isinstance(entry, dict), f"tensor {i} entry")
    s = entry.get("storage")
    _check(_is_int(s) and s < len(flats), f"tensor {i} storage index")
    _check(entry.get("dtype") in _DTYPES, f"tensor {i} dtype")
    dt = _DTYPES[entry["dtype"]]
    _check(dt.itemsize == flats[s].dtype.itemsize, f"tensor {i} dtype does not fit its storage")
    shape, stride, offset = entry.get("shape"), entry.get("stride"), entry.get("offset")
    _check(isinstance(shape, list) and isinstance(stride, list) and len(shape) == len(stride)
           and all(_is_int(v) for v in shape) and all(_is_int(v) for v in stride)
           and _is_int(offset), f"tensor {i} geometry")
    if all(shape):   # a view with elements must stay inside its storage
        last = offset + sum((n - 1) * st for n, st in zip(shape, stride))
        _check(last < flats[s].size, f"tensor {i} reaches past the end of its storage")
    _check(type(entry.get("requires_grad")) is bool and type(entry.get("parameter")) is bool,
           f"tensor {i} flags")
    _check(not entry["requires_grad"] or dt.is_floating_point,
           f"tensor {i}: only floating point tensors can require grad")


def _relocate(flat, map_location, location="cpu"):
    """Apply ``map_location`` to one storage (as a flat CPU tensor) saved from ``location``.

    As in PyTorch: None restores the saved location; a device (or its name) sends
    every storage there; a dict maps saved location names to new ones (others
    stay); a callable ``fn(storage, location)`` returns the storage to use, or
    None for the default.
    """
    if isinstance(map_location, dict):
        map_location = map_location.get(location, location)
    if map_location is None:
        return _to_location(flat, location)
    if isinstance(map_location, (str, _device)):
        return _to_location(flat, str(_device(map_location)))
    if callable(map_location):
        moved = map_location(flat, location)
        if moved is None:
            return _to_location(flat, location)
        if not isinstance(moved, Tensor) or moved.dtype != flat.dtype \
                or moved.shape != flat.shape:
            raise TypeError("cygrad.load: a map_location function must return None or a "
                            "tensor like the one it was given")
        return moved
    raise TypeError(f"cygrad.load: map_location must be None, a string, a device, a dict or "
                    f"a callable, not {type(map_location).__name__}")


def _to_location(flat, location):
    target = _device(location)
    if target.type == "cpu":
        return flat
    if target.type == "cuda":
        from . import cuda
        if not cuda.is_available():
            raise RuntimeError(
                f"cygrad.load: a tensor was saved on {location}, but cygrad.cuda.is_available() "
                "is False. On a machine without CUDA, pass map_location='cpu' (or "
                "map_location=cygrad.device('cpu')) to load it into CPU memory.")
    return flat.to(target)


def _build_tensors(header, raw, map_location):
    flats = _build_storages(header, raw)
    entries = header.get("tensors")
    _check(isinstance(entries, list), "no tensor list")
    users = [0] * len(flats)
    for i, entry in enumerate(entries):
        _check_view(i, entry, flats)
        users[entry["storage"]] += 1
    locations = [entry.get("location", "cpu") for entry in header["storages"]]
    bases = [_relocate(from_numpy(arr), map_location, loc) for arr, loc in zip(flats, locations)]
    param = _parameter_class()
    tensors = []
    for entry in entries:
        base = bases[entry["storage"]]
        dt = _DTYPES[entry["dtype"]]
        if dt != base.dtype:
            base = base.view(dt)
        shape, stride = tuple(entry["shape"]), tuple(entry["stride"])
        if users[entry["storage"]] == 1 and entry["offset"] == 0 and \
                math.prod(shape) == base.numel():
            t = base.reshape(shape)
            if t.stride() != stride:
                t = base._as_strided_any(shape, stride, 0)
        else:
            t = base._as_strided_any(shape, stride, entry["offset"])
        if entry["parameter"] and param is not None:
            t = param(t, requires_grad=entry["requires_grad"])
        elif entry["requires_grad"]:
            t.requires_grad_(True)
        tensors.append(t)
    return tensors


def _decode(node, tensors):
    if node is None or type(node) in (bool, int, float, str):
        return node
    _check(isinstance(node, dict) and isinstance(node.get("$"), str), "object tree node")
    tag = node["$"]
    if tag == "tensor":
        i = node.get("i")
        _check(_is_int(i) and i < len(tensors), "tensor reference")
        return tensors[i]
    if tag in ("list", "tuple", "size"):
        items = node.get("items")
        _check(isinstance(items, list), f"{tag} items")
        if tag == "size":
            _check(all(_is_int(v) for v in items), "size items")
            return Size(items)
        values = [_decode(v, tensors) for v in items]
        return values if tag == "list" else tuple(values)
    if tag in ("dict", "odict", "counter"):
        items = node.get("items")
        _check(isinstance(items, list) and all(isinstance(kv, list) and len(kv) == 2
                                                for kv in items), f"{tag} items")
        out = {"dict": dict, "odict": OrderedDict, "counter": Counter}[tag]()
        for k, v in items:
            key = _decode(k, tensors)
            try:
                out[key] = _decode(v, tensors)
            except TypeError:
                raise _corrupt("unhashable dict key") from None
        return out
    if tag == "float":
        _check(node.get("v") in ("nan", "inf", "-inf"), "float value")
        return float(node["v"])
    if tag == "bytes":
        try:
            return base64.b64decode(node.get("b64", ""), validate=True)
        except (ValueError, TypeError):
            raise _corrupt("bytes value") from None
    if tag == "dtype":
        _check(node.get("name") in _DTYPES, "dtype name")
        return _DTYPES[node["name"]]
    if tag == "device":
        try:
            return _device(node.get("name"))
        except (RuntimeError, ValueError, TypeError):
            raise _corrupt("device name") from None
    raise _corrupt(f"unknown node type {tag!r}")


def _plain_safetensors(raw):
    """A safetensors file written by another program: its tensors by name."""
    out = {}
    for name, info in raw.items():
        code = _SAFETENSORS_DTYPES.get(info["dtype"])
        if code is None or code == "uint16":
            raise RuntimeError(f"cygrad.load: tensor {name!r} has dtype {info['dtype']}, "
                               "which cygrad does not support")
        out[name] = from_numpy(_array_from_bytes(info["data"], code).reshape(info["shape"]))
    return out


def _load_container(data, map_location, pickle_module, weights_only, load_args):
    header = _read_header(data)
    raw = _deserialize(data)
    meta = header.get("__metadata__") or {}
    if _META_KEY not in meta:
        tensors = _plain_safetensors(raw)
        return {k: _relocate(v, map_location) for k, v in tensors.items()}
    try:
        doc = json.loads(meta[_META_KEY])
    except ValueError as e:
        raise _corrupt(f"unreadable cygrad metadata: {e}") from None
    _check(isinstance(doc, dict), "cygrad metadata")
    if doc.get("version") != _FORMAT_VERSION:
        raise RuntimeError(f"cygrad.load: file format version {doc.get('version')!r} is not "
                           f"supported (this cygrad reads version {_FORMAT_VERSION})")
    if "pickle" in doc:
        try:
            payload = base64.b64decode(doc["pickle"], validate=True)
        except (ValueError, TypeError):
            raise _corrupt("pickle payload encoding") from None
        tensors = _build_tensors(doc, raw, map_location)
        return _run_unpickler(_unpickler(pickle_module, payload, weights_only, tensors,
                                         load_args))
    tensors = _build_tensors(doc, raw, map_location)
    return _decode(doc.get("tree"), tensors)


def _run_unpickler(unpickler):
    try:
        return unpickler.load()
    except EOFError:
        raise pickle.UnpicklingError("cygrad.load: the pickle data is truncated") from None


def load(f, map_location=None, pickle_module=None, *, weights_only=None, **pickle_load_args):
    """Load an object saved with :func:`save`.

    Parameters
    ----------
    f : str, os.PathLike or binary file object
    map_location : None, str, device, dict or callable, optional
        Where to put the tensors. None: where they were saved from (a tensor
        saved from ``'cuda:0'`` comes back on ``cuda:0``; RuntimeError when
        CUDA is unavailable, naming ``map_location='cpu'`` as the way out); a
        device (``'cpu'``, ``'cuda'``, ``cygrad.device(...)``): every tensor
        there; a dict mapping saved locations (``'cpu'``, ``'cuda:0'``) to
        devices; or ``fn(storage, location)`` called with each storage as a
        flat CPU tensor and its saved location, returning None (the default
        place) or a tensor to use instead.
    pickle_module : module, optional
        Unpickler for pickled payloads when ``weights_only=False``.
    weights_only : bool, optional
        Refuse pickled payloads that name anything but plain containers and the
        globals allowed by :func:`add_safe_globals` / :func:`safe_globals`. Files
        of tensors and containers never need pickle. ``False`` trusts the file:
        it also reads plain pickle files, and can run arbitrary code. Not given:
        True, unless ``pickle_module`` is given. As in PyTorch, the environment
        variable ``TORCH_FORCE_WEIGHTS_ONLY_LOAD=1`` forces True, and
        ``TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD=1`` makes the default False (an
        explicit ``weights_only`` still wins); ``CYGRAD_FORCE_WEIGHTS_ONLY_LOAD`` and
        ``CYGRAD_FORCE_NO_WEIGHTS_ONLY_LOAD`` are the same switches.

    Returns
    -------
    The saved object.

    Raises
    ------
    RuntimeError
        The file is truncated or corrupted (nothing is loaded), or a device is
        unavailable.
    pickle.UnpicklingError
        A pickled payload is refused under ``weights_only=True`` or is broken.

    Examples
    --------
    >>> import io, cygrad
    >>> buf = io.BytesIO()
    >>> cygrad.save({"w": cygrad.ones(2, requires_grad=True)}, buf)
    >>> _ = buf.seek(0)
    >>> cygrad.load(buf, map_location="cpu")["w"]
    tensor([1., 1.], requires_grad=True)
    """
    weights_only = _resolve_weights_only(weights_only, pickle_module)
    if weights_only and pickle_module is not None:
        raise RuntimeError("Can not safely load weights when explicit pickle_module is "
                           "specified")
    pickle_module = pickle_module or pickle
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as fh:
            data = fh.read()
    else:
        data = f.read()
    if isinstance(data, (bytearray, memoryview)):
        data = bytes(data)
    if data[:4] == b"PK\x03\x04":
        raise RuntimeError("cygrad.load: this is a zip archive (a PyTorch checkpoint?); "
                           "cygrad.load reads files written by cygrad.save and safetensors files")
    # safetensors: 8 bytes of header length, then the JSON header; pickle: PROTO opcode
    if data[8:9] != b"{" and data[:1] == b"\x80":
        return _run_unpickler(_unpickler(pickle_module, data, weights_only, None,
                                         pickle_load_args))
    return _load_container(data, map_location, pickle_module, weights_only, pickle_load_args)
