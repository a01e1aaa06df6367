// Tests of the GatherV2 kernel.
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

using GatherOpTest = OpTest;

Tensor Axis(int32 a) { return AsTensor<int32>({a}, TensorShape({})); }

TEST_F(GatherOpTest, AxisMustBeAScalar) {
  // TensorFlow refuses a 1-element vector axis too.
  Tensor params = Iota(TensorShape({3, 2}));
  EXPECT_THAT(Run("GatherV2", {params, I32({0}), I32({0})}),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("axis must be scalar, but got shape [1]")));
  EXPECT_THAT(Run("GatherV2", {params, I32({0}), I32({0, 1})}),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("axis must be scalar")));
}

TEST_F(GatherOpTest, GatherRowsAndColumns) {
  Tensor params = Iota(TensorShape({3, 2}));
  ASSERT_THAT(Run("GatherV2", {params, I32({2, 0, 2}), Axis(0)}), IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({3, 2}));
  EXPECT_THAT(Values<float>(out_[0]), ElementsAre(4, 5, 0, 1, 4, 5));
  ASSERT_THAT(Run("GatherV2", {params, AsTensor<int64>({1, 1, 0, 1}, TensorShape({2, 2})),
                               AsTensor<int64>({-1}, TensorShape({}))}),
              IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({3, 2, 2}));
  EXPECT_THAT(Values<float>(out_[0]), ElementsAre(1, 1, 0, 1, 3, 3, 2, 3, 5, 5, 4, 5));
  // A scalar index drops the axis.
  ASSERT_THAT(Run("GatherV2", {params, AsTensor<int32>({1}, TensorShape({})), Axis(0)}),
              IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({2}));
  EXPECT_THAT(Values<float>(out_[0]), ElementsAre(2, 3));
}

TEST_F(GatherOpTest, StringsEmptyAndBatchDims) {
  ASSERT_THAT(Run("GatherV2", {Strings({"a", "b", "c"}, TensorShape({3})), I32({2, 1}),
                               Axis(0)}),
              IsOk());
  EXPECT_THAT(Values<tstring>(out_[0]), ElementsAre("c", "b"));
  ASSERT_THAT(Run("GatherV2", {Iota(TensorShape({3})), Tensor(DT_INT32, TensorShape({0})),
                               Axis(0)}),
              IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({0}));
  // batch_dims = 1: out[b, j] = params[b, indices[b, j]].
  ASSERT_THAT(Run("GatherV2", {Iota(TensorShape({2, 3})),
                               AsTensor<int32>({2, 0, 1, 1}, TensorShape({2, 2})), Axis(1)},
                  {{"batch_dims", Attr(int64{1})}}),
              IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({2, 2}));
  EXPECT_THAT(Values<float>(out_[0]), ElementsAre(2, 0, 4, 4));
}

TEST_F(GatherOpTest, Errors) {
  Tensor params = Iota(TensorShape({3, 2}));
  EXPECT_THAT(Run("GatherV2", {params, I32({0, 3}), Axis(0)}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("indices[1] = 3 is not in [0, 3)")));
  EXPECT_THAT(Run("GatherV2", {params, I32({-1}), Axis(0)}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("indices[0] = -1 is not in [0, 3)")));
  EXPECT_THAT(Run("GatherV2", {params, I32({0}), Axis(2)}),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Expected axis in the range [-2, 2), but got 2")));
  EXPECT_THAT(Run("GatherV2", {params, I32({0}), I32({0, 1})}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("axis must be scalar")));
  EXPECT_THAT(Run("GatherV2", {AsTensor<float>({1}, TensorShape({})), I32({0}), Axis(0)}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("params must be at least 1 dimensional")));
  EXPECT_THAT(Run("GatherV2", {params, I32({0}), Axis(0)}, {{"batch_dims", Attr(int64{1})}}),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("batch_dims (1) must be less than or equal to axis (0).")));
  EXPECT_THAT(Run("GatherV2", {params, I32({0}), Axis(1)}, {{"batch_dims", Attr(int64{2})}}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Expected batch_dims in the range")));
  EXPECT_THAT(Run("GatherV2", {params, I32({0, 0}), Axis(1)}, {{"batch_dims", Attr(int64{1})}}),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("params.shape[0]: 3 should be equal to indices.shape[0]: 2")));
}

}  // namespace
}  // namespace opkit
