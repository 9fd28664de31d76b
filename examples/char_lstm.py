"""A character-level language model: an LSTM learns to continue a short text.

What it shows:

* ``nn.Embedding -> nn.LSTM(batch_first=True) -> nn.Linear`` as one ``nn.Module``,
  trained with cross-entropy on "predict the next character" over random windows
  of ``examples/data/tiny.txt`` (a few KB of text written for this repository);
* gradient clipping with ``nn.utils.clip_grad_norm_`` (usual for recurrent nets)
  and ``optim.Adam``;
* sampling: the LSTM's ``(h, c)`` state is carried from one character to the
  next, so each new character costs one LSTM step.

300 steps take seconds; the loss falls from ln(vocabulary size) ~ 3.8 to
about 0.4. The text is only 3.5 KB, so the network largely memorises it and
its samples splice together phrases of the text; ``--steps 60`` stops while
it is still inventing words.
"""
import argparse
import math
import time

import cygrad
from cygrad import nn

from text_data import DEFAULT_TEXT, load_text, random_batch, sample


class CharLSTM(nn.Module):
    """Embedding, a one-layer LSTM and a linear read-out to next-character logits."""

    def __init__(self, vocab_size, embed_dim=32, hidden_size=128):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, embed_dim)
        self.lstm = nn.LSTM(embed_dim, hidden_size, batch_first=True)
        self.head = nn.Linear(hidden_size, vocab_size)

    def forward(self, ids, state=None):
        out, state = self.lstm(self.embed(ids), state)
        return self.head(out), state


def train(model, ids, steps, batch_size=16, seq_len=48, lr=1e-2, log_every=50):
    """Train on random windows of ``ids``; returns the loss of every step."""
    opt = cygrad.optim.Adam(model.parameters(), lr=lr)
    losses = []
    for step in range(1, steps + 1):
        inputs, targets = random_batch(ids, batch_size, seq_len)
        logits, _ = model(inputs)
        loss = nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]),
                                           targets.reshape(-1))
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        losses.append(loss.item())
        if log_every and step % log_every == 0:
            print(f"step {step:4d}  loss {sum(losses[-log_every:]) / log_every:.3f}")
    return losses


def generate(model, vocab, prompt, length):
    model.eval()

    def next_logits(ids, state):
        # first call: run the whole prompt; then one new character per call
        logits, state = model(ids if state is None else ids[:, -1:], state)
        return logits[0, -1], state

    return sample(next_logits, vocab, prompt, length)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=300)
    p.add_argument("--hidden", type=int, default=128)
    p.add_argument("--text", default=DEFAULT_TEXT)
    p.add_argument("--sample-length", type=int, default=200)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)

    cygrad.manual_seed(args.seed)
    text, vocab, ids = load_text(args.text)
    print(f"{len(text)} characters, {len(vocab)} distinct; "
          f"a uniform guess has loss ln({len(vocab)}) = {math.log(len(vocab)):.2f}")
    model = CharLSTM(len(vocab), hidden_size=args.hidden)
    start = time.perf_counter()
    losses = train(model, ids, args.steps, log_every=max(1, args.steps // 6))
    print(f"{args.steps} steps in {time.perf_counter() - start:.1f} s")
    print("sample:", repr(generate(model, vocab, "The ", args.sample_length)))
    return losses


if __name__ == "__main__":
    main()
