// CPU kernels of the optimizer updates on resource variables
// (opkit/ops/training_ops.cc), with TensorFlow's formulas:
//
//   ResourceApplyGradientDescent  var -= alpha * delta
//   ResourceApplyMomentum         accum = accum * momentum + grad
//                                 var -= lr * accum
//                                 (nesterov: var -= lr * grad + lr * momentum * accum)
//   ResourceApplyKerasMomentum    accum = accum * momentum - lr * grad
//                                 var += accum
//                                 (nesterov: var += momentum * accum - lr * grad)
//   ResourceApplyAdam             lr_t = lr * sqrt(1 - beta2_power) / (1 - beta1_power)
//                                 m += (grad - m) * (1 - beta1)
//                                 v += (grad * grad - v) * (1 - beta2)
//                                 var -= lr_t * m / (sqrt(v) + epsilon)
//                                 (nesterov: m replaced by m * beta1 + (1 - beta1) * grad)
//
// Every variable of a call is locked (in address order, so that two
// updates naming the same variables never wait on each other), checked
// (initialized, of type T, of the gradient's shape) and then updated in
// place, or, when a reader still shares its buffer, into a copy that is
// swapped in (Note [Resource variables] in resource_variable_ops.cc). So a
// read taken before the update keeps its value, and `use_locking` (which
// lets TensorFlow's updates race when false) changes nothing.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>

#include "Eigen/Core"
#include "opkit/core/errors.h"
#include "opkit/core/mutex.h"
#include "opkit/kernel/op_kernel.h"
#include "opkit/kernel/register_types.h"
#include "opkit/kernel/resource_handle_op.h"
#include "opkit/kernels/kernel_shard.h"
#include "opkit/resource/resource_var.h"

namespace opkit {
namespace {

// The variables of one update, locked for the kernel's scope.
template <int N>
class LockedVars {
 public:
  LockedVars() = default;
  LockedVars(const LockedVars&) = delete;
  LockedVars& operator=(const LockedVars&) = delete;
  ~LockedVars() { Unlock(); }

  // Looks up resource inputs 0..N-1 and locks them.
  Status Lock(OpKernelContext* ctx) OPKIT_NO_THREAD_SAFETY_ANALYSIS {
    for (int i = 0; i < N; ++i) {
      const ResourceHandle& handle = HandleFromInput(ctx, i);
      Status s = LookupResource(ctx, handle, &vars_[i]);
      if (errors::IsNotFound(s)) {
        return errors::FailedPrecondition(
            "Could not find variable ", handle.name(),
            ": it was never assigned, or was deleted; initialize it before "
            "applying gradients (", s.message(), ")");
      }
      OPKIT_RETURN_IF_ERROR(s);
    }
    std::array<mutex*, N> order;
    for (int i = 0; i < N; ++i) order[i] = vars_[i]->mu();
    std::sort(order.begin(), order.end(), std::less<mutex*>());
    // One variable passed twice (var and a slot) is locked once.
    const auto end = std::unique(order.begin(), order.end());
    for (auto it = order.begin(); it != end; ++it) {
      (*it)->lock();
      locked_[num_locked_++] = *it;
    }
    return OkStatus();
  }

  Var* var(int i) const { return vars_[i].get(); }

 private:
  void Unlock() OPKIT_NO_THREAD_SAFETY_ANALYSIS {
    while (num_locked_ > 0) locked_[--num_locked_]->unlock();
  }

  std::array<core::RefCountPtr<Var>, N> vars_;
  std::array<mutex*, N> locked_{};
  int num_locked_ = 0;
};

// Checks variable `i` against the update and makes its buffer the kernel's
// own (a copy when a reader shares it); `*data` points at it.
template <typename T>
Status PrepareVar(OpKernelContext* ctx, Var* var, int i, const Tensor& grad,
                  T** data) {
  Tensor* t = var->tensor();
  const std::string& name = HandleFromInput(ctx, i).name();
  if (!var->is_initialized || !t->IsInitialized()) {
    return errors::FailedPrecondition(
        "Attempting to use uninitialized variables: ", name,
        " (initialize it, or restore it, before applying gradients)");
  }
  if (t->dtype() != DataTypeToEnum<T>::value) {
    return errors::InvalidArgument(
        "Variable ", name, " is ", DataTypeString(t->dtype()),
        " but the update is ", DataTypeString(DataTypeToEnum<T>::value));
  }
  if (t->shape() != grad.shape()) {
    return errors::InvalidArgument(
        "var and grad do not have the same shape: ", t->shape().DebugString(),
        " ", grad.shape().DebugString(), " (variable ", name, ")");
  }
  if (!t->RefCountIsOne()) {
    Tensor copy;
    OPKIT_RETURN_IF_ERROR(ctx->allocate_temp(t->dtype(), t->shape(), &copy));
    std::copy_n(t->flat<T>().data(), t->NumElements(), copy.flat<T>().data());
    *t = std::move(copy);
  }
  *data = t->flat<T>().data();
  return OkStatus();
}

// Hyperparameter input `i`, which must be a scalar.
template <typename T>
Status Scalar(OpKernelContext* ctx, int i, const char* name, T* value) {
  const Tensor& t = ctx->input(i);
  if (t.dims() != 0) {
    return errors::InvalidArgument(name, " is not a scalar: ",
                                   t.shape().DebugString());
  }
  *value = t.scalar<T>()();
  return OkStatus();
}

// Element ranges as Eigen arrays, so that the updates are vectorized.
template <typename T>
using Arr = Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>>;
template <typename T>
using ConstArr = Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>>;

// The shared body: `N` resource inputs (the variable, then its slots),
// the gradient at input `grad_index`; `update(vars, grad, first, last)`
// updates elements [first, last).
template <typename T, int N, typename Update>
void Apply(OpKernelContext* ctx, int grad_index, const Update& update) {
  const Tensor& grad = ctx->input(grad_index);
  LockedVars<N> locked;
  OP_REQUIRES_OK(ctx, locked.Lock(ctx));
  std::array<T*, N> vars{};
  for (int i = 0; i < N; ++i) {
    OP_REQUIRES_OK(ctx, PrepareVar<T>(ctx, locked.var(i), i, grad, &vars[i]));
  }
  const T* g = grad.flat<T>().data();
  Shard(ctx, grad.NumElements(), 4.0 * N, [&](int64_t first, int64_t last) {
    update(vars, g, first, last);
  });
}

template <typename T>
class ApplyGradientDescentOp : public OpKernel {
 public:
  explicit ApplyGradientDescentOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    T alpha;
    OP_REQUIRES_OK(ctx, Scalar(ctx, 1, "alpha", &alpha));
    Apply<T, 1>(ctx, 2, [alpha](const std::array<T*, 1>& v, const T* g,
                                int64_t first, int64_t last) {
      const int64_t n = last - first;
      Arr<T>(v[0] + first, n) -= alpha * ConstArr<T>(g + first, n);
    });
  }
};

// ResourceApplyMomentum (keras = false) and ResourceApplyKerasMomentum.
template <typename T, bool kKeras>
class ApplyMomentumOp : public OpKernel {
 public:
  explicit ApplyMomentumOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("use_nesterov", &nesterov_));
  }
  void Compute(OpKernelContext* ctx) override {
    T lr, momentum;
    OP_REQUIRES_OK(ctx, Scalar(ctx, 2, "lr", &lr));
    OP_REQUIRES_OK(ctx, Scalar(ctx, 4, "momentum", &momentum));
    const bool nesterov = nesterov_;
    Apply<T, 2>(ctx, 3, [=](const std::array<T*, 2>& v, const T* g,
                            int64_t first, int64_t last) {
      const int64_t n = last - first;
      Arr<T> var(v[0] + first, n), accum(v[1] + first, n);
      ConstArr<T> grad(g + first, n);
      if (kKeras) {
        accum = accum * momentum - lr * grad;
        if (nesterov) {
          var += accum * momentum - lr * grad;
        } else {
          var += accum;
        }
      } else {
        accum = accum * momentum + grad;
        if (nesterov) {
          var -= grad * lr + accum * (momentum * lr);
        } else {
          var -= lr * accum;
        }
      }
    });
  }

 private:
  bool nesterov_ = false;
};

template <typename T>
class ApplyAdamOp : public OpKernel {
 public:
  explicit ApplyAdamOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("use_nesterov", &nesterov_));
  }
  void Compute(OpKernelContext* ctx) override {
    T beta1_power, beta2_power, lr, beta1, beta2, epsilon;
    OP_REQUIRES_OK(ctx, Scalar(ctx, 3, "beta1_power", &beta1_power));
    OP_REQUIRES_OK(ctx, Scalar(ctx, 4, "beta2_power", &beta2_power));
    OP_REQUIRES_OK(ctx, Scalar(ctx, 5, "lr", &lr));
    OP_REQUIRES_OK(ctx, Scalar(ctx, 6, "beta1", &beta1));
    OP_REQUIRES_OK(ctx, Scalar(ctx, 7, "beta2", &beta2));
    OP_REQUIRES_OK(ctx, Scalar(ctx, 8, "epsilon", &epsilon));
    const T lr_t = lr * static_cast<T>(std::sqrt(1 - beta2_power)) /
                   (1 - beta1_power);
    const bool nesterov = nesterov_;
    Apply<T, 3>(ctx, 9, [=](const std::array<T*, 3>& v, const T* g,
                            int64_t first, int64_t last) {
      const int64_t n = last - first;
      Arr<T> var(v[0] + first, n), m(v[1] + first, n), s(v[2] + first, n);
      ConstArr<T> grad(g + first, n);
      m += (grad - m) * (1 - beta1);
      s += (grad.square() - s) * (1 - beta2);
      if (nesterov) {
        var -= lr_t * (m * beta1 + (1 - beta1) * grad) / (s.sqrt() + epsilon);
      } else {
        var -= lr_t * m / (s.sqrt() + epsilon);
      }
    });
  }

 private:
  bool nesterov_ = false;
};

#define OPKIT_REGISTER_APPLY(T)                                              \
  REGISTER_KERNEL_BUILDER(Name("ResourceApplyGradientDescent")               \
                              .Device(DEVICE_CPU)                            \
                              .TypeConstraint<T>("T"),                       \
                          ApplyGradientDescentOp<T>);                        \
  REGISTER_KERNEL_BUILDER(                                                   \
      Name("ResourceApplyMomentum").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      ApplyMomentumOp<T, false>);                                            \
  REGISTER_KERNEL_BUILDER(Name("ResourceApplyKerasMomentum")                 \
                              .Device(DEVICE_CPU)                            \
                              .TypeConstraint<T>("T"),                       \
                          ApplyMomentumOp<T, true>);                         \
  REGISTER_KERNEL_BUILDER(                                                   \
      Name("ResourceApplyAdam").Device(DEVICE_CPU).TypeConstraint<T>("T"),   \
      ApplyAdamOp<T>);
OPKIT_REGISTER_APPLY(float)
OPKIT_REGISTER_APPLY(double)
#undef OPKIT_REGISTER_APPLY

}  // namespace
}  // namespace opkit
