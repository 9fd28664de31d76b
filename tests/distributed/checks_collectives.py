"""Every collective on N ranks against NumPy computed from all ranks' inputs.

Each rank's input is a function of its rank, so every rank can compute what the others
hold and the NumPy reference of the whole collective. Run by ``test_collectives.py``.
"""
import warnings

import ml_dtypes
import numpy as np

import cygrad
import cygrad.distributed as dist
from cygrad.distributed import ReduceOp

DTYPES = ["float32", "float64", "float16", "bfloat16", "int32", "int64", "uint8", "int8", "bool",
          "complex64", "complex128"]
FLOATS = {"float32", "float64", "float16", "bfloat16", "complex64", "complex128"}


def np_dtype(name):
    return np.dtype(ml_dtypes.bfloat16) if name == "bfloat16" else np.dtype(name)


def value(rank, dtype, shape=(3, 5), salt=0):
    """Rank ``rank``'s input: small values, so integer products cannot overflow."""
    rng = np.random.default_rng(1000 * salt + rank)
    if dtype == "bool":
        return rng.integers(0, 2, shape).astype(bool)
    if dtype.startswith("complex"):
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    if dtype.startswith(("int", "uint")):
        return rng.integers(0 if dtype.startswith("u") else -3, 4, shape).astype(dtype)
    return rng.standard_normal(shape).astype(np_dtype(dtype))


def as_tensor(a):
    return cygrad.from_numpy(np.ascontiguousarray(a).copy())


def reference(op, arrays, dtype):
    """What reducing ``arrays`` with ``op`` gives, computed by NumPy."""
    if dtype == "bool":
        any_, all_ = np.logical_or.reduce(arrays), np.logical_and.reduce(arrays)
        return {"SUM": any_, "MAX": any_, "BOR": any_, "PRODUCT": all_, "MIN": all_,
                "BAND": all_, "BXOR": np.logical_xor.reduce(arrays)}[op]
    wide = [a.astype(np.float32) if dtype in ("float16", "bfloat16") else a for a in arrays]
    out = {"SUM": lambda: np.sum(wide, axis=0), "AVG": lambda: np.sum(wide, axis=0) / len(wide),
           "PRODUCT": lambda: np.prod(wide, axis=0), "MIN": lambda: np.min(wide, axis=0),
           "MAX": lambda: np.max(wide, axis=0),
           "BAND": lambda: np.bitwise_and.reduce(wide), "BOR": lambda: np.bitwise_or.reduce(wide),
           "BXOR": lambda: np.bitwise_xor.reduce(wide)}[op]()
    return out.astype(np_dtype(dtype))


def valid_ops(dtype):
    if dtype == "bool":
        return ["SUM", "PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR"]
    if dtype.startswith("complex"):
        return ["SUM", "AVG"]
    if dtype in FLOATS:
        return ["SUM", "AVG", "PRODUCT", "MIN", "MAX"]
    return ["SUM", "PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR"]


def assert_matches(got, want, dtype):
    got = got.numpy() if isinstance(got, cygrad.Tensor) else got
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    if dtype in ("float16", "bfloat16"):
        np.testing.assert_allclose(got.astype(np.float32), want.astype(np.float32),
                                   rtol=1e-2, atol=1e-2)
    elif dtype in FLOATS:
        tol = 1e-5 if dtype in ("float32", "complex64") else 1e-12
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol)
    else:
        np.testing.assert_array_equal(got, want)


def check_all_reduce_every_op_and_dtype(rank, size, ctx):
    for dtype in DTYPES:
        for op in valid_ops(dtype):
            t = as_tensor(value(rank, dtype))
            dist.all_reduce(t, op=getattr(ReduceOp, op))
            want = reference(op, [value(r, dtype) for r in range(size)], dtype)
            assert_matches(t, want, dtype)


def check_all_reduce_async_and_work(rank, size, ctx):
    ts = [as_tensor(value(rank, "float64", salt=i)) for i in range(4)]
    works = [dist.all_reduce(t, async_op=True) for t in ts]
    assert all(isinstance(w, dist.Work) for w in works)
    for i, (t, w) in enumerate(zip(ts, works)):
        assert w.wait() is True
        assert w.is_completed() and w.is_success() and w.exception() is None
        assert w.result()[0] is t
        assert_matches(t, reference("SUM", [value(r, "float64", salt=i) for r in range(size)],
                                    "float64"), "float64")


def check_all_reduce_writes_the_tensors_memory(rank, size, ctx):
    a = value(rank, "float32", (4, 6))
    t = cygrad.from_numpy(a)              # shares a's memory
    v = t._version
    dist.all_reduce(t)
    assert t._version > v
    np.testing.assert_allclose(a, np.sum([value(r, "float32", (4, 6)) for r in range(size)], 0),
                               rtol=1e-5)


def check_all_reduce_large_and_many(rank, size, ctx):
    big = value(rank, "float32", (512, 300))            # dims above 256
    t = as_tensor(big)
    dist.all_reduce(t, op=ReduceOp.MAX)
    np.testing.assert_array_equal(t.numpy(), np.max([value(r, "float32", (512, 300))
                                                     for r in range(size)], 0))
    t = cygrad.zeros(8, dtype=cygrad.int64)
    for _ in range(2000):                                # a realistic loop of small calls
        t += 1
        dist.all_reduce(t)
    # t_{k+1} = size * (t_k + 1): compare with the same recurrence in Python integers, mod 2**64
    want = 0
    for _ in range(2000):
        want = (size * (want + 1)) % (1 << 64)
    want = want - (1 << 64) if want >= (1 << 63) else want
    assert t.tolist() == [want] * 8


def check_reduce(rank, size, ctx):
    dst = size - 1
    for dtype in ("float64", "int32", "bfloat16"):
        for op in ("SUM", "MAX"):
            mine = value(rank, dtype)
            t = as_tensor(mine)
            dist.reduce(t, dst=dst, op=getattr(ReduceOp, op))
            if rank == dst:
                assert_matches(t, reference(op, [value(r, dtype) for r in range(size)], dtype), dtype)
            else:
                np.testing.assert_array_equal(t.numpy(), mine)    # others keep their input


def check_broadcast(rank, size, ctx):
    src = 1 % size
    for dtype in DTYPES:
        t = as_tensor(value(rank, dtype))
        dist.broadcast(t, src=src)
        np.testing.assert_array_equal(t.numpy(), value(src, dtype))


def check_all_gather_list(rank, size, ctx):
    for dtype in ("float32", "bfloat16", "int64", "bool"):
        out = [cygrad.empty((3, 5), dtype=getattr(cygrad, dtype)) for _ in range(size)]
        dist.all_gather(out, as_tensor(value(rank, dtype)))
        for r in range(size):
            np.testing.assert_array_equal(out[r].numpy(), value(r, dtype))


def check_all_gather_into_tensor(rank, size, ctx):
    want = np.concatenate([value(r, "float32") for r in range(size)])
    flat = cygrad.empty((3 * size, 5))
    dist.all_gather_into_tensor(flat, as_tensor(value(rank, "float32")))
    np.testing.assert_array_equal(flat.numpy(), want)
    stacked = cygrad.empty((size, 3, 5))
    dist.all_gather_into_tensor(stacked, as_tensor(value(rank, "float32")))
    np.testing.assert_array_equal(stacked.numpy(), want.reshape(size, 3, 5))


def check_reduce_scatter_tensor(rank, size, ctx):
    for dtype, op in (("float64", "SUM"), ("float32", "AVG"), ("int32", "MAX"), ("float16", "SUM")):
        inputs = [value(r, dtype, (2 * size, 3)) for r in range(size)]
        out = cygrad.empty((2, 3), dtype=getattr(cygrad, dtype))
        dist.reduce_scatter_tensor(out, as_tensor(inputs[rank]), op=getattr(ReduceOp, op))
        want = reference(op, inputs, dtype)[2 * rank:2 * rank + 2]
        assert_matches(out, want, dtype)


def check_gather_and_scatter(rank, size, ctx):
    dst = size - 1
    gl = [cygrad.empty((3, 5), dtype=cygrad.int64) for _ in range(size)] if rank == dst else None
    dist.gather(as_tensor(value(rank, "int64")), gl, dst=dst)
    if rank == dst:
        for r in range(size):
            np.testing.assert_array_equal(gl[r].numpy(), value(r, "int64"))
    pieces = [as_tensor(value(r, "float32", salt=7)) for r in range(size)] if rank == 0 else None
    out = cygrad.empty((3, 5))
    dist.scatter(out, pieces, src=0)
    np.testing.assert_array_equal(out.numpy(), value(rank, "float32", salt=7))


def check_barrier(rank, size, ctx):
    dist.barrier()
    w = dist.barrier(async_op=True)
    assert w.wait()


def check_point_to_point_ring(rank, size, ctx):
    if size < 2:
        return
    nxt, prv = (rank + 1) % size, (rank - 1) % size
    out = cygrad.empty((3, 5), dtype=cygrad.float64)
    send = dist.isend(as_tensor(value(rank, "float64")), dst=nxt, tag=3)
    recv = dist.irecv(out, src=prv, tag=3)
    send.wait()
    recv.wait()
    np.testing.assert_array_equal(out.numpy(), value(prv, "float64"))
    # blocking forms, the receiver not naming the sender: recv returns who sent
    if rank == 0:
        dist.send(cygrad.arange(4.0), dst=1)
    elif rank == 1:
        got = cygrad.empty(4)
        assert dist.recv(got) == 0
        assert got.tolist() == [0.0, 1.0, 2.0, 3.0]


def check_recv_of_the_wrong_size_is_named(rank, size, ctx):
    if size < 2:
        return
    if rank == 0:
        dist.send(cygrad.ones(3), dst=1)
    elif rank == 1:
        try:
            dist.recv(cygrad.empty(4), src=0)
        except RuntimeError as e:
            assert "sent 12 bytes" in str(e) and "holds 16" in str(e), str(e)
        else:
            raise AssertionError("a short message was accepted")


def check_new_group(rank, size, ctx):
    evens = [r for r in range(size) if r % 2 == 0]
    g = dist.new_group(evens)
    if rank in evens:
        assert dist.get_rank(g) == evens.index(rank)
        assert dist.get_world_size(g) == len(evens)
        assert dist.get_process_group_ranks(g) == evens
        t = as_tensor(value(rank, "float64"))
        dist.all_reduce(t, group=g)
        assert_matches(t, reference("SUM", [value(r, "float64") for r in evens], "float64"),
                       "float64")
        t = as_tensor(value(rank, "float64"))
        dist.broadcast(t, src=evens[-1], group=g)        # src is a global rank
        np.testing.assert_array_equal(t.numpy(), value(evens[-1], "float64"))
    else:
        assert g is dist.GroupMember.NON_GROUP_MEMBER
        assert dist.get_rank(g) == -1 and dist.get_world_size(g) == -1
        t = cygrad.ones(2)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            assert dist.all_reduce(t, group=g) is None
        assert any("does not belong to the given group" in str(x.message) for x in w)
        assert t.tolist() == [1.0, 1.0]
    dist.destroy_process_group(g)


def check_object_collectives(rank, size, ctx):
    objs = [{"rank": rank, "tag": "x" * rank}, rank * 1.5]
    dist.broadcast_object_list(objs, src=size - 1)
    assert objs == [{"rank": size - 1, "tag": "x" * (size - 1)}, (size - 1) * 1.5]
    got = [None] * size
    dist.all_gather_object(got, ("r", rank, list(range(rank))))
    assert got == [("r", r, list(range(r))) for r in range(size)]


def _expect_mismatch(fn, *needles):
    try:
        fn()
    except RuntimeError as e:
        msg = str(e)
        assert "mismatch between collectives" in msg, msg
        for needle in needles:
            assert needle in msg, (needle, msg)
    else:
        raise AssertionError("the mismatch was not detected")


def check_mismatched_shapes_are_detected_and_named(rank, size, ctx):
    if size < 2:
        return
    shape = (4,) if rank == 0 else (2, 3)
    _expect_mismatch(lambda: dist.all_reduce(cygrad.ones(shape)), "rank 0: all_reduce(cygrad.float32 (4,)",
                     "rank 1: all_reduce(cygrad.float32 (2, 3)")
    t = cygrad.ones(3)               # the group still works afterwards
    dist.all_reduce(t)
    assert t.tolist() == [float(size)] * 3


def check_mismatched_dtypes_are_detected_and_named(rank, size, ctx):
    if size < 2:
        return
    dtype = cygrad.float32 if rank == 0 else cygrad.float64
    _expect_mismatch(lambda: dist.broadcast(cygrad.ones(3, dtype=dtype), src=0),
                     "cygrad.float32", "cygrad.float64")


def check_mismatched_collectives_are_detected(rank, size, ctx):
    if size < 2:
        return
    t = cygrad.ones(3)
    call = (lambda: dist.all_reduce(t)) if rank == 0 else (lambda: dist.broadcast(t, src=0))
    _expect_mismatch(call, "all_reduce", "broadcast")


def _raises(exc, fn, needle):
    try:
        fn()
    except exc as e:
        assert needle in str(e), (needle, str(e))
    else:
        raise AssertionError(f"expected {exc.__name__} containing {needle!r}")


def check_bad_arguments_raise_before_communicating(rank, size, ctx):
    _raises(ValueError, lambda: dist.all_reduce(cygrad.ones(4, 4).t()), "Tensors must be contiguous")
    _raises(TypeError, lambda: dist.all_reduce(np.ones(3)), "must be a cygrad.Tensor")
    _raises(TypeError, lambda: dist.all_reduce(cygrad.ones(3), op="sum"), "dist.ReduceOp")
    _raises(ValueError, lambda: dist.all_reduce(cygrad.ones(3, dtype=cygrad.complex64),
                                                op=ReduceOp.MAX), "complex")
    _raises(ValueError, lambda: dist.all_reduce(cygrad.ones(3), op=ReduceOp.BAND), "integer or bool")
    _raises(ValueError, lambda: dist.all_reduce(cygrad.ones(3, dtype=cygrad.int64),
                                                op=ReduceOp.AVG), "floating-point")
    _raises(ValueError, lambda: dist.broadcast(cygrad.ones(3), src=size), "not a rank of the group")
    _raises(ValueError, lambda: dist.all_gather([cygrad.ones(3)] * (size + 1), cygrad.ones(3)),
            "tensor_list has")
    _raises(ValueError, lambda: dist.all_gather([cygrad.ones(2)] * size, cygrad.ones(3)),
            "must match")
    _raises(ValueError, lambda: dist.all_gather_into_tensor(cygrad.empty(3 * size + 1),
                                                            cygrad.ones(3)), "world_size times")
    _raises(ValueError, lambda: dist.send(cygrad.ones(3), dst=rank), "Invalid destination rank")
    _raises(TypeError, lambda: dist.all_reduce(cygrad.ones(3), async_op=1), "async_op")
    if rank != 0:
        _raises(ValueError, lambda: dist.gather(cygrad.ones(3), [cygrad.ones(3)] * size, dst=0),
                "must NOT be specified on non-destination ranks")
    else:
        _raises(ValueError, lambda: dist.scatter(cygrad.ones(3), None, src=0),
                "must be specified on source rank")


def check_large_and_small_collectives_keep_their_order(rank, size, ctx):
    # Large tensors go to the communication thread, small ones are posted by the caller;
    # a small call made while large ones are queued must wait its turn on every rank.
    bigs = [as_tensor(value(rank, "float32", (300, 300), salt=s)) for s in range(3)]
    works = [dist.all_reduce(b, async_op=True) for b in bigs]
    small = as_tensor(value(rank, "int64", salt=9))
    dist.all_reduce(small, op=ReduceOp.MAX)
    bcast = as_tensor(value(rank, "float64", (400, 300)))
    w_b = dist.broadcast(bcast, src=0, async_op=True)
    for w in works + [w_b]:
        w.wait()
    for s, b in enumerate(bigs):
        assert_matches(b, reference("SUM", [value(r, "float32", (300, 300), salt=s)
                                            for r in range(size)], "float32"), "float32")
    assert_matches(small, reference("MAX", [value(r, "int64", salt=9) for r in range(size)],
                                    "int64"), "int64")
    np.testing.assert_array_equal(bcast.numpy(), value(0, "float64", (400, 300)))


def check_ranks_whose_thread_is_busy_or_idle_still_match(rank, size, ctx):
    # Rank 0 calls the small collective while its large one may still be running; the
    # others wait for the large one first. A rank-dependent choice between MPI's blocking
    # and non-blocking calls would deadlock here (MPI does not match one with the other).
    for _ in range(20):
        big = as_tensor(value(rank, "float32", (256, 256)))
        small = as_tensor(value(rank, "float64"))
        work = dist.all_reduce(big, async_op=True)
        if rank != 0:
            work.wait()
        dist.all_reduce(small)
        work.wait()
        assert_matches(small, reference("SUM", [value(r, "float64") for r in range(size)],
                                        "float64"), "float64")
        assert_matches(big, reference("SUM", [value(r, "float32", (256, 256))
                                              for r in range(size)], "float32"), "float32")
