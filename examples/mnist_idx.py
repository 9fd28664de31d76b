"""Train a classifier on MNIST read from its original IDX files.

MNIST is distributed as four IDX files (``train-images-idx3-ubyte``,
``train-labels-idx1-ubyte``, ``t10k-images-idx3-ubyte``,
``t10k-labels-idx1-ubyte``, often gzipped). This script reads them from a
directory you give it (nothing is downloaded), trains an MLP for one epoch with
a ``DataLoader`` and ``optim.SGD`` with momentum, and prints the test accuracy
(about 96% after one epoch on the full set)::

    python examples/mnist_idx.py --data-dir ~/data/mnist
    python examples/mnist_idx.py --data-dir ~/data/mnist --limit 5000   # quicker

What it shows: reading a binary format into a tensor without copying it
(``read_idx``: a header, then a big-endian array), and a plain training loop.

The IDX format: two zero bytes, one byte for the element type (0x08 uint8,
0x09 int8, 0x0B int16, 0x0C int32, 0x0D float32, 0x0E float64), one byte for
the number of dimensions, each dimension as a big-endian uint32, then the
elements in C order, big-endian.
"""
import argparse
import gzip
import os
import time

import numpy as np

import cygrad
from cygrad import nn
from cygrad.utils.data import DataLoader, TensorDataset

IDX_TYPES = {0x08: ">u1", 0x09: ">i1", 0x0B: ">i2", 0x0C: ">i4", 0x0D: ">f4", 0x0E: ">f8"}
FILES = {"train": ("train-images-idx3-ubyte", "train-labels-idx1-ubyte"),
         "test": ("t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte")}


def read_idx(path):
    """The array stored in the IDX file ``path`` (gzipped if it ends in ``.gz``), as a tensor.

    Multi-byte types are converted to native byte order; ``uint8`` data (all of
    MNIST) become a tensor sharing the file's buffer.

    Examples
    --------
    >>> import os, struct, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "x.idx")
    >>> with open(path, "wb") as f:
    ...     _ = f.write(struct.pack(">BBBBII", 0, 0, 0x08, 2, 2, 3) + bytes(range(6)))
    >>> read_idx(path).tolist()
    [[0, 1, 2], [3, 4, 5]]
    """
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        data = bytearray(f.read())   # writable, so the tensor may share it
    if len(data) < 4 or data[0] != 0 or data[1] != 0:
        raise ValueError(f"{path}: not an IDX file (it must start with two zero bytes)")
    if data[2] not in IDX_TYPES:
        raise ValueError(f"{path}: unknown IDX element type 0x{data[2]:02x}")
    dtype, ndim = np.dtype(IDX_TYPES[data[2]]), data[3]
    header = 4 + 4 * ndim
    shape = tuple(int(d) for d in np.frombuffer(data, ">u4", count=ndim, offset=4))
    expected = header + dtype.itemsize * int(np.prod(shape, dtype=np.int64))
    if len(data) != expected:
        raise ValueError(f"{path}: {len(data)} bytes, but a {shape} array of {dtype} "
                         f"with its header is {expected}")
    array = np.frombuffer(data, dtype, offset=header).reshape(shape)
    return cygrad.from_numpy(array.astype(dtype.newbyteorder("="), copy=False))


def find_file(data_dir, name):
    for candidate in (name, name + ".gz"):
        path = os.path.join(data_dir, candidate)
        if os.path.exists(path):
            return path
    raise FileNotFoundError(f"neither {name} nor {name}.gz in {data_dir}")


def load_split(data_dir, split, limit=None):
    """``TensorDataset`` of float images in [0, 1], flattened to 784, and int64 labels."""
    images_name, labels_name = FILES[split]
    images = read_idx(find_file(data_dir, images_name))
    labels = read_idx(find_file(data_dir, labels_name))
    if limit is not None:
        images, labels = images[:limit], labels[:limit]
    images = images.reshape(len(images), -1).float() / 255
    return TensorDataset(images, labels.long())


def build_model(n_pixels=784):
    return nn.Sequential(nn.Linear(n_pixels, 256), nn.ReLU(),
                         nn.Linear(256, 128), nn.ReLU(), nn.Linear(128, 10))


def train_epoch(model, loader, opt):
    model.train()
    losses = []
    for images, labels in loader:
        loss = nn.functional.cross_entropy(model(images), labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


@cygrad.no_grad()
def accuracy(model, dataset):
    model.eval()
    images, labels = dataset.tensors
    return (model(images).argmax(dim=1) == labels).float().mean().item()


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data-dir", required=True, help="directory holding the four IDX files")
    p.add_argument("--limit", type=int, default=None, help="use only the first N images of each split")
    p.add_argument("--epochs", type=int, default=1)
    p.add_argument("--batch-size", type=int, default=128)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)

    cygrad.manual_seed(args.seed)
    train_set, test_set = (load_split(args.data_dir, s, args.limit) for s in ("train", "test"))
    n_pixels = train_set.tensors[0].shape[1]
    print(f"{len(train_set)} training and {len(test_set)} test images of {n_pixels} pixels")
    model = build_model(n_pixels)
    opt = cygrad.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    loader = DataLoader(train_set, batch_size=args.batch_size, shuffle=True)
    losses = []
    for epoch in range(1, args.epochs + 1):
        start = time.perf_counter()
        losses += train_epoch(model, loader, opt)
        print(f"epoch {epoch}: last loss {losses[-1]:.3f}, test accuracy "
              f"{accuracy(model, test_set):.2%} ({time.perf_counter() - start:.1f} s)")
    return losses


if __name__ == "__main__":
    main()
