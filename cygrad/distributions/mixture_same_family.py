"""``MixtureSameFamily(mixture_distribution, component_distribution)``.

Examples
--------
>>> import cygrad
>>> from cygrad.distributions import MixtureSameFamily, Categorical, Normal
>>> mix = MixtureSameFamily(Categorical(cygrad.ones(2)),
...                         Normal(cygrad.tensor([-1.0, 1.0]), cygrad.tensor([1.0, 1.0])))
>>> mix.mean.item()
0.0
"""
import cygrad
from . import constraints
from .categorical import Categorical
from .distribution import Distribution

__all__ = ["MixtureSameFamily"]


class MixtureSameFamily(Distribution):
    """A mixture whose components are the rightmost batch dim of one
    ``component_distribution``, weighted by a :class:`Categorical`
    ``mixture_distribution`` (sampling is not reparameterised).

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.distributions import MixtureSameFamily, Categorical, Normal
    >>> mix = MixtureSameFamily(Categorical(cygrad.tensor([0.5, 0.5])),
    ...                         Normal(cygrad.tensor([0.0, 0.0]), cygrad.tensor([1.0, 3.0])))
    >>> mix.variance.item()
    5.0
    """
    arg_constraints = {}
    has_rsample = False

    def __init__(self, mixture_distribution, component_distribution, validate_args=None):
        self._mixture_distribution = mixture_distribution
        self._component_distribution = component_distribution
        if not isinstance(self._mixture_distribution, Categorical):
            raise ValueError("The Mixture distribution needs to be an instance of "
                             "torch.distributions.Categorical")
        if not isinstance(self._component_distribution, Distribution):
            raise ValueError("The Component distribution need to be an instance of "
                             "torch.distributions.Distribution")
        # the batch shapes must broadcast, and the component counts agree
        mdbs = self._mixture_distribution.batch_shape
        cdbs = self._component_distribution.batch_shape[:-1]
        for size1, size2 in zip(reversed(mdbs), reversed(cdbs)):
            if size1 != 1 and size2 != 1 and size1 != size2:
                raise ValueError(f"`mixture_distribution.batch_shape` ({mdbs}) is not "
                                 f"compatible with `component_distribution.batch_shape`({cdbs})")
        km = self._mixture_distribution.logits.shape[-1]
        kc = self._component_distribution.batch_shape[-1]
        if km is not None and kc is not None and km != kc:
            raise ValueError(f"`mixture_distribution component` ({km}) does not equal "
                             f"`component_distribution.batch_shape[-1]` ({kc})")
        self._num_component = km
        event_shape = self._component_distribution.event_shape
        self._event_ndims = len(event_shape)
        super().__init__(cdbs, event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        batch_shape = cygrad.Size(batch_shape)
        batch_shape_comp = cygrad.Size(tuple(batch_shape) + (self._num_component,))
        new = self._get_checked_instance(MixtureSameFamily, _instance)
        new._component_distribution = self._component_distribution.expand(batch_shape_comp)
        new._mixture_distribution = self._mixture_distribution.expand(batch_shape)
        new._num_component = self._num_component
        new._event_ndims = self._event_ndims
        event_shape = new._component_distribution.event_shape
        super(MixtureSameFamily, new).__init__(batch_shape, event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property
    def support(self):
        return self._component_distribution.support

    @property
    def mixture_distribution(self):
        return self._mixture_distribution

    @property
    def component_distribution(self):
        return self._component_distribution

    @property
    def mean(self):
        probs = self._pad_mixture_dimensions(self.mixture_distribution.probs)
        return (probs * self.component_distribution.mean).sum(-1 - self._event_ndims)

    @property
    def variance(self):
        # law of total variance: Var(Y) = E[Var(Y|X)] + Var(E[Y|X])
        probs = self._pad_mixture_dimensions(self.mixture_distribution.probs)
        dim = -1 - self._event_ndims
        mean_cond_var = (probs * self.component_distribution.variance).sum(dim)
        var_cond_mean = (probs * (self.component_distribution.mean
                                  - self._pad(self.mean)).pow(2.0)).sum(dim)
        return mean_cond_var + var_cond_mean

    def cdf(self, x):
        x = self._pad(x)
        cdf_x = self.component_distribution.cdf(x)
        mix_prob = self.mixture_distribution.probs
        return (cdf_x * mix_prob).sum(-1)

    def log_prob(self, x):
        if self._validate_args:
            self._validate_sample(x)
        x = self._pad(x)
        log_prob_x = self.component_distribution.log_prob(x)
        log_mix_prob = cygrad.log_softmax(self.mixture_distribution.logits, dim=-1)
        return (log_prob_x + log_mix_prob).logsumexp(-1)

    def sample(self, sample_shape=()):
        with cygrad.no_grad():
            sample_len = len(sample_shape)
            batch_len = len(self.batch_shape)
            gather_dim = sample_len + batch_len
            es = tuple(self.event_shape)
            # mixture draws first, then components: PyTorch's order of draws
            mix_sample = self.mixture_distribution.sample(sample_shape)
            mix_shape = tuple(mix_sample.shape)
            comp_samples = self.component_distribution.sample(sample_shape)
            index = mix_sample.reshape(mix_shape + (1,) * (len(es) + 1))
            index = index.expand(mix_shape + (1,) + es)
            samples = comp_samples.gather(gather_dim, index)
            return samples.squeeze(gather_dim)

    def _pad(self, x):
        return x.unsqueeze(-1 - self._event_ndims)

    def _pad_mixture_dimensions(self, x):
        dist_batch_ndims = len(self.batch_shape)
        cat_batch_ndims = len(self.mixture_distribution.batch_shape)
        pad_ndims = 0 if cat_batch_ndims == 1 else dist_batch_ndims - cat_batch_ndims
        xs = x.shape
        x = x.reshape(tuple(xs[:-1]) + (1,) * pad_ndims + tuple(xs[-1:])
                      + (1,) * self._event_ndims)
        return x

    def __repr__(self):
        args_string = (f"\n  {self.mixture_distribution},\n  {self.component_distribution}")
        return "MixtureSameFamily" + "(" + args_string + ")"
