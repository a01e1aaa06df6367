// SimplePhilox: its values are the generator's in order, and TensorFlow's
// SimplePhilox tests (ranges, distinct streams, uniformity).
#include "opkit/random/simple_philox.h"

#include <cmath>
#include <set>

#include <gtest/gtest.h>

namespace opkit {
namespace random {
namespace {

TEST(SimplePhiloxTest, Rand32AndRand64AreTheGeneratorsValuesInOrder) {
  PhiloxRandom philox(150, 10), copy(150, 10);
  SimplePhilox gen(&philox);
  PhiloxRandom::ResultType a = copy();
  EXPECT_EQ(gen.Rand32(), a[0]);
  EXPECT_EQ(gen.Rand64(), a[1] | static_cast<uint64_t>(a[2]) << 32);
  PhiloxRandom::ResultType b = copy();
  EXPECT_EQ(gen.Rand64(), a[3] | static_cast<uint64_t>(b[0]) << 32);
  EXPECT_EQ(gen.RandFloat(), Uint32ToFloat(b[1]));
  EXPECT_EQ(gen.RandDouble(), Uint64ToDouble(b[2], b[3]));
}

// The first float of PhiloxRandom(150, 10) is TensorFlow's 0.7011236 (see
// random_distributions_test.cc).
TEST(SimplePhiloxTest, RandFloatMatchesTensorFlowsUniform) {
  PhiloxRandom philox(150, 10);
  SimplePhilox gen(&philox);
  EXPECT_FLOAT_EQ(gen.RandFloat(), 0.7011236f);
  EXPECT_FLOAT_EQ(gen.RandFloat(), 0.30539632f);
}

TEST(SimplePhiloxTest, FloatsAndDoublesAreInUnitInterval) {
  PhiloxRandom philox(7, 7);
  SimplePhilox gen(&philox);
  for (int i = 0; i < 100000; ++i) {
    const float f = gen.RandFloat();
    ASSERT_LE(0.0f, f);
    ASSERT_GT(1.0f, f);
    const double d = gen.RandDouble();
    ASSERT_LE(0.0, d);
    ASSERT_GT(1.0, d);
  }
}

TEST(SimplePhiloxTest, DifferentAndCloseSeedsGiveDisjointStreams) {
  PhiloxRandom philox1(0, 1), philox2(1, 1);
  SimplePhilox gen1(&philox1), gen2(&philox2);
  std::set<uint32_t> first, all;
  for (int i = 0; i < 1000; ++i) {
    const uint32_t v = gen1.Rand32();
    first.insert(v);
    all.insert(v);
    all.insert(gen2.Rand32());
  }
  EXPECT_EQ(first.size(), 1000u);
  EXPECT_EQ(all.size(), 2000u);
}

TEST(SimplePhiloxTest, UniformIsExactAndInRange) {
  PhiloxRandom philox(17, 17);
  SimplePhilox gen(&philox);
  const uint32_t range = 3u << 29;
  const uint32_t threshold = 1u << 30;
  int below = 0;
  const int kTrials = 100000;
  for (int i = 0; i < kTrials; ++i) {
    const uint32_t v = gen.Uniform(range);
    ASSERT_LT(v, range);
    if (v < threshold) ++below;
  }
  EXPECT_LT(std::fabs(2.0 / 3 - static_cast<double>(below) / kTrials), 0.005);
}

TEST(SimplePhiloxTest, Uniform64IsExactAndInRange) {
  PhiloxRandom philox(17, 17);
  SimplePhilox gen(&philox);
  const uint64_t range = uint64_t{3} << 59;
  const uint64_t threshold = uint64_t{1} << 60;
  int below = 0;
  const int kTrials = 100000;
  for (int i = 0; i < kTrials; ++i) {
    const uint64_t v = gen.Uniform64(range);
    ASSERT_LT(v, range);
    if (v < threshold) ++below;
  }
  EXPECT_LT(std::fabs(2.0 / 3 - static_cast<double>(below) / kTrials), 0.005);
}

TEST(SimplePhiloxTest, UniformOfAPowerOfTwoMasksOneValue) {
  PhiloxRandom philox(3, 3), copy(3, 3);
  SimplePhilox gen(&philox);
  PhiloxRandom::ResultType r = copy();
  EXPECT_EQ(gen.Uniform(16), r[0] & 15);
  EXPECT_EQ(gen.Uniform(0), 0u);  // consumes r[1]
  EXPECT_EQ(gen.Rand32(), r[2]);
  // Rejection: 3 rejects values below 2^32 mod 3 = 1.
  ASSERT_GE(r[3], 1u);
  EXPECT_EQ(gen.Uniform(3), r[3] % 3);
}

TEST(SimplePhiloxTest, OneInAndSkewed) {
  PhiloxRandom philox(11, 12);
  SimplePhilox gen(&philox);
  EXPECT_TRUE(gen.OneIn(1));
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(gen.Skewed(0), 0u);
  for (int i = 0; i < 1000; ++i) ASSERT_LT(gen.Skewed(4), 16u);
  // Out-of-range max_log is clamped rather than aborting the process.
  for (int i = 0; i < 100; ++i) ASSERT_EQ(gen.Skewed(-3), 0u);
  gen.Skewed(40);
}

}  // namespace
}  // namespace random
}  // namespace opkit
