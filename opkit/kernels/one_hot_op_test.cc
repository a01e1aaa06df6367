// Tests of the OneHot kernel.
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

using OneHotOpTest = OpTest;

Tensor Depth(int32 d) { return AsTensor<int32>({d}, TensorShape({})); }

TEST_F(OneHotOpTest, LastAxis) {
  ASSERT_THAT(Run("OneHot", {I64({0, 2, -1, 5}), Depth(3), AsTensor<float>({1}, TensorShape({})),
                             AsTensor<float>({0}, TensorShape({}))}),
              IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({4, 3}));
  EXPECT_THAT(Values<float>(out_[0]), ElementsAre(1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0));
}

TEST_F(OneHotOpTest, AxisZeroUint8IndicesAndStrings) {
  ASSERT_THAT(Run("OneHot", {AsTensor<uint8>({1, 0}, TensorShape({2})), Depth(2),
                             Strings({"on"}, TensorShape({})), Strings({"off"}, TensorShape({}))},
                  {{"axis", Attr(int64{0})}}),
              IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({2, 2}));
  // out[d, i] = indices[i] == d
  EXPECT_THAT(Values<tstring>(out_[0]), ElementsAre("off", "on", "on", "off"));
  ASSERT_THAT(Run("OneHot", {AsTensor<int32>({1, 0, 2, 1}, TensorShape({2, 2})), Depth(3),
                             AsTensor<int32>({5}, TensorShape({})),
                             AsTensor<int32>({-1}, TensorShape({}))},
                  {{"axis", Attr(int64{1})}}),
              IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({2, 3, 2}));
  EXPECT_THAT(Values<int32>(out_[0]),
              ElementsAre(-1, 5, 5, -1, -1, -1, -1, -1, -1, 5, 5, -1));
}

TEST_F(OneHotOpTest, EmptyAndZeroDepth) {
  ASSERT_THAT(Run("OneHot", {Tensor(DT_INT64, TensorShape({0})), Depth(4),
                             AsTensor<float>({1}, TensorShape({})),
                             AsTensor<float>({0}, TensorShape({}))}),
              IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({0, 4}));
  ASSERT_THAT(Run("OneHot", {I64({1, 2}), Depth(0), AsTensor<float>({1}, TensorShape({})),
                             AsTensor<float>({0}, TensorShape({}))}),
              IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({2, 0}));
}

TEST_F(OneHotOpTest, Errors) {
  Tensor on = AsTensor<float>({1}, TensorShape({}));
  Tensor off = AsTensor<float>({0}, TensorShape({}));
  EXPECT_THAT(Run("OneHot", {I64({0}), Depth(-1), on, off}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("depth must be non-negative, got: -1")));
  EXPECT_THAT(Run("OneHot", {I64({0}), I32({1, 2}), on, off}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("depth must be a scalar")));
  EXPECT_THAT(Run("OneHot", {I64({0}), Depth(2), AsTensor<float>({1, 1}, TensorShape({2})), off}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("on_value must be a scalar")));
  EXPECT_THAT(Run("OneHot", {I64({0}), Depth(2), on, AsTensor<float>({1, 1}, TensorShape({2}))}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("off_value must be a scalar")));
  EXPECT_THAT(Run("OneHot", {I64({0}), Depth(2), on, off}, {{"axis", Attr(int64{2})}}),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Expected axis to be -1 or between [0, 1].  But received: 2")));
  EXPECT_THAT(Run("OneHot", {I64({0}), Depth(2), on, off}, {{"axis", Attr(int64{-2})}}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Expected axis to be -1")));
}

}  // namespace
}  // namespace opkit
