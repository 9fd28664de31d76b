"""PyTorch's weights-only switches in ``cygrad.load`` (issue 17): each case run through
``torch.save``/``torch.load`` and ``cygrad.save``/``cygrad.load`` with the same
arguments and environment, and the outcomes compared."""
import io
import pickle
import warnings

import numpy as np
import pytest
import torch

import cygrad
import cygrad.serialization as cser

NUMPY_GLOBALS = [np._core.multiarray._reconstruct, np.ndarray, np.dtype,
                 type(np.dtype(np.float64))]
ENV = ("TORCH_FORCE_WEIGHTS_ONLY_LOAD", "TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD",
       "CYGRAD_FORCE_WEIGHTS_ONLY_LOAD", "CYGRAD_FORCE_NO_WEIGHTS_ONLY_LOAD")


@pytest.fixture(autouse=True)
def clean(monkeypatch):
    for name in ENV:
        monkeypatch.delenv(name, raising=False)
    yield
    cser.clear_safe_globals()
    torch.serialization.clear_safe_globals()


def load_outcome(lib, obj, **kwargs):
    """('ok', type of obj['a'], warned) or the exception type of saving then loading."""
    buf = io.BytesIO()
    lib.save(obj, buf)
    buf.seek(0)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = lib.load(buf, **kwargs)
    except (pickle.UnpicklingError, RuntimeError) as e:
        return type(e)
    warned = any("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD" in str(w.message) for w in caught)
    return "ok", type(out["a"]), warned


def check(obj, **kwargs):
    got, ref = load_outcome(cygrad, obj, **kwargs), load_outcome(torch, obj, **kwargs)
    assert got == ref
    return got


ARRAY = {"a": np.arange(3.0)}


def test_numpy_array_needs_trust_or_its_globals():
    assert check(ARRAY) is pickle.UnpicklingError
    assert check(ARRAY, weights_only=True) is pickle.UnpicklingError
    assert check(ARRAY, weights_only=False) == ("ok", np.ndarray, False)
    assert check(ARRAY, pickle_module=pickle) == ("ok", np.ndarray, False)


def test_safe_globals_context_and_add():
    with cser.safe_globals(NUMPY_GLOBALS), torch.serialization.safe_globals(NUMPY_GLOBALS):
        assert check(ARRAY) == ("ok", np.ndarray, False)
        assert all(g in cser.get_safe_globals() for g in NUMPY_GLOBALS)
    assert not any(g in cser.get_safe_globals() for g in NUMPY_GLOBALS)
    assert check(ARRAY) is pickle.UnpicklingError
    # without the dtype's class the array cannot be built, in both libraries
    cser.add_safe_globals(NUMPY_GLOBALS[:3])
    torch.serialization.add_safe_globals(NUMPY_GLOBALS[:3])
    assert check(ARRAY) is pickle.UnpicklingError
    cser.add_safe_globals(NUMPY_GLOBALS[3:])
    torch.serialization.add_safe_globals(NUMPY_GLOBALS[3:])
    loaded = check(ARRAY)
    assert loaded == ("ok", np.ndarray, False)
    cser.clear_safe_globals()
    assert cser.get_safe_globals() == []


@pytest.mark.parametrize("prefix", ["TORCH", "CYGRAD"])
def test_force_no_weights_only_env(monkeypatch, prefix):
    monkeypatch.setenv(f"{prefix}_FORCE_NO_WEIGHTS_ONLY_LOAD", "1")
    monkeypatch.setenv("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", "1")    # (what torch reads)
    assert check(ARRAY) == ("ok", np.ndarray, True)                 # default flipped, warned
    assert check(ARRAY, weights_only=True) is pickle.UnpicklingError   # explicit wins


@pytest.mark.parametrize("value", ["1", "true", "YES", "y", "0", "no"])
def test_force_weights_only_env(monkeypatch, value):
    monkeypatch.setenv("TORCH_FORCE_WEIGHTS_ONLY_LOAD", value)
    check(ARRAY, weights_only=False)
    monkeypatch.delenv("TORCH_FORCE_WEIGHTS_ONLY_LOAD")
    monkeypatch.setenv("CYGRAD_FORCE_WEIGHTS_ONLY_LOAD", value)
    expected = load_outcome(torch, ARRAY, weights_only=False) if value in ("0", "no") \
        else pickle.UnpicklingError
    assert load_outcome(cygrad, ARRAY, weights_only=False) == expected


def test_both_switches_is_an_error(monkeypatch):
    monkeypatch.setenv("TORCH_FORCE_WEIGHTS_ONLY_LOAD", "1")
    monkeypatch.setenv("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", "1")
    assert check(ARRAY) is RuntimeError


def test_plain_tensors_need_no_switch():
    got = load_outcome(cygrad, {"a": cygrad.ones(2)})
    ref = load_outcome(torch, {"a": torch.ones(2)})
    assert got[0] == ref[0] == "ok"
