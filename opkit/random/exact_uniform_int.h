// ExactUniformInt: an exactly uniform integer in [0, n) from a source of
// uniform random bits, by rejection (TensorFlow's algorithm, so the same
// bits give the same integers).
//
//   uint32_t die = opkit::random::ExactUniformInt<uint32_t>(6, [&] { return gen.Rand32(); });
#ifndef OPKIT_RANDOM_EXACT_UNIFORM_INT_H_
#define OPKIT_RANDOM_EXACT_UNIFORM_INT_H_

#include <type_traits>

namespace opkit {
namespace random {

// `random()` returns uniform UintType values. A power of two n masks one
// value; any other n rejects values below (2^bits mod n), which leaves a
// count of candidates that n divides, and reduces the first kept value mod
// n. n == 0 consumes one value and returns 0.
template <typename UintType, typename RandomBits>
UintType ExactUniformInt(const UintType n, const RandomBits& random) {
  static_assert(std::is_unsigned<UintType>::value, "UintType must be an unsigned int");
  static_assert(std::is_same<UintType, decltype(random())>::value,
                "random() should return UintType");
  if (n == 0) return random() * n;
  if ((n & (n - 1)) == 0) return random() & (n - 1);
  // (2^bits - 1) mod n + 1 == 2^bits mod n (n is not a power of two).
  const UintType reject_below = static_cast<UintType>(~UintType{0}) % n + 1;
  UintType value;
  do {
    value = random();
  } while (value < reject_below);
  return value % n;
}

}  // namespace random
}  // namespace opkit

#endif  // OPKIT_RANDOM_EXACT_UNIFORM_INT_H_
