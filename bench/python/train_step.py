"""One training step of an MLP, in PyTorch and in opkit, for
bench/train_step_bench.cc (and the check that all of them compute the same
step): forward, gradients of the mean sparse softmax cross-entropy, and a
plain SGD update of every weight, each framework's own way: PyTorch's
in-place `p.add_(g, alpha=-lr)` (what torch.optim.SGD does), opkit's
optimizers.SGD (TensorFlow's ResourceApplyGradientDescent, in place).

    configure_opkit(threads=2)                  # before any eager opkit op
    step = make_step("opkit_tape", threads=2)   # or "opkit_graph", "torch", "numpy"
    loss = step()                                # one step; the loss before it

Every variant starts from the same weights (He-scaled normals from a fixed
seed) and trains on the same batch, so after the same number of steps they
hold the same weights up to float rounding (check_agreement()).
"""

import time

import numpy as np

SIZES = (784, 512, 512, 10)
BATCH = 64
LEARNING_RATE = 0.05


def initial_weights(sizes=SIZES, seed=0):
    rng = np.random.default_rng(seed)
    weights = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
        w = rng.standard_normal((fan_in, fan_out)).astype(np.float32)
        weights.append(w * np.float32(np.sqrt(2.0 / fan_in)))
        weights.append(np.zeros(fan_out, np.float32))
    return weights


def batch(sizes=SIZES, batch_size=BATCH, seed=1):
    rng = np.random.default_rng(seed)
    x = rng.random((batch_size, sizes[0]), dtype=np.float32)
    y = rng.integers(0, sizes[-1], batch_size).astype(np.int32)
    return x, y


def _openblas_threads():
    """A function setting OpenBLAS's thread count, or a no-op without
    threadpoolctl (python3-threadpoolctl).

    PyTorch (BLAS_INFO=generic on Debian) and opkit's MatMul multiply on the
    same libopenblas, whose thread count is one per process. opkit sets it
    to 1 at its first product and splits its work over its own intra-op
    threads (Note [OpenBLAS threads] in opkit/kernels/blas_gemm.cc), which
    left PyTorch single-threaded in BLAS for every step after an opkit step
    in the same process. So each step sets it first, to what the framework
    would have alone: `threads` for PyTorch, 1 for opkit."""
    try:
        import threadpoolctl
    except ImportError:
        return lambda n: None
    libs = threadpoolctl.ThreadpoolController().select(
        internal_api="openblas").lib_controllers

    def set_threads(n):
        for lib in libs:
            lib.set_num_threads(n)
    return set_threads


def _torch_step(threads):
    import torch
    torch.set_num_threads(threads)
    blas_threads = _openblas_threads()
    params = [torch.tensor(w, requires_grad=True) for w in initial_weights()]
    x_np, y_np = batch()
    x, y = torch.from_numpy(x_np), torch.from_numpy(y_np.astype(np.int64))

    def step():
        blas_threads(threads)
        h = x
        for i in range(0, len(params), 2):
            h = h @ params[i] + params[i + 1]
            if i + 2 < len(params):
                h = torch.relu(h)
        loss = torch.nn.functional.cross_entropy(h, y)
        grads = torch.autograd.grad(loss, params)
        with torch.no_grad():
            for p, g in zip(params, grads):
                p.add_(g, alpha=-LEARNING_RATE)
        return float(loss)

    step.weights = lambda: [p.detach().numpy().copy() for p in params]
    return step


def _numpy_step(threads):
    """The same step written out in numpy (forward, hand-derived backward):
    the reference the others are checked against."""
    params = initial_weights()
    x, y = batch()

    def step():
        acts, h = [x], x
        for i in range(0, len(params), 2):
            h = h @ params[i] + params[i + 1]
            if i + 2 < len(params):
                h = np.maximum(h, 0)
            acts.append(h)
        logits = acts[-1].astype(np.float64)
        shifted = logits - logits.max(axis=1, keepdims=True)
        log_probs = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
        loss = -log_probs[np.arange(len(y)), y].mean()
        grad = np.exp(log_probs)
        grad[np.arange(len(y)), y] -= 1
        grad = (grad / len(y)).astype(np.float32)
        grads = [None] * len(params)
        for i in range(len(params) - 2, -1, -2):
            grads[i] = acts[i // 2].T @ grad
            grads[i + 1] = grad.sum(axis=0)
            if i > 0:
                grad = (grad @ params[i].T) * (acts[i // 2] > 0)
        for p, g in zip(params, grads):
            p -= np.float32(LEARNING_RATE) * g
        return float(loss)

    step.weights = lambda: [p.copy() for p in params]
    return step


def _opkit_forward_loss(opkit, x, y, params):
    h = x
    for i in range(0, len(params), 2):
        h = opkit.nn.bias_add(opkit.matmul(h, params[i]), params[i + 1])
        if i + 2 < len(params):
            h = opkit.nn.relu(h)
    return opkit.reduce_mean(
        opkit.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=h))


def configure_opkit(threads):
    """Sets opkit's eager thread count; as in TensorFlow it cannot change
    once an eager op has run, so call this first (once per process)."""
    import opkit
    opkit.config.threading.set_intra_op_parallelism_threads(threads)


def _opkit_tape_step(threads):
    import opkit
    if opkit.config.threading.get_intra_op_parallelism_threads() != threads:
        raise RuntimeError(f"opkit's eager threads are not {threads}: call "
                           "configure_opkit(threads) before any eager op")
    params = [opkit.Variable(w) for w in initial_weights()]
    # The batch as opkit tensors, once (as PyTorch's from_numpy above).
    x, y = (opkit.constant(v) for v in batch())
    blas_threads = _openblas_threads()
    optimizer = opkit.optimizers.SGD(LEARNING_RATE)

    def step():
        blas_threads(1)
        with opkit.GradientTape() as tape:
            loss = _opkit_forward_loss(opkit, x, y, params)
        grads = tape.gradient(loss, params)
        optimizer.apply_gradients(zip(grads, params))
        return float(loss)

    step.weights = lambda: [p.numpy().copy() for p in params]
    return step


def build_graph(opkit):
    """The training graph: placeholders, variables, loss, gradients and
    the update op. Returns (graph, x, y, loss, train_op, (initializer,
    reads of the weights), seconds spent in opkit.gradients)."""
    graph = opkit.Graph()
    with graph.as_default():
        x = opkit.placeholder(opkit.float32, [None, SIZES[0]], name="x")
        y = opkit.placeholder(opkit.int32, [None], name="y")
        params = [opkit.Variable(w) for w in initial_weights()]
        loss = _opkit_forward_loss(opkit, x, y, params)
        start = time.perf_counter()
        grads = opkit.gradients(loss, params)
        seconds = time.perf_counter() - start
        train_op = opkit.optimizers.SGD(LEARNING_RATE).apply_gradients(
            zip(grads, params))
        init = opkit.global_variables_initializer()
        reads = [p.read_value() for p in params]
    return graph, x, y, loss, train_op, (init, reads), seconds


def _opkit_graph_step(threads):
    import opkit
    graph, x, y, loss, train_op, (init, reads), _ = build_graph(opkit)
    config = opkit.ConfigProto(intra_op_parallelism_threads=threads,
                               inter_op_parallelism_threads=1)
    session = opkit.Session(graph=graph, config=config)
    session.run(init)
    x_np, y_np = batch()
    feed = {x: x_np, y: y_np}
    fetches = [loss, train_op]
    blas_threads = _openblas_threads()

    def step():
        blas_threads(1)
        return float(session.run(fetches, feed_dict=feed)[0])

    step.weights = lambda: session.run(reads)
    return step


_MAKERS = {"numpy": _numpy_step, "torch": _torch_step,
           "opkit_tape": _opkit_tape_step, "opkit_graph": _opkit_graph_step}


def have_torch():
    try:
        import torch  # noqa: F401
    except ImportError:
        return False
    return True


def make_step(kind, threads=1):
    return _MAKERS[kind](threads)


def check_agreement(steps=3, threads=1):
    """Runs `steps` steps of every variant (PyTorch's when installed);
    raises if their losses or weights differ from the numpy reference's by
    more than float rounding (summation orders differ with the thread
    count, and a ReLU at 0 may then switch). Returns {kind: (losses,
    weights)}."""
    results = {}
    for kind in _MAKERS:
        if kind == "torch" and not have_torch():
            continue
        step = make_step(kind, threads)
        losses = [step() for _ in range(steps)]
        results[kind] = (losses, step.weights())
    want_losses, want_weights = results["numpy"]
    for kind, (losses, weights) in results.items():
        np.testing.assert_allclose(losses, want_losses, rtol=1e-4,
                                   err_msg=f"{kind}: losses differ from numpy's")
        for got, want in zip(weights, want_weights):
            np.testing.assert_allclose(got, want, rtol=1e-3, atol=2e-4,
                                       err_msg=f"{kind}: weights differ from numpy's")
    return results
