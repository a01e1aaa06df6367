// Unary element-wise ops on CPU: Neg, Abs, Square, Sqrt, Rsqrt, Exp, Log,
// Tanh, Sigmoid, Sin, Cos, Floor, Ceil, Round, Reciprocal, LogicalNot.
//
// Round rounds halves to even (Round(2.5) == 2, Round(-0.5) == -0), as
// TensorFlow does, and is the identity on integers.
//
// Integer Neg, Abs and Square wrap around on overflow (Neg(INT_MIN) ==
// INT_MIN), as two's-complement hardware does, instead of being undefined.
// Floating-point results follow IEEE (Sqrt(-1) is NaN, Log(0) is -inf).
#include <cstdint>

#include "opkit/kernel/register_types.h"
#include "opkit/kernels/cwise_ops_common.h"

namespace opkit {
namespace {

struct Neg {
  static constexpr int64_t kCost = 1;
  template <typename X>
  auto operator()(const X& x) const {
    using T = typename X::Scalar;
    if constexpr (internal::kIsInteger<T>) {
      return x.unaryExpr(internal::WrappingNeg<T>());
    } else {
      return -x;
    }
  }
};

struct Abs {
  static constexpr int64_t kCost = 1;
  template <typename X>
  auto operator()(const X& x) const {
    using T = typename X::Scalar;
    if constexpr (internal::kIsInteger<T>) {
      return x.unaryExpr([](T a) { return a < T(0) ? internal::WrappingNeg<T>()(a) : a; });
    } else {
      return x.abs();
    }
  }
};

struct Square {
  static constexpr int64_t kCost = 1;
  template <typename X>
  auto operator()(const X& x) const {
    using T = typename X::Scalar;
    if constexpr (internal::kIsInteger<T>) {
      return x.unaryExpr([](T a) { return internal::WrappingMul<T>()(a, a); });
    } else {
      return x.square();
    }
  }
};

struct Sqrt {
  static constexpr int64_t kCost = 8;
  template <typename X>
  auto operator()(const X& x) const { return x.sqrt(); }
};

struct Rsqrt {
  static constexpr int64_t kCost = 8;
  template <typename X>
  auto operator()(const X& x) const { return x.rsqrt(); }
};

struct Exp {
  static constexpr int64_t kCost = 20;
  template <typename X>
  auto operator()(const X& x) const { return x.exp(); }
};

struct Log {
  static constexpr int64_t kCost = 20;
  template <typename X>
  auto operator()(const X& x) const { return x.log(); }
};

struct Tanh {
  static constexpr int64_t kCost = 20;
  template <typename X>
  auto operator()(const X& x) const { return x.tanh(); }
};

struct Sigmoid {
  static constexpr int64_t kCost = 20;
  template <typename X>
  auto operator()(const X& x) const { return x.sigmoid(); }
};

struct Sin {
  static constexpr int64_t kCost = 20;
  template <typename X>
  auto operator()(const X& x) const {
    return x.unaryExpr(Eigen::internal::scalar_sin_op<typename X::Scalar>());
  }
};

struct Cos {
  static constexpr int64_t kCost = 20;
  template <typename X>
  auto operator()(const X& x) const {
    return x.unaryExpr(Eigen::internal::scalar_cos_op<typename X::Scalar>());
  }
};

struct Floor {
  static constexpr int64_t kCost = 1;
  template <typename X>
  auto operator()(const X& x) const { return x.floor(); }
};

struct Ceil {
  static constexpr int64_t kCost = 1;
  template <typename X>
  auto operator()(const X& x) const { return x.ceil(); }
};

// rint rounds to nearest with ties to even in the default floating-point
// environment, which TensorFlow's round_half_to_even gives too.
struct Round {
  static constexpr int64_t kCost = 1;
  template <typename X>
  auto operator()(const X& x) const {
    using T = typename X::Scalar;
    if constexpr (internal::kIsInteger<T>) {
      return x.unaryExpr([](T a) { return a; });
    } else {
      return x.rint();
    }
  }
};

struct Reciprocal {
  static constexpr int64_t kCost = 4;
  template <typename X>
  auto operator()(const X& x) const { return x.inverse(); }
};

struct LogicalNot {
  static constexpr int64_t kCost = 1;
  template <typename X>
  auto operator()(const X& x) const {
    return x.unaryExpr([](bool a) { return !a; });
  }
};

#define OPKIT_REGISTER_UNARY(name, T, functor_type)                             \
  REGISTER_KERNEL_BUILDER(Name(name).Device(DEVICE_CPU).TypeConstraint<T>("T"), \
                          UnaryOp<T, functor_type>)

#define OPKIT_REGISTER_SIGNED(T)              \
  OPKIT_REGISTER_UNARY("Neg", T, Neg);        \
  OPKIT_REGISTER_UNARY("Abs", T, Abs);        \
  OPKIT_REGISTER_UNARY("Square", T, Square);

#define OPKIT_REGISTER_FLOAT(T)                      \
  OPKIT_REGISTER_UNARY("Sqrt", T, Sqrt);             \
  OPKIT_REGISTER_UNARY("Rsqrt", T, Rsqrt);           \
  OPKIT_REGISTER_UNARY("Exp", T, Exp);               \
  OPKIT_REGISTER_UNARY("Log", T, Log);               \
  OPKIT_REGISTER_UNARY("Tanh", T, Tanh);             \
  OPKIT_REGISTER_UNARY("Sigmoid", T, Sigmoid);       \
  OPKIT_REGISTER_UNARY("Sin", T, Sin);               \
  OPKIT_REGISTER_UNARY("Cos", T, Cos);               \
  OPKIT_REGISTER_UNARY("Floor", T, Floor);           \
  OPKIT_REGISTER_UNARY("Ceil", T, Ceil);             \
  OPKIT_REGISTER_UNARY("Round", T, Round);           \
  OPKIT_REGISTER_UNARY("Reciprocal", T, Reciprocal);

TF_CALL_float(OPKIT_REGISTER_SIGNED)
TF_CALL_double(OPKIT_REGISTER_SIGNED)
TF_CALL_half(OPKIT_REGISTER_SIGNED)
TF_CALL_bfloat16(OPKIT_REGISTER_SIGNED)
TF_CALL_int32(OPKIT_REGISTER_SIGNED)
TF_CALL_int64(OPKIT_REGISTER_SIGNED)
TF_CALL_FLOAT_TYPES(OPKIT_REGISTER_FLOAT)
// TensorFlow's CPU Round also takes int32 and int64 (where it changes nothing).
OPKIT_REGISTER_UNARY("Round", int32, Round);
OPKIT_REGISTER_UNARY("Round", int64, Round);

REGISTER_KERNEL_BUILDER(Name("LogicalNot").Device(DEVICE_CPU),
                        UnaryOp<bool, LogicalNot>);

#undef OPKIT_REGISTER_FLOAT
#undef OPKIT_REGISTER_SIGNED
#undef OPKIT_REGISTER_UNARY

}  // namespace
}  // namespace opkit
