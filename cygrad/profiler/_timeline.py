"""``plot_timeline``: a picture of a recording on a time axis, like Figure 1 of
the PyTorch paper: the host's ops (nested by depth) above, device work below."""

__all__ = ["plot_timeline"]

_COLORS = {"cpu_op": "#4c78a8", "backward": "#f58518", "user_annotation": "#54a24b",
           "kernel": "#b279a2"}


def _kind(ev):
    if ev.cat == "user_annotation":
        return "user_annotation"
    if ev.name.endswith("Backward0") or ev.name.endswith("Backward") or ev.name == "AccumulateGrad":
        return "backward"
    return "cpu_op"


def plot_timeline(prof, path=None, max_depth=4, start_us=None, end_us=None, title=None):
    """Draw the last recording of ``prof`` (a ``profile`` or an ``EventList``).

    Each host thread gets a band whose rows are nesting depths (regions and ops
    at the top, the ops they call below); backward nodes, ops and
    ``record_function`` regions have their own colours. Device work, when a device
    backend reports it, gets a band of its own under the host's. Needs matplotlib
    (``pip install cygrad[docs]``).

    Parameters
    ----------
    prof : profile or EventList
    path : str, optional
        Where to save the figure (format from the extension); without it the
        figure is only returned.
    max_depth : int
        Deepest nesting level drawn.
    start_us, end_us : float, optional
        The window to draw, in microseconds since the recording began.
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import cygrad, os, tempfile
    >>> from cygrad.profiler import profile, plot_timeline
    >>> with profile() as prof:
    ...     y = (cygrad.randn(4, 4, requires_grad=True) * 2).sum()
    ...     y.backward()
    >>> fig = plot_timeline(prof, os.path.join(tempfile.mkdtemp(), "t.png"))  # doctest: +SKIP
    """
    try:
        import matplotlib
        matplotlib.use("Agg") if path is not None and matplotlib.get_backend() == "" else None
        import matplotlib.pyplot as plt
        from matplotlib.patches import Patch
    except ImportError as e:          # pragma: no cover - depends on the environment
        raise ImportError("plot_timeline needs matplotlib: pip install cygrad[docs]") from e
    events = prof.events() if hasattr(prof, "events") else prof
    base = events._base_ns
    spans = [e for e in events if e._depth <= max_depth]
    if not spans and not events.device_events:
        raise ValueError("plot_timeline: the recording has no events")
    lo = start_us if start_us is not None else min(
        [(e.start_ns - base) / 1e3 for e in spans] + [(d.start_ns - base) / 1e3
                                                      for d in events.device_events])
    hi = end_us if end_us is not None else max(
        [(e.end_ns - base) / 1e3 for e in spans] + [(d.end_ns - base) / 1e3
                                                    for d in events.device_events])

    threads = []
    for e in spans:
        if e.thread not in threads:
            threads.append(e.thread)
    bands = []              # (label, [(start, width, row, colour, name)])
    for i, th in enumerate(threads):
        items = []
        for e in spans:
            if e.thread != th:
                continue
            s, w = (e.start_ns - base) / 1e3, (e.end_ns - e.start_ns) / 1e3
            if s + w < lo or s > hi:
                continue
            items.append((s, w, e._depth, _COLORS[_kind(e)], e.name))
        bands.append((f"host thread {i + 1}", items, max_depth + 1))
    streams = sorted({(d.device, d.stream) for d in events.device_events})
    for dev, stream in streams:
        items = [((d.start_ns - base) / 1e3, (d.end_ns - d.start_ns) / 1e3, 0,
                  _COLORS["kernel"], d.name)
                 for d in events.device_events if (d.device, d.stream) == (dev, stream)]
        bands.append((f"device {dev} stream {stream}", items, 1))

    nrows = sum(depth for _, _, depth in bands) + len(bands) - 1
    fig, ax = plt.subplots(figsize=(14, 1.0 + 0.42 * nrows))
    span_us = max(hi - lo, 1e-3)
    y = 0
    yticks, ylabels = [], []
    for label, items, depth in bands:
        for s, w, row, colour, name in items:
            top = y + row
            ax.broken_barh([(s, w)], (top + 0.05, 0.9), facecolors=colour,
                           edgecolors="white", linewidth=0.4)
            if w > span_us / 70:
                text = name if len(name) * span_us / 180 < w else name[:max(1, int(w * 180 / span_us)) - 1] + "…"
                ax.text(s + w / 2, top + 0.5, text, ha="center", va="center", fontsize=6.5,
                        color="white", clip_on=True)
        yticks.append(y + depth / 2)
        ylabels.append(label)
        y += depth + 1
    ax.set_ylim(y - 1, -0.2)
    ax.set_xlim(lo, hi)
    ax.set_yticks(yticks)
    ax.set_yticklabels(ylabels)
    ax.set_xlabel("time since the recording began (µs)")
    ax.set_title(title or "cygrad.profiler timeline (rows: nesting depth)")
    handles = [Patch(color=_COLORS["user_annotation"], label="record_function / step"),
               Patch(color=_COLORS["cpu_op"], label="op (forward)"),
               Patch(color=_COLORS["backward"], label="backward node")]
    if streams:
        handles.append(Patch(color=_COLORS["kernel"], label="device work"))
    ax.legend(handles=handles, loc="upper right", fontsize=7, ncol=len(handles))
    ax.spines[["top", "right"]].set_visible(False)
    fig.tight_layout()
    if path is not None:
        fig.savefig(path, dpi=150)
    return fig
