"""Lesson 09: optim, the update rules.

Run it: ``python examples/course/09_optim.py``.

An optimizer turns each parameter's ``.grad`` into a step. ``SGD`` steps against the
gradient, ``p -= lr * g``; with momentum it keeps a running buffer
``b = mu * b + g`` and steps along ``b``, which smooths the zig-zag of a narrow
valley. ``Adam`` keeps running averages of the gradient (m) and of its square (v),
corrects their start-up bias (they begin at zero) and steps by
``lr * m_hat / (sqrt(v_hat) + eps)``: about ``lr`` per step whatever the gradient's
scale.

Exercises (``python -m cygrad.course make-assignment optim OUT/``):

* ``sgd-update`` in ``cygrad/optim/sgd.py``.
* ``adam-update`` in ``cygrad/optim/adam.py``.
"""
import cygrad
from cygrad.optim import SGD, Adam

# foreach=False: the Python update rules (optim/sgd.py, optim/adam.py) this lesson is about
# and its exercises fill in. By default SGD/Adam/AdamW step float32/float64 CPU
# parameters with one fused C kernel instead (docs/optim.md, "Fused steps").


def section(title):
    print(f"\n== {title}")


def valley(p):
    """A narrow valley: f(x, y) = x^2 + 50 y^2 (minimum 0 at the origin)."""
    return p[0] ** 2 + 50 * p[1] ** 2


def run(make_optimizer, steps=100):
    p = cygrad.tensor([1.5, 0.5], dtype=cygrad.float64, requires_grad=True)
    opt = make_optimizer([p])
    for _ in range(steps):
        opt.zero_grad()
        valley(p).backward()
        opt.step()
    return valley(p).item(), p.detach().tolist()


# ---------------------------------------------------------------------------------------
section("1. One SGD step by hand")
p = cygrad.tensor([1.0, -2.0], dtype=cygrad.float64, requires_grad=True)
opt = SGD([p], lr=0.1, foreach=False)
(p * p).sum().backward()           # g = 2p = [2, -4]
opt.step()
print("p - 0.1 * 2p =", p.detach().tolist(), "(expected [0.8, -1.6])")

# ---------------------------------------------------------------------------------------
section("2. The valley: plain SGD, momentum, Adam (100 steps each)")
for label, make in [("SGD lr=0.019", lambda ps: SGD(ps, lr=0.019, foreach=False)),
                    ("SGD lr=0.019 momentum=0.9",
                     lambda ps: SGD(ps, lr=0.019, momentum=0.9, foreach=False)),
                    ("Adam lr=0.1", lambda ps: Adam(ps, lr=0.1, foreach=False))]:
    loss, where = run(make)
    print(f"  {label:<27} f = {loss:.2e} at ({where[0]:+.4f}, {where[1]:+.4f})")
print("(lr 0.019 is near the largest stable step for the steep direction, 2/100)")

# ---------------------------------------------------------------------------------------
section("3. Adam's first step is about lr, whatever the gradient's scale")
for scale in (1e-3, 1.0, 1e3):
    q = cygrad.tensor([1.0], dtype=cygrad.float64, requires_grad=True)
    opt = Adam([q], lr=0.1, foreach=False)
    (q * scale).sum().backward()
    opt.step()
    print(f"  gradient {scale:g}: step {1.0 - q.item():.6f}")
