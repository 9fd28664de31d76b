"""``SummaryWriter``: TensorBoard event files from a training loop, with PyTorch's API.

Examples
--------
>>> import tempfile
>>> from cygrad.utils.tensorboard import SummaryWriter
>>> w = SummaryWriter(tempfile.mkdtemp(), comment="demo")
>>> w.add_scalar("loss", 1.0, 0)
>>> w.close()
"""
import os
import socket
import time
from datetime import datetime

from tensorboard.compat.proto.event_pb2 import Event, SessionLog
from tensorboard.summary.writer.event_file_writer import EventFileWriter

from . import _summaries

__all__ = ["SummaryWriter"]


class SummaryWriter:
    """Writes scalars, histograms, text and hyperparameters to event files under
    ``log_dir`` for TensorBoard (``torch.utils.tensorboard.SummaryWriter``).

    Parameters
    ----------
    log_dir : str, optional
        Where to write; default ``runs/<Mon DD_HH-MM-SS>_<hostname><comment>``.
    comment : str
        Appended to the default ``log_dir`` (ignored when ``log_dir`` is given).
    purge_step : int, optional
        Tell TensorBoard to drop events at or after this step logged by an earlier
        run that crashed (so a resumed run does not overlap it).
    max_queue : int
        Events held in memory before a write to disk.
    flush_secs : int
        Seconds between automatic flushes.
    filename_suffix : str
        Appended to the event file's name.

    Examples
    --------
    >>> import tempfile, cygrad
    >>> from cygrad.utils.tensorboard import SummaryWriter
    >>> with SummaryWriter(tempfile.mkdtemp()) as writer:
    ...     for step in range(3):
    ...         writer.add_scalar("loss", 1.0 / (step + 1), step)
    ...     writer.add_histogram("weights", cygrad.randn(100), 2)
    """

    def __init__(self, log_dir=None, comment="", purge_step=None, max_queue=10, flush_secs=120,
                 filename_suffix=""):
        if not log_dir:
            stamp = datetime.now().strftime("%b%d_%H-%M-%S")
            log_dir = os.path.join("runs", f"{stamp}_{socket.gethostname()}{comment}")
        self.log_dir = str(log_dir)
        self.purge_step = purge_step
        self.max_queue = max_queue
        self.flush_secs = flush_secs
        self.filename_suffix = filename_suffix
        self._writers = {}
        self._file_writer()

    # ---- writers
    def _file_writer(self, log_dir=None):
        """The event-file writer of ``log_dir`` (this writer's own by default), opened
        on first use; the purge marker goes first into each new file."""
        log_dir = self.log_dir if log_dir is None else log_dir
        if self._writers is None:
            raise RuntimeError("SummaryWriter is closed")
        writer = self._writers.get(log_dir)
        if writer is None:
            writer = EventFileWriter(log_dir, self.max_queue, self.flush_secs,
                                     self.filename_suffix)
            if self.purge_step is not None:
                writer.add_event(Event(step=self.purge_step, wall_time=time.time(),
                                       file_version="brain.Event:2"))
                writer.add_event(Event(step=self.purge_step, wall_time=time.time(),
                                       session_log=SessionLog(status=SessionLog.START)))
            self._writers[log_dir] = writer
        return writer

    def _write(self, summary, global_step, walltime, log_dir=None):
        event = Event(summary=summary, wall_time=time.time() if walltime is None else walltime)
        if global_step is not None:
            event.step = int(global_step)
        self._file_writer(log_dir).add_event(event)

    def get_logdir(self):
        """The directory event files are written to."""
        return self.log_dir

    # ---- values
    def add_scalar(self, tag, scalar_value, global_step=None, walltime=None, new_style=False,
                   double_precision=False):
        """Log one number (a Python number or a one-element tensor/array) under ``tag``.

        Examples
        --------
        >>> import tempfile
        >>> from cygrad.utils.tensorboard import SummaryWriter
        >>> with SummaryWriter(tempfile.mkdtemp()) as w:
        ...     w.add_scalar("accuracy", 0.9, global_step=10)
        """
        self._write(_summaries.scalar(tag, scalar_value), global_step, walltime)

    def add_scalars(self, main_tag, tag_scalar_dict, global_step=None, walltime=None):
        """Log several numbers drawn on one chart: each goes to its own run
        ``<log_dir>/<main_tag>_<key>`` under the tag ``main_tag``.

        Examples
        --------
        >>> import tempfile
        >>> from cygrad.utils.tensorboard import SummaryWriter
        >>> with SummaryWriter(tempfile.mkdtemp()) as w:
        ...     w.add_scalars("loss", {"train": 0.3, "test": 0.4}, 1)
        """
        walltime = time.time() if walltime is None else walltime
        for key, value in tag_scalar_dict.items():
            run = os.path.join(self.log_dir, f"{main_tag.replace('/', '_')}_{key}")
            self._write(_summaries.scalar(main_tag, value), global_step, walltime, run)

    def add_histogram(self, tag, values, global_step=None, bins="tensorflow", walltime=None,
                      max_bins=None):
        """Log the distribution of ``values`` (a tensor or array). ``bins`` is
        'tensorflow' (TensorFlow's default exponential edges), a NumPy rule such as
        'auto' or 'fd', a number of bins, or explicit edges.

        Examples
        --------
        >>> import tempfile, cygrad
        >>> from cygrad.utils.tensorboard import SummaryWriter
        >>> with SummaryWriter(tempfile.mkdtemp()) as w:
        ...     w.add_histogram("w", cygrad.randn(1000), 0, bins="auto")
        """
        if not _summaries.valid_bins(bins):
            raise ValueError(f"bins must be 'tensorflow', one of NumPy's bin rules "
                             f"{_summaries._NUMPY_BIN_NAMES}, a count or edges; got {bins!r}")
        self._write(_summaries.histogram(tag, values, bins, max_bins), global_step, walltime)

    def add_text(self, tag, text_string, global_step=None, walltime=None):
        """Log a (markdown) string shown in TensorBoard's Text tab.

        Examples
        --------
        >>> import tempfile
        >>> from cygrad.utils.tensorboard import SummaryWriter
        >>> with SummaryWriter(tempfile.mkdtemp()) as w:
        ...     w.add_text("notes", "lr **0.1**", 0)
        """
        self._write(_summaries.text(tag, text_string), global_step, walltime)

    def add_hparams(self, hparam_dict, metric_dict, hparam_domain_discrete=None, run_name=None,
                    global_step=None):
        """Log one run's hyperparameters and final metrics for the HParams tab, in the
        sub-run ``<log_dir>/<run_name>`` (default: the current time).

        Examples
        --------
        >>> import tempfile
        >>> from cygrad.utils.tensorboard import SummaryWriter
        >>> with SummaryWriter(tempfile.mkdtemp()) as w:
        ...     w.add_hparams({"lr": 0.1, "opt": "sgd"}, {"hparam/accuracy": 0.9})
        """
        if not isinstance(hparam_dict, dict) or not isinstance(metric_dict, dict):
            raise TypeError("hparam_dict and metric_dict should be dictionary.")
        run = os.path.join(self.log_dir, run_name or str(time.time()))
        for summary in _summaries.hparams(hparam_dict, metric_dict, hparam_domain_discrete):
            self._write(summary, None, None, run)
        for key, value in metric_dict.items():
            self._write(_summaries.scalar(key, value), global_step, None, run)

    # ---- lifetime
    def flush(self):
        """Write pending events of every run to disk."""
        for writer in (self._writers or {}).values():
            writer.flush()

    def close(self):
        """Flush and close every event file; further logging raises RuntimeError."""
        if self._writers is None:
            return
        for writer in self._writers.values():
            writer.flush()
            writer.close()
        self._writers = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
