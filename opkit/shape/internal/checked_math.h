// Overflow-checked int64 arithmetic for the shape functions
// (common_shape_fns.cc and its siblings): sizes computed from attrs and
// shapes must never wrap. Not part of the API.
#ifndef OPKIT_SHAPE_INTERNAL_CHECKED_MATH_H_
#define OPKIT_SHAPE_INTERNAL_CHECKED_MATH_H_

#include <cstdint>

namespace opkit {
namespace internal {

// *out = a + b / a * b; true (and *out unspecified) when that overflows.
inline bool AddOverflows(int64_t a, int64_t b, int64_t* out) {
  return __builtin_add_overflow(a, b, out);
}
inline bool MulOverflows(int64_t a, int64_t b, int64_t* out) {
  return __builtin_mul_overflow(a, b, out);
}

}  // namespace internal
}  // namespace opkit

#endif  // OPKIT_SHAPE_INTERNAL_CHECKED_MATH_H_
