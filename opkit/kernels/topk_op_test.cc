// Tests of the TopKV2 kernel. Expected values are worked out by hand (ties
// lower index first, as TensorFlow documents) or, for the large case, by a
// stable sort of the row in the test.
#include <algorithm>
#include <limits>
#include <numeric>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/testing/kernel_test_util.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace {

using ::opkit::testing::IsOk;
using ::opkit::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using test::AsTensor;
using test::Attr;
using test::Values;

using TopKTest = test::EagerOpTest;

Tensor K(int32 k) { return AsTensor<int32>({k}, TensorShape({})); }

TEST_F(TopKTest, LargestFirstTiesByIndex) {
  ASSERT_THAT(Run("TopKV2", {AsTensor<float>({1, 3, 2, 3, 5, 4, 4, 0}, TensorShape({2, 4})),
                             K(2)}),
              IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({2, 2}));
  EXPECT_THAT(Values<float>(out_[0]), ElementsAre(3, 3, 5, 4));
  EXPECT_THAT(Values<int32>(out_[1]), ElementsAre(1, 3, 0, 1));
  // k = 1 and k = all columns; sorted = false gives the same order.
  ASSERT_THAT(Run("TopKV2", {AsTensor<int32>({7, 9, 9}), K(1)}), IsOk());
  EXPECT_THAT(Values<int32>(out_[0]), ElementsAre(9));
  EXPECT_THAT(Values<int32>(out_[1]), ElementsAre(1));
  ASSERT_THAT(Run("TopKV2", {AsTensor<int32>({7, 9, 9}), K(3)}, {{"sorted", Attr(false)}}),
              IsOk());
  EXPECT_THAT(Values<int32>(out_[0]), ElementsAre(9, 9, 7));
  EXPECT_THAT(Values<int32>(out_[1]), ElementsAre(1, 2, 0));
}

TEST_F(TopKTest, NanRanksHighestAndOtherTypes) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  ASSERT_THAT(Run("TopKV2", {AsTensor<float>({1, nan, inf, nan, -inf}), K(4)}), IsOk());
  EXPECT_THAT(Values<int32>(out_[1]), ElementsAre(1, 3, 2, 0));
  ASSERT_THAT(Run("TopKV2", {AsTensor<half>({half(1.0f), half(-2.0f), half(3.0f)}), K(2)}),
              IsOk());
  EXPECT_THAT(Values<int32>(out_[1]), ElementsAre(2, 0));
  EXPECT_EQ(static_cast<float>(Values<half>(out_[0])[0]), 3.0f);
  ASSERT_THAT(Run("TopKV2", {AsTensor<uint8>({200, 3, 255}), K(2)}), IsOk());
  EXPECT_THAT(Values<uint8>(out_[0]), ElementsAre(255, 200));
}

TEST_F(TopKTest, EmptyInputsAndZeroK) {
  ASSERT_THAT(Run("TopKV2", {AsTensor<float>({1, 2}), K(0)}), IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({0}));
  EXPECT_EQ(out_[1].shape(), TensorShape({0}));
  ASSERT_THAT(Run("TopKV2", {Tensor(DT_FLOAT, TensorShape({0, 5})), K(3)}), IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({0, 3}));
  ASSERT_THAT(Run("TopKV2", {Tensor(DT_FLOAT, TensorShape({2, 0})), K(0)}), IsOk());
  EXPECT_EQ(out_[1].shape(), TensorShape({2, 0}));
}

TEST_F(TopKTest, ManyRowsMatchAStableSort) {
  const int64_t rows = 64, cols = 1000, k = 10;
  Tensor x(DT_FLOAT, TensorShape({rows, cols}));
  for (int64_t i = 0; i < x.NumElements(); ++i) {
    x.flat<float>()(i) = static_cast<float>((i * 7919) % 613);  // many ties
  }
  ASSERT_THAT(Run("TopKV2", {x, K(k)}), IsOk());
  const std::vector<float> values = Values<float>(out_[0]);
  const std::vector<int32> indices = Values<int32>(out_[1]);
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = x.flat<float>().data() + r * cols;
    std::vector<int32> order(cols);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](int32 a, int32 b) { return row[a] > row[b]; });
    for (int64_t j = 0; j < k; ++j) {
      ASSERT_EQ(indices[r * k + j], order[j]) << r << "," << j;
      ASSERT_EQ(values[r * k + j], row[order[j]]);
    }
  }
}

TEST_F(TopKTest, BadInputsAreRejected) {
  EXPECT_THAT(Run("TopKV2", {AsTensor<float>({1, 2}), K(3)}),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("input must have at least k columns. Had 2, needed 3")));
  EXPECT_THAT(Run("TopKV2", {AsTensor<float>({1, 2}), K(-1)}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Need k >= 0, got -1")));
  EXPECT_THAT(Run("TopKV2", {AsTensor<float>({1}, TensorShape({})), K(0)}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("input must be >= 1-D")));
  EXPECT_THAT(Run("TopKV2", {AsTensor<float>({1, 2}), test::I32({1})}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("k must be scalar")));
}

}  // namespace
}  // namespace opkit
