// The conversions from Philox's uint32 values to floating point that
// TensorFlow's distributions are built on: uniform float and double in
// [0, 1) and the Box-Muller transform to standard normal floats, with
// TensorFlow's exact bit patterns and rounding.
//
//   float u = opkit::random::Uint32ToFloat(bits);           // [0, 1)
//   double d = opkit::random::Uint64ToDouble(hi_bits, lo_bits);
//   float n0, n1;
//   opkit::random::BoxMullerFloat(bits0, bits1, &n0, &n1);  // two N(0, 1)
#ifndef OPKIT_RANDOM_RANDOM_DISTRIBUTIONS_UTILS_H_
#define OPKIT_RANDOM_RANDOM_DISTRIBUTIONS_UTILS_H_

#include <cmath>
#include <cstdint>
#include <cstring>

#include "opkit/random/philox_random.h"

namespace opkit {
namespace random {

namespace internal {
// pi as TensorFlow's M_PI, a double.
inline constexpr double kPi = 3.14159265358979323846;
}  // namespace internal

// A float in [0, 1) from the low 23 bits of `x`: the float 1.m (exponent 0,
// mantissa = those bits) minus 1, so every result is a multiple of 2^-23.
PHILOX_DEVICE_INLINE float Uint32ToFloat(uint32_t x) {
  const uint32_t bits = (uint32_t{127} << 23) | (x & 0x7fffffu);
  float one_to_two;
  std::memcpy(&one_to_two, &bits, sizeof(bits));
  return one_to_two - 1.0f;
}

// A double in [0, 1) from 52 bits: the low 20 bits of `x0` above all of
// `x1`, as the mantissa of 1.m, minus 1.
PHILOX_DEVICE_INLINE double Uint64ToDouble(uint32_t x0, uint32_t x1) {
  const uint64_t mantissa = (static_cast<uint64_t>(x0 & 0xfffffu) << 32) | x1;
  const uint64_t bits = (uint64_t{1023} << 52) | mantissa;
  double one_to_two;
  std::memcpy(&one_to_two, &bits, sizeof(bits));
  return one_to_two - 1.0;
}

// Two standard normal floats from two uint32 (Box-Muller, basic form):
// radius sqrt(-2 ln u1) with u1 = Uint32ToFloat(x0) clamped below at 1e-7,
// angle 2 pi Uint32ToFloat(x1); *f0 = r sin(angle), *f1 = r cos(angle).
// Computed in float as TensorFlow does (the angle's product in double),
// with sincosf on Linux as TensorFlow uses there.
PHILOX_DEVICE_INLINE void BoxMullerFloat(uint32_t x0, uint32_t x1, float* f0, float* f1) {
  const float kEpsilon = 1.0e-7f;
  float u1 = Uint32ToFloat(x0);
  if (u1 < kEpsilon) u1 = kEpsilon;
  const float angle =
      static_cast<float>(2.0 * internal::kPi * static_cast<double>(Uint32ToFloat(x1)));
  const float radius = std::sqrt(-2.0f * std::log(u1));
#if defined(__linux__)
  sincosf(angle, f0, f1);
#else
  *f0 = std::sin(angle);
  *f1 = std::cos(angle);
#endif
  *f0 *= radius;
  *f1 *= radius;
}

}  // namespace random
}  // namespace opkit

#endif  // OPKIT_RANDOM_RANDOM_DISTRIBUTIONS_UTILS_H_
