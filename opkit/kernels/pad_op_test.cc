// Tests of the Pad kernel.
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

using PadOpTest = OpTest;

TEST_F(PadOpTest, Matrix) {
  ASSERT_THAT(Run("Pad", {Iota(TensorShape({2, 2})),
                          AsTensor<int32>({1, 0, 0, 2}, TensorShape({2, 2}))}),
              IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({3, 4}));
  EXPECT_THAT(Values<float>(out_[0]), ElementsAre(0, 0, 0, 0, 0, 1, 0, 0, 2, 3, 0, 0));
}

TEST_F(PadOpTest, StringsInt64PaddingsAndScalar) {
  ASSERT_THAT(Run("Pad", {Strings({"a"}, TensorShape({1})),
                          AsTensor<int64>({1, 1}, TensorShape({1, 2}))}),
              IsOk());
  EXPECT_THAT(Values<tstring>(out_[0]), ElementsAre("", "a", ""));
  ASSERT_THAT(Run("Pad", {AsTensor<int32>({4}, TensorShape({})),
                          Tensor(DT_INT32, TensorShape({0, 2}))}),
              IsOk());
  EXPECT_THAT(Values<int32>(out_[0]), ElementsAre(4));
}

TEST_F(PadOpTest, EmptyInputGivesZeros) {
  ASSERT_THAT(Run("Pad", {Tensor(DT_FLOAT, TensorShape({0})),
                          AsTensor<int32>({1, 2}, TensorShape({1, 2}))}),
              IsOk());
  EXPECT_THAT(Values<float>(out_[0]), ElementsAre(0, 0, 0));
}

TEST_F(PadOpTest, BadPaddings) {
  Tensor x = Iota(TensorShape({2, 2}));
  EXPECT_THAT(Run("Pad", {x, AsTensor<int32>({1, 1}, TensorShape({1, 2}))}),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("The first dimension of paddings must be the rank of inputs")));
  EXPECT_THAT(Run("Pad", {x, AsTensor<int32>({1, 1, 1, 1}, TensorShape({4}))}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("matrix with 2 columns")));
  EXPECT_THAT(Run("Pad", {x, AsTensor<int32>({0, -1, 0, 0}, TensorShape({2, 2}))}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Paddings must be non-negative: 0 -1")));
  EXPECT_THAT(Run("Pad", {x, AsTensor<int64>({0, int64{1} << 62, 0, int64{1} << 62},
                                            TensorShape({2, 2}))}),
              StatusIs(error::INVALID_ARGUMENT));
}

TEST_F(PadOpTest, PadV2FillsWithConstantValues) {
  // TensorFlow's tf.pad example with constant_values: [[1, 2, 3], [4, 5, 6]]
  // padded by [[1, 1], [2, 2]] with 9 around it.
  ASSERT_THAT(Run("PadV2", {AsTensor<int32>({1, 2, 3, 4, 5, 6}, TensorShape({2, 3})),
                            AsTensor<int64>({1, 1, 2, 2}, TensorShape({2, 2})),
                            AsTensor<int32>({9}, TensorShape({}))}),
              IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({4, 7}));
  EXPECT_THAT(Values<int32>(out_[0]),
              ElementsAre(9, 9, 9, 9, 9, 9, 9, 9, 9, 1, 2, 3, 9, 9, 9, 9, 4, 5,
                          6, 9, 9, 9, 9, 9, 9, 9, 9, 9));
  ASSERT_THAT(Run("PadV2", {Strings({"a"}, TensorShape({1})),
                            AsTensor<int32>({1, 0}, TensorShape({1, 2})),
                            Strings({"z"}, TensorShape({}))}),
              IsOk());
  EXPECT_THAT(Values<tstring>(out_[0]), ElementsAre("z", "a"));
  ASSERT_THAT(Run("PadV2", {Tensor(DT_FLOAT, TensorShape({0})),
                            AsTensor<int32>({1, 1}, TensorShape({1, 2})),
                            AsTensor<float>({-1.5f}, TensorShape({}))}),
              IsOk());
  EXPECT_THAT(Values<float>(out_[0]), ElementsAre(-1.5f, -1.5f));
}

TEST_F(PadOpTest, PadV2NeedsAScalarConstant) {
  EXPECT_THAT(Run("PadV2", {Iota(TensorShape({2})),
                            AsTensor<int32>({1, 1}, TensorShape({1, 2})),
                            AsTensor<float>({1, 2}, TensorShape({2}))}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("must be a scalar")));
}

}  // namespace
}  // namespace opkit
