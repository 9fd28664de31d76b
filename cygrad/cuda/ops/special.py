"""The 'cuda' kernels of the special functions that ``elementwise_math.cu`` lacks:
Bessel J0/J1/Y0/Y1, modified Bessel K0/K1 (and scaled), ``spherical_bessel_j0``,
``airy_ai``, ``igamma``/``igammac`` and the orthogonal polynomials, launched from
``cuda_src/special_functions.cu``.

They are rows of the special functions' table (``cygrad/_core/special_table.py``),
so the core's elementwise dispatcher calls them through
:func:`cygrad.cuda.ops.elementwise.device_op`, which has already cast the operands
to the computing dtype (a polynomial's degree given as a number included); the
kernels run with the elementwise family's launcher and calling convention.
float32 and float64, and for ``igamma``/``igammac`` also float16 and bfloat16: the
dtypes of the CPU rows. Every dtype computes in double, as on the CPU, and is
rounded once (the half dtypes through float).

Examples
--------
>>> from cygrad.cuda.ops import special
>>> "airy_ai" in special.PRIMITIVES and "legendre_polynomial_p" in special.PRIMITIVES
True
"""
from ..._core import dispatch
from ..._core.special_table import POLYNOMIALS
from . import elementwise as _ew

FILE = "special_functions.cu"

UNARY = ("bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_k0",
         "modified_bessel_k1", "scaled_modified_bessel_k0", "scaled_modified_bessel_k1",
         "spherical_bessel_j0", "airy_ai")
BINARY = ("igamma", "igammac", *POLYNOMIALS)
#: the computing dtypes with a kernel: the CPU rows', which refuse float16 and
#: bfloat16 except igamma's and igammac's
DTYPES = {name: ("float32", "float64") for name in UNARY + BINARY}
DTYPES.update({name: ("float16", "bfloat16", "float32", "float64")
               for name in ("igamma", "igammac")})

#: every primitive this module gives a 'cuda' kernel
PRIMITIVES = UNARY + BINARY


def _kernel_for(name):
    def run(out, *operands):
        ct = operands[0].dtype
        if ct.name not in DTYPES[name]:
            raise _ew._no_kernel(name, ct)
        return _ew._launch(f"cg_{name}_{_ew._SFX[ct.name]}_strided", out, operands, file=FILE)
    run.__name__ = f"cuda_{name}"
    run.__doc__ = (f"out[...] = {name}({'x' if name in UNARY else 'a, b'}) on the device "
                   f"(cuda_src/{FILE}).")
    return run


def register():
    """Register this family's 'cuda' kernels with the kernel table.

    Examples
    --------
    >>> from cygrad._core import dispatch
    >>> from cygrad.cuda.ops import special
    >>> special.register()
    >>> dispatch.kernel("igamma", "cuda").__name__
    'cuda_igamma'
    """
    for name in PRIMITIVES:
        dispatch.register(name, "cuda")(_kernel_for(name))
