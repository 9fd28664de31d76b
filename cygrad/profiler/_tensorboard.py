"""``tensorboard_trace_handler``: save each recording where TensorBoard's profiler
plugin (and Perfetto) can open it."""
import os
import socket
import time

__all__ = ["tensorboard_trace_handler"]


def tensorboard_trace_handler(dir_name, worker_name=None, use_gzip=False):
    """An ``on_trace_ready`` callback that writes each recording to
    ``dir_name/{worker_name}.{time_ns}.pt.trace.json`` (``.gz`` with ``use_gzip``).

    ``worker_name`` defaults to ``{hostname}_{pid}``, as in PyTorch.

    Examples
    --------
    >>> import cygrad, os, tempfile
    >>> from cygrad.profiler import profile, tensorboard_trace_handler
    >>> logdir = tempfile.mkdtemp()
    >>> with profile(on_trace_ready=tensorboard_trace_handler(logdir, "w0")):
    ...     y = cygrad.ones(2).exp()
    >>> [f.split(".")[0] for f in os.listdir(logdir)], os.listdir(logdir)[0].endswith(".pt.trace.json")
    (['w0'], True)
    """
    def handler_fn(prof):
        os.makedirs(dir_name, exist_ok=True)
        name = worker_name or f"{socket.gethostname()}_{os.getpid()}"
        file_name = f"{name}.{time.time_ns()}.pt.trace.json" + (".gz" if use_gzip else "")
        prof.export_chrome_trace(os.path.join(dir_name, file_name))
    return handler_fn
