"""``Embedding``: a lookup table of learnable vectors."""
from ...autograd.grad_mode import no_grad
from ...ops.creation import empty
from .. import init
from .._ops.embedding_bag import embedding_bag
from .._ops.sparse import _padding_index, embedding
from ..parameter import Parameter
from .module import Module

__all__ = ["Embedding", "EmbeddingBag"]


class Embedding(Module):
    """A ``(num_embeddings, embedding_dim)`` table whose rows are looked up by index,
    as ``torch.nn.Embedding``.

    ``weight`` starts from N(0, 1); the ``padding_idx`` row starts at zero and gets
    no gradient.  ``max_norm`` renormalises looked-up rows in place.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> emb = nn.Embedding(10, 3, padding_idx=0)
    >>> emb(cygrad.tensor([[1, 2, 0], [4, 3, 9]])).shape
    cygrad.Size([2, 3, 3])
    >>> emb.weight[0].tolist()
    [0.0, 0.0, 0.0]
    """

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None,
                 norm_type=2.0, scale_grad_by_freq=False, sparse=False, _weight=None,
                 _freeze=False, device=None, dtype=None):
        super().__init__()
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        self.padding_idx = _padding_index(padding_idx, num_embeddings)
        self.max_norm = max_norm
        self.norm_type = norm_type
        self.scale_grad_by_freq = scale_grad_by_freq
        self.sparse = sparse
        if _weight is None:
            self.weight = Parameter(empty((num_embeddings, embedding_dim), device=device,
                                          dtype=dtype), requires_grad=not _freeze)
            self.reset_parameters()
        else:
            if list(_weight.shape) != [num_embeddings, embedding_dim]:
                raise AssertionError("Shape of weight does not match num_embeddings and "
                                     "embedding_dim")
            self.weight = Parameter(_weight, requires_grad=not _freeze)

    def reset_parameters(self):
        """Redraw ``weight`` from N(0, 1) and zero the padding row."""
        init.normal_(self.weight)
        self._fill_padding_idx_with_zero()

    def _fill_padding_idx_with_zero(self):
        if self.padding_idx is not None:
            with no_grad():
                self.weight[self.padding_idx].fill_(0)

    def forward(self, input):
        return embedding(input, self.weight, self.padding_idx, self.max_norm, self.norm_type,
                         self.scale_grad_by_freq, self.sparse)

    def extra_repr(self):
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm}"
        if self.norm_type != 2:
            s += f", norm_type={self.norm_type}"
        if self.scale_grad_by_freq is not False:
            s += ", scale_grad_by_freq=True"
        if self.sparse is not False:
            s += ", sparse=True"
        return s

    @classmethod
    def from_pretrained(cls, embeddings, freeze=True, padding_idx=None, max_norm=None,
                        norm_type=2.0, scale_grad_by_freq=False, sparse=False):
        """An ``Embedding`` whose table is ``embeddings`` (2-D); frozen unless
        ``freeze=False``.

        Examples
        --------
        >>> import cygrad
        >>> from cygrad import nn
        >>> emb = nn.Embedding.from_pretrained(cygrad.tensor([[1.0, 2.0], [3.0, 4.0]]))
        >>> emb(cygrad.tensor([1])).tolist(), emb.weight.requires_grad
        ([[3.0, 4.0]], False)
        """
        assert embeddings.dim() == 2, "Embeddings parameter is expected to be 2-dimensional"
        rows, cols = embeddings.shape
        return cls(rows, cols, _weight=embeddings, _freeze=freeze, padding_idx=padding_idx,
                   max_norm=max_norm, norm_type=norm_type,
                   scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)


class EmbeddingBag(Module):
    """A ``(num_embeddings, embedding_dim)`` table whose rows are summed, averaged or
    maxed over bags of indices, as ``torch.nn.EmbeddingBag``; see
    :func:`cygrad.nn.functional.embedding_bag`.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> bag = nn.EmbeddingBag(10, 3, mode="sum")
    >>> bag(cygrad.tensor([1, 2, 4, 5]), cygrad.tensor([0, 2])).shape
    cygrad.Size([2, 3])
    """

    def __init__(self, num_embeddings, embedding_dim, max_norm=None, norm_type=2.0,
                 scale_grad_by_freq=False, mode="mean", sparse=False, _weight=None,
                 include_last_offset=False, padding_idx=None, device=None, dtype=None):
        super().__init__()
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        self.max_norm = max_norm
        self.norm_type = norm_type
        self.scale_grad_by_freq = scale_grad_by_freq
        self.padding_idx = _padding_index(padding_idx, num_embeddings)
        if _weight is None:
            self.weight = Parameter(empty((num_embeddings, embedding_dim), device=device,
                                          dtype=dtype))
            self.reset_parameters()
        else:
            assert list(_weight.shape) == [num_embeddings, embedding_dim], \
                "Shape of weight does not match num_embeddings and embedding_dim"
            self.weight = Parameter(_weight)
        self.mode = mode
        self.sparse = sparse
        self.include_last_offset = include_last_offset

    def reset_parameters(self):
        """Redraw ``weight`` from N(0, 1) and zero the padding row."""
        init.normal_(self.weight)
        if self.padding_idx is not None:
            with no_grad():
                self.weight[self.padding_idx].fill_(0)

    def forward(self, input, offsets=None, per_sample_weights=None):
        return embedding_bag(input, self.weight, offsets, self.max_norm, self.norm_type,
                             self.scale_grad_by_freq, self.mode, self.sparse,
                             per_sample_weights, self.include_last_offset, self.padding_idx)

    def extra_repr(self):
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm!r}"
        if self.norm_type != 2:
            s += f", norm_type={self.norm_type!r}"
        if self.scale_grad_by_freq is not False:
            s += f", scale_grad_by_freq={self.scale_grad_by_freq!r}"
        s += f", mode={self.mode!r}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx!r}"
        return s

    @classmethod
    def from_pretrained(cls, embeddings, freeze=True, max_norm=None, norm_type=2.0,
                        scale_grad_by_freq=False, mode="mean", sparse=False,
                        include_last_offset=False, padding_idx=None):
        """An ``EmbeddingBag`` whose table is ``embeddings`` (2-D); frozen unless
        ``freeze=False``.

        Examples
        --------
        >>> import cygrad
        >>> from cygrad import nn
        >>> bag = nn.EmbeddingBag.from_pretrained(cygrad.tensor([[1.0, 2.0], [3.0, 4.0]]))
        >>> bag(cygrad.tensor([[0, 1]])).tolist(), bag.weight.requires_grad
        ([[2.0, 3.0]], False)
        """
        assert embeddings.dim() == 2, "Embeddings parameter is expected to be 2-dimensional"
        rows, cols = embeddings.shape
        bag = cls(rows, cols, max_norm=max_norm, norm_type=norm_type,
                  scale_grad_by_freq=scale_grad_by_freq, mode=mode, sparse=sparse,
                  _weight=embeddings, include_last_offset=include_last_offset,
                  padding_idx=padding_idx)
        bag.weight.requires_grad = not freeze
        return bag
