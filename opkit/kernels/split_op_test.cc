// Tests of the Split, SplitV and Unpack kernels.
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/op/attr_value_util.h"
#include "opkit/testing/kernel_test_util.h"
#include "opkit/runtime/eager_context.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace {

using ::opkit::testing::IsOk;
using ::opkit::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using test::AsTensor;
using test::Values;

using test::Attr;
using test::I32;
using test::I64;
using test::Iota;
using test::Strings;
using OpTest = test::EagerOpTest;

using SplitOpTest = OpTest;

Tensor Dim(int32 d) { return AsTensor<int32>({d}, TensorShape({})); }

TEST_F(SplitOpTest, Split) {
  ASSERT_THAT(Run("Split", {Dim(1), Iota(TensorShape({2, 4}))}, {{"num_split", Attr(int64{2})}}),
              IsOk());
  ASSERT_EQ(out_.size(), 2u);
  EXPECT_EQ(out_[0].shape(), TensorShape({2, 2}));
  EXPECT_THAT(Values<float>(out_[0]), ElementsAre(0, 1, 4, 5));
  EXPECT_THAT(Values<float>(out_[1]), ElementsAre(2, 3, 6, 7));
  ASSERT_THAT(Run("Split", {Dim(-2), Strings({"a", "b", "c"}, TensorShape({3, 1}))},
                  {{"num_split", Attr(int64{3})}}),
              IsOk());
  EXPECT_THAT(Values<tstring>(out_[2]), ElementsAre("c"));
  ASSERT_THAT(Run("Split", {Dim(0), Tensor(DT_FLOAT, TensorShape({0, 3}))},
                  {{"num_split", Attr(int64{2})}}),
              IsOk());
  EXPECT_EQ(out_[1].shape(), TensorShape({0, 3}));
}

TEST_F(SplitOpTest, SplitErrors) {
  Tensor x = Iota(TensorShape({3, 2}));
  EXPECT_THAT(Run("Split", {Dim(0), x}, {{"num_split", Attr(int64{2})}}),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Number of ways to split should evenly divide the split "
                                 "dimension, but got split_dim 0 (size = 3) and num_split 2")));
  EXPECT_THAT(Run("Split", {Dim(2), x}, {{"num_split", Attr(int64{1})}}),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("split_dim must be in the range [-2, 2), but got 2")));
  EXPECT_THAT(Run("Split", {I32({0}), x}, {{"num_split", Attr(int64{1})}}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("split_dim must be a scalar")));
  EXPECT_THAT(Run("Split", {Dim(0), AsTensor<float>({1}, TensorShape({}))},
                  {{"num_split", Attr(int64{1})}}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("range [0, 0)")));
}

TEST_F(SplitOpTest, SplitV) {
  Tensor x = Iota(TensorShape({2, 5}));
  ASSERT_THAT(Run("SplitV", {x, I64({1, -1, 2}), Dim(1)}, {{"num_split", Attr(int64{3})}}),
              IsOk());
  EXPECT_THAT(Values<float>(out_[0]), ElementsAre(0, 5));
  EXPECT_EQ(out_[1].shape(), TensorShape({2, 2}));
  EXPECT_THAT(Values<float>(out_[1]), ElementsAre(1, 2, 6, 7));
  EXPECT_THAT(Values<float>(out_[2]), ElementsAre(3, 4, 8, 9));
  ASSERT_THAT(Run("SplitV", {x, I32({0, 2}), Dim(0)}, {{"num_split", Attr(int64{2})}}),
              IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({0, 5}));
  EXPECT_EQ(out_[1].shape(), TensorShape({2, 5}));
}

TEST_F(SplitOpTest, SplitVErrors) {
  Tensor x = Iota(TensorShape({5}));
  EXPECT_THAT(Run("SplitV", {x, I64({1, 2}), Dim(0)}, {{"num_split", Attr(int64{2})}}),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Determined shape must either match input shape")));
  EXPECT_THAT(Run("SplitV", {x, I64({-1, -1}), Dim(0)}, {{"num_split", Attr(int64{2})}}),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("There can only be one -1 in the input size_splits")));
  EXPECT_THAT(Run("SplitV", {x, I64({6, -1}), Dim(0)}, {{"num_split", Attr(int64{2})}}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("size_splits[0] = 6")));
  EXPECT_THAT(Run("SplitV", {x, I64({-2, 7}), Dim(0)}, {{"num_split", Attr(int64{2})}}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("size_splits[0] = -2")));
  EXPECT_THAT(Run("SplitV", {x, I64({5}), Dim(0)}, {{"num_split", Attr(int64{2})}}),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("size_splits must be a vector of num_split = 2")));
}

TEST_F(SplitOpTest, Unpack) {
  Tensor x = Iota(TensorShape({2, 3}));
  ASSERT_THAT(Run("Unpack", {x}, {{"num", Attr(int64{2})}}), IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({3}));
  EXPECT_THAT(Values<float>(out_[1]), ElementsAre(3, 4, 5));
  ASSERT_THAT(Run("Unpack", {x}, {{"num", Attr(int64{3})}, {"axis", Attr(int64{-1})}}), IsOk());
  ASSERT_EQ(out_.size(), 3u);
  EXPECT_THAT(Values<float>(out_[2]), ElementsAre(2, 5));
  ASSERT_THAT(Run("Unpack", {Strings({"u", "v"}, TensorShape({2}))}, {{"num", Attr(int64{2})}}),
              IsOk());
  EXPECT_EQ(out_[1].shape(), TensorShape({}));
  EXPECT_THAT(Values<tstring>(out_[1]), ElementsAre("v"));
  ASSERT_THAT(Run("Unpack", {Tensor(DT_FLOAT, TensorShape({0, 2}))},
                  {{"num", Attr(int64{2})}, {"axis", Attr(int64{1})}}),
              IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({0}));
}

TEST_F(SplitOpTest, UnpackErrors) {
  Tensor x = Iota(TensorShape({2, 2}));
  EXPECT_THAT(Run("Unpack", {x}, {{"num", Attr(int64{3})}}),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Input shape axis 0 must equal 3, got shape [2,2]")));
  EXPECT_THAT(Run("Unpack", {x}, {{"num", Attr(int64{2})}, {"axis", Attr(int64{2})}}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("axis = 2 not in [-2, 2)")));
  EXPECT_THAT(Run("Unpack", {AsTensor<float>({1}, TensorShape({}))}, {{"num", Attr(int64{1})}}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("axis = 0 not in [0, 0)")));
}

}  // namespace
}  // namespace opkit
