"""The gradient reducer behind DistributedDataParallel: buckets and their all-reduces.

Parameters are grouped into *buckets* (flat tensors of one dtype, up to
``bucket_cap_mb``), in the reverse of the order they were registered, because backward
produces gradients roughly from the last layer to the first. A hook on each
parameter's gradient accumulation copies the gradient into its bucket slot; when the
last gradient of a bucket arrives, the bucket's all-reduce is posted at once, while
backward goes on with the earlier layers. Buckets are posted in bucket order on every
rank (MPI requires the same order everywhere), and the reducer tests the pending ones
at each hook, since MPI moves data only inside MPI calls. When every parameter has
reported, it waits for the buckets and writes the averaged gradients back.
"""
from ..._core import dtype as _dt
from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from ...distributed.collectives import post_all_reduce
from ...distributed.reduce_op import ReduceOp
from ...ops.creation import zeros

_FIRST_BUCKET_BYTES = 1024 * 1024     # a small first bucket starts communication early


class _Bucket:
    def __init__(self, params, dtype):
        self.params = params                      # [(index, param)]
        total = sum(p.numel() for _, p in params)
        self.flat = zeros(total, dtype=dtype)
        self.slots = {}                           # index -> view of flat shaped like the param
        offset = 0
        for i, p in params:
            n = p.numel()
            self.slots[i] = self.flat[offset:offset + n].view(p.shape)
            offset += n
        self.pending = 0
        self.work = None


def assign_buckets(indexed_params, cap_bytes):
    """Group ``[(index, param)]`` (already in reverse order) into buckets of one dtype."""
    buckets, current, size, dtype = [], [], 0, None
    limit = min(_FIRST_BUCKET_BYTES, cap_bytes)
    for i, p in indexed_params:
        nbytes = p.numel() * p.element_size()
        if current and (p.dtype != dtype or size + nbytes > limit):
            buckets.append(_Bucket(current, dtype))
            current, size, limit = [], 0, cap_bytes
        current.append((i, p))
        size += nbytes
        dtype = p.dtype
    if current:
        buckets.append(_Bucket(current, dtype))
    return buckets


def tensors_in(obj):
    """The tensors in a forward's output: a tensor, or lists, tuples and dicts of them."""
    if isinstance(obj, Tensor):
        yield obj
    elif isinstance(obj, (list, tuple)):
        for x in obj:
            yield from tensors_in(x)
    elif isinstance(obj, dict):
        for x in obj.values():
            yield from tensors_in(x)


def reachable_leaves(outputs):
    """The leaf tensors that the backward graph of ``outputs`` reaches (by id)."""
    seen, stack, leaves = set(), [], set()
    for t in tensors_in(outputs):
        if t.grad_fn is not None:
            stack.append(t.grad_fn)
        elif t.requires_grad:
            leaves.add(id(t))
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        if node.name() == "AccumulateGrad":
            var = node.variable
            if var is not None:
                leaves.add(id(var))
            continue
        stack.extend(n for n, _ in node.next_functions)
    return leaves


class Reducer:
    """Buckets, hooks and the state of one iteration's gradient reduction."""

    def __init__(self, named_params, pg, bucket_cap_mb, find_unused_parameters,
                 gradient_as_bucket_view):
        self.names = [n for n, _ in named_params]
        self.params = [p for _, p in named_params]
        self.pg = pg
        self.find_unused = find_unused_parameters
        self.as_view = gradient_as_bucket_view
        indexed = list(reversed(list(enumerate(self.params))))
        self.buckets = assign_buckets(indexed, int(bucket_cap_mb * 1024 * 1024))
        self.bucket_of = {i: b for b in self.buckets for i, _ in b.params}
        self.armed = False
        self.ready = [False] * len(self.params)
        self.used = zeros(len(self.params), dtype=_dt.int32) if find_unused_parameters else None
        self.next_bucket = 0
        self.handles = [p.register_post_accumulate_grad_hook(self._hook(i))
                        for i, p in enumerate(self.params)]

    def remove_hooks(self):
        for h in self.handles:
            h.remove()

    # -- one iteration ---------------------------------------------------------------
    def check_finished(self):
        """PyTorch's error when the previous iteration's reduction never completed."""
        if not self.armed:
            return
        missing = [self.names[i] for i, r in enumerate(self.ready) if not r]
        self.armed = False
        raise RuntimeError(
            "Expected to have finished reduction in the prior iteration before starting a new "
            "one. This error indicates that your module has parameters that were not used in "
            "producing loss. You can enable unused parameter detection by passing the keyword "
            "argument `find_unused_parameters=True` to "
            "`cygrad.nn.parallel.DistributedDataParallel`, and by making sure all `forward` "
            "function outputs participate in calculating loss. Parameters which did not receive "
            f"grad for rank {self.pg.rank()}: {', '.join(missing)}")

    def prepare_for_backward(self, outputs):
        """Arm the hooks for the backward pass of ``outputs``."""
        self.armed = True
        self.next_bucket = 0
        self.ready = [False] * len(self.params)
        for b in self.buckets:
            b.pending = len(b.params)
            b.work = None
        if self.find_unused:
            self.used.zero_()
            reached = reachable_leaves(outputs)
            unused = [i for i, p in enumerate(self.params) if id(p) not in reached]
            for i in unused:
                self.bucket_of[i].slots[i].zero_()
            for i in unused:
                self._mark_ready(i)

    def _hook(self, index):
        def on_grad_accumulated(param):
            if not self.armed:
                return            # no_sync(), or a backward that DDP's forward did not arm
            if self.ready[index]:
                raise RuntimeError(
                    f"Expected to mark a variable ready only once: parameter "
                    f"{self.names[index]} got a second gradient in one iteration (a second "
                    "backward through the same forward, or a parameter shared across "
                    "iterations of a loop); this is not supported by DistributedDataParallel")
            slot = self.bucket_of[index].slots[index]
            grad = param.grad
            with no_grad():
                if grad is not None and grad.data_ptr() != slot.data_ptr():
                    slot.copy_(grad)
            if self.find_unused:
                self.used[index] = 1
            self._mark_ready(index)
        return on_grad_accumulated

    def _mark_ready(self, index):
        self.ready[index] = True
        bucket = self.bucket_of[index]
        bucket.pending -= 1
        for b in self.buckets[:self.next_bucket]:
            if b.work is not None:
                b.work.is_completed()      # lets MPI progress the posted buckets
        while self.next_bucket < len(self.buckets) and self.buckets[self.next_bucket].pending == 0:
            b = self.buckets[self.next_bucket]
            with no_grad():
                b.flat.div_(self.pg.size())
            b.work = post_all_reduce(self.pg, b.flat, ReduceOp.SUM)
            self.next_bucket += 1
        if self.next_bucket == len(self.buckets):
            self._finalize()

    def _finalize(self):
        used = None
        if self.find_unused:
            post_all_reduce(self.pg, self.used, ReduceOp.MAX).wait()
            used = self.used.tolist()
        for b in self.buckets:
            b.work.wait()
        with no_grad():
            for b in self.buckets:
                for i, p in b.params:
                    if used is not None and not used[i]:
                        continue           # unused on every rank: .grad stays as it was
                    slot = b.slots[i]
                    if self.as_view:
                        p.grad = slot
                    elif p.grad is None:
                        p.grad = slot.clone()
                    elif p.grad.data_ptr() != slot.data_ptr():
                        p.grad.copy_(slot)
        self.armed = False
