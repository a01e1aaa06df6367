// Tests of the Shape, Size, Rank, Reshape, ExpandDims and Squeeze kernels.
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

using ShapeOpsTest = OpTest;

TEST_F(ShapeOpsTest, ShapeSizeRank) {
  Tensor x(DT_STRING, TensorShape({2, 0, 3}));
  ASSERT_THAT(Run("Shape", {x}), IsOk());
  EXPECT_EQ(out_[0].dtype(), DT_INT32);
  EXPECT_THAT(Values<int32>(out_[0]), ElementsAre(2, 0, 3));
  ASSERT_THAT(Run("Shape", {x}, {{"out_type", Attr(DT_INT64)}}), IsOk());
  EXPECT_THAT(Values<int64>(out_[0]), ElementsAre(2, 0, 3));
  ASSERT_THAT(Run("Size", {Iota(TensorShape({2, 3}))}), IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({}));
  EXPECT_THAT(Values<int32>(out_[0]), ElementsAre(6));
  ASSERT_THAT(Run("Size", {x}, {{"out_type", Attr(DT_INT64)}}), IsOk());
  EXPECT_THAT(Values<int64>(out_[0]), ElementsAre(0));
  ASSERT_THAT(Run("Rank", {x}), IsOk());
  EXPECT_THAT(Values<int32>(out_[0]), ElementsAre(3));
  ASSERT_THAT(Run("Shape", {AsTensor<bool>({true}, TensorShape({}))}), IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({0}));
}

TEST_F(ShapeOpsTest, SizeThatDoesNotFitInt32) {
  // A [2^20, 2^20, 0] tensor has no elements; one with 2^40 needs int64.
  Tensor big(DT_FLOAT, TensorShape({1 << 20, 1 << 20, 0}));
  ASSERT_THAT(Run("Shape", {big}), IsOk());
  EXPECT_THAT(Values<int32>(out_[0]), ElementsAre(1 << 20, 1 << 20, 0));
}

TEST_F(ShapeOpsTest, Reshape) {
  Tensor x = Iota(TensorShape({2, 3}));
  ASSERT_THAT(Run("Reshape", {x, I32({3, -1})}), IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({3, 2}));
  EXPECT_TRUE(out_[0].SharesBufferWith(x));
  ASSERT_THAT(Run("Reshape", {x, I64({6})}), IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({6}));
  ASSERT_THAT(Run("Reshape", {AsTensor<float>({1}, TensorShape({1, 1})),
                              Tensor(DT_INT32, TensorShape({0}))}),
              IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({}));
  ASSERT_THAT(Run("Reshape", {Tensor(DT_FLOAT, TensorShape({0, 4})), I32({2, 0, 3})}), IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({2, 0, 3}));
  // Legacy scalar shape.
  ASSERT_THAT(Run("Reshape", {x, AsTensor<int32>({-1}, TensorShape({}))}), IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({6}));
}

TEST_F(ShapeOpsTest, ReshapeErrors) {
  Tensor x = Iota(TensorShape({2, 3}));
  EXPECT_THAT(Run("Reshape", {x, I32({4})}),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Input to reshape is a tensor with 6 values, but the "
                                 "requested shape has 4")));
  EXPECT_THAT(Run("Reshape", {x, I32({-1, -1})}),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Only one input size may be -1, not both 0 and 1")));
  EXPECT_THAT(Run("Reshape", {x, I32({-2, 3})}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Size 0 must be non-negative, not -2")));
  EXPECT_THAT(Run("Reshape", {x, I32({4, -1})}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("requires a multiple of 4")));
  EXPECT_THAT(Run("Reshape", {Tensor(DT_FLOAT, TensorShape({0})), I32({0, -1})}),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Reshape cannot infer the missing input size")));
  EXPECT_THAT(Run("Reshape", {x, AsTensor<int32>({6}, TensorShape({1, 1}))}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("sizes input must be 1-D, not [1,1]")));
  EXPECT_THAT(Run("Reshape", {x, I64({int64{1} << 40, int64{1} << 40})}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("more elements than int64 holds")));
}

TEST_F(ShapeOpsTest, ExpandDims) {
  Tensor x = Iota(TensorShape({2, 3}));
  ASSERT_THAT(Run("ExpandDims", {x, AsTensor<int32>({0}, TensorShape({}))}), IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({1, 2, 3}));
  EXPECT_TRUE(out_[0].SharesBufferWith(x));
  ASSERT_THAT(Run("ExpandDims", {x, AsTensor<int64>({-1}, TensorShape({1}))}), IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({2, 3, 1}));
  ASSERT_THAT(Run("ExpandDims", {x, AsTensor<int32>({-3}, TensorShape({}))}), IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({1, 2, 3}));
  EXPECT_THAT(Run("ExpandDims", {x, AsTensor<int32>({3}, TensorShape({}))}),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Tried to expand dim index 3 for tensor with 2 dimensions")));
  EXPECT_THAT(Run("ExpandDims", {x, AsTensor<int32>({-4}, TensorShape({}))}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Tried to expand dim index -4")));
  EXPECT_THAT(Run("ExpandDims", {x, I32({0, 1})}),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("'dim' must be a tensor with a single value")));
}

TEST_F(ShapeOpsTest, Squeeze) {
  Tensor x = Iota(TensorShape({1, 2, 1, 3}));
  ASSERT_THAT(Run("Squeeze", {x}), IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({2, 3}));
  EXPECT_TRUE(out_[0].SharesBufferWith(x));
  ASSERT_THAT(Run("Squeeze", {x}, {{"squeeze_dims", Attr(std::vector<int64>{-2})}}), IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({1, 2, 3}));
  EXPECT_THAT(Run("Squeeze", {x}, {{"squeeze_dims", Attr(std::vector<int64>{1})}}),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Can not squeeze dim[1], expected a dimension of 1, got 2")));
  EXPECT_THAT(Run("Squeeze", {x}, {{"squeeze_dims", Attr(std::vector<int64>{4})}}),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Tried to squeeze dim index 4 for tensor with 4 dimensions.")));
}

}  // namespace
}  // namespace opkit
