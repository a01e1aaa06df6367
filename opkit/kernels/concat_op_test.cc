// Tests of the ConcatV2 and Pack kernels.
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

using ConcatOpTest = OpTest;

TEST_F(ConcatOpTest, ConcatAlongEachAxis) {
  Tensor a = Iota(TensorShape({2, 2}));
  Tensor b = AsTensor<float>({10, 11, 12, 13, 14, 15}, TensorShape({2, 3}));
  ASSERT_THAT(Run("ConcatV2", {a, b, AsTensor<int32>({1}, TensorShape({}))}), IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({2, 5}));
  EXPECT_THAT(Values<float>(out_[0]), ElementsAre(0, 1, 10, 11, 12, 2, 3, 13, 14, 15));
  ASSERT_THAT(Run("ConcatV2", {a, a, a, AsTensor<int64>({-2}, TensorShape({}))}), IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({6, 2}));
  EXPECT_THAT(Values<float>(out_[0]), ElementsAre(0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3));
}

TEST_F(ConcatOpTest, StringsAndEmptyInputs) {
  ASSERT_THAT(Run("ConcatV2", {Strings({"a"}, TensorShape({1})),
                               Strings({}, TensorShape({0})),
                               Strings({"b", "c"}, TensorShape({2})),
                               AsTensor<int32>({0}, TensorShape({}))}),
              IsOk());
  EXPECT_THAT(Values<tstring>(out_[0]), ElementsAre("a", "b", "c"));
  ASSERT_THAT(Run("ConcatV2", {Tensor(DT_FLOAT, TensorShape({0, 2})),
                               Tensor(DT_FLOAT, TensorShape({0, 3})),
                               AsTensor<int32>({1}, TensorShape({}))}),
              IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({0, 5}));
}

TEST_F(ConcatOpTest, ConcatErrors) {
  Tensor a = Iota(TensorShape({2, 2}));
  Tensor axis0 = AsTensor<int32>({0}, TensorShape({}));
  EXPECT_THAT(Run("ConcatV2", {a, a, AsTensor<int32>({2}, TensorShape({}))}),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("ConcatOp : Expected concatenating dimensions in the range "
                                 "[-2, 2), but got 2")));
  EXPECT_THAT(Run("ConcatV2", {a, Iota(TensorShape({4})), axis0}),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Ranks of all input tensors should match: shape[0] = [2,2] "
                                 "vs. shape[1] = [4]")));
  EXPECT_THAT(Run("ConcatV2", {a, Iota(TensorShape({2, 3})), axis0}),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Dimension 1 in both shapes must be equal: shape[0] = [2,2] "
                                 "vs. shape[1] = [2,3]")));
  EXPECT_THAT(Run("ConcatV2", {AsTensor<float>({1}, TensorShape({})),
                               AsTensor<float>({1}, TensorShape({})), axis0}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Can't concatenate scalars")));
  EXPECT_THAT(Run("ConcatV2", {a, a, I32({0})}),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Concat dim tensor should be a scalar")));
}

TEST_F(ConcatOpTest, Pack) {
  Tensor a = AsTensor<int32>({1, 2}, TensorShape({2}));
  Tensor b = AsTensor<int32>({3, 4}, TensorShape({2}));
  ASSERT_THAT(Run("Pack", {a, b}), IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({2, 2}));
  EXPECT_THAT(Values<int32>(out_[0]), ElementsAre(1, 2, 3, 4));
  ASSERT_THAT(Run("Pack", {a, b}, {{"axis", Attr(int64{1})}}), IsOk());
  EXPECT_THAT(Values<int32>(out_[0]), ElementsAre(1, 3, 2, 4));
  ASSERT_THAT(Run("Pack", {a, b}, {{"axis", Attr(int64{-1})}}), IsOk());
  EXPECT_THAT(Values<int32>(out_[0]), ElementsAre(1, 3, 2, 4));
  // Scalars stack into a vector; one input is a reshape.
  ASSERT_THAT(Run("Pack", {Strings({"p"}, TensorShape({})), Strings({"q"}, TensorShape({}))}),
              IsOk());
  EXPECT_THAT(Values<tstring>(out_[0]), ElementsAre("p", "q"));
  ASSERT_THAT(Run("Pack", {a}), IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({1, 2}));
  ASSERT_THAT(Run("Pack", {Tensor(DT_FLOAT, TensorShape({0})), Tensor(DT_FLOAT, TensorShape({0}))}),
              IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({2, 0}));
}

TEST_F(ConcatOpTest, PackErrors) {
  Tensor a = AsTensor<int32>({1, 2}, TensorShape({2}));
  EXPECT_THAT(Run("Pack", {a, AsTensor<int32>({1, 2, 3}, TensorShape({3}))}),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Shapes of all inputs must match: values[0].shape = [2] != "
                                 "values[1].shape = [3]")));
  EXPECT_THAT(Run("Pack", {a, a}, {{"axis", Attr(int64{2})}}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("axis = 2 not in [-2, 2)")));
  EXPECT_THAT(Run("Pack", {a, a}, {{"axis", Attr(int64{-3})}}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("axis = -3 not in [-2, 2)")));
}

}  // namespace
}  // namespace opkit
