// New64 and New64DefaultSeed.
#include "opkit/random/random.h"

#include <random>
#include <set>

#include <gtest/gtest.h>

namespace opkit {
namespace random {
namespace {

TEST(RandomTest, New64GivesDistinctValues) {
  std::set<uint64_t> seen;
  for (int i = 0; i < 1000; ++i) seen.insert(New64());
  EXPECT_EQ(seen.size(), 1000u);
}

// The only caller of New64DefaultSeed in this program, so it starts at the
// beginning of the default-seeded sequence.
TEST(RandomTest, New64DefaultSeedIsTheDefaultMersenneTwister) {
  std::mt19937_64 reference;
  for (int i = 0; i < 10; ++i) EXPECT_EQ(New64DefaultSeed(), reference());
}

}  // namespace
}  // namespace random
}  // namespace opkit
