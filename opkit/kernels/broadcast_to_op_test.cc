// Tests of the BroadcastTo kernel; expected values from numpy's
// np.broadcast_to on the same inputs.
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
using test::Iota;
using test::Values;

using BroadcastToTest = test::EagerOpTest;

TEST_F(BroadcastToTest, RepeatsSizeOneAndMissingDimensions) {
  // np.broadcast_to([1, 2, 3], (3, 3)).
  ASSERT_THAT(Run("BroadcastTo", {AsTensor<int32>({1, 2, 3}), I32({3, 3})}), IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({3, 3}));
  EXPECT_THAT(Values<int32>(out_[0]), ElementsAre(1, 2, 3, 1, 2, 3, 1, 2, 3));
  // np.broadcast_to(arange(2).reshape(2, 1), (2, 2, 3)).
  ASSERT_THAT(Run("BroadcastTo", {Iota(TensorShape({2, 1})), I64({2, 2, 3})}), IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({2, 2, 3}));
  EXPECT_THAT(Values<float>(out_[0]), ElementsAre(0, 0, 0, 1, 1, 1, 0, 0, 0, 1, 1, 1));
  // A scalar fills the shape; strings work as any other type.
  ASSERT_THAT(Run("BroadcastTo", {test::Strings({"x"}, TensorShape({})), I32({2})}), IsOk());
  EXPECT_THAT(Values<tstring>(out_[0]), ElementsAre("x", "x"));
  // To the input's own shape, and to an empty shape.
  ASSERT_THAT(Run("BroadcastTo", {Iota(TensorShape({2})), I32({2})}), IsOk());
  EXPECT_THAT(Values<float>(out_[0]), ElementsAre(0, 1));
  ASSERT_THAT(Run("BroadcastTo", {Iota(TensorShape({1, 3})), I32({0, 3})}), IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({0, 3}));
}

TEST_F(BroadcastToTest, LargeOutput) {
  ASSERT_THAT(Run("BroadcastTo", {Iota(TensorShape({1, 1000})), I32({300, 1000})}), IsOk());
  const std::vector<float> v = Values<float>(out_[0]);
  ASSERT_EQ(v.size(), 300000u);
  for (size_t i = 0; i < v.size(); ++i) ASSERT_EQ(v[i], static_cast<float>(i % 1000)) << i;
}

TEST_F(BroadcastToTest, BadShapesAreRejected) {
  EXPECT_THAT(Run("BroadcastTo", {Iota(TensorShape({2, 3})), I32({3})}),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Rank of input (2) must be no greater than rank of output "
                                 "shape (1).")));
  EXPECT_THAT(Run("BroadcastTo", {Iota(TensorShape({2})), I32({3})}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Incompatible shapes: [2] vs. [3]")));
  EXPECT_THAT(Run("BroadcastTo", {Iota(TensorShape({3})), I32({2, 1})}),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Unable to broadcast tensor of shape [3] to tensor of shape "
                                 "[2,1]")));
  EXPECT_THAT(Run("BroadcastTo", {Iota(TensorShape({1})), I32({-1})}),
              StatusIs(error::INVALID_ARGUMENT));
  EXPECT_THAT(Run("BroadcastTo", {Iota(TensorShape({1})), AsTensor<int32>({2}, TensorShape({}))}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("shape must be a vector")));
}

}  // namespace
}  // namespace opkit
