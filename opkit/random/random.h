// Process-wide sources of 64-bit seeds: New64() differs from process to
// process (what a random op uses when both its seeds are 0),
// New64DefaultSeed() is the same sequence in every process.
//
//   uint64_t seed = opkit::random::New64();
//
// Both are thread-safe. Not for cryptography.
#ifndef OPKIT_RANDOM_RANDOM_H_
#define OPKIT_RANDOM_RANDOM_H_

#include <cstdint>

#include "opkit/core/export.h"

namespace opkit {
namespace random {

// The next value of a process-wide std::mt19937_64 seeded once from
// std::random_device.
OPKIT_EXPORT uint64_t New64();

// The next value of a process-wide std::mt19937_64 with its default seed,
// as in TensorFlow: the same sequence in every process.
OPKIT_EXPORT uint64_t New64DefaultSeed();

}  // namespace random
}  // namespace opkit

#endif  // OPKIT_RANDOM_RANDOM_H_
