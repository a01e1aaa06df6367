// The arithmetic functors of the element-wise kernels (cwise_ops_common.h
// describes the functor contract). Shared by the files that register them.
//
//   REGISTER_KERNEL_BUILDER(Name("Sub").Device(DEVICE_CPU).TypeConstraint<int32>("T"),
//                           BinaryOp<int32, functor::Sub>);
//
// Floating-point and complex types use Eigen's vectorised operators; integer
// types wrap around on overflow (never undefined behaviour), and bool and
// string use plain scalar functors.
#ifndef OPKIT_KERNELS_CWISE_OPS_H_
#define OPKIT_KERNELS_CWISE_OPS_H_

#include <type_traits>

#include "opkit/kernels/cwise_ops_common.h"

namespace opkit {
namespace functor {

// x + y (string concatenation for strings).
struct Add {
  template <typename X, typename Y>
  auto operator()(const X& x, const Y& y) const {
    using T = typename X::Scalar;
    if constexpr (internal::kIsInteger<T>) {
      return x.binaryExpr(y, internal::WrappingAdd<T>());
    } else if constexpr (std::is_same_v<T, tstring>) {
      return x.binaryExpr(y, [](const tstring& a, const tstring& b) { return a + b; });
    } else {
      return x + y;
    }
  }
};

// x - y.
struct Sub {
  template <typename X, typename Y>
  auto operator()(const X& x, const Y& y) const {
    using T = typename X::Scalar;
    if constexpr (internal::kIsInteger<T>) {
      return x.binaryExpr(y, internal::WrappingSub<T>());
    } else {
      return x - y;
    }
  }
};

// x * y.
struct Mul {
  template <typename X, typename Y>
  auto operator()(const X& x, const Y& y) const {
    using T = typename X::Scalar;
    if constexpr (internal::kIsInteger<T>) {
      return x.binaryExpr(y, internal::WrappingMul<T>());
    } else {
      return x * y;
    }
  }
};

}  // namespace functor
}  // namespace opkit

#endif  // OPKIT_KERNELS_CWISE_OPS_H_
