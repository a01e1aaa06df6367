// The distributions: TensorFlow's published outputs for fixed seeds, the
// conversions' bit patterns, and the moments of each distribution.
#include "opkit/random/random_distributions.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "opkit/random/philox_random.h"

namespace opkit {
namespace random {
namespace {

template <class Distribution, class Generator>
std::vector<typename Distribution::ResultElementType> Draw(Distribution dist, Generator* gen,
                                                          int calls) {
  std::vector<typename Distribution::ResultElementType> out;
  for (int i = 0; i < calls; ++i) {
    auto r = dist(gen);
    for (int j = 0; j < Distribution::kResultElementCount; ++j) out.push_back(r[j]);
  }
  return out;
}

// TensorFlow's RandomUniform with seed=150, seed2=10 (tf.random.uniform
// with global seed 150 and op seed 10), shape [3, 3], as OpenVINO's
// RandomUniform-8 specification documents it for TensorFlow alignment.
TEST(UniformDistributionTest, FloatMatchesTensorFlowForSeeds150And10) {
  PhiloxRandom gen(150, 10);
  auto v = Draw(UniformDistribution<PhiloxRandom, float>(), &gen, 3);
  const float expected[] = {0.7011236f, 0.30539632f, 0.93931055f, 0.9456035f, 0.11694777f,
                            0.50770056f, 0.5197197f, 0.22727466f, 0.991374f};
  for (int i = 0; i < 9; ++i) EXPECT_FLOAT_EQ(v[i], expected[i]) << i;
}

// RandomUniform double, seeds 80 and 100, scaled to [2, 10) as
// tf.random.uniform does (x * (max - min) + min); same source.
TEST(UniformDistributionTest, DoubleMatchesTensorFlowForSeeds80And100) {
  PhiloxRandom gen(80, 100);
  auto v = Draw(UniformDistribution<PhiloxRandom, double>(), &gen, 2);
  const double expected[] = {5.65927959, 4.23122376, 2.67008206, 2.36423758};
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(v[i] * 8 + 2, expected[i], 5e-9) << i;
}

// RandomUniformInt int32 in [50, 100), seeds 80 and 100; same source.
TEST(UniformDistributionTest, Int32RangeMatchesTensorFlowForSeeds80And100) {
  PhiloxRandom gen(80, 100);
  auto v = Draw(UniformDistribution<PhiloxRandom, int32_t>(50, 100), &gen, 2);
  const int32_t expected[] = {65, 70, 56, 59, 82, 92};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(v[i], expected[i]) << i;
}

TEST(UniformDistributionTest, ConversionsUseTheLowMantissaBits) {
  EXPECT_EQ(Uint32ToFloat(0), 0.0f);
  EXPECT_EQ(Uint32ToFloat(0xff800000u), 0.0f);  // bits above 23 ignored
  EXPECT_EQ(Uint32ToFloat(0x7fffffu), 1.0f - std::ldexp(1.0f, -23));
  EXPECT_EQ(Uint32ToFloat(0x400000u), 0.5f);
  EXPECT_EQ(Uint64ToDouble(0, 0), 0.0);
  EXPECT_EQ(Uint64ToDouble(0xfff80000u, 0), 0.5);  // x0's low 20 bits lead
  EXPECT_EQ(Uint64ToDouble(0xfffffu, 0xffffffffu), 1.0 - std::ldexp(1.0, -52));
  EXPECT_EQ(static_cast<float>(Uint16ToHalf(0x200)), 0.5f);
  EXPECT_EQ(static_cast<float>(Uint16ToHalf(0x3ff)), 1.0f - std::ldexp(1.0f, -10));
  EXPECT_EQ(static_cast<float>(Uint16ToGfloat16(0x40)), 0.5f);
  EXPECT_EQ(static_cast<float>(Uint16ToGfloat16(0x7f)), 1.0f - std::ldexp(1.0f, -7));
}

TEST(UniformDistributionTest, HalfAndBfloat16UseEachValuesLow16Bits) {
  PhiloxRandom gen(1, 2);
  PhiloxRandom copy = gen;
  PhiloxRandom::ResultType bits = copy();
  auto h = UniformDistribution<PhiloxRandom, Eigen::half>()(&gen);
  PhiloxRandom gen2(1, 2);
  auto b = UniformDistribution<PhiloxRandom, Eigen::bfloat16>()(&gen2);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(static_cast<float>(h[i]), static_cast<float>(Uint16ToHalf(bits[i] & 0xffff)));
    EXPECT_EQ(static_cast<float>(b[i]), static_cast<float>(Uint16ToGfloat16(bits[i] & 0xffff)));
  }
}

TEST(UniformDistributionTest, IntegerRangeWiderThanTheTypeDoesNotOverflow) {
  PhiloxRandom gen(3, 4);
  const int32_t lo = std::numeric_limits<int32_t>::min();
  const int32_t hi = std::numeric_limits<int32_t>::max();
  PhiloxRandom copy = gen;
  PhiloxRandom::ResultType bits = copy();
  auto v = UniformDistribution<PhiloxRandom, int32_t>(lo, hi)(&gen);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(v[i], static_cast<int32_t>(static_cast<int64_t>(lo) + bits[i] % 0xffffffffu));
  }
  PhiloxRandom gen64(3, 4);
  auto w = UniformDistribution<PhiloxRandom, int64_t>(-5, 5)(&gen64);
  ASSERT_EQ((UniformDistribution<PhiloxRandom, int64_t>::kResultElementCount), 2);
  for (int i = 0; i < 2; ++i) {
    const uint64_t b64 = bits[2 * i] | static_cast<uint64_t>(bits[2 * i + 1]) << 32;
    EXPECT_EQ(w[i], -5 + static_cast<int64_t>(b64 % 10));
  }
}

TEST(UniformFullIntDistributionTest, ReturnsTheGeneratorsBits) {
  PhiloxRandom gen(5, 6);
  PhiloxRandom copy = gen;
  PhiloxRandom::ResultType bits = copy();
  PhiloxRandom g32 = gen;
  auto u32 = UniformFullIntDistribution<PhiloxRandom, uint32_t>()(&g32);
  PhiloxRandom gi32 = gen;
  auto i32 = UniformFullIntDistribution<PhiloxRandom, int32_t>()(&gi32);
  auto u64 = UniformFullIntDistribution<PhiloxRandom, uint64_t>()(&gen);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(u32[i], bits[i]);
    EXPECT_EQ(i32[i], static_cast<int32_t>(bits[i]));
  }
  EXPECT_EQ(u64[0], bits[0] | static_cast<uint64_t>(bits[1]) << 32);
  EXPECT_EQ(u64[1], bits[2] | static_cast<uint64_t>(bits[3]) << 32);
}

// PhiloxRandom(80, 100)'s first four values are 981946765 403059570
// 2261022306 4128092359; Box-Muller of those pairs, evaluated separately in
// numpy float32 / float64 as TensorFlow's formula reads.
TEST(NormalDistributionTest, FloatIsBoxMullerOfEachPair) {
  PhiloxRandom gen(80, 100);
  auto v = NormalDistribution<PhiloxRandom, float>()(&gen);
  EXPECT_EQ(v[0], 0x1.6f1b4ap-1f);   // 0.7170051
  EXPECT_EQ(v[1], 0x1.24242ap+1f);   // 2.2823536
  EXPECT_EQ(v[2], 0x1.6498c8p-1f);   // 0.6964781
  EXPECT_EQ(v[3], 0x1.c03aacp-1f);   // 0.87544763
}

TEST(NormalDistributionTest, DoubleUsesFourValuesPerPair) {
  PhiloxRandom gen(80, 100);
  auto v = NormalDistribution<PhiloxRandom, double>()(&gen);
  ASSERT_EQ((NormalDistribution<PhiloxRandom, double>::kResultElementCount), 2);
  EXPECT_DOUBLE_EQ(v[0], 1.2301721798610359);
  EXPECT_DOUBLE_EQ(v[1], -0.2258913549595417);
}

TEST(NormalDistributionTest, HalfIsTheFloatValueRounded) {
  PhiloxRandom gen(80, 100);
  auto v = NormalDistribution<PhiloxRandom, Eigen::half>()(&gen);
  EXPECT_EQ(static_cast<float>(v[1]), static_cast<float>(Eigen::half(0x1.24242ap+1f)));
}

// The same values with 2.2823536 (|x| >= 2) rejected, then the next pair.
TEST(TruncatedNormalDistributionTest, DropsValuesOutsideTwoInOrder) {
  PhiloxRandom gen(80, 100);
  SingleSampleAdapter<PhiloxRandom> single(&gen);
  auto v = TruncatedNormalDistribution<SingleSampleAdapter<PhiloxRandom>, float>()(&single);
  EXPECT_EQ(v[0], 0x1.6f1b4ap-1f);
  EXPECT_EQ(v[1], 0x1.6498c8p-1f);
  EXPECT_EQ(v[2], 0x1.c03aacp-1f);
  EXPECT_EQ(v[3], 0x1.21daf8p+0f);
}

// The mean and variance of n samples, and the standard error of the mean.
template <typename T>
void ExpectMoments(const std::vector<T>& v, double mean, double variance) {
  double sum = 0, sum_sq = 0;
  for (T x : v) {
    sum += static_cast<double>(x);
    sum_sq += static_cast<double>(x) * static_cast<double>(x);
  }
  const double n = static_cast<double>(v.size());
  const double m = sum / n;
  const double var = sum_sq / n - m * m;
  const double stderr_mean = std::sqrt(variance / n);
  EXPECT_NEAR(m, mean, 6 * stderr_mean);
  EXPECT_NEAR(var, variance, 0.02 * variance);
}

TEST(DistributionMomentsTest, UniformFloatAndDouble) {
  PhiloxRandom gen(1234, 5678);
  ExpectMoments(Draw(UniformDistribution<PhiloxRandom, float>(), &gen, 1 << 16), 0.5, 1.0 / 12);
  ExpectMoments(Draw(UniformDistribution<PhiloxRandom, double>(), &gen, 1 << 16), 0.5,
                1.0 / 12);
}

TEST(DistributionMomentsTest, NormalFloatAndDouble) {
  PhiloxRandom gen(1234, 5678);
  ExpectMoments(Draw(NormalDistribution<PhiloxRandom, float>(), &gen, 1 << 16), 0.0, 1.0);
  ExpectMoments(Draw(NormalDistribution<PhiloxRandom, double>(), &gen, 1 << 16), 0.0, 1.0);
}

TEST(DistributionMomentsTest, TruncatedNormalStaysInsideTwo) {
  PhiloxRandom gen(1234, 5678);
  SingleSampleAdapter<PhiloxRandom> single(&gen);
  auto v = Draw(TruncatedNormalDistribution<SingleSampleAdapter<PhiloxRandom>, float>(),
                &single, 1 << 16);
  for (float x : v) ASSERT_LT(std::fabs(x), 2.0f);
  // Variance of N(0, 1) truncated to (-2, 2): 1 - 2 * 2 * phi(2) / (2 Phi(2) - 1).
  const double phi2 = std::exp(-2.0) / std::sqrt(2 * M_PI);
  ExpectMoments(v, 0.0, 1.0 - 4 * phi2 / (2 * 0.977249868051821 - 1));
}

// TensorFlow's SingleSampleAdapterTest: Skip(n) equals drawing n values,
// from every position in a block, for Philox (O(1) skip) and a generator
// without Skip.
class CountingGenerator {
 public:
  using ResultType = Array<uint32_t, 3>;
  using ResultElementType = uint32_t;
  static constexpr int kResultElementCount = 3;
  explicit CountingGenerator(uint64_t start) : next_(static_cast<uint32_t>(start)) {}
  ResultType operator()() {
    ResultType r;
    for (int i = 0; i < 3; ++i) r[i] = next_++;
    return r;
  }

 private:
  uint32_t next_;
};

template <class Generator>
void ExpectSkipMatchesDrawing() {
  for (uint64_t skip = 0; skip < 10; ++skip) {
    for (int before = 0; before < 10; ++before) {
      Generator parent(77), parent_to_skip(77);
      SingleSampleAdapter<Generator> drawn(&parent), skipped(&parent_to_skip);
      for (int i = 0; i < before; ++i) {
        drawn();
        skipped();
      }
      for (uint64_t i = 0; i < skip; ++i) drawn();
      skipped.Skip(skip);
      for (int i = 0; i < 20; ++i) ASSERT_EQ(drawn(), skipped()) << skip << " " << before;
    }
  }
}

TEST(SingleSampleAdapterTest, SkipMatchesDrawingForPhilox) {
  ExpectSkipMatchesDrawing<PhiloxRandom>();
}

TEST(SingleSampleAdapterTest, SkipMatchesDrawingForAnyGenerator) {
  ExpectSkipMatchesDrawing<CountingGenerator>();
}

TEST(SingleSampleAdapterTest, HandsOutValuesInOrder) {
  PhiloxRandom gen(9, 9);
  PhiloxRandom copy = gen;
  SingleSampleAdapter<PhiloxRandom> single(&gen);
  for (int call = 0; call < 3; ++call) {
    PhiloxRandom::ResultType r = copy();
    for (int i = 0; i < 4; ++i) EXPECT_EQ(single(), r[i]);
  }
}

}  // namespace
}  // namespace random
}  // namespace opkit
