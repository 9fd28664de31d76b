"""vmap against a Python loop over the samples, for cygrad (and torch.func when installed).

Three workloads, each covered by batching rules (no per-sample fallback):

- ``elementwise``: ``(x.sin() * x).sum(-1) + x.softmax(-1) @ w`` on 256 samples of
  shape (32,), ``w`` shared;
- ``per_sample_grad``: the gradient of an MLP's (64-128-10) cross-entropy loss for each
  of 64 samples, ``vmap(grad(loss), in_dims=(None, 0, 0))``;
- ``ensemble``: 8 MLPs (64-128-10) run on one batch of 32 through
  ``stack_module_state`` + ``functional_call``.

Run: ``python bench/func_vmap.py`` (prints a table; times are the minimum of repeats,
one thread per library).

Examples
--------
>>> import cygrad
>>> from func_vmap import elementwise_case
>>> loop, batched = elementwise_case(cygrad, cygrad.func.vmap, n=4)
>>> float((loop() - batched()).abs().max()) < 1e-5
True
"""
import time
import warnings


def _best(fn, repeat=7, number=3):
    fn()
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        for _ in range(number):
            fn()
        best = min(best, (time.perf_counter() - t) / number)
    return best


def elementwise_case(ns, vmap, n=256):
    ns.manual_seed(0)
    x, w = ns.randn(n, 32), ns.randn(32, 8)

    def f(r):
        return (r.sin() * r).sum(-1) + r.softmax(-1) @ w

    def loop():
        return ns.stack([f(x[i]) for i in range(n)])
    return loop, lambda: vmap(f)(x)


def _mlp(ns):
    return ns.nn.Sequential(ns.nn.Linear(64, 128), ns.nn.ReLU(), ns.nn.Linear(128, 10))


def per_sample_grad_case(ns, fn, n=64):
    ns.manual_seed(0)
    model = _mlp(ns)
    params = {k: v.detach() for k, v in model.named_parameters()}
    x, y = ns.randn(n, 64), ns.randint(0, 10, (n,))

    def loss(p, xi, yi):
        out = fn.functional_call(model, p, (xi.unsqueeze(0),))
        return ns.nn.functional.cross_entropy(out, yi.unsqueeze(0))
    g = fn.grad(loss)

    def loop():
        grads = [g(params, x[i], y[i]) for i in range(n)]
        return {k: ns.stack([gi[k] for gi in grads]) for k in params}
    return loop, lambda: fn.vmap(g, in_dims=(None, 0, 0))(params, x, y)


def ensemble_case(ns, fn, k=8):
    ns.manual_seed(0)
    models = [_mlp(ns) for _ in range(k)]
    params, buffers = fn.stack_module_state(models)
    x = ns.randn(32, 64)

    def run(p, b, xb):
        return fn.functional_call(models[0], (p, b), (xb,))

    def loop():
        return ns.stack([m(x) for m in models])
    return loop, lambda: fn.vmap(run, in_dims=(0, 0, None))(params, buffers, x)


def main():
    import cygrad
    # one thread each: on a loaded machine, PyTorch's OpenMP threads spin-wait and its
    # vmap timings swung from 0.1 ms to 100 ms between runs
    cygrad.set_num_threads(1)
    libs = [("cygrad", cygrad, cygrad.func)]
    try:
        import torch
        import torch.func
        torch.set_num_threads(1)
        libs.append(("torch", torch, torch.func))
    except ImportError:
        pass
    print(f"{'case':18s} {'library':8s} {'loop ms':>9s} {'vmap ms':>9s} {'speed-up':>9s}")
    for case_name, case in (("elementwise", lambda ns, f: elementwise_case(ns, f.vmap)),
                            ("per_sample_grad", per_sample_grad_case),
                            ("ensemble", ensemble_case)):
        for lib_name, ns, fn in libs:
            loop, batched = case(ns, fn)
            with warnings.catch_warnings():
                warnings.simplefilter("error")      # a fallback would be a different benchmark
                t_loop, t_vmap = _best(loop), _best(batched)
            print(f"{case_name:18s} {lib_name:8s} {t_loop * 1e3:9.2f} {t_vmap * 1e3:9.2f} "
                  f"{t_loop / t_vmap:8.1f}x")


if __name__ == "__main__":
    main()
