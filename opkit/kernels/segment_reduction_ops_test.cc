// UnsortedSegmentSum, UnsortedSegmentProd, UnsortedSegmentMax,
// UnsortedSegmentMin.
#include <cmath>
#include <limits>
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
using test::I32;
using test::I64;
using test::Values;
using OpTest = test::EagerOpTest;

Tensor Scalar32(int32 v) { return AsTensor<int32>({v}, TensorShape({})); }
Tensor Scalar64(int64 v) { return AsTensor<int64>({v}, TensorShape({})); }

TEST_F(OpTest, UnsortedSegmentSumRowsAndDroppedIds) {
  // Rows 0 and 2 go to segment 1, row 1 (id -1) is dropped, segments 0 and
  // 2 stay 0.
  const Tensor data = AsTensor<float>({1, 2, 3, 4, 5, 6}, TensorShape({3, 2}));
  ASSERT_THAT(Run("UnsortedSegmentSum", {data, I32({1, -1, 1}), Scalar32(3)}), IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({3, 2}));
  EXPECT_THAT(Values<float>(out_[0]), ElementsAre(0, 0, 6, 8, 0, 0));
}

TEST_F(OpTest, UnsortedSegmentSumIdsOfHigherRank) {
  // segment_ids [2,3] is a prefix of data [2,3,2]; output [4, 2].
  Tensor data(DT_DOUBLE, TensorShape({2, 3, 2}));
  for (int i = 0; i < 12; ++i) data.flat<double>()(i) = i;
  const Tensor ids = AsTensor<int64>({3, 0, 3, -5, 0, 1}, TensorShape({2, 3}));
  ASSERT_THAT(Run("UnsortedSegmentSum", {data, ids, Scalar64(4)}), IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({4, 2}));
  // seg 0: (2,3)+(8,9); seg 1: (10,11); seg 2: none; seg 3: (0,1)+(4,5).
  EXPECT_THAT(Values<double>(out_[0]), ElementsAre(10, 12, 10, 11, 0, 0, 4, 6));
  // ids of data's full shape: one scalar per id, output [num_segments].
  const Tensor flat = AsTensor<int32>({5, 7, 9}, TensorShape({3}));
  ASSERT_THAT(Run("UnsortedSegmentSum", {flat, I32({0, 0, 1}), Scalar32(2)}), IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({2}));
  EXPECT_THAT(Values<int32>(out_[0]), ElementsAre(12, 9));
}

TEST_F(OpTest, UnsortedSegmentProdMaxMin) {
  const Tensor data = AsTensor<float>({2, -1, 3, 5, -4, 0.5}, TensorShape({3, 2}));
  const Tensor ids = I32({0, 2, 0});
  ASSERT_THAT(Run("UnsortedSegmentProd", {data, ids, Scalar32(3)}), IsOk());
  EXPECT_THAT(Values<float>(out_[0]), ElementsAre(-8, -0.5, 1, 1, 3, 5));
  const float lowest = std::numeric_limits<float>::lowest();
  const float highest = std::numeric_limits<float>::max();
  ASSERT_THAT(Run("UnsortedSegmentMax", {data, ids, Scalar32(3)}), IsOk());
  EXPECT_THAT(Values<float>(out_[0]), ElementsAre(2, 0.5, lowest, lowest, 3, 5));
  ASSERT_THAT(Run("UnsortedSegmentMin", {data, ids, Scalar32(3)}), IsOk());
  EXPECT_THAT(Values<float>(out_[0]), ElementsAre(-4, -1, highest, highest, 3, 5));
  // NaN wins a Max.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  ASSERT_THAT(Run("UnsortedSegmentMax",
                  {AsTensor<float>({1, nan, 2}), I32({0, 0, 0}), Scalar32(1)}),
              IsOk());
  EXPECT_TRUE(std::isnan(Values<float>(out_[0])[0]));
  // Integer Max of an empty segment is the type's lowest value.
  ASSERT_THAT(Run("UnsortedSegmentMax", {I64({4, 9}), I32({1, 1}), Scalar32(2)}), IsOk());
  EXPECT_THAT(Values<int64>(out_[0]), ElementsAre(std::numeric_limits<int64>::min(), 9));
}

TEST_F(OpTest, UnsortedSegmentSumEmptyInputs) {
  ASSERT_THAT(Run("UnsortedSegmentSum", {Tensor(DT_FLOAT, TensorShape({0, 3})), I32({}),
                                         Scalar32(2)}),
              IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({2, 3}));
  EXPECT_THAT(Values<float>(out_[0]), ElementsAre(0, 0, 0, 0, 0, 0));
  ASSERT_THAT(Run("UnsortedSegmentSum", {Tensor(DT_FLOAT, TensorShape({2, 0})), I32({0, 1}),
                                         Scalar32(2)}),
              IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({2, 0}));
}

TEST_F(OpTest, UnsortedSegmentRefusesBadInputs) {
  const Tensor data = AsTensor<float>({1, 2, 3, 4, 5, 6}, TensorShape({3, 2}));
  EXPECT_THAT(Run("UnsortedSegmentSum", {data, I32({0, 3, 1}), Scalar32(3)}),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("segment_ids[1] = 3 is out of range [0, 3)")));
  EXPECT_THAT(Run("UnsortedSegmentMax",
                  {data, AsTensor<int64>({0, 1, 2, 0, 1, 9}, TensorShape({3, 2})), Scalar64(4)}),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("segment_ids[2,1] = 9 is out of range [0, 4)")));
  EXPECT_THAT(Run("UnsortedSegmentSum", {data, I32({0, 1}), Scalar32(3)}),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("data.shape = [3,2] does not start with segment_ids.shape = "
                                 "[2]")));
  EXPECT_THAT(Run("UnsortedSegmentSum", {data, I32({0, 1, 2}), I32({3})}),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("num_segments should be a scalar, not shape [1]")));
  EXPECT_THAT(Run("UnsortedSegmentProd", {data, I32({0, 1, 2}), Scalar32(-1)}),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Input num_segments == -1 must not be negative.")));
}

}  // namespace
}  // namespace opkit
