// Binary element-wise arithmetic on CPU, with numpy broadcasting: Sub, Mul,
// Div, RealDiv, FloorDiv, FloorMod, Maximum, Minimum, Pow, SquaredDifference,
// Atan2.
//
// Integer semantics (TensorFlow's, minus its undefined behaviour): Div
// truncates, FloorDiv rounds towards negative infinity, FloorMod's result
// takes the divisor's sign (Python's %), a zero divisor is
// InvalidArgument "Integer division by zero", a negative integer exponent is
// InvalidArgument "Integers to negative integer powers are not allowed", and
// everything that overflows wraps around (INT_MIN / -1 == INT_MIN).
// Floating-point Maximum/Minimum propagate NaN.
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "opkit/kernel/register_types.h"
#include "opkit/kernels/cwise_ops.h"
#include "opkit/kernels/cwise_ops_common.h"

namespace opkit {
namespace {

// The first element of `y` that makes `bad` true, as InvalidArgument `what`.
template <typename T, typename Pred>
Status CheckEach(const Tensor& y, Pred bad, const char* what) {
  const T* p = static_cast<const T*>(y.data());
  const int64_t n = y.NumElements();
  for (int64_t i = 0; i < n; ++i) {
    if (bad(p[i])) return errors::InvalidArgument(what);
  }
  return OkStatus();
}

template <typename T>
Status CheckNoZeroDivisor(const Tensor& y) {
  return CheckEach<T>(y, [](T v) { return v == T(0); }, "Integer division by zero");
}

template <typename T>
struct TruncDivScalar {
  // The divisor is never 0 here (Check ran first).
  T operator()(T a, T b) const {
    if constexpr (std::is_signed_v<T>) {
      if (b == T(-1)) return internal::WrappingNeg<T>()(a);
    }
    return static_cast<T>(a / b);
  }
};

template <typename T>
struct FloorDivScalar {
  T operator()(T a, T b) const {
    if constexpr (std::is_signed_v<T>) {
      if (b == T(-1)) return internal::WrappingNeg<T>()(a);
      const T q = static_cast<T>(a / b);
      const T r = static_cast<T>(a % b);
      return (r != 0 && ((r < 0) != (b < 0))) ? static_cast<T>(q - 1) : q;
    } else {
      return static_cast<T>(a / b);
    }
  }
};

// x - floor(x / y) * y, computed without overflow: the truncated remainder,
// moved into the divisor's sign. The divisor is never 0 for integers here
// (Check ran first); for floating point a zero divisor gives NaN.
template <typename T>
struct FloorModScalar {
  T operator()(T a, T b) const {
    if constexpr (internal::kIsInteger<T>) {
      if constexpr (std::is_signed_v<T>) {
        // INT_MIN % -1 is undefined; every x % -1 is 0.
        if (b == T(-1)) return T(0);
        const T r = static_cast<T>(a % b);
        return (r != 0 && ((r < 0) != (b < 0))) ? static_cast<T>(r + b) : r;
      } else {
        return static_cast<T>(a % b);
      }
    } else {
      // half and bfloat16 compute in float.
      using C = std::conditional_t<std::is_same_v<T, double>, double, float>;
      const C y = static_cast<C>(b);
      const C r = std::fmod(static_cast<C>(a), y);
      return static_cast<T>((r != 0 && ((r < 0) != (y < 0))) ? r + y : r);
    }
  }
};

template <typename T>
struct IntPowScalar {
  // The exponent is never negative here (Check ran first).
  T operator()(T base, T exponent) const {
    internal::WrappingMul<T> mul;
    T result = T(1);
    uint64_t e = static_cast<uint64_t>(exponent);
    while (e != 0) {
      if (e & 1) result = mul(result, base);
      e >>= 1;
      if (e != 0) base = mul(base, base);
    }
    return result;
  }
};

template <typename T>
struct Div {
  static Status Check(const Tensor&, const Tensor& y) {
    if constexpr (internal::kIsInteger<T>) return CheckNoZeroDivisor<T>(y);
    return OkStatus();
  }
  template <typename X, typename Y>
  auto operator()(const X& x, const Y& y) const {
    if constexpr (internal::kIsInteger<T>) {
      return x.binaryExpr(y, TruncDivScalar<T>());
    } else {
      return x / y;
    }
  }
};

template <typename T>
struct FloorDiv {
  static Status Check(const Tensor&, const Tensor& y) {
    if constexpr (internal::kIsInteger<T>) return CheckNoZeroDivisor<T>(y);
    return OkStatus();
  }
  template <typename X, typename Y>
  auto operator()(const X& x, const Y& y) const {
    if constexpr (internal::kIsInteger<T>) {
      return x.binaryExpr(y, FloorDivScalar<T>());
    } else {
      return (x / y).floor();
    }
  }
};

template <typename T>
struct FloorMod {
  static Status Check(const Tensor&, const Tensor& y) {
    if constexpr (internal::kIsInteger<T>) return CheckNoZeroDivisor<T>(y);
    return OkStatus();
  }
  template <typename X, typename Y>
  auto operator()(const X& x, const Y& y) const {
    return x.binaryExpr(y, FloorModScalar<T>());
  }
};

// atan2(y, x): the op's first input is y.
struct Atan2 {
  template <typename X, typename Y>
  auto operator()(const X& y, const Y& x) const {
    using T = std::remove_const_t<typename X::Scalar>;
    return y.binaryExpr(x, [](T a, T b) -> T {
      using C = std::conditional_t<std::is_same_v<T, double>, double, float>;
      return static_cast<T>(std::atan2(static_cast<C>(a), static_cast<C>(b)));
    });
  }
};

template <typename T>
struct Pow {
  static Status Check(const Tensor&, const Tensor& y) {
    if constexpr (internal::kIsInteger<T>) {
      return CheckEach<T>(y, [](T v) { return v < T(0); },
                          "Integers to negative integer powers are not allowed");
    }
    return OkStatus();
  }
  template <typename X, typename Y>
  auto operator()(const X& x, const Y& y) const {
    if constexpr (internal::kIsInteger<T>) {
      return x.binaryExpr(y, IntPowScalar<T>());
    } else {
      return x.binaryExpr(y, [](T a, T b) -> T {
        using Eigen::numext::pow;
        return static_cast<T>(pow(a, b));
      });
    }
  }
};

struct Maximum {
  template <typename X, typename Y>
  auto operator()(const X& x, const Y& y) const {
    using T = typename X::Scalar;
    if constexpr (internal::kIsInteger<T>) {
      return x.cwiseMax(y);
    } else {
      return x.template cwiseMax<Eigen::PropagateNaN>(y);
    }
  }
};

struct Minimum {
  template <typename X, typename Y>
  auto operator()(const X& x, const Y& y) const {
    using T = typename X::Scalar;
    if constexpr (internal::kIsInteger<T>) {
      return x.cwiseMin(y);
    } else {
      return x.template cwiseMin<Eigen::PropagateNaN>(y);
    }
  }
};

struct SquaredDifference {
  template <typename X, typename Y>
  auto operator()(const X& x, const Y& y) const {
    using T = typename X::Scalar;
    if constexpr (internal::kIsInteger<T>) {
      return x.binaryExpr(y, [](T a, T b) {
        const T d = internal::WrappingSub<T>()(a, b);
        return internal::WrappingMul<T>()(d, d);
      });
    } else {
      return (x - y).square();
    }
  }
};

#define OPKIT_REGISTER_BINARY(name, T, functor_type)                            \
  REGISTER_KERNEL_BUILDER(Name(name).Device(DEVICE_CPU).TypeConstraint<T>("T"), \
                          BinaryOp<T, functor_type>)

// Every op here takes these six types; Pow, SquaredDifference and the
// divisions also the integer ones as listed below.
#define OPKIT_REGISTER_COMMON(T)                                       \
  OPKIT_REGISTER_BINARY("Sub", T, functor::Sub);                       \
  OPKIT_REGISTER_BINARY("Mul", T, functor::Mul);                       \
  OPKIT_REGISTER_BINARY("Div", T, Div<T>);                             \
  OPKIT_REGISTER_BINARY("FloorDiv", T, FloorDiv<T>);                   \
  OPKIT_REGISTER_BINARY("FloorMod", T, FloorMod<T>);                   \
  OPKIT_REGISTER_BINARY("Maximum", T, Maximum);                        \
  OPKIT_REGISTER_BINARY("Minimum", T, Minimum);                        \
  OPKIT_REGISTER_BINARY("Pow", T, Pow<T>);                             \
  OPKIT_REGISTER_BINARY("SquaredDifference", T, SquaredDifference);

#define OPKIT_REGISTER_REAL_DIV(T)              \
  OPKIT_REGISTER_BINARY("RealDiv", T, Div<T>);  \
  OPKIT_REGISTER_BINARY("Atan2", T, Atan2);

TF_CALL_float(OPKIT_REGISTER_COMMON)
TF_CALL_double(OPKIT_REGISTER_COMMON)
TF_CALL_half(OPKIT_REGISTER_COMMON)
TF_CALL_bfloat16(OPKIT_REGISTER_COMMON)
TF_CALL_int32(OPKIT_REGISTER_COMMON)
TF_CALL_int64(OPKIT_REGISTER_COMMON)
// RealDiv is a floating-point division; TensorFlow's CPU kernels have no
// integer RealDiv. Atan2 is floating-point only.
TF_CALL_float(OPKIT_REGISTER_REAL_DIV)
TF_CALL_double(OPKIT_REGISTER_REAL_DIV)
TF_CALL_half(OPKIT_REGISTER_REAL_DIV)
TF_CALL_bfloat16(OPKIT_REGISTER_REAL_DIV)

#undef OPKIT_REGISTER_REAL_DIV
#undef OPKIT_REGISTER_COMMON
#undef OPKIT_REGISTER_BINARY

}  // namespace
}  // namespace opkit
