// SimplePhilox's integer draws: Uniform, Uniform64 and Skewed.
#include "opkit/random/simple_philox.h"

#include <algorithm>

#include "opkit/random/exact_uniform_int.h"

namespace opkit {
namespace random {

uint32_t SimplePhilox::Uniform(uint32_t n) {
  return ExactUniformInt<uint32_t>(n, [this]() { return Rand32(); });
}

uint64_t SimplePhilox::Uniform64(uint64_t n) {
  return ExactUniformInt<uint64_t>(n, [this]() { return Rand64(); });
}

uint32_t SimplePhilox::Skewed(int max_log) {
  max_log = std::clamp(max_log, 0, 32);
  const int bits = static_cast<int>(Rand32() % static_cast<uint32_t>(max_log + 1));
  const uint32_t mask = bits == 32 ? ~uint32_t{0} : (uint32_t{1} << bits) - 1;
  return Rand32() & mask;
}

}  // namespace random
}  // namespace opkit
