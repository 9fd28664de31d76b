"""Training on the emulated CUDA device matches training on the CPU.

Two of ``bench/models.py``'s models, the same code on both devices, built from
the same weights and fed the same batch, train 3 steps: the small CNN
(conv-relu-maxpool twice, a linear head, cross entropy, Adam) and the small
minGPT-style transformer (embeddings, layer norm, causal masked attention, a GELU
MLP, cross entropy, AdamW). Each step's loss and the final weights must agree.

Every primitive these models use has a 'cuda' kernel, so a missing one fails
the test like any other error.
"""
import os
import sys

import numpy as np
import pytest

import cygrad
from cygrad.cuda._driver import signature

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "bench"))
from fake_driver import installed  # noqa: E402
import models  # noqa: E402

pytestmark = [pytest.mark.needs_checkout,       # imports bench/, which the wheel does not carry
              pytest.mark.skipif(signature.find_cxx() is None,
                                 reason="the emulated CUDA driver needs a host C++ compiler")]

STEPS = 3


@pytest.fixture(scope="module", autouse=True)
def emulated():
    from cygrad.cuda._driver.emulated import EmulatedDriver
    with installed(EmulatedDriver(memory=1 << 30)) as d:    # strict with CYGRAD_CUDA_EMU_STRICT=1
        yield d


def train(name, device, weights):
    """Losses of STEPS steps and the final weights (NumPy) of model ``name`` on ``device``."""
    work = models.build(name, cygrad, small=True, seed=0, weights=weights, device=device)
    losses = [float(work.step().item()) for _ in range(STEPS)]
    final = {k: v.detach().cpu().numpy() for k, v in work.model.state_dict().items()}
    return losses, final


@pytest.mark.parametrize("name", ["cnn", "transformer"])
def test_training_on_cuda_matches_cpu(name):
    cygrad.manual_seed(0)
    start = {k: v.detach().numpy().copy()
             for k, v in models._model(name, cygrad, True).state_dict().items()}
    cpu_losses, cpu_weights = train(name, "cpu", start)
    losses, weights = train(name, "cuda", start)
    # float32 throughout; the devices may sum in another order
    np.testing.assert_allclose(losses, cpu_losses, rtol=1e-4, atol=1e-5, err_msg=f"{name}: losses")
    assert losses[-1] < losses[0], f"{name}: the loss did not go down ({losses})"
    assert weights.keys() == cpu_weights.keys()
    for key, value in cpu_weights.items():
        # Adam's step is lr * m / (sqrt(v) + eps): rounding in a tiny gradient can move
        # a weight by a part of lr (1e-3 for the CNN, 3e-4 for the transformer)
        np.testing.assert_allclose(weights[key], value, rtol=1e-3, atol=5e-5,
                                   err_msg=f"{name}: weight {key} after {STEPS} steps")
