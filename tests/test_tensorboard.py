"""cygrad.utils.tensorboard.SummaryWriter: what is written is read back by
TensorBoard's own EventAccumulator with the values logged."""
import importlib
import os
import sys

import numpy as np
import pytest

import cygrad

pytest.importorskip("tensorboard", reason="the optional 'tensorboard' extra is not installed")
from tensorboard.backend.event_processing.event_accumulator import (  # noqa: E402
    EventAccumulator)
from cygrad.utils.tensorboard import SummaryWriter  # noqa: E402


def _load(path):
    acc = EventAccumulator(str(path), size_guidance={"scalars": 0, "histograms": 0, "tensors": 0})
    acc.Reload()
    return acc


def test_scalars_round_trip(tmp_path):
    values = [0.5, 1.25, -3.0]
    with SummaryWriter(tmp_path) as w:
        for step, v in enumerate(values):
            w.add_scalar("loss/train", v, step * 10, walltime=100.0 + step)
        w.add_scalar("from_tensor", cygrad.tensor(2.5), 3)
        w.add_scalar("from_array", np.array([7.0]), 4)
    acc = _load(tmp_path)
    events = acc.Scalars("loss/train")
    assert [e.step for e in events] == [0, 10, 20]
    assert [e.value for e in events] == values
    assert [e.wall_time for e in events] == [100.0, 101.0, 102.0]
    assert acc.Scalars("from_tensor")[0].value == 2.5
    assert (acc.Scalars("from_array")[0].step, acc.Scalars("from_array")[0].value) == (4, 7.0)


def test_scalar_must_be_one_value(tmp_path):
    with SummaryWriter(tmp_path) as w, pytest.raises(ValueError, match="scalar should be 0D"):
        w.add_scalar("bad", cygrad.ones(3))


def test_add_scalars_writes_one_run_per_key(tmp_path):
    with SummaryWriter(tmp_path) as w:
        w.add_scalars("run/loss", {"train": 0.25, "test": 0.75}, 5)
    for key, value in (("train", 0.25), ("test", 0.75)):
        sub = tmp_path / f"run_loss_{key}"
        assert sub.is_dir()
        (event,) = _load(sub).Scalars("run/loss")
        assert (event.step, event.value) == (5, value)


def _bucket_counts(histo):
    return np.array(histo.bucket), np.array(histo.bucket_limit)


@pytest.mark.parametrize("bins", ["tensorflow", "auto", "fd", 7, [-4.0, -1.0, 0.0, 1.0, 4.0]])
def test_histogram_round_trip(tmp_path, bins):
    rng = np.random.default_rng(0)
    values = rng.standard_normal(500)
    with SummaryWriter(tmp_path) as w:
        w.add_histogram("w", cygrad.from_numpy(values), 3, bins=bins)
    (event,) = _load(tmp_path).Histograms("w")
    h = event.histogram_value
    assert event.step == 3
    assert (h.min, h.max, h.num) == (values.min(), values.max(), 500)
    np.testing.assert_allclose([h.sum, h.sum_squares], [values.sum(), (values ** 2).sum()])
    counts, limits = _bucket_counts(h)
    assert counts.sum() == 500 and counts[0] == 0
    # every value falls in the bucket whose (previous limit, limit] range holds it
    if bins == "tensorflow":
        idx = np.searchsorted(limits, values, side="left")
        assert np.array_equal(np.bincount(idx, minlength=len(limits)), counts)
    else:
        edges = bins if not isinstance(bins, str) else np.histogram_bin_edges(values, bins)
        ref, ref_edges = np.histogram(values, bins=edges)
        nz = np.flatnonzero(ref)
        np.testing.assert_array_equal(counts[1:], ref[nz[0]:nz[-1] + 1])
        np.testing.assert_allclose(limits, ref_edges[nz[0]:nz[-1] + 2])


def test_histogram_max_bins_and_errors(tmp_path):
    values = np.linspace(-1, 1, 101)
    with SummaryWriter(tmp_path) as w:
        w.add_histogram("few", values, 0, bins=40, max_bins=10)
        with pytest.raises(ValueError, match="bins must be"):
            w.add_histogram("bad", values, 0, bins="nonsense")
        with pytest.raises(ValueError, match="empty"):
            w.add_histogram("empty", np.array([]), 0)
    (event,) = _load(tmp_path).Histograms("few")
    counts, _ = _bucket_counts(event.histogram_value)
    assert len(counts) <= 11 and counts.sum() == 101


def test_text_and_hparams(tmp_path):
    with SummaryWriter(tmp_path) as w:
        w.add_text("notes", "hello **world**", 2)
        w.add_hparams({"lr": 0.1, "opt": "sgd", "nesterov": True}, {"hparam/acc": 0.9},
                      run_name="trial")
    acc = _load(tmp_path)
    (text_event,) = acc.Tensors("notes/text_summary")
    assert text_event.step == 2
    assert text_event.tensor_proto.string_val == [b"hello **world**"]
    trial = _load(tmp_path / "trial")
    assert trial.Scalars("hparam/acc")[0].value == pytest.approx(0.9)
    from tensorboard.plugins.hparams import metadata
    content = trial.PluginTagToContent("hparams")
    start = metadata.parse_session_start_info_plugin_data(
        content[metadata.SESSION_START_INFO_TAG])
    assert start.hparams["lr"].number_value == 0.1
    assert start.hparams["opt"].string_value == "sgd"
    assert start.hparams["nesterov"].bool_value is True
    exp = metadata.parse_experiment_plugin_data(content[metadata.EXPERIMENT_TAG])
    assert sorted(i.name for i in exp.hparam_infos) == ["lr", "nesterov", "opt"]
    with SummaryWriter(tmp_path / "x") as w, pytest.raises(TypeError, match="dictionary"):
        w.add_hparams([("lr", 0.1)], {})


def test_default_logdir_suffix_purge_flush_and_close(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    w = SummaryWriter(comment="_exp", filename_suffix=".sfx", purge_step=7)
    logdir = w.get_logdir()
    assert logdir.startswith("runs" + os.sep) and logdir.endswith("_exp")
    w.add_scalar("a", 1.0, 8)
    w.flush()
    files = os.listdir(logdir)
    assert len(files) == 1 and files[0].startswith("events.out.tfevents.")
    assert files[0].endswith(".sfx")
    assert [e.value for e in _load(logdir).Scalars("a")] == [1.0]
    w.close()
    w.close()  # closing twice is harmless
    with pytest.raises(RuntimeError, match="closed"):
        w.add_scalar("a", 2.0, 9)


def test_import_without_tensorboard_names_the_extra(monkeypatch):
    for name in list(sys.modules):
        if name.startswith("cygrad.utils.tensorboard"):
            monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "tensorboard", None)
    with pytest.raises(ImportError, match=r"pip install cygrad\[tensorboard\]"):
        importlib.import_module("cygrad.utils.tensorboard")
