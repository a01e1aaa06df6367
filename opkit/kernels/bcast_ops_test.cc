// BroadcastGradientArgs: TensorFlow's reduction indices for each side of a
// broadcast, in int32 and int64, and its refusals.
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
using ::testing::IsEmpty;
using test::AsTensor;
using test::I32;
using test::I64;
using test::Values;
using OpTest = test::EagerOpTest;

TEST_F(OpTest, BroadcastGradientArgsReducesBroadcastDimensions) {
  // [2,3,5] + [3,1]: s1 is padded to [1,3,1], so its gradient sums dims 0, 2.
  ASSERT_THAT(Run("BroadcastGradientArgs", {I32({2, 3, 5}), I32({3, 1})}), IsOk());
  EXPECT_THAT(Values<int32>(out_[0]), IsEmpty());
  EXPECT_THAT(Values<int32>(out_[1]), ElementsAre(0, 2));
  // [2,1] + [1,4]: each side sums the other's dimension.
  ASSERT_THAT(Run("BroadcastGradientArgs", {I64({2, 1}), I64({1, 4})}), IsOk());
  EXPECT_EQ(out_[0].dtype(), DT_INT64);
  EXPECT_THAT(Values<int64>(out_[0]), ElementsAre(1));
  EXPECT_THAT(Values<int64>(out_[1]), ElementsAre(0));
  // A scalar against a matrix sums everything of the scalar's gradient.
  ASSERT_THAT(Run("BroadcastGradientArgs", {I32({}), I32({4, 3})}), IsOk());
  EXPECT_THAT(Values<int32>(out_[0]), ElementsAre(0, 1));
  EXPECT_THAT(Values<int32>(out_[1]), IsEmpty());
}

TEST_F(OpTest, BroadcastGradientArgsOnesAndEqualShapes) {
  // Identical shapes need no reduction, even with 1s in them.
  ASSERT_THAT(Run("BroadcastGradientArgs", {I32({3, 1, 2}), I32({3, 1, 2})}), IsOk());
  EXPECT_THAT(Values<int32>(out_[0]), IsEmpty());
  EXPECT_THAT(Values<int32>(out_[1]), IsEmpty());
  // Otherwise a dimension that is 1 on both sides is listed for both.
  ASSERT_THAT(Run("BroadcastGradientArgs", {I32({1, 5, 1}), I32({1, 1})}), IsOk());
  EXPECT_THAT(Values<int32>(out_[0]), ElementsAre(0, 2));
  EXPECT_THAT(Values<int32>(out_[1]), ElementsAre(0, 1, 2));
  // A 0-sized dimension broadcasts against 1.
  ASSERT_THAT(Run("BroadcastGradientArgs", {I32({0, 3}), I32({1, 3})}), IsOk());
  EXPECT_THAT(Values<int32>(out_[0]), IsEmpty());
  EXPECT_THAT(Values<int32>(out_[1]), ElementsAre(0));
}

TEST_F(OpTest, BroadcastGradientArgsRefusesBadShapes) {
  EXPECT_THAT(Run("BroadcastGradientArgs", {I32({2, 3}), I32({4})}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Incompatible shapes: [2,3] vs. [4]")));
  EXPECT_THAT(Run("BroadcastGradientArgs",
                  {AsTensor<int32>({2, 3}, TensorShape({1, 2})), I32({3})}),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("s0 must be a vector (the shape of an input), but has "
                                 "shape [1,2]")));
  EXPECT_THAT(Run("BroadcastGradientArgs", {I32({2}), I32({3, -1})}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("s1[1] = -1 is not a dimension size")));
}

}  // namespace
}  // namespace opkit
