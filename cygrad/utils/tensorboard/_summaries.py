"""Summary protocol buffers for each kind of value TensorBoard shows (scalar,
histogram, text, hparams), built from NumPy data.

Examples
--------
>>> from cygrad.utils.tensorboard._summaries import scalar
>>> scalar("loss", 0.25).value[0].simple_value
0.25
"""
import numbers

import numpy as np
from google.protobuf import struct_pb2
from tensorboard.compat.proto.summary_pb2 import HistogramProto, Summary, SummaryMetadata
from tensorboard.compat.proto.tensor_pb2 import TensorProto
from tensorboard.compat.proto.tensor_shape_pb2 import TensorShapeProto
from tensorboard.plugins.hparams import api_pb2, metadata as hp_metadata, plugin_data_pb2

_NUMPY_BIN_NAMES = ("auto", "fd", "doane", "scott", "stone", "rice", "sturges", "sqrt")


def to_numpy(value):
    """A tensor, array or number as a NumPy array (detached, on the CPU)."""
    if hasattr(value, "detach") and hasattr(value, "numpy"):
        return value.detach().cpu().numpy()
    return np.asarray(value)


def to_float(value):
    arr = to_numpy(value)
    if arr.size != 1:
        raise ValueError(f"scalar should be 0D, got a value of shape {arr.shape}")
    return float(arr.reshape(()))


def scalar(tag, value):
    """A summary holding one float."""
    return Summary(value=[Summary.Value(tag=tag, simple_value=to_float(value))])


def _tensorflow_edges():
    """TensorFlow's default histogram edges: +-1e-12 growing by 10% up to 1e20, and 0."""
    pos = [1e-12]
    while pos[-1] < 1e20:
        pos.append(pos[-1] * 1.1)
    pos = np.array(pos)
    return np.concatenate([-pos[::-1], [0.0], pos])


def _fold_bins(counts, edges, max_bins):
    """Merge neighbouring bins so at most ``max_bins`` remain."""
    group = -(-len(counts) // max_bins)
    pad = (-len(counts)) % group
    counts = np.concatenate([counts, np.zeros(pad, counts.dtype)]).reshape(-1, group).sum(1)
    right = edges[1:]
    right = np.concatenate([right, np.full(pad, right[-1])])[group - 1::group]
    return counts, np.concatenate([edges[:1], right])


def histogram(tag, values, bins="tensorflow", max_bins=None):
    """A histogram summary of ``values``: ``bins`` is 'tensorflow' (TensorFlow's
    exponential edges), a NumPy bin rule ('auto', 'fd'...), a count or explicit edges."""
    values = to_numpy(values).astype(np.float64).reshape(-1)
    if values.size == 0:
        raise ValueError("The histogram is empty, please file a bug report.")
    edges = _tensorflow_edges() if isinstance(bins, str) and bins == "tensorflow" else bins
    counts, edges = np.histogram(values, bins=edges)
    if max_bins is not None and len(counts) > max_bins:
        counts, edges = _fold_bins(counts, edges, max_bins)
    # The occupied bins only, led by an empty bucket whose limit is the first bin's
    # left edge (a bucket's limit is its right edge).
    filled = np.flatnonzero(counts)
    lo, hi = filled[0], filled[-1] + 1
    limits = edges[lo:hi + 1]
    counts = np.concatenate([[0], counts[lo:hi]])
    return Summary(value=[Summary.Value(tag=tag, histo=HistogramProto(
        min=float(values.min()), max=float(values.max()), num=int(values.size),
        sum=float(values.sum()), sum_squares=float(values @ values),
        bucket_limit=limits.tolist(), bucket=counts.astype(np.float64).tolist()))])


def text(tag, string):
    """A text-plugin summary (shown in TensorBoard's Text tab, markdown rendered)."""
    meta = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name="text"))
    tensor = TensorProto(dtype="DT_STRING", string_val=[string.encode("utf-8")],
                         tensor_shape=TensorShapeProto(dim=[TensorShapeProto.Dim(size=1)]))
    return Summary(value=[Summary.Value(tag=tag + "/text_summary", metadata=meta, tensor=tensor)])


def _hp_value(v):
    if isinstance(v, bool):
        return struct_pb2.Value(bool_value=v), api_pb2.DATA_TYPE_BOOL
    if isinstance(v, numbers.Number):
        return struct_pb2.Value(number_value=float(v)), api_pb2.DATA_TYPE_FLOAT64
    if isinstance(v, str):
        return struct_pb2.Value(string_value=v), api_pb2.DATA_TYPE_STRING
    if hasattr(v, "numel") and v.numel() == 1:
        return _hp_value(v.item())
    raise ValueError("value should be one of int, float, str, bool, or torch.Tensor")


def _hp_summary(tag, plugin_data):
    return Summary(value=[Summary.Value(
        tag=tag, metadata=hp_metadata.create_summary_metadata(plugin_data))])


def hparams(hparam_dict, metric_dict, hparam_domain_discrete=None):
    """The experiment, session-start and session-end summaries of the HParams plugin."""
    domains = hparam_domain_discrete or {}
    infos, start = [], plugin_data_pb2.SessionStartInfo()
    for name, v in hparam_dict.items():
        value, dtype = _hp_value(v)
        start.hparams[name].CopyFrom(value)
        info = api_pb2.HParamInfo(name=name, type=dtype)
        if name in domains:
            info.domain_discrete.extend([_hp_value(d)[0] for d in domains[name]])
        infos.append(info)
    metrics = [api_pb2.MetricInfo(name=api_pb2.MetricName(tag=k)) for k in metric_dict]
    exp = api_pb2.Experiment(hparam_infos=infos, metric_infos=metrics)
    end = plugin_data_pb2.SessionEndInfo(status=api_pb2.STATUS_SUCCESS)
    return (_hp_summary(hp_metadata.EXPERIMENT_TAG, plugin_data_pb2.HParamsPluginData(experiment=exp)),
            _hp_summary(hp_metadata.SESSION_START_INFO_TAG,
                        plugin_data_pb2.HParamsPluginData(session_start_info=start)),
            _hp_summary(hp_metadata.SESSION_END_INFO_TAG,
                        plugin_data_pb2.HParamsPluginData(session_end_info=end)))


def valid_bins(bins):
    return (isinstance(bins, str) and (bins == "tensorflow" or bins in _NUMPY_BIN_NAMES)) or \
        not isinstance(bins, str)
