"""A generative adversarial network (Goodfellow et al., 2014) on 2-D points.

The data are points on a ring of eight Gaussian blobs. A generator MLP maps
2-D noise to points; a discriminator MLP maps a point to the logit of "real".
Each training step is the paper's algorithm with its usual "non-saturating"
generator loss:

1. discriminator step: ``BCEWithLogits(D(real), 1) + BCEWithLogits(D(G(z).detach()), 0)``
   (``detach`` keeps this step from reaching the generator's weights);
2. generator step: ``BCEWithLogits(D(G(z)), 1)``: the gradient flows through the
   discriminator into the generator, but only the generator's optimizer steps.

Two ``optim.Adam`` optimizers, one per network, each see only their own
parameters. After training, the generated points sit near the ring: the script
prints the mean distance of generated points from the origin (the ring's radius
is 2) and how many of the eight blobs the generated points reach.
"""
import argparse
import math
import time

import cygrad
from cygrad import nn

RADIUS = 2.0
N_BLOBS = 8
BLOB_STD = 0.05


def real_batch(n):
    """``n`` points from the ring of Gaussian blobs."""
    angles = cygrad.randint(0, N_BLOBS, (n,)).float() * (2 * math.pi / N_BLOBS)
    centres = cygrad.stack([angles.cos(), angles.sin()], dim=1) * RADIUS
    return centres + BLOB_STD * cygrad.randn(n, 2)


def mlp(n_in, n_out, hidden=64):
    return nn.Sequential(nn.Linear(n_in, hidden), nn.LeakyReLU(0.2),
                         nn.Linear(hidden, hidden), nn.LeakyReLU(0.2),
                         nn.Linear(hidden, n_out))


def train(generator, discriminator, steps, batch_size=128, lr=1e-3, log_every=200):
    """Alternate one discriminator and one generator step; returns their losses."""
    opt_d = cygrad.optim.Adam(discriminator.parameters(), lr=lr, betas=(0.5, 0.999))
    opt_g = cygrad.optim.Adam(generator.parameters(), lr=lr, betas=(0.5, 0.999))
    bce = nn.BCEWithLogitsLoss()
    ones, zeros = cygrad.ones(batch_size, 1), cygrad.zeros(batch_size, 1)
    history = []
    for step in range(1, steps + 1):
        fake = generator(cygrad.randn(batch_size, 2))

        loss_d = bce(discriminator(real_batch(batch_size)), ones) + \
            bce(discriminator(fake.detach()), zeros)
        opt_d.zero_grad()
        loss_d.backward()
        opt_d.step()

        loss_g = bce(discriminator(fake), ones)
        opt_g.zero_grad()
        loss_g.backward()        # also fills the discriminator's .grad: cleared next step
        opt_g.step()

        history.append((loss_d.item(), loss_g.item()))
        if log_every and step % log_every == 0:
            print(f"step {step:5d}  D loss {loss_d.item():.3f}  G loss {loss_g.item():.3f}")
    return history


@cygrad.no_grad()
def describe(generator, n=2000):
    """Mean radius of generated points and the number of blobs within 0.5 of one."""
    points = generator(cygrad.randn(n, 2))
    radius = points.norm(dim=1).mean().item()
    angles = 2 * math.pi / N_BLOBS * cygrad.arange(N_BLOBS, dtype=cygrad.float32)
    centres = cygrad.stack([angles.cos(), angles.sin()], dim=1) * RADIUS
    dist = (points[:, None, :] - centres[None, :, :]).norm(dim=2)    # (n, blobs)
    nearest, which = dist.min(dim=1)
    covered = len(set(which[nearest < 0.5].tolist()))
    return radius, covered


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=1500)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)

    cygrad.manual_seed(args.seed)
    generator, discriminator = mlp(2, 2), mlp(2, 1)
    radius, covered = describe(generator)
    print(f"before: mean radius {radius:.2f} (target {RADIUS}), blobs reached {covered}/{N_BLOBS}")
    start = time.perf_counter()
    history = train(generator, discriminator, args.steps,
                    log_every=max(1, args.steps // 5))
    print(f"{args.steps} steps in {time.perf_counter() - start:.1f} s")
    radius, covered = describe(generator)
    print(f"after:  mean radius {radius:.2f} (target {RADIUS}), blobs reached {covered}/{N_BLOBS}")
    return history, radius, covered


if __name__ == "__main__":
    main()
