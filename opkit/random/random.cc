// New64 and New64DefaultSeed: two process-wide Mersenne twisters behind a
// lock each.
#include "opkit/random/random.h"

#include <mutex>
#include <random>

namespace opkit {
namespace random {
namespace {

// A generator and its lock; never destroyed, so callers during static
// destruction still work.
struct LockedEngine {
  std::mutex mu;
  std::mt19937_64 engine;
};

LockedEngine* RandomlySeeded() {
  static LockedEngine* const engine = [] {
    auto* e = new LockedEngine;
    std::random_device device;
    // Two draws: random_device gives 32 bits, the engine takes 64.
    const uint64_t seed = (static_cast<uint64_t>(device()) << 32) | device();
    e->engine.seed(seed);
    return e;
  }();
  return engine;
}

LockedEngine* DefaultSeeded() {
  static LockedEngine* const engine = new LockedEngine;
  return engine;
}

uint64_t Next(LockedEngine* e) {
  std::lock_guard<std::mutex> lock(e->mu);
  return e->engine();
}

}  // namespace

uint64_t New64() { return Next(RandomlySeeded()); }

uint64_t New64DefaultSeed() { return Next(DefaultSeeded()); }

}  // namespace random
}  // namespace opkit
