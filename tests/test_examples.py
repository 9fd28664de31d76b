"""Smoke tests of examples/: each example trains briefly and its loss must fall.

The examples are scripts, not a package; they are imported from their files
(with examples/ on sys.path, as when run as scripts) and called with small sizes.
"""
import contextlib
import gzip
import json
import importlib.util
import os
import struct

import numpy as np
import pytest

import cygrad

EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples")


@pytest.fixture(autouse=True)
def one_thread():
    # These are tiny models: with two kernel (and BLAS) threads on a busy
    # machine each parallel region waits for a descheduled thread, and the file
    # ran ~10x slower. The examples' logic is under test here, not threading.
    threads = cygrad.get_num_threads()
    cygrad.set_num_threads(1)
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        blas = contextlib.nullcontext()
    else:
        blas = threadpool_limits(1, user_api="blas")    # NumPy's BLAS does cygrad's matmul
    with blas:
        yield
    cygrad.set_num_threads(threads)


@pytest.fixture
def example(monkeypatch):
    """``example(name)`` imports examples/<name>.py as a fresh module."""
    monkeypatch.syspath_prepend(EXAMPLES)

    def load(name):
        spec = importlib.util.spec_from_file_location(f"example_{name}",
                                                      os.path.join(EXAMPLES, name + ".py"))
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    return load


def _fell(losses, k=5, by=0.0):
    """Mean of the last ``k`` losses below the mean of the first ``k`` minus ``by``."""
    first, last = np.mean(losses[:k]), np.mean(losses[-k:])
    return last < first - by, (first, last)


# ---- train_digits.py ------------------------------------------------------------------

def test_digits_loss_falls(example):
    pytest.importorskip("sklearn", reason="train_digits.py needs scikit-learn's digits")
    from cygrad.utils.data import DataLoader
    digits = example("train_digits")
    cygrad.manual_seed(0)
    train_set, test_set = digits.load_digits_datasets()
    assert len(train_set) + len(test_set) == 1797
    assert train_set.tensors[0].shape[1:] == (1, 8, 8)
    model = digits.build_model()
    opt = cygrad.optim.Adam(model.parameters(), lr=1e-2)
    losses = digits.train_steps(model, opt, DataLoader(train_set, batch_size=32, shuffle=True),
                                max_steps=20)
    assert len(losses) == 20
    fell, detail = _fell(losses, by=0.5)
    assert fell, detail


def test_digits_script_saves_and_reloads(example, capsys):
    pytest.importorskip("sklearn", reason="train_digits.py needs scikit-learn's digits")
    pytest.importorskip("tqdm", reason="train_digits.py shows tqdm progress bars")
    digits = example("train_digits")
    accuracy, identical = digits.main(["--epochs", "1", "--steps", "10"])
    assert identical
    assert 0.0 <= accuracy <= 1.0
    assert "identical predictions" in capsys.readouterr().out


# ---- mnist_idx.py ---------------------------------------------------------------------

def _write_idx(path, array, type_code):
    """An IDX file written from its definition, independently of read_idx."""
    big_endian = array.astype(array.dtype.newbyteorder(">"))
    header = struct.pack(">BBBB", 0, 0, type_code, array.ndim)
    header += struct.pack(f">{array.ndim}I", *array.shape)
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "wb") as f:
        f.write(header + big_endian.tobytes())


@pytest.mark.parametrize("dtype,code", [(np.uint8, 0x08), (np.int8, 0x09), (np.int16, 0x0B),
                                        (np.int32, 0x0C), (np.float32, 0x0D),
                                        (np.float64, 0x0E)])
@pytest.mark.parametrize("suffix", ["", ".gz"])
def test_read_idx_matches_what_was_written(example, tmp_path, dtype, code, suffix):
    mnist = example("mnist_idx")
    rng = np.random.default_rng(code)
    array = (rng.standard_normal((3, 4, 5)) * 100).astype(dtype)
    path = str(tmp_path / f"a.idx{suffix}")
    _write_idx(path, array, code)
    got = mnist.read_idx(path)
    assert tuple(got.shape) == array.shape
    np.testing.assert_array_equal(got.numpy(), array)


def test_read_idx_one_dimensional_and_errors(example, tmp_path):
    mnist = example("mnist_idx")
    labels = np.arange(10, dtype=np.uint8)
    _write_idx(str(tmp_path / "l"), labels, 0x08)
    assert mnist.read_idx(str(tmp_path / "l")).tolist() == list(range(10))
    (tmp_path / "bad").write_bytes(b"\x01\x00\x08\x01\x00\x00\x00\x01\x05")
    with pytest.raises(ValueError, match="not an IDX file"):
        mnist.read_idx(str(tmp_path / "bad"))
    (tmp_path / "short").write_bytes(struct.pack(">BBBBI", 0, 0, 0x08, 1, 4) + b"\x01\x02")
    with pytest.raises(ValueError, match="bytes"):
        mnist.read_idx(str(tmp_path / "short"))
    (tmp_path / "type").write_bytes(struct.pack(">BBBBI", 0, 0, 0x07, 1, 1) + b"\x01")
    with pytest.raises(ValueError, match="element type"):
        mnist.read_idx(str(tmp_path / "type"))


def test_mnist_script_learns_from_idx_files(example, tmp_path):
    # MNIST-shaped files in miniature: 6x6 images, the label is the row of the
    # one bright stripe, so the task is learnable in a few steps
    mnist = example("mnist_idx")
    rng = np.random.default_rng(0)
    for split, n in (("train", 192), ("test", 64)):
        labels = rng.integers(0, 6, n).astype(np.uint8)
        images = rng.integers(0, 40, (n, 6, 6)).astype(np.uint8)
        images[np.arange(n), labels, :] = 255
        images_name, labels_name = mnist.FILES[split]
        _write_idx(str(tmp_path / (images_name + ".gz")), images, 0x08)
        _write_idx(str(tmp_path / labels_name), labels, 0x08)
    losses = mnist.main(["--data-dir", str(tmp_path), "--epochs", "4", "--batch-size", "16"])
    assert len(losses) == 4 * 192 // 16
    fell, detail = _fell(losses, by=0.5)
    assert fell, detail


# ---- the other examples ---------------------------------------------------------------

def test_gan_generator_moves_to_the_ring(example):
    gan = example("gan_2d")
    cygrad.manual_seed(0)
    generator, discriminator = gan.mlp(2, 2), gan.mlp(2, 1)
    radius_before, _ = gan.describe(generator, n=500)
    history = gan.train(generator, discriminator, steps=250, batch_size=64, log_every=0)
    radius_after, _ = gan.describe(generator, n=500)
    assert len(history) == 250 and np.isfinite(history).all()
    # the ring has radius 2; the untrained generator's points sit near the origin
    assert abs(radius_after - gan.RADIUS) < abs(radius_before - gan.RADIUS) - 0.5, \
        (radius_before, radius_after)


def test_char_lstm_loss_falls(example, capsys):
    lstm = example("char_lstm")
    losses = lstm.main(["--steps", "30", "--hidden", "64", "--sample-length", "20"])
    fell, detail = _fell(losses, by=0.5)
    assert fell, detail
    sample_line = [l for l in capsys.readouterr().out.splitlines() if l.startswith("sample:")]
    assert len(sample_line) == 1 and len(eval(sample_line[0][len("sample:"):])) == 4 + 20


def test_tiny_gpt_loss_falls(example, capsys):
    gpt = example("tiny_gpt")
    losses = gpt.main(["--steps", "30", "--d-model", "32", "--layers", "1",
                       "--sample-length", "20"])
    fell, detail = _fell(losses, by=0.3)
    assert fell, detail
    assert "sample:" in capsys.readouterr().out


def test_tiny_gpt_is_causal(example):
    # changing a later character must not change the logits at earlier positions
    gpt = example("tiny_gpt")
    cygrad.manual_seed(0)
    model = gpt.TinyGPT(10, block_size=8, d_model=16, nhead=2, num_layers=1).eval()
    ids = cygrad.randint(0, 10, (1, 8))
    changed = ids.clone()
    changed[0, 5] = (ids[0, 5] + 1) % 10
    with cygrad.no_grad():
        a, b = model(ids), model(changed)
    assert cygrad.allclose(a[:, :5], b[:, :5], atol=1e-6)
    assert not cygrad.allclose(a[:, 5:], b[:, 5:], atol=1e-6)


def test_custom_function_gradients(example):
    custom = example("custom_function_module")
    cygrad.manual_seed(0)
    assert custom.check_gradients()
    # the hand-written backward agrees with autograd through built-in ops
    x = cygrad.randn(4, 3, dtype=cygrad.float64, requires_grad=True)
    beta = cygrad.randn(3, dtype=cygrad.float64, requires_grad=True)
    weights = cygrad.randn(4, 3, dtype=cygrad.float64)
    (custom.SwishFunction.apply(x, beta) * weights).sum().backward()
    got = x.grad.clone(), beta.grad.clone()
    x.grad = beta.grad = None
    (x * (beta * x).sigmoid() * weights).sum().backward()
    assert cygrad.allclose(got[0], x.grad) and cygrad.allclose(got[1], beta.grad)


def test_custom_function_module_trains(example):
    custom = example("custom_function_module")
    losses = custom.main(["--steps", "150"])
    fell, detail = _fell(losses, by=0.2)
    assert fell, detail


def test_tiny_gpt_profile_one_step(example, capsys, tmp_path):
    # --profile: one profiled training step after warm-up, a table of the top ops
    # and a Chrome trace whose spans include the phases and the backward nodes
    gpt = example("tiny_gpt")
    trace = tmp_path / "trace.json"
    prof = gpt.main(["--d-model", "16", "--layers", "1", "--profile", str(trace)])
    out = capsys.readouterr().out
    assert "Self CPU time total:" in out and str(trace) in out
    header = next(line for line in out.splitlines() if "Self CPU %" in line)
    assert header.split()[0] == "Name" and "# of Calls" in header
    spans = {e["name"] for e in json.loads(trace.read_text())["traceEvents"] if e["ph"] == "X"}
    assert {"forward", "backward", "optimizer", "mm", "MmBackward0", "AccumulateGrad",
            "Optimizer.step#AdamW.step"} <= spans
    assert prof.key_averages()[0].count >= 1
