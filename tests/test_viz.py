"""cygrad.viz: the pictures' numbers checked against independent references
(NumPy's as_strided and byte_bounds, np.broadcast_shapes, PyTorch's messages,
the engine's real execution order seen through hooks)."""
import numpy as np
import pytest

import cygrad

matplotlib = pytest.importorskip("matplotlib", reason="cygrad.viz draws with matplotlib "
                                 "(the test extra installs it)")
matplotlib.use("Agg")

try:
    from numpy.lib.array_utils import byte_bounds
except ImportError:                 # NumPy < 2
    byte_bounds = np.byte_bounds


# ---------------------------------------------------------------------------- strides

def _views():
    x = cygrad.arange(24.0)
    return {
        "contiguous 2-d": x.view(4, 6),
        "transpose": x.view(4, 6).t(),
        "slice with steps": x.view(4, 6)[1:, ::2],
        "stride-0 expand": cygrad.arange(3.0).view(3, 1).expand(3, 4),
        "new leading dim": cygrad.arange(3.0).expand(2, 3),
        "negative stride 1-d": x[::-1],
        "negative stride 2-d": x.view(4, 6)[::-2, 1::3],
        "0-d": x[5],
        "1-d": x[3:9],
        "3-d permuted": x.view(2, 3, 4).permute(2, 0, 1),
        "3-d sliced": x.view(2, 3, 4)[:, ::-1, 1:3],
        "empty": x[4:4],
    }


@pytest.mark.parametrize("name", list(_views()))
def test_strides_layout_matches_numpy_as_strided(name):
    t = _views()[name]
    lay = cygrad.viz.strides_layout(t)
    # Independent reference: a NumPy array whose element k holds k, viewed with the same
    # geometry (strides in bytes) by as_strided; every element is its own storage index.
    base = np.arange(lay.storage_size, dtype=np.int64)
    item = base.itemsize
    ref = np.lib.stride_tricks.as_strided(base[t.storage_offset():], tuple(t.shape),
                                          tuple(s * item for s in t.stride()))
    np.testing.assert_array_equal(lay.indices, ref)
    assert lay.indices.shape == tuple(t.shape)
    if ref.size:
        lo, hi = byte_bounds(ref)
        start = base.__array_interface__["data"][0]
        assert lay.touched[0] == (lo - start) // item
        assert lay.touched[-1] == (hi - start) // item - 1
    # the values cygrad reads are the storage values at those indices
    assert list(lay.view_values) == [lay.storage_values[k] for k in ref.ravel()]
    assert lay.contiguous == t.is_contiguous()


def test_strides_layout_known_facts():
    # hand-derived: x.view(2, 3)[:, ::-1] starts at the last element of row 0
    lay = cygrad.viz.strides_layout(cygrad.arange(6.0).view(2, 3)[:, ::-1])
    assert (lay.offset, lay.strides) == (2, (3, -1))
    assert lay.indices.tolist() == [[2, 1, 0], [5, 4, 3]]
    assert lay.caption() == ("shape (2, 3)   strides (3, -1)   offset 2   not contiguous   "
                             "storage: 6 x float32")
    e = cygrad.viz.strides_layout(cygrad.arange(3.0).view(3, 1).expand(3, 4))
    assert e.strides == (1, 0) and e.touched == (0, 1, 2)


@pytest.mark.parametrize("name", ["transpose", "negative stride 2-d", "0-d", "3-d sliced",
                                  "stride-0 expand", "empty"])
def test_strides_figure_labels_every_cell_with_its_storage_index(name, tmp_path):
    t = _views()[name]
    path = tmp_path / "s.png"
    fig = cygrad.viz.strides(t, path=path, name=name)
    texts = [x.get_text() for x in fig.axes[0].texts]
    labels = sorted(int(s[2:]) for s in texts if s.startswith("s="))
    lay = cygrad.viz.strides_layout(t)
    assert labels == sorted(lay.indices.ravel().tolist())
    assert lay.caption() in texts
    assert fig.axes[0].get_title() == name
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    if t.dim() >= 3:            # one panel per leading index
        assert "[0, :, :]" in texts and "[1, :, :]" in texts


def test_strides_saves_svg_and_refuses_unknown_extension(tmp_path):
    t = cygrad.arange(4.0)
    cygrad.viz.strides(t, path=tmp_path / "s.svg")
    assert b"<svg" in (tmp_path / "s.svg").read_bytes()[:400]
    with pytest.raises(ValueError, match="png"):
        cygrad.viz.strides(t, path=tmp_path / "s.bmp")


def test_strides_bad_input():
    with pytest.raises(TypeError, match="Tensor"):
        cygrad.viz.strides_layout(np.arange(3))
    with pytest.raises(ValueError, match="at most"):
        cygrad.viz.strides(cygrad.zeros(20, 20))


# -------------------------------------------------------------------------- broadcast

@pytest.mark.parametrize("a, b", [((3, 1), (4,)), ((2, 1, 3), (5, 1)), ((1,), (2, 3)),
                                  ((4, 5), (4, 5)), ((), (2,)), ((6, 1, 1), (1, 7, 1))])
def test_broadcast_layout_matches_numpy(a, b):
    lay = cygrad.viz.broadcast_layout(a, b)
    assert lay.result == np.broadcast_shapes(a, b)
    n = len(lay.result)
    for shape, padded, stretched, st in zip((a, b), lay.shapes, lay.stretched, lay.strides):
        assert tuple(s for s in padded if s is not None) == shape
        assert padded[n - len(shape):] == shape        # right-aligned
        # a dim is stretched exactly where NumPy's broadcast view reads with stride 0
        # but the operand did not already have stride 0 there (size 1 or missing)
        ref = np.broadcast_to(np.zeros(shape, dtype=np.int8), lay.result)
        for d in range(n):
            grows = padded[d] in (None, 1) and lay.result[d] != 1
            assert stretched[d] == grows
            if grows:
                assert ref.strides[d] == 0 and st[d] == 0


def test_broadcast_layout_strides_are_those_of_expand():
    a = cygrad.ones(2, 1, 3)
    b = cygrad.ones(6)[::2].view(1, 3)        # non-contiguous: its own strides are used
    lay = cygrad.viz.broadcast_layout(a, b)
    assert lay.strides[0] == a.expand(*lay.result).stride()
    assert lay.strides[1] == b.expand(*lay.result).stride()


def test_broadcast_error_is_pytorchs():
    torch = pytest.importorskip("torch", reason="compares the message with PyTorch's")
    with pytest.raises(RuntimeError) as ref:
        torch.ones(2, 3) + torch.ones(4)
    with pytest.raises(RuntimeError) as got:
        cygrad.viz.broadcast((2, 3), (4,))
    assert str(got.value) == str(ref.value)


def test_broadcast_figure(tmp_path):
    fig = cygrad.viz.broadcast(cygrad.ones(3, 1), (4,), path=tmp_path / "b.png",
                               names=("x", "y"))
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert "x" in texts and "y" in texts and "result" in texts
    assert texts.count("→4, stride 0") == 1 and texts.count("→3, stride 0") == 1
    assert "(1)" in texts                       # y has no dim 0
    assert (tmp_path / "b.png").stat().st_size > 1000
    with pytest.raises(TypeError, match="shape"):
        cygrad.viz.broadcast("ab", (2,))
