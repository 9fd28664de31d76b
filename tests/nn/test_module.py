"""nn.Module: registration, recursion, state_dict, conversion and printing, checked
against PyTorch's behaviour on the same model where torch is installed."""
import copy
import warnings

import numpy as np
import pytest

import cygrad
from cygrad import nn


def build(L):
    """The same nested model in cygrad (L=cygrad) or PyTorch (L=torch)."""
    lnn = L.nn

    class Block(lnn.Module):
        def __init__(self):
            super().__init__()
            self.proj = lnn.Linear(4, 3)
            self.register_buffer("running", L.zeros(3))
            self.register_buffer("scratch", L.zeros(2), persistent=False)
            self.scale = lnn.Parameter(L.ones(1))
            self.extra = lnn.Sequential(lnn.Flatten(), lnn.Identity())

        def forward(self, x):
            return self.proj(x) * self.scale

    class Net(lnn.Module):
        def __init__(self):
            super().__init__()
            self.embed = lnn.Linear(5, 4, bias=False)
            self.blocks = lnn.ModuleList([Block(), Block()])
            self.heads = lnn.ModuleDict({"b": lnn.Bilinear(3, 3, 2), "a": lnn.Unflatten(1, (1, 3))})
            self.register_parameter("unused", None)
            self.bias = lnn.Parameter(L.zeros(2))
            self.register_buffer("steps", L.zeros((), dtype=L.int64))

        def forward(self, x):
            h = self.embed(x)
            for block in self.blocks:
                h = block(h if h.shape[-1] == 4 else L.cat([h, h[..., :1]], -1))
            return self.heads["b"](h, h) + self.bias

    return Net()


def _names(pairs):
    return [(n, tuple(t.shape)) for n, t in pairs]


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


def test_traversal_matches_torch(torch):
    ours, theirs = build(cygrad), build(torch)
    assert _names(ours.named_parameters()) == _names(theirs.named_parameters())
    assert _names(ours.named_buffers()) == _names(theirs.named_buffers())
    assert [n for n, _ in ours.named_modules()] == [n for n, _ in theirs.named_modules()]
    assert [n for n, _ in ours.named_children()] == [n for n, _ in theirs.named_children()]
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert (_names(ours.named_parameters(prefix="m", recurse=False))
            == _names(theirs.named_parameters(prefix="m", recurse=False)))
    assert len(list(ours.parameters())) == len(list(theirs.parameters()))
    assert len(list(ours.modules())) == len(list(theirs.modules()))


def test_repr_matches_torch(torch):
    assert repr(build(cygrad)) == repr(build(torch))
    assert repr(nn.Module()) == repr(torch.nn.Module())


def test_forward_runs():
    out = build(cygrad)(cygrad.randn(6, 5))
    assert tuple(out.shape) == (6, 2)


def test_shared_members_come_once_unless_asked(torch):
    for L in (cygrad, torch):
        shared = L.nn.Linear(2, 2)
        seq = L.nn.Sequential(shared, L.nn.Identity(), shared)
        seq.tied = L.nn.Linear(1, 1)
        seq.tied.weight = shared.weight
        yield_once = [n for n, _ in seq.named_parameters()]
        yield_all = [n for n, _ in seq.named_parameters(remove_duplicate=False)]
        mods = [n for n, _ in seq.named_modules(remove_duplicate=False)]
        if L is cygrad:
            ours = (yield_once, yield_all, mods, [n for n, _ in seq.named_modules()])
        else:
            theirs = (yield_once, yield_all, mods, [n for n, _ in seq.named_modules()])
    assert ours == theirs
    assert ours[0] == ["0.weight", "0.bias", "tied.bias"]


def _error(fn):
    try:
        fn()
    except Exception as e:      # noqa: BLE001  (the type is what is compared)
        return type(e), str(e).replace("torch", "cygrad")
    return None


def _registration_cases(L):
    lnn = L.nn

    def fresh():
        m = lnn.Module()
        m.register_buffer("buf", L.zeros(1))
        m.attr = 3
        return m

    p = lnn.Parameter(L.ones(1))
    return [
        lambda: fresh().register_parameter(1, p),
        lambda: fresh().register_parameter("a.b", p),
        lambda: fresh().register_parameter("", p),
        lambda: fresh().register_parameter("attr", p),
        lambda: fresh().register_parameter("w", L.ones(1)),
        lambda: fresh().register_parameter("w", lnn.Parameter(L.ones(1)) * 2),
        lambda: fresh().register_buffer(2, None),
        lambda: fresh().register_buffer("a.b", None),
        lambda: fresh().register_buffer("", None),
        lambda: fresh().register_buffer("attr", None),
        lambda: fresh().register_buffer("b2", [1.0]),
        lambda: fresh().add_module("x", 3),
        lambda: fresh().add_module(1, lnn.Identity()),
        lambda: fresh().add_module("a.b", lnn.Identity()),
        lambda: fresh().add_module("", lnn.Identity()),
        lambda: fresh().add_module("buf", lnn.Identity()),
        lambda: setattr(lnn.Linear(1, 1), "weight", L.ones(1, 1)),
        lambda: setattr(lnn.Sequential(lnn.Identity()), "0", 5),
        lambda: setattr(fresh(), "buf", 5),
        lambda: getattr(lnn.Linear(1, 1), "nope"),
        lambda: lnn.Module(3),
        lambda: lnn.Module(x=3),
        lambda: lnn.Module()(1),
        lambda: lnn.Linear(1, 1).train("yes"),
    ]


def test_registration_errors_match_torch(torch):
    ours = [_error(f) for f in _registration_cases(cygrad)]
    theirs = [_error(f) for f in _registration_cases(torch)]
    for i, (a, b) in enumerate(zip(ours, theirs)):
        assert a is not None and b is not None, i
        assert a[0].__name__ == b[0].__name__, (i, a, b)
        assert a[1] == b[1], (i, a, b)


def test_lookup_errors_match_torch(torch):
    def cases(L):
        m = build(L)
        return [lambda: m.get_submodule("blocks.5"), lambda: m.get_submodule("bias.x"),
                lambda: m.get_parameter("blocks.0.nope"), lambda: m.get_parameter("blocks.0.proj"),
                lambda: m.get_buffer("blocks.0.scale"), lambda: m.get_buffer("blocks.0.zz")]
    for a, b in zip([_error(f) for f in cases(cygrad)], [_error(f) for f in cases(torch)]):
        assert a[0].__name__ == b[0].__name__ and a[1] == b[1]


def test_get_submodule_parameter_buffer():
    m = build(cygrad)
    assert m.get_submodule("") is m
    assert m.get_submodule("blocks.1.proj") is m.blocks[1].proj
    assert m.get_parameter("blocks.1.scale") is m.blocks[1].scale
    assert m.get_buffer("blocks.0.scratch") is m.blocks[0].scratch


def test_setattr_moves_between_registries():
    m = nn.Module()
    m.thing = 3
    m.thing = nn.Parameter(cygrad.ones(1))
    assert "thing" in m._parameters and "thing" not in m.__dict__
    m.thing = None                                   # a declared, absent parameter
    assert m._parameters["thing"] is None and m.thing is None
    with pytest.raises(TypeError, match="as parameter 'thing'"):
        m.thing = nn.Identity()                      # a parameter's name only takes one
    del m.thing
    m.thing = nn.Identity()
    assert "thing" in m._modules and "thing" not in m._parameters
    m.register_buffer("buf", cygrad.zeros(1))
    replacement = cygrad.ones(2)
    m.buf = replacement                              # a tensor assigned to a buffer name
    assert m._buffers["buf"] is replacement
    m.plain = cygrad.ones(1)                         # a new name: an ordinary attribute
    assert "plain" not in m._buffers and "plain" in m.__dict__
    marked = nn.Buffer(cygrad.ones(3), persistent=False)
    assert isinstance(marked, nn.Buffer) and not isinstance(cygrad.ones(1), nn.Buffer)
    m.stat = marked                                  # nn.Buffer registers itself
    assert m._buffers["stat"] is marked and "stat" in m._non_persistent_buffers_set
    with pytest.raises(KeyError, match="already exists"):
        m.plain = nn.Buffer(cygrad.ones(1))
    del m.thing, m.buf
    assert "thing" not in m._modules and "buf" not in m._buffers
    with pytest.raises(AttributeError):
        _ = m.buf


def test_assignment_before_init_is_an_error():
    class Bad(nn.Module):
        def __init__(self):
            self.w = nn.Parameter(cygrad.ones(1))

    with pytest.raises(AttributeError, match="before Module.__init__"):
        Bad()


def test_dir_lists_members_but_not_indices():
    m = build(cygrad)
    d = dir(m)
    for name in ("embed", "bias", "steps", "forward", "training"):
        assert name in d
    assert "0" not in dir(m.blocks)


def test_state_dict_detached_shared_and_keep_vars():
    m = build(cygrad)
    sd = m.state_dict()
    w = sd["embed.weight"]
    assert type(w) is cygrad.Tensor and not w.requires_grad
    assert w.data_ptr() == m.embed.weight.data_ptr()
    assert "blocks.0.scratch" not in sd and "blocks.0.running" in sd
    assert sd._metadata[""] == {"version": 1} and "blocks.0.proj" in sd._metadata
    kept = m.state_dict(keep_vars=True)
    assert kept["embed.weight"] is m.embed.weight


def test_load_state_dict_copies_in_place():
    src, dst = build(cygrad), build(cygrad)
    weight = dst.embed.weight
    assert repr(dst.load_state_dict(src.state_dict())) == "<All keys matched successfully>"
    assert dst.embed.weight is weight
    for (n, a), (_, b) in zip(src.state_dict().items(), dst.state_dict().items()):
        np.testing.assert_array_equal(a.numpy(), b.numpy(), err_msg=n)


def _mangled_state(L, model):
    sd = model.state_dict()
    del sd["bias"], sd["blocks.1.proj.weight"]
    sd["extra.key"] = L.zeros(1)
    sd["blocks.0.nope"] = L.zeros(1)
    sd["blocks.0.proj.bias"] = L.zeros(7)
    return sd


def test_load_state_dict_errors_match_torch(torch):
    ours_m, theirs_m = build(cygrad), build(torch)
    ours_sd, theirs_sd = _mangled_state(cygrad, ours_m), _mangled_state(torch, theirs_m)
    a = _error(lambda: ours_m.load_state_dict(ours_sd))
    b = _error(lambda: theirs_m.load_state_dict(theirs_sd))
    assert a[0] is RuntimeError and a[1] == b[1]
    assert a[1].startswith("Error(s) in loading state_dict for Net:")
    # strict=False: the shape mismatch still raises, the rest is returned
    del ours_sd["blocks.0.proj.bias"], theirs_sd["blocks.0.proj.bias"]
    r_ours = ours_m.load_state_dict(ours_sd, strict=False)
    r_theirs = theirs_m.load_state_dict(theirs_sd, strict=False)
    assert r_ours.missing_keys == r_theirs.missing_keys
    assert r_ours.unexpected_keys == r_theirs.unexpected_keys == ["extra.key", "blocks.0.nope"]
    assert r_ours.missing_keys == ["bias", "blocks.0.proj.bias", "blocks.1.proj.weight"]
    assert repr(r_ours) == repr(r_theirs)
    assert type(r_ours).__name__ == "_IncompatibleKeys"
    with pytest.raises(TypeError, match="dict-like"):
        ours_m.load_state_dict([1, 2])


def test_load_state_dict_assign():
    m = nn.Linear(2, 2)
    m.weight.requires_grad_(False)
    new_w = cygrad.full((2, 2), 7.0)
    m.load_state_dict({"weight": new_w, "bias": cygrad.zeros(2)}, assign=True)
    assert isinstance(m.weight, nn.Parameter) and not m.weight.requires_grad
    assert m.weight.data_ptr() == new_w.data_ptr()
    assert m.bias.requires_grad


def test_extra_state_round_trip():
    class WithExtra(nn.Module):
        def __init__(self):
            super().__init__()
            self.count = 0

        def get_extra_state(self):
            return {"count": self.count}

        def set_extra_state(self, state):
            self.count = state["count"]

    a, b = WithExtra(), WithExtra()
    a.count = 5
    sd = a.state_dict()
    assert list(sd) == ["_extra_state"]
    b.load_state_dict(sd)
    assert b.count == 5
    with pytest.raises(RuntimeError, match='Missing key\\(s\\) in state_dict: "_extra_state"'):
        b.load_state_dict({})


def test_train_eval_apply_zero_grad_requires_grad(torch):
    m = build(cygrad)
    assert all(mod.training for mod in m.modules())
    m.eval()
    assert not any(mod.training for mod in m.modules())
    m.train()
    assert all(mod.training for mod in m.modules())
    order_ours, order_theirs = [], []
    m.apply(lambda mod: order_ours.append(type(mod).__name__))
    build(torch).apply(lambda mod: order_theirs.append(type(mod).__name__))
    assert order_ours == order_theirs

    lin = nn.Linear(3, 2)
    lin(cygrad.ones(4, 3)).sum().backward()
    grad = lin.weight.grad
    lin.zero_grad(set_to_none=False)
    assert lin.weight.grad is grad and not grad.any()
    lin.zero_grad()
    assert lin.weight.grad is None and lin.bias.grad is None
    lin.requires_grad_(False)
    assert not any(p.requires_grad for p in lin.parameters())


def test_to_and_casts_keep_parameter_identity():
    m = build(cygrad)
    w = m.embed.weight
    m(cygrad.randn(2, 5)).sum().backward()
    assert m.to(cygrad.float64) is m
    assert m.embed.weight is w and w.dtype is cygrad.float64 and w.grad.dtype is cygrad.float64
    assert m.blocks[0].running.dtype is cygrad.float64
    assert m.steps.dtype is cygrad.int64                    # integer buffers keep their dtype
    m.float()
    assert w.dtype is cygrad.float32
    m.to(cygrad.zeros(1, dtype=cygrad.float64))
    assert w.dtype is cygrad.float64
    m.to("cpu", cygrad.float32)
    assert w.dtype is cygrad.float32
    m.to(device="cpu", dtype=cygrad.float64)
    assert w.dtype is cygrad.float64
    m.half()
    assert w.dtype is cygrad.float16
    m.double().cpu()
    assert w.dtype is cygrad.float64 and w.device.type == "cpu"
    with pytest.raises(TypeError, match="floating point"):
        m.to(cygrad.int32)


def test_share_memory():
    m = nn.Linear(2, 2)
    if hasattr(cygrad.Tensor, "share_memory_"):
        assert m.share_memory() is m
    else:
        with pytest.raises(NotImplementedError, match="share_memory_"):
            m.share_memory()


def test_deepcopy_is_independent():
    m = build(cygrad)
    c = copy.deepcopy(m)
    assert _names(c.named_parameters()) == _names(m.named_parameters())
    assert isinstance(c.embed.weight, nn.Parameter)
    assert c.embed.weight.data_ptr() != m.embed.weight.data_ptr()
    np.testing.assert_array_equal(c.embed.weight.detach().numpy(), m.embed.weight.detach().numpy())


def test_positional_state_dict_is_deprecated():
    m = nn.Linear(1, 1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sd = m.state_dict(None, "pre.")
    assert list(sd) == ["pre.weight", "pre.bias"]
    assert any(issubclass(w.category, FutureWarning) for w in caught)
