// TensorFlow compatibility: FastBoundsCheck and SubtleMustCopy, the index
// checks kernels run on values read from input tensors.
//
//   const int32 i = internal::SubtleMustCopy(indices(n));  // read once
//   OP_REQUIRES(ctx, FastBoundsCheck(i, limit),
//               errors::InvalidArgument("index ", i, " not in [0, ", limit, ")"));
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_FRAMEWORK_BOUNDS_CHECK_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_FRAMEWORK_BOUNDS_CHECK_H_

#include <type_traits>

#include "tensorflow/core/platform/macros.h"
#include "tensorflow/core/platform/types.h"
#include "third_party/eigen3/Eigen/Core"

namespace tensorflow {

// Whether 0 <= index < limit, in one unsigned comparison (a negative index
// becomes a huge unsigned value). Integer types only.
template <typename Ta, typename Tb>
EIGEN_ALWAYS_INLINE EIGEN_DEVICE_FUNC bool FastBoundsCheck(const Ta index,
                                                           const Tb limit) {
  static_assert(std::is_integral<Ta>::value && std::is_integral<Tb>::value,
                "FastBoundsCheck can only be used on integer types.");
  using UIndex = typename std::make_unsigned<decltype(index + limit)>::type;
  return TF_PREDICT_TRUE(static_cast<UIndex>(index) <
                         static_cast<UIndex>(limit));
}

namespace internal {

// Reads `x` exactly once (through a volatile access), so that a value
// another thread may change between the check and the use is checked and
// used as one value. Integer types only.
template <typename T>
EIGEN_ALWAYS_INLINE EIGEN_DEVICE_FUNC const T SubtleMustCopy(const T& x) {
  static_assert(std::is_integral<T>::value,
                "SubtleMustCopy can only be used on integer types.");
  auto* to_x = reinterpret_cast<const volatile T*>(&x);
  return *to_x;
}

}  // namespace internal
}  // namespace tensorflow

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_FRAMEWORK_BOUNDS_CHECK_H_
