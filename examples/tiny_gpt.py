"""A tiny GPT: a causal transformer trained on characters, then sampled.

What it shows:

* token embeddings plus learned position embeddings, a stack of
  ``nn.TransformerEncoderLayer`` (pre-norm, GELU, ``batch_first=True``) made
  causal with ``nn.Transformer.generate_square_subsequent_mask``, a final
  ``nn.LayerNorm`` and a linear head whose weight is tied to the token
  embedding (one ``Parameter`` used twice, its gradients summed by autograd);
* ``optim.AdamW`` with a cosine learning-rate schedule from ``optim.lr_scheduler``;
* sampling by feeding the model its own output, the last ``block_size``
  characters at a time;
* ``--profile [TRACE]``: one training step under ``cygrad.profiler`` (after a
  short warm-up) instead of training: the top ops as a table, and a Chrome
  trace to open in Perfetto.

It trains on ``examples/data/tiny.txt`` (the text ``char_lstm.py`` uses) for a
few hundred steps in seconds (about 6 s of CPU time); the loss falls from
~3.8 to ~2.0 and the samples show words and spaces in the right places.
"""
import argparse
import math
import time

import cygrad
from cygrad import nn
from cygrad.profiler import profile, record_function

from text_data import DEFAULT_TEXT, load_text, random_batch, sample


class TinyGPT(nn.Module):
    """A decoder-only transformer over characters."""

    def __init__(self, vocab_size, block_size=32, d_model=64, nhead=4, num_layers=2):
        super().__init__()
        self.block_size = block_size
        self.tok = nn.Embedding(vocab_size, d_model)
        self.pos = nn.Embedding(block_size, d_model)
        layer = nn.TransformerEncoderLayer(d_model, nhead, dim_feedforward=4 * d_model,
                                           dropout=0.0, activation="gelu",
                                           batch_first=True, norm_first=True)
        self.blocks = nn.TransformerEncoder(layer, num_layers, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size, bias=False)
        self.head.weight = self.tok.weight          # weight tying
        # small embeddings (GPT-2's std): with N(0, 1) the tied head starts out
        # with logits of size ~sqrt(d_model) and a loss far above ln(vocab)
        nn.init.normal_(self.tok.weight, std=0.02)
        nn.init.normal_(self.pos.weight, std=0.02)
        self.register_buffer("causal", nn.Transformer.generate_square_subsequent_mask(block_size),
                             persistent=False)

    def forward(self, ids):
        t = ids.shape[1]
        x = self.tok(ids) + self.pos(cygrad.arange(t))
        x = self.blocks(x, mask=self.causal[:t, :t], is_causal=True)
        return self.head(self.norm(x))


def train_step(model, opt, inputs, targets):
    """One step: forward, loss, backward, optimizer update; returns the loss.
    The ``record_function`` regions name the phases in a profile (outside a
    profiler they do nothing)."""
    with record_function("forward"):
        logits = model(inputs)
        loss = nn.functional.cross_entropy(logits.flatten(0, 1), targets.flatten())
    with record_function("backward"):
        opt.zero_grad()
        loss.backward()
    with record_function("optimizer"):
        opt.step()
    return loss


def train(model, ids, steps, batch_size=16, lr=3e-3, log_every=50):
    """Train on random windows of ``ids``; returns the loss of every step."""
    opt = cygrad.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.01)
    sched = cygrad.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=steps, eta_min=lr / 10)
    losses = []
    for step in range(1, steps + 1):
        inputs, targets = random_batch(ids, batch_size, model.block_size)
        loss = train_step(model, opt, inputs, targets)
        sched.step()
        losses.append(loss.item())
        if log_every and step % log_every == 0:
            print(f"step {step:4d}  loss {sum(losses[-log_every:]) / log_every:.3f}  "
                  f"lr {sched.get_last_lr()[0]:.2e}")
    return losses


def profile_step(model, ids, trace_path, warmup=3, batch_size=16, row_limit=15):
    """Profile one training step after ``warmup`` unprofiled ones: print the ops
    that took the most time and write a Chrome trace (open it in Perfetto)."""
    opt = cygrad.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.01)
    for _ in range(warmup):
        train_step(model, opt, *random_batch(ids, batch_size, model.block_size))
    batch = random_batch(ids, batch_size, model.block_size)
    with profile(record_shapes=True, profile_memory=True) as prof:
        train_step(model, opt, *batch)
    print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=row_limit))
    prof.export_chrome_trace(trace_path)
    print(f"Chrome trace written to {trace_path}: open it at https://ui.perfetto.dev "
          "or chrome://tracing")
    return prof


def generate(model, vocab, prompt, length):
    model.eval()

    def next_logits(ids, state):
        return model(ids[:, -model.block_size:])[0, -1], None

    return sample(next_logits, vocab, prompt, length)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=300)
    p.add_argument("--d-model", type=int, default=64)
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--text", default=DEFAULT_TEXT)
    p.add_argument("--sample-length", type=int, default=200)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--profile", nargs="?", const="tiny_gpt_trace.json", metavar="TRACE",
                   help="profile one training step after warm-up instead of training: "
                        "print the top ops and write a Chrome trace (default path: "
                        "%(const)s)")
    args = p.parse_args(argv)

    cygrad.manual_seed(args.seed)
    text, vocab, ids = load_text(args.text)
    model = TinyGPT(len(vocab), d_model=args.d_model, num_layers=args.layers)
    n_params = sum(p.numel() for p in model.parameters())
    print(f"{len(text)} characters, {len(vocab)} distinct (uniform guess: loss "
          f"{math.log(len(vocab)):.2f}); model: {n_params} parameters")
    if args.profile:
        return profile_step(model, ids, args.profile)
    start = time.perf_counter()
    losses = train(model, ids, args.steps, log_every=max(1, args.steps // 6))
    print(f"{args.steps} steps in {time.perf_counter() - start:.1f} s")
    print("sample:", repr(generate(model, vocab, "The ", args.sample_length)))
    return losses


if __name__ == "__main__":
    main()
