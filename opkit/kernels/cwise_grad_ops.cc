// Gradients of element-wise unary ops on CPU, written in terms of the
// forward op's output y and the incoming gradient dy (both of one shape):
//
//   SigmoidGrad     dy * y * (1 - y)
//   TanhGrad        dy * (1 - y * y)
//   SqrtGrad        dy * 0.5 / y
//   RsqrtGrad       dy * -0.5 * y * y * y
//   ReciprocalGrad  dy * -y * y
//
// For complex types the factor multiplying dy is conjugated, as TensorFlow
// does (the gradient of a holomorphic f is dy * conj(f'(x))).
#include <cstdint>
#include <type_traits>

#include "opkit/kernel/op_kernel.h"
#include "opkit/kernel/op_requires.h"
#include "opkit/kernel/register_types.h"
#include "opkit/kernels/cwise_ops_common.h"
#include "opkit/kernels/kernel_shard.h"

namespace opkit {
namespace {

// conj(e) for complex scalars, e itself for real ones. The real case hands
// back the reference: a TensorMap nests by reference in Eigen expressions,
// so a copy returned by value would dangle once the statement ends.
template <typename E>
decltype(auto) ConjExpr(const E& e) {
  if constexpr (Eigen::NumTraits<std::remove_cv_t<typename E::Scalar>>::IsComplex) {
    return e.conjugate();
  } else {
    return e;
  }
}

struct SigmoidGrad {
  static constexpr int64_t kCost = 4;
  template <typename Y, typename D>
  auto operator()(const Y& y, const D& dy) const {
    using T = typename Y::Scalar;
    return dy * ConjExpr(y * (y.constant(T(1)) - y));
  }
};

struct TanhGrad {
  static constexpr int64_t kCost = 4;
  template <typename Y, typename D>
  auto operator()(const Y& y, const D& dy) const {
    using T = typename Y::Scalar;
    return dy * ConjExpr(y.constant(T(1)) - y * y);
  }
};

struct SqrtGrad {
  static constexpr int64_t kCost = 8;
  template <typename Y, typename D>
  auto operator()(const Y& y, const D& dy) const {
    using T = typename Y::Scalar;
    return dy * y.constant(T(0.5)) / ConjExpr(y);
  }
};

struct RsqrtGrad {
  static constexpr int64_t kCost = 5;
  template <typename Y, typename D>
  auto operator()(const Y& y, const D& dy) const {
    using T = typename Y::Scalar;
    return dy * ConjExpr(y * y * y * y.constant(T(-0.5)));
  }
};

struct ReciprocalGrad {
  static constexpr int64_t kCost = 3;
  template <typename Y, typename D>
  auto operator()(const Y& y, const D& dy) const {
    return dy * ConjExpr(-(y * y));
  }
};

// z = Functor(y, dy) element-wise. y and dy must have the same shape (the
// ops' shape function merges them; the kernel refuses what it cannot merge
// instead of reading past the smaller buffer). The output may reuse the
// buffer of either input.
template <typename T, typename Functor>
class UnaryGradOp : public OpKernel {
 public:
  explicit UnaryGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& y = ctx->input(0);
    const Tensor& dy = ctx->input(1);
    OP_REQUIRES_OK(ctx, ctx->status());
    OP_REQUIRES(ctx, y.shape() == dy.shape(),
                errors::InvalidArgument(
                    type_string(), ": y and dy must have the same shape, but y has shape ",
                    y.shape().DebugString(), " and dy has shape ",
                    dy.shape().DebugString(),
                    "; pass the forward op's output and the gradient of that output"));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output({0, 1}, 0, y.shape(), &out));
    const T* yp = static_cast<const T*>(y.data());
    const T* dp = static_cast<const T*>(dy.data());
    T* zp = static_cast<T*>(out->data());
    Shard(ctx, out->NumElements(), Functor::kCost, [&](int64_t b, int64_t e) {
      Functor f;
      internal::Row<T>(zp + b, e - b) =
          f(internal::ConstRow<T>(yp + b, e - b), internal::ConstRow<T>(dp + b, e - b));
    });
  }
};

#define OPKIT_REGISTER_UNARY_GRAD(name, T, functor)                              \
  REGISTER_KERNEL_BUILDER(Name(name).Device(DEVICE_CPU).TypeConstraint<T>("T"), \
                          UnaryGradOp<T, functor>)

#define OPKIT_REGISTER_UNARY_GRADS(T)                              \
  OPKIT_REGISTER_UNARY_GRAD("SigmoidGrad", T, SigmoidGrad);        \
  OPKIT_REGISTER_UNARY_GRAD("TanhGrad", T, TanhGrad);              \
  OPKIT_REGISTER_UNARY_GRAD("SqrtGrad", T, SqrtGrad);              \
  OPKIT_REGISTER_UNARY_GRAD("RsqrtGrad", T, RsqrtGrad);            \
  OPKIT_REGISTER_UNARY_GRAD("ReciprocalGrad", T, ReciprocalGrad);

TF_CALL_FLOAT_TYPES(OPKIT_REGISTER_UNARY_GRADS)
TF_CALL_COMPLEX_TYPES(OPKIT_REGISTER_UNARY_GRADS)

#undef OPKIT_REGISTER_UNARY_GRADS
#undef OPKIT_REGISTER_UNARY_GRAD

}  // namespace
}  // namespace opkit
