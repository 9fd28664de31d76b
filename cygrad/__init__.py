"""cygrad: a readable PyTorch-style tensor and autodiff library with a Cython core.

Examples
--------
>>> import cygrad
>>> x = cygrad.arange(6, dtype=cygrad.float32).reshape(2, 3)
>>> (x * 2).sum(dim=1).tolist()
[6.0, 24.0]
"""
from .version import __version__
from ._device import device
from ._core.dtype import (dtype, bool_ as bool, uint8, int8, int16, int32, int64, float16,
                          bfloat16, float32, float64, complex64, complex128, promote_types,
                          set_default_dtype,
                          get_default_dtype)
from ._core.tensor import result_type, is_grad_enabled, Size, from_numpy
from ._threading import (get_num_threads, set_num_threads, get_num_interop_threads,
                         set_num_interop_threads)
from ._core.tensor import _can_cast as can_cast
from ._tensor import Tensor
from . import _wiring
_wiring.connect_tensor_class()
from . import memory

# PyTorch's dtype aliases
float = float32
double = float64
half = float16
long = int64
int = int32
short = int16
cfloat = complex64
cdouble = complex128

from .ops.creation import *       # noqa: E402,F401,F403
from .ops.elementwise import *    # noqa: E402,F401,F403
from .ops import _tensor_extras   # noqa: E402,F401  (detach, requires_grad_, ...)
from . import cuda                 # noqa: E402,F401  (never needs a GPU to import)
from ._printing import set_printoptions, get_printoptions  # noqa: E402,F401
from .ops.reduction import *    # noqa
from .ops.linalg import *       # noqa: E402,F401,F403
from .ops.shape import *        # noqa: E402,F401,F403
from ._core.dlpack import from_dlpack  # noqa: E402,F401  (also adds Tensor.__dlpack__)
from .ops.indexing import *    # noqa
from .random import *           # noqa: E402,F401,F403
from . import _numpy_interop  # noqa: E402,F401  (NumPy __array_ufunc__/__array_function__)
from . import _numpy_methods  # noqa: E402,F401  (NumPy spellings: astype, copy, ravel(order))
from . import autograd          # noqa: E402,F401
_wiring.connect()               # the core's hooks into autograd: see cygrad/_wiring.py
from .autograd import (no_grad, enable_grad, set_grad_enabled, inference_mode,  # noqa: E402,F401
                       is_inference_mode_enabled)
from ._legacy import *           # noqa: E402,F401,F403  (FloatTensor..., set_default_device, autograd.Variable)
from . import nn                # noqa: E402,F401  (nn.functional: pad, relu, softmax...)
from . import optim             # noqa: E402,F401  (optimizers, lr_scheduler)
from .serialization import save, load  # noqa: E402,F401
from . import multiprocessing  # noqa: E402,F401  (Tensor.share_memory_; tensors cross processes in shared memory)
from . import utils  # noqa: E402,F401  (cygrad.utils.data, as torch.utils.data)
from .ops.complex import *  # noqa: E402,F401,F403  (complex, polar, view_as_real, conj, angle ...)
from .ops.pointwise_extras import *  # noqa: E402,F401,F403  (addcmul, addcdiv, cdist; Tensor.sum_to_size)
from . import fft  # noqa: E402,F401  (cygrad.fft, as torch.fft)
from . import linalg  # noqa: E402,F401  (cygrad.linalg, as torch.linalg)
from . import viz  # noqa: E402,F401  (pictures; matplotlib is imported only when drawing)
from . import profiler  # noqa: E402,F401  (cygrad.profiler, as torch.profiler)
from . import func  # noqa: E402,F401  (cygrad.func, as torch.func: vmap, grad, jacrev ...)
from .func import vmap  # noqa: E402,F401  (torch.vmap)
from . import distributions  # noqa: E402,F401  (cygrad.distributions, as torch.distributions)
from .ops.special import *  # noqa: E402,F401,F403  (lgamma, digamma, xlogy, gcd, copysign ...)
from . import special  # noqa: E402,F401  (cygrad.special, as torch.special)
from .nn._toplevel import *  # noqa: E402,F401,F403  (torch.conv2d, torch.layer_norm, torch.kl_div ... as in PyTorch)
from .ops.tensorops import *  # noqa: E402,F401,F403  (cummax, quantile, histc, windows ... of issue 18)
from ._settings import *  # noqa: E402,F401,F403  (use_deterministic_algorithms, anomaly ... under torch.* names)
from ._dtype_info import *  # noqa: E402,F401,F403  (finfo, iinfo, strided, contiguous_format ...)
from .ops.tensor_info import *  # noqa: E402,F401,F403  (is_tensor, is_nonzero, numel, typename ...)
from .ops.creation_extras import *  # noqa: E402,F401,F403  (empty_strided, frombuffer, range, rsub ...)
from .ops.view_copies import *  # noqa: E402,F401,F403  (view_copy ..., split_with_sizes, Tensor.unfold)
from .ops.inplace_views import *  # noqa: E402,F401,F403  (t_, transpose_, unsqueeze_ ..., as_strided_)
from math import e, inf, nan, pi  # noqa: E402,F401  (torch.e, torch.pi ...)
newaxis = None                    # torch.newaxis, as NumPy's
from .ops.tensor_methods import *  # noqa: E402,F401,F403  (resize_as_; Tensor.type_as, apply_ ...)
from ._compile import *  # noqa: E402,F401,F403  (compile returns its model: cygrad runs eagerly; cond, while_loop)
# keep last: generates cygrad.exp_ ... for every in-place method the families registered
from .ops.inplace_functions import *  # noqa: E402,F401,F403
