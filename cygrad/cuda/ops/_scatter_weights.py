def scatter_reduce_weights(x, dim, index, src, result, reduce, include_self):
    raise NotImplementedError
