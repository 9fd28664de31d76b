"""Joining and shaping ops (``cygrad/ops/shape.py``) beyond the op table: the
list-taking ops against PyTorch (dtype promotion, legacy empty tensors, out=,
error types and messages), copies vs views, pad modes, broadcasting helpers."""
import numpy as np
import pytest

import cygrad
from cygrad.ops import shape as shape_ops

torch = pytest.importorskip("torch", reason="PyTorch reference not installed")
F = pytest.importorskip("torch.nn.functional", reason="PyTorch reference not installed")

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
          "float64"]


def make(shape, dtype, seed=0):
    """(cygrad tensor, torch tensor) holding the same values."""
    r = np.random.default_rng(seed)
    vals = r.integers(0 if dtype in ("bool", "uint8") else -5, 2 if dtype == "bool" else 6, shape)
    arr = vals.astype(np.float32)
    c = cygrad.from_numpy(arr.copy()).to(getattr(cygrad, dtype))
    t = torch.from_numpy(arr.copy()).to(getattr(torch, dtype))
    return c, t


def same(c, t):
    """cygrad result equals torch's: dtype, shape, values."""
    assert c.dtype.name == str(t.dtype).replace("torch.", ""), (c.dtype, t.dtype)
    assert tuple(c.shape) == tuple(t.shape), (tuple(c.shape), tuple(t.shape))
    np.testing.assert_array_equal(c.to(cygrad.float64).numpy(), t.to(torch.float64).numpy())


def raises_like_torch(c_fn, t_fn, same_message=True):
    with pytest.raises(Exception) as t_err:
        t_fn()
    with pytest.raises(type(t_err.value)) as c_err:
        c_fn()
    if same_message:
        assert str(c_err.value) == str(t_err.value)


# ---------------------------------------------------------------------------
# cat / stack
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("d1,d2", [("int64", "float32"), ("bool", "int8"), ("uint8", "int8"),
                                   ("float16", "bfloat16"), ("int32", "float64"),
                                   ("bool", "bool"), ("float16", "int64")])
def test_cat_and_stack_promote_like_torch(d1, d2):
    a, ta = make((2, 3), d1, 1)
    b, tb = make((2, 3), d2, 2)
    same(cygrad.cat([a, b], 1), torch.cat([ta, tb], 1))
    same(cygrad.cat((a, b, a), 0), torch.cat((ta, tb, ta), 0))
    same(cygrad.stack([a, b], -1), torch.stack([ta, tb], -1))


def test_cat_skips_legacy_empty_vectors_like_torch():
    a, ta = make((2, 3), "int64")
    e, te = make((0,), "float64")
    same(cygrad.cat([a, e], 1), torch.cat([ta, te], 1))          # dtype still promoted
    same(cygrad.cat([e, a, e]), torch.cat([te, ta, te]))
    same(cygrad.cat([e, e], dim=1), torch.cat([te, te], dim=1))
    z, tz = make((0, 3), "int64")
    same(cygrad.cat([a, z]), torch.cat([ta, tz]))


def test_cat_noncontiguous_inputs():
    a = cygrad.arange(12).reshape(3, 4)
    ta = torch.arange(12).reshape(3, 4)
    same(cygrad.cat([a.t(), a[:, ::2].t()], 0), torch.cat([ta.t(), ta[:, ::2].t()], 0))
    same(cygrad.cat([a[::-1], a]), torch.cat([ta.flip(0), ta]))


def test_cat_result_owns_memory():
    a = cygrad.zeros(2)
    res = cygrad.cat([a, a])
    res.fill_(1.0)
    assert a.numpy().tolist() == [0.0, 0.0]


def test_cat_out():
    a, ta = make((2, 3), "int64")
    out = cygrad.empty(4, 3)
    v0 = out._version
    assert cygrad.cat([a, a], out=out) is out and out._version > v0
    same(out, torch.cat([ta, ta], out=torch.empty(4, 3)))
    f, tf = make((2, 3), "float32")
    raises_like_torch(lambda: cygrad.cat([f, f], out=cygrad.empty(4, 3, dtype=cygrad.int64)),
                      lambda: torch.cat([tf, tf], out=torch.empty(4, 3, dtype=torch.int64)))


@pytest.mark.parametrize("case", ["size", "ndim", "zero_dim", "dim_range", "empty_list",
                                  "tensor_arg", "stack_size", "stack_empty", "stack_dim"])
def test_join_errors_match_torch(case):
    c = {"a": cygrad.ones(2, 3), "b": cygrad.ones(3, 3), "v": cygrad.ones(3),
         "s": cygrad.ones(())}
    t = {"a": torch.ones(2, 3), "b": torch.ones(3, 3), "v": torch.ones(3), "s": torch.ones(())}
    calls = {
        "size": lambda m, x: m.cat([x["a"], x["b"]], dim=1),
        "ndim": lambda m, x: m.cat([x["a"], x["v"]]),
        "zero_dim": lambda m, x: m.cat([x["s"], x["s"]]),
        "dim_range": lambda m, x: m.cat([x["a"]], dim=2),
        "empty_list": lambda m, x: m.cat([]),
        "tensor_arg": lambda m, x: m.cat(x["a"]),
        "stack_size": lambda m, x: m.stack([x["a"], x["b"]]),
        "stack_empty": lambda m, x: m.stack([]),
        "stack_dim": lambda m, x: m.stack([x["a"], x["a"]], dim=3),
    }
    # the TypeError text names the argument differently; type equality is what counts there
    raises_like_torch(lambda: calls[case](cygrad, c), lambda: calls[case](torch, t),
                      same_message=case != "tensor_arg")


@pytest.mark.parametrize("name", ["hstack", "vstack", "dstack", "column_stack", "row_stack"])
@pytest.mark.parametrize("shapes", [[(), ()], [(3,), (3,)], [(2, 3), (2, 3)], [(3,), (3, 1)],
                                    [(2, 3, 2), (2, 3, 2)], [(2,), ()]], ids=str)
def test_stacking_helpers_match_torch(name, shapes):
    pairs = [make(s, "float32", i) for i, s in enumerate(shapes)]
    t_res = t_err = None
    try:
        t_res = getattr(torch, name)([p[1] for p in pairs])
    except RuntimeError as e:
        t_err = e
    if t_err is not None:
        with pytest.raises(RuntimeError):
            getattr(cygrad, name)([p[0] for p in pairs])
    else:
        same(getattr(cygrad, name)([p[0] for p in pairs]), t_res)


# ---------------------------------------------------------------------------
# flip / roll / repeat / tril
# ---------------------------------------------------------------------------
def test_flip_is_a_copy():
    a = cygrad.arange(6).reshape(2, 3)
    f = cygrad.flip(a, (0, 1))
    f.fill_(0)
    assert a.numpy().tolist() == [[0, 1, 2], [3, 4, 5]]
    assert f.is_contiguous()


@pytest.mark.parametrize("fn,shape", [("fliplr", (3,)), ("flipud", ())])
def test_flip_rank_errors_match_torch(fn, shape):
    raises_like_torch(lambda: getattr(cygrad, fn)(cygrad.ones(shape)),
                      lambda: getattr(torch, fn)(torch.ones(shape)))


def test_flip_requires_a_dims_sequence_like_torch():
    raises_like_torch(lambda: cygrad.flip(cygrad.ones(2, 3), 0), lambda: torch.flip(torch.ones(2, 3), 0),
                      same_message=False)


@pytest.mark.parametrize("shifts,dims", [(1, None), (-7, None), ((1, 2), (0, 1)), (3, 1),
                                         ((1, 1), (1, 1)), (0, 0)], ids=str)
def test_roll_matches_torch_on_views(shifts, dims):
    base, tbase = make((4, 6), "int64")
    c, t = base[:, ::2], tbase[:, ::2]
    same(cygrad.roll(c, shifts, dims), torch.roll(t, shifts, dims))
    same(cygrad.roll(c.t(), shifts, dims), torch.roll(t.t(), shifts, dims))


def test_roll_empty():
    same(cygrad.roll(cygrad.ones(0, 3), 1, 0), torch.roll(torch.ones(0, 3), 1, 0))
    same(cygrad.roll(cygrad.ones(0), 2), torch.roll(torch.ones(0), 2))


@pytest.mark.parametrize("reps", [(2, 3), (1, 2, 1), (0, 2), (3, 1, 1, 1)], ids=str)
def test_repeat_matches_torch_on_views(reps):
    base, tbase = make((3, 4), "float32")
    same(base.t().repeat(*reps), tbase.t().repeat(*reps))
    same(base[::2].repeat(reps), tbase[::2].repeat(reps))


def test_repeat_errors_match_torch():
    raises_like_torch(lambda: cygrad.ones(2, 3).repeat(2), lambda: torch.ones(2, 3).repeat(2))
    raises_like_torch(lambda: cygrad.ones(2, 3).repeat(-1, 2), lambda: torch.ones(2, 3).repeat(-1, 2))


def test_tile_requires_a_sequence_like_torch():
    raises_like_torch(lambda: cygrad.tile(cygrad.ones(2), 2), lambda: torch.tile(torch.ones(2), 2),
                      same_message=False)


def test_repeat_interleave_forms_match_torch():
    c, t = make((2, 3), "int32")
    same(cygrad.repeat_interleave(c, 2), torch.repeat_interleave(t, 2))
    same(c.repeat_interleave(cygrad.tensor([1, 0, 2]), dim=1),
         t.repeat_interleave(torch.tensor([1, 0, 2]), dim=1))
    same(cygrad.repeat_interleave(cygrad.tensor([2, 0, 1])),
         torch.repeat_interleave(torch.tensor([2, 0, 1])))
    same(cygrad.repeat_interleave(cygrad.full((), 4.0), 3),
         torch.repeat_interleave(torch.tensor(4.0), 3))
    same(cygrad.repeat_interleave(c, 2, dim=0, output_size=4),
         torch.repeat_interleave(t, 2, dim=0, output_size=4))
    raises_like_torch(lambda: cygrad.repeat_interleave(c, 2, dim=0, output_size=5),
                      lambda: torch.repeat_interleave(t, 2, dim=0, output_size=5))
    raises_like_torch(lambda: cygrad.repeat_interleave(c, -1, dim=0),
                      lambda: torch.repeat_interleave(t, -1, dim=0))
    raises_like_torch(lambda: cygrad.repeat_interleave(c, cygrad.tensor([[1, 2]]), dim=0),
                      lambda: torch.repeat_interleave(t, torch.tensor([[1, 2]]), dim=0))


def test_tril_triu_keep_inf_and_nan_in_kept_part():
    vals = np.array([[np.inf, np.nan, 1.0], [2.0, -np.inf, np.nan]], dtype=np.float32)
    c, t = cygrad.from_numpy(vals.copy()), torch.from_numpy(vals.copy())
    for k in (-1, 0, 1):
        np.testing.assert_array_equal(cygrad.tril(c, k).numpy(), torch.tril(t, k).numpy())
        np.testing.assert_array_equal(cygrad.triu(c, k).numpy(), torch.triu(t, k).numpy())


def test_tril_inplace_on_a_view_touches_only_the_view():
    base = cygrad.ones(4, 6)
    view = base[:, ::2]
    v0 = base._version
    assert view.tril_() is view
    expected = np.ones((4, 6), np.float32)
    expected[:, ::2] = np.tril(np.ones((4, 3)))
    np.testing.assert_array_equal(base.numpy(), expected)
    assert base._version == v0 + 1


def test_tril_errors_match_torch():
    raises_like_torch(lambda: cygrad.tril(cygrad.ones(3)), lambda: torch.tril(torch.ones(3)))
    raises_like_torch(lambda: cygrad.triu(cygrad.ones(2, 2), out=cygrad.empty(2, 2, dtype=cygrad.int64)),
                      lambda: torch.triu(torch.ones(2, 2), out=torch.empty(2, 2, dtype=torch.int64)))


# ---------------------------------------------------------------------------
# pad
# ---------------------------------------------------------------------------
PAD_CASES = [
    ((2, 3), (1, 2), "constant", None), ((2, 3), (1, 0, 0, 2), "constant", 3.5),
    ((2, 3), (-1, 1), "constant", None), ((2, 3), (0, 0, -1, -1), "constant", None),
    ((2, 3), (-1, -2), "constant", None), ((2, 3, 4), (1, 1, 1, 1, 1, 1), "constant", -1.0),
    ((1, 2, 4), (3, 2), "reflect", None), ((2, 3, 4), (1, 2, 2, 1), "reflect", None),
    ((1, 2, 3), (3, 3), "replicate", None), ((1, 2, 3, 3), (1, 2, 0, 1), "replicate", None),
    ((1, 2, 3), (3, 2), "circular", None), ((1, 1, 3, 3), (1, 1, 2, 2), "circular", None),
    ((1, 2, 3), (-1, 1), "replicate", None), ((1, 2, 3), (-1, 1), "circular", None),
    ((1, 2, 3), (3, 3), "reflect", None), ((1, 2, 3), (4, 3), "circular", None),
    ((2, 3), (1, 1), "reflect", 2.0), ((2, 3), (1, 1, 1, 1), "replicate", None),
    ((2, 3), (1,), "constant", None), ((2, 3), (1,) * 6, "constant", None),
    ((2, 3), (-2, -2), "constant", None),
]


@pytest.mark.parametrize("shape,amounts,mode,value", PAD_CASES, ids=str)
def test_pad_matches_torch(shape, amounts, mode, value):
    c, t = make(shape, "float32")
    kwargs = {} if value is None else {"value": value}
    try:
        expected = F.pad(t, amounts, mode=mode, **kwargs)
    except Exception as e:              # noqa: BLE001 - the type is compared
        with pytest.raises(type(e)):
            shape_ops.pad(c, amounts, mode=mode, **kwargs)
        return
    same(shape_ops.pad(c, amounts, mode=mode, **kwargs), expected)


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int64", "bfloat16"])
def test_pad_constant_dtypes(dtype):
    c, t = make((2, 3), dtype)
    value = True if dtype == "bool" else 2
    same(shape_ops.pad(c, (1, 1, 1, 0), value=value), F.pad(t, (1, 1, 1, 0), value=value))


def test_pad_unknown_mode():
    with pytest.raises(NotImplementedError):
        shape_ops.pad(cygrad.ones(2, 3), (1, 1), mode="nope")


# ---------------------------------------------------------------------------
# broadcasting, atleast, meshgrid
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("shapes", [[(2, 1), (3,)], [2, (3, 1)], [(), (2,)], [], [(0,), (1,)],
                                    [(5, 1, 3), (4, 1), ()]], ids=str)
def test_broadcast_shapes_match_torch(shapes):
    res = cygrad.broadcast_shapes(*shapes)
    assert isinstance(res, cygrad.Size)
    assert tuple(res) == tuple(torch.broadcast_shapes(*shapes))


@pytest.mark.parametrize("shapes", [[(2,), (3,)], [(2, -1), (3,)], [(2, 3), (3, 3)]], ids=str)
def test_broadcast_shapes_errors_match_torch(shapes):
    raises_like_torch(lambda: cygrad.broadcast_shapes(*shapes), lambda: torch.broadcast_shapes(*shapes))


def test_broadcast_tensors_are_views():
    a, b = cygrad.zeros(2, 1), cygrad.zeros(3)
    x, y = cygrad.broadcast_tensors(a, b)
    assert x.shape == (2, 3) and y.stride() == (0, 1)
    assert x.data_ptr() == a.data_ptr()
    raises_like_torch(lambda: cygrad.broadcast_tensors(cygrad.ones(2), cygrad.ones(3)),
                      lambda: torch.broadcast_tensors(torch.ones(2), torch.ones(3)))


def test_broadcast_tensors_of_zero_dim_tensors():
    x, y = cygrad.broadcast_tensors(cygrad.tensor(1.0), cygrad.tensor(2.0))
    assert x.shape == y.shape == () and (x.item(), y.item()) == (1.0, 2.0)


def test_atleast_forms():
    s = cygrad.full((), 1.0)
    assert cygrad.atleast_1d(s).shape == (1,)
    a, b = cygrad.atleast_2d(s, cygrad.ones(3))
    assert a.shape == (1, 1) and b.shape == (1, 3)
    res = cygrad.atleast_3d([cygrad.ones(3), cygrad.ones(2, 3)])
    assert isinstance(res, tuple) and [r.shape for r in res] == [(1, 3, 1), (2, 3, 1)]


def test_meshgrid_default_is_ij_and_outputs_are_views():
    x, y = cygrad.arange(2), cygrad.arange(3)
    gx, gy = cygrad.meshgrid(x, y)
    tx, ty = torch.meshgrid(torch.arange(2), torch.arange(3), indexing="ij")
    same(gx, tx)
    same(gy, ty)
    assert gx.stride() == (1, 0) and gx.data_ptr() == x.data_ptr()
    gx, gy = cygrad.meshgrid([x, y], indexing="xy")
    tx, ty = torch.meshgrid([torch.arange(2), torch.arange(3)], indexing="xy")
    same(gx, tx)
    same(gy, ty)


@pytest.mark.parametrize("case", ["indexing", "dtype", "rank"])
def test_meshgrid_errors_match_torch(case):
    if case == "indexing":
        raises_like_torch(lambda: cygrad.meshgrid(cygrad.ones(2), indexing="ji"),
                          lambda: torch.meshgrid(torch.ones(2), indexing="ji"))
    elif case == "dtype":
        raises_like_torch(lambda: cygrad.meshgrid(cygrad.ones(2), cygrad.ones(2, dtype=cygrad.float64),
                                                  indexing="ij"),
                          lambda: torch.meshgrid(torch.ones(2), torch.ones(2, dtype=torch.float64),
                                                 indexing="ij"))
    else:
        raises_like_torch(lambda: cygrad.meshgrid(cygrad.ones(2, 2), indexing="ij"),
                          lambda: torch.meshgrid(torch.ones(2, 2), indexing="ij"), same_message=False)


# ---------------------------------------------------------------------------
# function forms of the views
# ---------------------------------------------------------------------------
def test_function_forms_are_views_of_the_input():
    a = cygrad.arange(24).reshape(2, 3, 4)
    views = [cygrad.reshape(a, (6, 4)), cygrad.transpose(a, 0, 2), cygrad.permute(a, (2, 0, 1)),
             cygrad.unsqueeze(a, 1), cygrad.squeeze(cygrad.unsqueeze(a, 0)), cygrad.flatten(a),
             cygrad.unflatten(a, 2, (2, 2)), cygrad.movedim(a, 0, 2), cygrad.moveaxis(a, 0, 1),
             cygrad.narrow(a, 2, 1, 2), cygrad.select(a, 1, 0), cygrad.diagonal(a, 0, 1, 2),
             cygrad.as_strided(a, (2, 2), (1, 1)), cygrad.swapaxes(a, 0, 1), cygrad.swapdims(a, 0, 1),
             cygrad.t(a[0]), cygrad.broadcast_to(a[0, 0], (3, 4)), cygrad.ravel(a)]
    views += list(cygrad.unbind(a, 1)) + list(cygrad.split(a, 2, 2)) + list(cygrad.chunk(a, 2))
    views += list(cygrad.tensor_split(a, 3, 2)) + list(cygrad.hsplit(a, 3))
    v0 = a._version
    for v in views:
        v.fill_(-1)
    assert a._version > v0
    assert (a.numpy() == -1).any()
    for v in views:
        assert (v.numpy() == -1).all()
    c = cygrad.clone(a)
    c.fill_(7)
    assert not (a.numpy() == 7).any()


@pytest.mark.parametrize("name,arg", [("tensor_split", 3), ("tensor_split", [1, 5]),
                                      ("tensor_split", cygrad.tensor([2, 3])), ("hsplit", 2),
                                      ("hsplit", [1, 3]), ("vsplit", 2), ("dsplit", [1])], ids=str)
def test_splits_match_torch(name, arg):
    c, t = make((4, 4, 2), "int64")
    targ = torch.tensor(arg.tolist()) if isinstance(arg, cygrad.Tensor) else arg
    res, exp = getattr(cygrad, name)(c, arg), getattr(torch, name)(t, targ)
    assert len(res) == len(exp)
    for r, e in zip(res, exp):
        same(r, e)


@pytest.mark.parametrize("name,shape,arg", [("hsplit", (4, 3), 2), ("hsplit", (), 2),
                                            ("vsplit", (4,), 2), ("dsplit", (4, 4), 2)], ids=str)
def test_split_errors_match_torch(name, shape, arg):
    raises_like_torch(lambda: getattr(cygrad, name)(cygrad.ones(shape), arg),
                      lambda: getattr(torch, name)(torch.ones(shape), arg))


@pytest.mark.parametrize("k,dims", [(1, (0, 1)), (2, (1, 0)), (-1, (1, 2)), (5, (0, 2))], ids=str)
def test_rot90_matches_torch(k, dims):
    c, t = make((2, 3, 4), "int16")
    same(cygrad.rot90(c, k, dims), torch.rot90(t, k, dims))


@pytest.mark.parametrize("dims", [(0, 0), (0, 1, 2)], ids=str)
def test_rot90_errors_match_torch(dims):
    raises_like_torch(lambda: cygrad.rot90(cygrad.ones(2, 3), 1, dims),
                      lambda: torch.rot90(torch.ones(2, 3), 1, dims))
