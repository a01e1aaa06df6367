// Relu, Relu6, Elu and LeakyRelu on CPU: element-wise Eigen expressions over
// the flattened input, any shape (empty included). Registered for the types
// TensorFlow's CPU kernels take: every real number type for Relu and Relu6,
// half/bfloat16/float/double for Elu and LeakyRelu. NaN stays NaN.
#include <type_traits>

#include "opkit/kernel/op_kernel.h"
#include "opkit/kernel/op_requires.h"
#include "opkit/kernel/register_types.h"

namespace opkit {
namespace {

// Below this many elements the calling thread computes the result; handing
// work to the pool costs more than it saves.
constexpr int64_t kInlineElements = 32768;

template <typename T>
struct ReluFunctor {
  template <typename X>
  auto operator()(const X& x) const {
    return x.template cwiseMax<Eigen::PropagateNaN>(T(0));
  }
};

template <typename T>
struct Relu6Functor {
  template <typename X>
  auto operator()(const X& x) const {
    return x.template cwiseMax<Eigen::PropagateNaN>(T(0))
        .template cwiseMin<Eigen::PropagateNaN>(T(6));
  }
};

// x for x >= 0, e^x - 1 below (NaN compares false and so goes to expm1,
// which keeps it NaN).
template <typename T>
struct EluFunctor {
  template <typename X>
  auto operator()(const X& x) const {
    return (x >= x.constant(T(0))).select(x, x.expm1());
  }
};

template <typename T, typename Functor>
class UnaryActivationOp : public OpKernel {
 public:
  explicit UnaryActivationOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output({0}, 0,
                                                              in.shape(), &out));
    const int64_t n = in.NumElements();
    if (n == 0) return;
    auto x = in.flat<T>();
    auto y = out->flat<T>();
    Functor f;
    if (n <= kInlineElements) {
      y = f(x);
    } else {
      y.device(ctx->eigen_device<Eigen::ThreadPoolDevice>()) = f(x);
    }
  }
};

// x for x > 0, alpha * x otherwise. alpha may be anything (> 1 or negative
// too), so this is a select, not max(x, alpha * x).
template <typename T>
class LeakyReluOp : public OpKernel {
 public:
  explicit LeakyReluOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("alpha", &alpha_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output({0}, 0,
                                                              in.shape(), &out));
    const int64_t n = in.NumElements();
    if (n == 0) return;
    auto x = in.flat<T>();
    auto y = out->flat<T>();
    const T alpha = static_cast<T>(alpha_);
    auto expr = (x > x.constant(T(0))).select(x, x * x.constant(alpha));
    if (n <= kInlineElements) {
      y = expr;
    } else {
      y.device(ctx->eigen_device<Eigen::ThreadPoolDevice>()) = expr;
    }
  }

 private:
  float alpha_ = 0.2f;
};

#define OPKIT_REGISTER_RELU(T)                                          \
  REGISTER_KERNEL_BUILDER(                                              \
      Name("Relu").Device(DEVICE_CPU).TypeConstraint<T>("T"),           \
      UnaryActivationOp<T, ReluFunctor<T>>);                            \
  REGISTER_KERNEL_BUILDER(                                              \
      Name("Relu6").Device(DEVICE_CPU).TypeConstraint<T>("T"),          \
      UnaryActivationOp<T, Relu6Functor<T>>);
TF_CALL_REAL_NUMBER_TYPES(OPKIT_REGISTER_RELU)
#undef OPKIT_REGISTER_RELU

#define OPKIT_REGISTER_ELU(T)                                           \
  REGISTER_KERNEL_BUILDER(                                              \
      Name("Elu").Device(DEVICE_CPU).TypeConstraint<T>("T"),            \
      UnaryActivationOp<T, EluFunctor<T>>);                            \
  REGISTER_KERNEL_BUILDER(                                              \
      Name("LeakyRelu").Device(DEVICE_CPU).TypeConstraint<T>("T"),      \
      LeakyReluOp<T>);
TF_CALL_FLOAT_TYPES(OPKIT_REGISTER_ELU)
#undef OPKIT_REGISTER_ELU

}  // namespace
}  // namespace opkit
