"""Whole-model training steps, the same PyTorch-style code run on cygrad and PyTorch.

Isolated ops hide what users feel in a real program: batched and transposed
matmuls, the embedding backward, many small elementwise nodes, the optimizer's
per-parameter work, threads. Each model here is written once, as ordinary
PyTorch code against a library module ``T`` (``torch`` or ``cygrad``), built
with the same weights on both libraries, fed the same batch, and timed in the
same process with the two libraries' steps interleaved. The ratio is
cygrad's median step time over PyTorch's (below 1: cygrad is faster).

Models (``--models`` picks some; sizes are those of issue 16):

============  ==========================================================================
transformer   GPT-style char model, minGPT attention (masked_fill + softmax), 4 layers,
              4 heads, 64 wide, block 32, batch 32, vocab 65, AdamW
sdpa          the same with ``F.scaled_dot_product_attention(is_causal=True)`` (nanoGPT)
infer         the ``transformer``'s forward only, under ``no_grad`` (inference)
mlp_lm        Bengio-style MLP language model: Embedding(27, 10), 3-token context,
              200 tanh hidden units, batch 32, SGD
mlp_lm_big    the same with a 1000-token vocabulary, 64-wide embeddings, batch 512
char_rnn      Embedding(65, 64) -> RNN(64, 128) -> Linear, seq 32, batch 32, Adam
char_gru      the same with a GRU
lstm          LSTM(128, 128) over seq 32, batch 32, forward + backward + SGD
cnn           two conv/relu/pool blocks and a linear layer on 28x28, batch 64, Adam
conv2d        conv2d N32 16->32 32x32 k3 forward + backward (no optimizer)
============  ==========================================================================

Usage::

    python bench/models.py                       # all models, quiet and with one busy process
    python bench/models.py --models transformer mlp_lm --no-busy
    python bench/models.py --profile transformer # top cygrad ops by self time

Needs PyTorch for the ratios; without it, only cygrad's times are printed.

Examples
--------
>>> import cygrad
>>> m = build("mlp_lm", cygrad, small=True)
>>> loss = m.step()
>>> float(loss.item()) > 0
True
"""
import argparse
import contextlib
import math
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from distributed import cpu_name  # noqa: E402
from harness import busy_processes, cpu_count, describe_environment, environment  # noqa: E402


# ---- the models, written once for either library --------------------------------------

def gpt(T, vocab=65, n_embd=64, n_head=4, n_layer=4, block=32, attention="manual"):
    """A GPT-style decoder (minGPT's layout): token + position embeddings, pre-LN blocks
    of causal self-attention and a GELU MLP, a final LayerNorm and a linear head."""
    nn, F = T.nn, T.nn.functional

    class CausalSelfAttention(nn.Module):
        def __init__(self):
            super().__init__()
            self.c_attn = nn.Linear(n_embd, 3 * n_embd)
            self.c_proj = nn.Linear(n_embd, n_embd)
            self.register_buffer("bias", T.tril(T.ones(block, block)).view(1, 1, block, block))

        def forward(self, x):
            B, L, C = x.size()
            q, k, v = self.c_attn(x).split(n_embd, dim=2)
            k = k.view(B, L, n_head, C // n_head).transpose(1, 2)
            q = q.view(B, L, n_head, C // n_head).transpose(1, 2)
            v = v.view(B, L, n_head, C // n_head).transpose(1, 2)
            if attention == "sdpa":
                y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            else:
                att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
                att = att.masked_fill(self.bias[:, :, :L, :L] == 0, float("-inf"))
                att = F.softmax(att, dim=-1)
                y = att @ v
            y = y.transpose(1, 2).contiguous().view(B, L, C)
            return self.c_proj(y)

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln_1 = nn.LayerNorm(n_embd)
            self.attn = CausalSelfAttention()
            self.ln_2 = nn.LayerNorm(n_embd)
            self.mlp = nn.Sequential(nn.Linear(n_embd, 4 * n_embd), nn.GELU(),
                                     nn.Linear(4 * n_embd, n_embd))

        def forward(self, x):
            x = x + self.attn(self.ln_1(x))
            return x + self.mlp(self.ln_2(x))

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.wte = nn.Embedding(vocab, n_embd)
            self.wpe = nn.Embedding(block, n_embd)
            self.blocks = nn.ModuleList([Block() for _ in range(n_layer)])
            self.ln_f = nn.LayerNorm(n_embd)
            self.head = nn.Linear(n_embd, vocab)

        def forward(self, idx, targets=None):
            B, L = idx.size()
            pos = T.arange(0, L, dtype=T.long, device=idx.device)
            x = self.wte(idx) + self.wpe(pos)
            for blk in self.blocks:
                x = blk(x)
            logits = self.head(self.ln_f(x))
            if targets is None:
                return logits, None
            return logits, F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))

    return GPT()


def mlp_lm(T, vocab=27, context=3, n_embd=10, hidden=200):
    """Bengio et al. (2003): embed a fixed context, one tanh layer, a softmax over the vocabulary."""
    nn = T.nn

    class MLPLanguageModel(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(vocab, n_embd)
            self.hidden = nn.Linear(context * n_embd, hidden)
            self.out = nn.Linear(hidden, vocab)

        def forward(self, idx):
            x = self.emb(idx).view(idx.shape[0], -1)
            return self.out(T.tanh(self.hidden(x)))

    return MLPLanguageModel()


def char_rnn(T, vocab=65, n_embd=64, hidden=128, cell="RNN"):
    """Embedding -> one recurrent layer (RNN or GRU) -> a linear head per position."""
    nn = T.nn

    class CharRNN(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(vocab, n_embd)
            self.rnn = getattr(nn, cell)(n_embd, hidden, batch_first=True)
            self.head = nn.Linear(hidden, vocab)

        def forward(self, idx):
            out, _ = self.rnn(self.emb(idx))
            return self.head(out)

    return CharRNN()


def cnn(T):
    """The small CNN of bench/cases.py: MNIST-sized input, two conv blocks, a linear head."""
    nn = T.nn
    return nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Flatten(), nn.Linear(32 * 7 * 7, 10))


# ---- one training step per model ---------------------------------------------------------

class Workload:
    """A model, its optimizer and one batch on one library; :meth:`step` is one training step."""

    def __init__(self, T, model, inputs, step):
        self.T, self.model, self.inputs, self._step = T, model, inputs, step

    def step(self):
        return self._step(self.T, self.model, *self.inputs)


def _lm_step(opt):
    def step(T, model, x, y):
        opt.zero_grad(set_to_none=True)
        logits = model(x)
        loss = T.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1))
        loss.backward()
        opt.step()
        return loss
    return step


def _gpt_step(opt):
    def step(T, model, x, y):
        opt.zero_grad(set_to_none=True)
        _, loss = model(x, y)
        loss.backward()
        opt.step()
        return loss
    return step


def _infer_step(T, model, x):
    with T.no_grad():
        logits, _ = model(x)
    return logits.sum()


def _lstm_step(opt):
    def step(T, model, x):
        opt.zero_grad(set_to_none=True)
        out, _ = model(x)
        loss = out.pow(2).mean()
        loss.backward()
        opt.step()
        return loss
    return step


def _conv_step(T, model, x, w):
    w.grad = None
    out = T.nn.functional.conv2d(x, w, padding=1)
    loss = out.sum()
    loss.backward()
    return loss


def _data(name, rng, small):
    """The batch of each model as NumPy arrays (the same for both libraries)."""
    if name in ("transformer", "sdpa", "infer"):
        b, t = (4, 8) if small else (32, 32)
        x = rng.integers(0, 65, (b, t + 1))
        return (x[:, :-1], x[:, 1:]) if name != "infer" else (x[:, :-1],)
    if name in ("mlp_lm", "mlp_lm_big"):
        vocab, batch = (27, 32) if name == "mlp_lm" else (1000, 512)
        if small:
            batch = 8
        return rng.integers(0, vocab, (batch, 3)), rng.integers(0, vocab, (batch,))
    if name in ("char_rnn", "char_gru"):
        b, t = (4, 8) if small else (32, 32)
        x = rng.integers(0, 65, (b, t + 1))
        return x[:, :-1], x[:, 1:]
    if name == "lstm":
        shape = (4, 3, 16) if small else (32, 32, 128)
        return (rng.standard_normal(shape).astype(np.float32),)
    if name == "cnn":
        b = 4 if small else 64
        return (rng.standard_normal((b, 1, 28, 28)).astype(np.float32), rng.integers(0, 10, (b,)))
    if name == "conv2d":
        n, c, hw = (2, 4, 8) if small else (32, 16, 32)
        return (rng.standard_normal((n, c, hw, hw)).astype(np.float32),)
    raise KeyError(name)


def _model(name, T, small):
    if name in ("transformer", "sdpa", "infer"):
        kw = dict(n_embd=32, n_layer=2, block=8) if small else {}
        return gpt(T, attention="sdpa" if name == "sdpa" else "manual", **kw)
    if name == "mlp_lm":
        return mlp_lm(T)
    if name == "mlp_lm_big":
        return mlp_lm(T, vocab=1000, n_embd=64, hidden=256)
    if name in ("char_rnn", "char_gru"):
        kw = dict(n_embd=16, hidden=24) if small else {}
        return char_rnn(T, cell="RNN" if name == "char_rnn" else "GRU", **kw)
    if name == "lstm":
        size = 16 if small else 128
        return T.nn.LSTM(size, size)
    if name == "cnn":
        return cnn(T)
    if name == "conv2d":
        return None
    raise KeyError(name)


MODELS = ("transformer", "sdpa", "infer", "mlp_lm", "mlp_lm_big", "char_rnn", "char_gru",
          "lstm", "cnn", "conv2d")


def _reference_weights(name, small, seed):
    """Initial weights as NumPy arrays: PyTorch's initialisation when PyTorch is present
    (so both libraries start from the same point), else cygrad's."""
    try:
        import torch
        torch.manual_seed(seed)
        model = _model(name, torch, small)
        return None if model is None else {k: v.detach().numpy().copy()
                                           for k, v in model.state_dict().items()}
    except ImportError:
        import cygrad
        cygrad.manual_seed(seed)
        model = _model(name, cygrad, small)
        return None if model is None else {k: v.detach().numpy().copy()
                                           for k, v in model.state_dict().items()}


def build(name, T, small=False, seed=0, weights=None, device=None):
    """The :class:`Workload` of model ``name`` on library ``T``, from seed ``seed``.

    ``small=True`` shrinks every size (for tests). ``weights`` (a dict of NumPy arrays,
    from :func:`_reference_weights`) makes two libraries start from the same point.
    ``device`` (``"cuda"``...) puts the model, its optimizer's state and the batch there.

    Examples
    --------
    >>> import cygrad
    >>> w = build("lstm", cygrad, small=True)
    >>> w.step().shape
    ()
    """
    rng = np.random.default_rng(seed)
    data = _data(name, rng, small)
    T.manual_seed(seed)
    model = _model(name, T, small)
    if weights is not None and model is not None:
        model.load_state_dict({k: T.tensor(v) for k, v in weights.items()})
    if device is not None and model is not None:
        model.to(device)
    inputs = [T.tensor(a, device=device) for a in data]
    if name in ("transformer", "sdpa"):
        opt = T.optim.AdamW(model.parameters(), lr=3e-4)
        return Workload(T, model, inputs, _gpt_step(opt))
    if name == "infer":
        model.eval()
        return Workload(T, model, inputs, _infer_step)
    if name in ("mlp_lm", "mlp_lm_big"):
        opt = T.optim.SGD(model.parameters(), lr=0.1)
        return Workload(T, model, inputs, _lm_step(opt))
    if name in ("char_rnn", "char_gru"):
        opt = T.optim.Adam(model.parameters(), lr=1e-3)
        return Workload(T, model, inputs, _lm_step(opt))
    if name == "lstm":
        opt = T.optim.SGD(model.parameters(), lr=0.01)
        return Workload(T, model, inputs, _lstm_step(opt))
    if name == "cnn":
        opt = T.optim.Adam(model.parameters(), lr=1e-3)
        return Workload(T, model, inputs, _lm_step(opt))
    if name == "conv2d":
        c_out, c_in = (4, 4) if small else (32, 16)
        w = T.tensor(np.random.default_rng(seed + 1).standard_normal((c_out, c_in, 3, 3))
                     .astype(np.float32) * 0.1, requires_grad=True, device=device)
        return Workload(T, None, inputs + [w], _conv_step)
    raise KeyError(name)


def build_pair(name, small=False, seed=0):
    """cygrad's and PyTorch's workloads of ``name`` with identical weights and data
    (PyTorch's is None when it is not installed).

    Examples
    --------
    >>> cy, th = build_pair("mlp_lm", small=True)
    >>> cy.step() is not None
    True
    """
    import cygrad
    weights = _reference_weights(name, small, seed)
    try:
        import torch
    except ImportError:
        torch = None
    cy = build(name, cygrad, small, seed, weights)
    th = None if torch is None else build(name, torch, small, seed, weights)
    return cy, th


# ---- timing ---------------------------------------------------------------------------

SETTLE_SECONDS = 0.3


def _steps_per_round(work, budget=0.05):
    """How many steps make one timed round of about ``budget`` seconds."""
    t0 = time.perf_counter()
    work.step()
    dt = max(time.perf_counter() - t0, 1e-6)
    return max(1, min(200, int(budget / dt)))


def _round(work, steps):
    t0 = time.perf_counter()
    for _ in range(steps):
        work.step()
    return (time.perf_counter() - t0) / steps


def time_pair(cy, th, rounds=7, warmup=3, extra=None):
    """Median seconds per step of each workload, their rounds interleaved
    (``extra``: more named workloads to time in the same rounds).

    Examples
    --------
    >>> cy, th = build_pair("mlp_lm", small=True)
    >>> t = time_pair(cy, None, rounds=1, warmup=1)
    >>> t["cygrad"] > 0
    True
    """
    works = {"cygrad": cy, **(extra or {})}
    if th is not None:
        works["torch"] = th
    for w in works.values():
        for _ in range(warmup):
            w.step()
    steps = {k: _steps_per_round(w) for k, w in works.items()}
    samples = {k: [] for k in works}
    for _ in range(rounds):
        for k, w in works.items():
            # Both libraries live in this process: let the other one's worker threads
            # go idle first (OpenBLAS's spin for up to ~0.1 s after a parallel product,
            # OpenMP's for a while after a parallel region), so that neither is timed
            # against the other's spinning threads.
            time.sleep(SETTLE_SECONDS)
            samples[k].append(_round(w, steps[k]))
    return {k: statistics.median(v) for k, v in samples.items()}


def _fmt_ms(seconds):
    return f"{seconds * 1e3:9.3f}"


def hold_pool_contended(work):
    """Make each of ``work``'s steps start with cygrad's thread pool marked
    contended, so that mid-sized jobs stay on one thread as they do after a worker
    stalled (the thresholds in force before the quiet ones existed; see the Threads
    section of docs/architecture.md). For comparing the two policies in one run.

    Examples
    --------
    >>> cy, _ = build_pair("mlp_lm", small=True)
    >>> hold_pool_contended(cy).step() is not None
    True
    """
    from cygrad._core import tensor as C
    step = work._step

    def contended_step(*args):
        C._set_pool_contended(True)
        return step(*args)

    work._step = contended_step
    return work


def run(names, busy_levels, rounds, write=print, pool="auto"):
    """Time every model at every busy level; returns rows of
    ``(model, busy, cygrad_s, torch_s or None)``. ``pool="contended"`` times
    cygrad with its pool held contended (:func:`hold_pool_contended`);
    ``pool="compare"`` times both in the same rounds and prints the held one's
    time and ratio in two more columns."""
    rows = []
    compare = pool == "compare"
    for busy in busy_levels:
        label = "quiet" if busy == 0 else f"{busy} busy process" + ("es" if busy > 1 else "")
        write(f"\n{label}: median ms per step ({rounds} interleaved rounds)")
        write(f"{'model':<14}{'cygrad':>10}{'torch':>10}{'ratio':>8}"
              + (f"{'held':>10}{'ratio':>8}" if compare else ""))
        ctx = busy_processes(busy) if busy else contextlib.nullcontext()
        with ctx:
            for name in names:
                cy, th = build_pair(name)
                extra = None
                if pool == "contended":
                    hold_pool_contended(cy)
                elif compare:
                    extra = {"held": hold_pool_contended(build_pair(name)[0])}
                t = time_pair(cy, th, rounds=rounds, extra=extra)
                tt = t.get("torch")
                ratio = f"{t['cygrad'] / tt:7.2f}x" if tt else "      -"
                line = (f"{name:<14}{_fmt_ms(t['cygrad'])}{_fmt_ms(tt) if tt else '         -'}"
                        f"{ratio:>8}")
                if compare:
                    held = f"{t['held'] / tt:7.2f}x" if tt else "      -"
                    line += f"{_fmt_ms(t['held'])}{held:>8}"
                write(line)
                rows.append((name, busy, t["cygrad"], tt))
    return rows


def profile(name, steps=20, top=25, write=print):
    """Print cygrad's top ops by self time over ``steps`` steps of model ``name``
    (cygrad.profiler, the ``torch.profiler`` API), then cProfile's top Python functions."""
    import cProfile
    import pstats

    import cygrad
    cy, _ = build_pair(name)
    for _ in range(3):
        cy.step()
    with cygrad.profiler.profile() as prof:
        for _ in range(steps):
            cy.step()
    write(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=top))
    pr = cProfile.Profile()
    pr.enable()
    for _ in range(steps):
        cy.step()
    pr.disable()
    pstats.Stats(pr, stream=sys.stdout).sort_stats("tottime").print_stats(top)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", nargs="+", choices=MODELS, default=list(MODELS))
    ap.add_argument("--rounds", type=int, default=7, help="interleaved timing rounds (default 7)")
    ap.add_argument("--no-busy", action="store_true", help="skip the one-busy-process run")
    ap.add_argument("--profile", choices=MODELS, help="print cygrad's top ops for one model")
    ap.add_argument("--threads", type=int, help="threads for both libraries (default: cygrad's)")
    ap.add_argument("--pool", choices=("auto", "contended", "compare"), default="auto",
                    help="'contended': hold cygrad's pool contended, so mid-sized jobs stay "
                         "on one thread; 'compare': time both in the same rounds (default "
                         "'auto': the pool decides)")
    args = ap.parse_args(argv)

    import cygrad
    try:
        import torch
    except ImportError:
        torch = None
    if args.threads:
        cygrad.set_num_threads(args.threads)
    if torch is not None:
        torch.set_num_threads(cygrad.get_num_threads())
    libs = [("cygrad", cygrad)] + ([("torch", torch)] if torch is not None else [])
    describe_environment(environment_for(libs))
    print(f"CPU: {cpu_name()}")
    print(f"threads: cygrad {cygrad.get_num_threads()}"
          + (f", torch {torch.get_num_threads()}" if torch is not None else "")
          + f"; cores {cpu_count()}")
    if args.profile:
        profile(args.profile)
        return 0
    if args.pool == "contended":
        print("cygrad's pool held contended")
    elif args.pool == "compare":
        print("held: cygrad with its pool held contended (mid-sized jobs on one thread)")
    run(args.models, [0] if args.no_busy else [0, 1], args.rounds, pool=args.pool)
    return 0


def environment_for(libs):
    """The harness's environment record for these libraries."""
    from harness import Library
    return environment({n: Library(n, m, None, None) for n, m in libs})


if __name__ == "__main__":
    sys.exit(main())
