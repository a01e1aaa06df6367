// SimplePhilox: one random value at a time from a PhiloxRandom -- 32 or 64
// bits, a float or double in [0, 1), an exactly uniform integer in [0, n)
// -- with TensorFlow's sequences for the same generator.
//
//   opkit::random::PhiloxRandom philox(seed, seed2);
//   opkit::random::SimplePhilox rng(&philox);
//   uint32_t i = rng.Uniform(10);    // [0, 10)
//   float f = rng.RandFloat();       // [0, 1)
//
// Borrows the generator (which must outlive it) and buffers up to three of
// its values. Not thread-safe.
#ifndef OPKIT_RANDOM_SIMPLE_PHILOX_H_
#define OPKIT_RANDOM_SIMPLE_PHILOX_H_

#include <cstdint>

#include "opkit/core/export.h"
#include "opkit/random/philox_random.h"
#include "opkit/random/random_distributions.h"

namespace opkit {
namespace random {

class OPKIT_EXPORT SimplePhilox {
 public:
  PHILOX_DEVICE_INLINE explicit SimplePhilox(PhiloxRandom* gen) : single_(gen) {}

  // 32 random bits.
  PHILOX_DEVICE_INLINE uint32_t Rand32() { return single_(); }

  // 64 random bits: the first value is the low word.
  PHILOX_DEVICE_INLINE uint64_t Rand64() {
    const uint32_t lo = single_();
    const uint32_t hi = single_();
    return lo | static_cast<uint64_t>(hi) << 32;
  }

  // A float in [0, 1) (Uint32ToFloat of one value).
  PHILOX_DEVICE_INLINE float RandFloat() { return Uint32ToFloat(single_()); }

  // A double in [0, 1) (Uint64ToDouble of two values).
  PHILOX_DEVICE_INLINE double RandDouble() {
    const uint32_t x0 = single_();
    const uint32_t x1 = single_();
    return Uint64ToDouble(x0, x1);
  }

  // An exactly uniform integer in [0, n) by rejection (ExactUniformInt over
  // Rand32); may draw more than one value. n == 0 gives 0.
  uint32_t Uniform(uint32_t n);

  // The same over Rand64, in [0, n).
  uint64_t Uniform64(uint64_t n);

  // True with probability 1/n.
  bool OneIn(uint32_t n) { return Uniform(n) == 0; }

  // A number of up to max_log bits, skewed towards small values: picks a
  // bit count uniformly in [0, max_log], then returns that many random
  // bits. max_log outside [0, 32] is clamped into it (TensorFlow CHECKs).
  uint32_t Skewed(int max_log);

 private:
  SingleSampleAdapter<PhiloxRandom> single_;
};

}  // namespace random
}  // namespace opkit

#endif  // OPKIT_RANDOM_SIMPLE_PHILOX_H_
