// PhiloxRandom: Random123's known-answer vectors for Philox4x32-10, the
// seed layout of TensorFlow's constructors, and Skip.
#include "opkit/random/philox_random.h"

#include <vector>

#include <gtest/gtest.h>

namespace opkit {
namespace random {
namespace {

PhiloxRandom FromWords(uint32_t c0, uint32_t c1, uint32_t c2, uint32_t c3, uint32_t k0,
                       uint32_t k1) {
  PhiloxRandom::ResultType counter;
  counter[0] = c0;
  counter[1] = c1;
  counter[2] = c2;
  counter[3] = c3;
  PhiloxRandom::Key key;
  key[0] = k0;
  key[1] = k1;
  return PhiloxRandom(counter, key);
}

void ExpectWords(const PhiloxRandom::ResultType& r, uint32_t w0, uint32_t w1, uint32_t w2,
                 uint32_t w3) {
  EXPECT_EQ(r[0], w0);
  EXPECT_EQ(r[1], w1);
  EXPECT_EQ(r[2], w2);
  EXPECT_EQ(r[3], w3);
}

// The known-answer tests published with Random123 (kat_vectors, philox4x32
// with 10 rounds).
TEST(PhiloxRandomTest, Random123KnownAnswers) {
  ExpectWords(FromWords(0, 0, 0, 0, 0, 0)(), 0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8);
  ExpectWords(FromWords(0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff,
                        0xffffffff)(),
              0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd);
  ExpectWords(FromWords(0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xa4093822,
                        0x299f31d0)(),
              0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1);
}

TEST(PhiloxRandomTest, DefaultIsCounterAndKeyZero) {
  PhiloxRandom gen;
  ExpectWords(gen(), 0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8);
}

TEST(PhiloxRandomTest, SeedIsTheKeyLowWordFirst) {
  PhiloxRandom gen(0x299f31d0a4093822ull);
  EXPECT_EQ(gen.key()[0], 0xa4093822u);
  EXPECT_EQ(gen.key()[1], 0x299f31d0u);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(gen.counter()[i], 0u);
}

TEST(PhiloxRandomTest, SecondSeedIsTheCounterUpperHalf) {
  PhiloxRandom gen(0x299f31d0a4093822ull, 0x0370734413198a2eull);
  EXPECT_EQ(gen.counter()[0], 0u);
  EXPECT_EQ(gen.counter()[1], 0u);
  EXPECT_EQ(gen.counter()[2], 0x13198a2eu);
  EXPECT_EQ(gen.counter()[3], 0x03707344u);
  // So with the low counter words of the third vector, it is that vector.
  gen.Skip(0x85a308d3243f6a88ull);
  ExpectWords(gen(), 0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1);
}

TEST(PhiloxRandomTest, EachCallIncrementsTheCounter) {
  PhiloxRandom gen(7, 9);
  gen();
  gen();
  EXPECT_EQ(gen.counter()[0], 2u);
  EXPECT_EQ(gen.counter()[2], 9u);
}

TEST(PhiloxRandomTest, IncrementCarriesThroughAllWords) {
  PhiloxRandom gen = FromWords(0xffffffff, 0xffffffff, 0xffffffff, 0, 0, 0);
  gen();
  ExpectWords(gen.counter(), 0, 0, 0, 1);
}

TEST(PhiloxRandomTest, SkipCarriesIntoTheUpperWords) {
  PhiloxRandom gen = FromWords(0xfffffffe, 0xffffffff, 0xffffffff, 5, 0, 0);
  gen.Skip(3);
  ExpectWords(gen.counter(), 1, 0, 0, 6);
  PhiloxRandom high = FromWords(0, 0xffffffff, 0, 0, 0, 0);
  high.Skip(uint64_t{1} << 32);
  ExpectWords(high.counter(), 0, 0, 1, 0);
}

// TensorFlow's SkipMatchTest: skipping n calls equals drawing them.
TEST(PhiloxRandomTest, SkipMatchesDrawing) {
  PhiloxRandom drawn(0x1234567890abcdefull, 42);
  PhiloxRandom skipped = drawn;
  std::vector<uint32_t> expected;
  for (int i = 0; i < 512 + 256; ++i) {
    PhiloxRandom::ResultType r = drawn();
    if (i >= 512) expected.insert(expected.end(), {r[0], r[1], r[2], r[3]});
  }
  skipped.Skip(512);
  for (int i = 0; i < 256; ++i) {
    PhiloxRandom::ResultType r = skipped();
    for (int j = 0; j < 4; ++j) ASSERT_EQ(r[j], expected[4 * i + j]) << i;
  }
}

TEST(PhiloxRandomTest, ArrayIsZeroInitialised) {
  Array<float, 3> a;
  EXPECT_EQ(a.size(), 3u);
  EXPECT_EQ((Array<float, 3>::kElementCount), 3);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(a[i], 0.0f);
}

}  // namespace
}  // namespace random
}  // namespace opkit
