"""Shared by the nn layer tests: copy a torch module's weights into a cygrad one."""
import numpy as np

import cygrad


def copy_state(cy_module, torch_module):
    """Load ``torch_module``'s state dict into ``cy_module`` (the keys must agree)."""
    sd = torch_module.state_dict()
    assert list(cy_module.state_dict()) == list(sd)
    cy_module.load_state_dict({k: cygrad.tensor(v.detach().numpy()) for k, v in sd.items()})


def close(cy, th, atol=1e-5, rtol=1e-5):
    np.testing.assert_allclose(cy.detach().numpy(), th.detach().numpy(), atol=atol, rtol=rtol)
