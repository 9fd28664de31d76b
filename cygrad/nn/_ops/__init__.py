"""The differentiable ops behind ``cygrad.nn.functional``, one family per module
(``activation``, ``loss``...).  Each op is a ``cygrad.autograd.Function`` (or a short
composition of differentiable ops); ``nn.functional`` re-exports the public functions."""
