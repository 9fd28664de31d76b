"""cygrad.nn: neural-network building blocks, as ``torch.nn``.

- ``Module`` (``nn/modules/module.py``): the base class of layers and models;
  parameters, buffers and sub-modules assigned as attributes are registered,
  found recursively, saved by ``state_dict`` and moved by ``to``.
- ``Parameter``: the tensor subclass that marks a module's weights; ``Buffer``
  marks a tensor to register as a buffer when assigned.
- Containers (``Sequential``, ``ModuleList``, ``ModuleDict``, ``ParameterList``,
  ``ParameterDict``) and layers (``Identity``, ``Linear``, ``Bilinear``,
  ``Flatten``, ``Unflatten``).
- ``cygrad.nn.functional``: the functional forms (``linear``, ``bilinear``,
  ``relu``, ``softmax``, ``pad``...).
- ``cygrad.nn.init``: weight initialisations; ``cygrad.nn.utils``: gradient
  clipping and parameter/vector conversion.

See ``docs/nn.md`` for how a module works.
"""
from . import functional  # noqa: F401
from .parameter import Parameter, Buffer
from .modules import (Module, Sequential, ModuleList, ModuleDict, ParameterList,  # noqa: F401
                      ParameterDict, Identity, Linear, Bilinear, Flatten, Unflatten)
from . import init, utils, parallel  # noqa: F401

__all__ = ["Parameter", "Buffer", "Module", "Sequential", "ModuleList", "ModuleDict", "ParameterList",
           "ParameterDict", "Identity", "Linear", "Bilinear", "Flatten", "Unflatten",
           "functional", "init", "utils", "parallel"]
from .modules.activation import *  # noqa: E402,F401,F403  (ReLU, GELU, Softmax, PReLU...)
from .modules import activation as _activation_modules  # noqa: E402
__all__ += _activation_modules.__all__
from .modules.batchnorm import *  # noqa: E402,F401,F403  (BatchNorm1d/2d/3d)
from .modules.normalization import *  # noqa: E402,F401,F403  (LayerNorm, GroupNorm)
from .modules import batchnorm as _bn_modules, normalization as _norm_modules  # noqa: E402
__all__ += _bn_modules.__all__ + _norm_modules.__all__
from .modules.dropout import *  # noqa: E402,F401,F403  (Dropout, Dropout1d/2d/3d, AlphaDropout)
from .modules.sparse import Embedding, EmbeddingBag  # noqa: E402,F401
from .modules import dropout as _dropout_modules  # noqa: E402
__all__ += _dropout_modules.__all__ + ["Embedding", "EmbeddingBag"]
from .modules.loss import *  # noqa: E402,F401,F403  (CrossEntropyLoss, MSELoss, BCEWithLogitsLoss...)
from .modules import loss as _loss_modules  # noqa: E402
__all__ += _loss_modules.__all__
from .modules.rnn import RNNBase, RNN, LSTM, GRU, RNNCellBase, RNNCell, LSTMCell, GRUCell  # noqa: E402,F401
__all__ += ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]
from .modules.attention import MultiheadAttention  # noqa: E402,F401
from .modules.transformer import *  # noqa: E402,F401,F403  (Transformer and its layers)
from .modules import transformer as _transformer_modules  # noqa: E402
__all__ += ["MultiheadAttention"] + _transformer_modules.__all__
from .modules.conv import *  # noqa: E402,F401,F403  (Conv1d/2d/3d, ConvTranspose1d/2d/3d)
from .modules.pooling import *  # noqa: E402,F401,F403  (MaxPool2d, AvgPool2d, Adaptive*...)
from .modules.padding import *  # noqa: E402,F401,F403  (ZeroPad2d, ReflectionPad2d...)
from .modules.upsampling import *  # noqa: E402,F401,F403  (Upsample)
from .modules.fold import Fold, Unfold  # noqa: E402,F401
from .modules import conv as _conv_modules, pooling as _pool_modules  # noqa: E402
from .modules import padding as _pad_modules, upsampling as _up_modules  # noqa: E402
__all__ += (_conv_modules.__all__ + _pool_modules.__all__ + _pad_modules.__all__
            + _up_modules.__all__ + ["Fold", "Unfold"])
from .modules.layers_extra import *  # noqa: E402,F401,F403  (PixelShuffle, InstanceNorm*d, RMSNorm, LPPool*d...)
from .modules import layers_extra as _extra_modules  # noqa: E402
__all__ += _extra_modules.__all__
from .modules.fractional_pool import FractionalMaxPool2d, FractionalMaxPool3d  # noqa: E402,F401
__all__ += ["FractionalMaxPool2d", "FractionalMaxPool3d"]
