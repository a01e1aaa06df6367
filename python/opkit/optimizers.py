"""Optimizers as TensorFlow 2 has them (tf.keras.optimizers / tf.optimizers):
SGD (with momentum and Nesterov) and Adam, applying gradients to opkit
Variables with TensorFlow's update ops (ResourceApplyGradientDescent,
ResourceApplyKerasMomentum, ResourceApplyAdam), in place.

    opt = opkit.optimizers.SGD(learning_rate=0.1, momentum=0.9)
    with opkit.GradientTape() as tape:
        loss = ...
    grads = tape.gradient(loss, params)
    opt.apply_gradients(zip(grads, params))      # eager: updates now

    opt.minimize(lambda: loss_fn(), var_list=params)   # the same, in one call

In a graph, apply_gradients (and minimize with a loss Tensor) adds the
update ops and returns one op that runs them all and counts the step:

    train_op = opt.minimize(loss, var_list=params)     # inside graph.as_default()
    sess.run(train_op, feed_dict=...)

Slot variables (SGD's "momentum", Adam's "m" and "v") are created at the
first update of each variable, zero-filled, and get_slot(var, name) returns
them. `iterations` counts the applied steps (an int64 Variable).

TensorFlow 1's GradientDescentOptimizer, MomentumOptimizer and
AdamOptimizer (opkit.train.*) are here too, with compute_gradients and
minimize(loss, global_step=...).
"""

import numpy as np

from opkit import dtypes as _dtypes
from opkit import framework as _framework
from opkit.ops import _internal as _ops

__all__ = ["Optimizer", "SGD", "Adam", "GradientDescentOptimizer",
           "MomentumOptimizer", "AdamOptimizer"]


class Optimizer:
    """The base of opkit's optimizers (tf.keras.optimizers.Optimizer):
    apply_gradients, minimize, get_slot, iterations. Subclasses give
    _slot_names and _apply(var, grad, slots, hyper)."""

    _slot_names = ()
    _uses_step = False     # whether _apply reads the step number
    _one = np.ones((), np.int64)

    def __init__(self, name, learning_rate):
        if not isinstance(name, str) or not name:
            raise ValueError(f"optimizer name must be a non-empty string, got {name!r}")
        self._name = name
        self.learning_rate = learning_rate
        self._slots = {}          # (id(var handle), slot name) -> Variable
        self._iterations = {}     # graph (None: eager) -> int64 Variable
        self._scalars = {}        # (value, numpy dtype) -> 0-d array (eager)

    @property
    def name(self):
        return self._name

    @property
    def iterations(self):
        """The number of steps applied (in the current graph, or eagerly)."""
        return self._iterations_variable(_framework.get_default_graph())

    def _iterations_variable(self, graph):
        v = self._iterations.get(graph)
        if v is None:
            v = self._make_variable(np.int64(0), graph, "iter", trainable=False)
            self._iterations[graph] = v
        return v

    def _make_variable(self, value, graph, name, trainable=False):
        if graph is None:
            return _framework.Variable(value, trainable=trainable,
                                       name=f"{self._name}/{name}")
        with graph.as_default():
            return _framework.Variable(value, trainable=trainable,
                                       name=f"{self._name}/{name}")

    def get_slot(self, var, slot_name):
        """The slot variable `slot_name` of `var` (KeyError when the
        optimizer has none of that name or has not updated `var` yet)."""
        if slot_name not in self._slot_names:
            raise KeyError(f"{type(self).__name__} has no slot {slot_name!r}; "
                           f"its slots are {list(self._slot_names)}")
        try:
            return self._slots[(id(var.handle), slot_name)]
        except KeyError:
            raise KeyError(f"no slot {slot_name!r} for variable {var.name}: "
                           "the optimizer has not updated it yet") from None

    def get_slot_names(self):
        return list(self._slot_names)

    def _slot(self, var, slot_name):
        key = (id(var.handle), slot_name)
        slot = self._slots.get(key)
        if slot is None:
            zeros = np.zeros(var.shape.as_list(), var.dtype.as_numpy_dtype)
            base = var.name.split(":")[0]
            slot = self._make_variable(zeros, var.graph, f"{base}/{slot_name}")
            self._slots[key] = slot
        return slot

    def _hyper(self, value, dtype, graph):
        """A hyperparameter as the update op takes it: a 0-d array of the
        variable's dtype eagerly (taken as it is, no conversion), the
        value itself in a graph (a Const, or a Tensor / Variable given)."""
        if graph is None:
            try:
                scalar = self._scalars.get((value, dtype))
            except TypeError:   # an unhashable value (a Tensor, ...)
                scalar = None
            if scalar is not None:
                return scalar
        if callable(value):
            value = value()
        if graph is not None or isinstance(value, (_framework.Tensor,
                                                   _framework.Variable)):
            return value
        key = (value, dtype)
        scalar = self._scalars.get(key)
        if scalar is None:
            if len(self._scalars) > 64:
                self._scalars.clear()
            scalar = np.asarray(value, np.dtype(dtype.as_numpy_dtype))
            self._scalars[key] = scalar
        return scalar

    # --- Applying --------------------------------------------------------------

    def apply_gradients(self, grads_and_vars, name=None):
        """Updates each variable with its gradient (pairs with a None
        gradient are skipped, as in TensorFlow; ValueError when none has
        one). Eagerly: applies now and returns `iterations`. In a graph:
        returns the op that applies them."""
        pairs = [(g, v) for g, v in grads_and_vars]
        for g, v in pairs:
            if not isinstance(v, _framework.Variable):
                raise TypeError(f"apply_gradients takes (gradient, Variable) "
                                f"pairs; got a {type(v).__name__} for a variable")
        pairs = [(g, v) for g, v in pairs if g is not None]
        if not pairs:
            raise ValueError("No gradients provided for any variable")
        graph = pairs[0][1].graph
        for _, v in pairs:
            if v.graph is not graph:
                raise ValueError("apply_gradients: the variables belong to "
                                 "different graphs (or some are eager)")
        iterations = self._iterations_variable(graph)
        if graph is None:
            step = int(iterations.numpy()) + 1 if self._uses_step else None
            apply = self._apply
            for g, v in pairs:
                apply(v, g, step, None)
            _ops.assign_add_variable_op(iterations.handle, self._one)
            return iterations
        with graph.as_default(), graph.name_scope(name or self._name):
            step = _ops.cast(iterations.read_value() + np.int64(1), _dtypes.float32)
            updates = [self._apply(v, g, step, graph) for g, v in pairs]
            with graph.control_dependencies(updates):
                count = _ops.assign_add_variable_op(iterations.handle, np.int64(1))
            return _framework.group(updates + [count], name="update")

    def minimize(self, loss, var_list, tape=None, name=None):
        """Computes the gradients of `loss` with respect to `var_list` and
        applies them. Eagerly `loss` is a callable (or a value recorded on
        `tape`); in a graph, a Tensor (opkit.gradients differentiates it)."""
        from opkit import backprop
        from opkit import gradients_impl
        if callable(var_list):
            var_list = var_list()
        var_list = list(var_list)
        if isinstance(loss, _framework.Tensor):
            grads = gradients_impl.gradients(loss, var_list)
            return self.apply_gradients(zip(grads, var_list), name=name)
        if tape is None:
            if not callable(loss):
                raise ValueError("`tape` is required when a Tensor loss is "
                                 "passed eagerly; or pass a callable loss")
            with backprop.GradientTape() as tape:
                tape.watch(var_list)
                loss = loss()
        grads = tape.gradient(loss, var_list)
        return self.apply_gradients(zip(grads, var_list), name=name)

    def _apply(self, var, grad, step, graph):
        raise NotImplementedError

    def get_config(self):
        return {"name": self._name, "learning_rate": self.learning_rate}


class SGD(Optimizer):
    """Gradient descent with optional momentum (tf.keras.optimizers.SGD):

        velocity = momentum * velocity - learning_rate * g
        w = w + velocity                     (w - learning_rate * g without momentum)
        w = w + momentum * velocity - learning_rate * g      (nesterov)
    """

    def __init__(self, learning_rate=0.01, momentum=0.0, nesterov=False,
                 name="SGD"):
        super().__init__(name, learning_rate)
        if not isinstance(momentum, (int, float)) or not 0 <= momentum <= 1:
            raise ValueError(f"`momentum` must be a number in [0, 1], got {momentum!r}")
        self.momentum = float(momentum)
        self.nesterov = bool(nesterov)
        if self.momentum > 0:
            self._slot_names = ("momentum",)

    def _apply(self, var, grad, step, graph):
        lr = self._hyper(self.learning_rate, var.dtype, graph)
        if self.momentum == 0:
            return _ops.resource_apply_gradient_descent(var.handle, lr, grad)
        return _ops.resource_apply_keras_momentum(
            var.handle, self._slot(var, "momentum").handle, lr, grad,
            self._hyper(self.momentum, var.dtype, graph),
            use_nesterov=self.nesterov)

    def get_config(self):
        return dict(super().get_config(), momentum=self.momentum,
                    nesterov=self.nesterov)


class Adam(Optimizer):
    """Adam (tf.keras.optimizers.Adam), with TensorFlow's bias correction
    folded into the step size:

        lr_t = learning_rate * sqrt(1 - beta_2^t) / (1 - beta_1^t)
        m = beta_1 * m + (1 - beta_1) * g
        v = beta_2 * v + (1 - beta_2) * g^2
        w = w - lr_t * m / (sqrt(v) + epsilon)
    """

    _slot_names = ("m", "v")
    _uses_step = True

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999,
                 epsilon=1e-7, amsgrad=False, name="Adam"):
        super().__init__(name, learning_rate)
        if amsgrad:
            raise NotImplementedError("Adam(amsgrad=True) is not supported yet "
                                      "(ResourceApplyAdamWithAmsgrad is missing)")
        for label, value in (("beta_1", beta_1), ("beta_2", beta_2)):
            if not isinstance(value, (int, float)) or not 0 <= value < 1:
                raise ValueError(f"`{label}` must be a number in [0, 1), got {value!r}")
        self.beta_1 = float(beta_1)
        self.beta_2 = float(beta_2)
        self.epsilon = float(epsilon)

    def _apply(self, var, grad, step, graph):
        dtype = var.dtype
        if graph is None:
            beta1_power = self._hyper(self.beta_1 ** step, dtype, None)
            beta2_power = self._hyper(self.beta_2 ** step, dtype, None)
        else:
            step_t = _ops.cast(step, dtype)
            beta1_power = _ops.pow(_ops.cast(np.float32(self.beta_1), dtype), step_t)
            beta2_power = _ops.pow(_ops.cast(np.float32(self.beta_2), dtype), step_t)
        return _ops.resource_apply_adam(
            var.handle, self._slot(var, "m").handle, self._slot(var, "v").handle,
            beta1_power, beta2_power, self._hyper(self.learning_rate, dtype, graph),
            self._hyper(self.beta_1, dtype, graph), self._hyper(self.beta_2, dtype, graph),
            self._hyper(self.epsilon, dtype, graph), grad)

    def get_config(self):
        return dict(super().get_config(), beta_1=self.beta_1, beta_2=self.beta_2,
                    epsilon=self.epsilon, amsgrad=False)


# --- TensorFlow 1's names (tf.compat.v1.train), for graphs ported from it ------

class _V1Optimizer:
    """tf.compat.v1.train.Optimizer's methods over an opkit optimizer:
    compute_gradients, and apply_gradients / minimize with a global_step
    (incremented with each step) and var_list defaulting to the graph's
    (or, eagerly, the callable loss's) trainable variables."""

    def compute_gradients(self, loss, var_list=None, **unused):
        from opkit import backprop
        from opkit import gradients_impl
        if isinstance(loss, _framework.Tensor):
            if var_list is None:
                var_list = _framework.trainable_variables(loss.graph)
            var_list = list(var_list)
            return list(zip(gradients_impl.gradients(loss, var_list), var_list))
        if not callable(loss):
            raise ValueError("compute_gradients takes a loss Tensor (graph) or "
                             "a callable returning the loss (eager)")
        with backprop.GradientTape() as tape:
            if var_list is not None:
                tape.watch(list(var_list))
            value = loss()
        if var_list is None:
            var_list = tape.watched_variables()
        var_list = list(var_list)
        return list(zip(tape.gradient(value, var_list), var_list))

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        pairs = list(grads_and_vars)
        if global_step is None:
            return super().apply_gradients(pairs, name=name)
        graph = global_step.graph
        if graph is None:
            super().apply_gradients(pairs, name=name)
            global_step.assign_add(np.ones((), global_step.dtype.as_numpy_dtype))
            return global_step
        with graph.as_default():
            apply = super().apply_gradients(pairs, name=name)
            with graph.control_dependencies([apply]):
                step = _ops.assign_add_variable_op(
                    global_step.handle, np.ones((), global_step.dtype.as_numpy_dtype))
            return _framework.group([apply, step], name="global_step_update")

    def minimize(self, loss, global_step=None, var_list=None, name=None, **unused):
        return self.apply_gradients(self.compute_gradients(loss, var_list),
                                    global_step=global_step, name=name)


class GradientDescentOptimizer(_V1Optimizer, SGD):
    """tf.compat.v1.train.GradientDescentOptimizer."""

    def __init__(self, learning_rate, use_locking=False, name="GradientDescent"):
        SGD.__init__(self, learning_rate, name=name)


class MomentumOptimizer(_V1Optimizer, SGD):
    """tf.compat.v1.train.MomentumOptimizer (TensorFlow 1's formula:
    accum = momentum * accum + g; w -= learning_rate * accum)."""

    _slot_names = ("momentum",)

    def __init__(self, learning_rate, momentum, use_locking=False,
                 name="Momentum", use_nesterov=False):
        SGD.__init__(self, learning_rate, momentum=momentum,
                     nesterov=use_nesterov, name=name)
        self._slot_names = ("momentum",)

    def _apply(self, var, grad, step, graph):
        return _ops.resource_apply_momentum(
            var.handle, self._slot(var, "momentum").handle,
            self._hyper(self.learning_rate, var.dtype, graph), grad,
            self._hyper(self.momentum, var.dtype, graph),
            use_nesterov=self.nesterov)


class AdamOptimizer(_V1Optimizer, Adam):
    """tf.compat.v1.train.AdamOptimizer (epsilon 1e-8 by default)."""

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999,
                 epsilon=1e-08, use_locking=False, name="Adam"):
        Adam.__init__(self, learning_rate, beta_1=beta1, beta_2=beta2,
                      epsilon=epsilon, name=name)
