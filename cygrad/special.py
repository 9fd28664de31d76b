"""``cygrad.special``: PyTorch's ``torch.special`` namespace.

Every name of ``torch.special`` (PyTorch 2.13), with its signature and
semantics. The functions PyTorch also has at top level are the same objects
(``cygrad.special.erf is cygrad.erf``, ``special.gammaln is cygrad.lgamma``);
the rest (Bessel functions, orthogonal polynomials, ``ndtr``...) live only here.
Their kernels are in ``cygrad/_core/cpu/special.c``; see the docs page
"Special functions".

Examples
--------
>>> import cygrad
>>> from cygrad import special
>>> special.expit(cygrad.tensor([0.0])).tolist()
[0.5]
>>> special.zeta(cygrad.tensor([2.0]), 1.0).tolist()   # pi^2 / 6
[1.644934058189392]
"""
from .ops.special import SPECIAL_ONLY as _ONLY
from .ops.special import (digamma, erfinv, i0, logit, mvlgamma, polygamma, sinc, xlogy,  # noqa: F401
                          lgamma)
from .ops.elementwise import erf, erfc, exp2, expm1, log1p, round, sigmoid  # noqa: F401
from .ops.reduction.softmax import log_softmax, logsumexp, softmax  # noqa: F401

psi = digamma
gammaln = lgamma
multigammaln = mvlgamma
expit = sigmoid
airy_ai = _ONLY["airy_ai"]
bessel_j0 = _ONLY["bessel_j0"]
bessel_j1 = _ONLY["bessel_j1"]
bessel_y0 = _ONLY["bessel_y0"]
bessel_y1 = _ONLY["bessel_y1"]
chebyshev_polynomial_t = _ONLY["chebyshev_polynomial_t"]
chebyshev_polynomial_u = _ONLY["chebyshev_polynomial_u"]
chebyshev_polynomial_v = _ONLY["chebyshev_polynomial_v"]
chebyshev_polynomial_w = _ONLY["chebyshev_polynomial_w"]
shifted_chebyshev_polynomial_t = _ONLY["shifted_chebyshev_polynomial_t"]
shifted_chebyshev_polynomial_u = _ONLY["shifted_chebyshev_polynomial_u"]
shifted_chebyshev_polynomial_v = _ONLY["shifted_chebyshev_polynomial_v"]
shifted_chebyshev_polynomial_w = _ONLY["shifted_chebyshev_polynomial_w"]
hermite_polynomial_h = _ONLY["hermite_polynomial_h"]
hermite_polynomial_he = _ONLY["hermite_polynomial_he"]
laguerre_polynomial_l = _ONLY["laguerre_polynomial_l"]
legendre_polynomial_p = _ONLY["legendre_polynomial_p"]
entr = _ONLY["entr"]
erfcx = _ONLY["erfcx"]
gammainc = _ONLY["gammainc"]
gammaincc = _ONLY["gammaincc"]
i0e = _ONLY["i0e"]
i1 = _ONLY["i1"]
i1e = _ONLY["i1e"]
log_ndtr = _ONLY["log_ndtr"]
modified_bessel_i0 = _ONLY["modified_bessel_i0"]
modified_bessel_i1 = _ONLY["modified_bessel_i1"]
modified_bessel_k0 = _ONLY["modified_bessel_k0"]
modified_bessel_k1 = _ONLY["modified_bessel_k1"]
scaled_modified_bessel_k0 = _ONLY["scaled_modified_bessel_k0"]
scaled_modified_bessel_k1 = _ONLY["scaled_modified_bessel_k1"]
ndtr = _ONLY["ndtr"]
ndtri = _ONLY["ndtri"]
spherical_bessel_j0 = _ONLY["spherical_bessel_j0"]
xlog1py = _ONLY["xlog1py"]
zeta = _ONLY["zeta"]

__all__ = [
    "airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "chebyshev_polynomial_t",
    "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w", "digamma",
    "entr", "erf", "erfc", "erfcx", "erfinv", "exp2", "expit", "expm1", "gammainc", "gammaincc",
    "gammaln", "hermite_polynomial_h", "hermite_polynomial_he", "i0", "i0e", "i1", "i1e",
    "laguerre_polynomial_l", "legendre_polynomial_p", "log1p", "log_ndtr", "log_softmax",
    "logit", "logsumexp", "modified_bessel_i0", "modified_bessel_i1", "modified_bessel_k0",
    "modified_bessel_k1", "multigammaln", "ndtr", "ndtri", "polygamma", "psi", "round",
    "scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "shifted_chebyshev_polynomial_t",
    "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
    "shifted_chebyshev_polynomial_w", "sinc", "softmax", "spherical_bessel_j0", "xlog1py",
    "xlogy", "zeta"]
