"""Character-level text helpers shared by ``char_lstm.py`` and ``tiny_gpt.py``.

A text becomes a 1-D int64 tensor of character ids; training batches are random
windows of it, each target the window shifted by one character; sampling feeds a
model its own predictions one character at a time.

Examples
--------
>>> vocab = CharVocab("abca")
>>> vocab.chars, vocab.encode("cab").tolist(), vocab.decode([2, 0])
(['a', 'b', 'c'], [2, 0, 1], 'ca')
"""
import os

import cygrad

DEFAULT_TEXT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "tiny.txt")


class CharVocab:
    """The characters of a text, each given an id in sorted order."""

    def __init__(self, text):
        self.chars = sorted(set(text))
        self.index = {c: i for i, c in enumerate(self.chars)}

    def __len__(self):
        return len(self.chars)

    def encode(self, text):
        return cygrad.tensor([self.index[c] for c in text], dtype=cygrad.int64)

    def decode(self, ids):
        return "".join(self.chars[i] for i in ids)


def load_text(path=DEFAULT_TEXT):
    """The text of ``path``, its vocabulary and its ids."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    vocab = CharVocab(text)
    return text, vocab, vocab.encode(text)


def random_batch(ids, batch_size, seq_len):
    """``(inputs, targets)`` of shape ``(batch_size, seq_len)``: random windows of ``ids``
    and the same windows one character later."""
    starts = cygrad.randint(0, len(ids) - seq_len - 1, (batch_size,)).tolist()
    inputs = cygrad.stack([ids[s:s + seq_len] for s in starts])
    targets = cygrad.stack([ids[s + 1:s + seq_len + 1] for s in starts])
    return inputs, targets


@cygrad.no_grad()
def sample(next_logits, vocab, prompt, length, temperature=0.8):
    """Extend ``prompt`` by ``length`` characters drawn from the model.

    ``next_logits(ids, state)`` takes all ids so far (``(1, t)``) and a state of
    its own choosing (``None`` at first) and returns ``(logits, state)``, the
    logits of the next character being ``(len(vocab),)``: a recurrent model
    keeps its hidden state there and reads only the last id, a transformer
    ignores it and reads the whole window.
    """
    ids = vocab.encode(prompt)[None]
    state = None
    for _ in range(length):
        logits, state = next_logits(ids, state)
        probs = (logits / temperature).softmax(dim=-1)
        ids = cygrad.cat([ids, cygrad.multinomial(probs, 1)[None]], dim=1)
    return vocab.decode(ids[0].tolist())
