// Tests of the Identity, IdentityN, StopGradient and PlaceholderWithDefault
// kernels.
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

TEST(IdentityTest, PassesAnyTypeThroughSharingTheBuffer) {
  auto ctx = EagerContext::Create();
  ASSERT_THAT(ctx, IsOk());
  std::vector<Tensor> out;
  Tensor in = test::AsTensor<int64>({4, 5, 6}, TensorShape({3}));
  ASSERT_THAT((*ctx)->Run("Identity", {in}, &out), IsOk());
  EXPECT_EQ(out[0].dtype(), DT_INT64);
  EXPECT_THAT(test::Values<int64>(out[0]), ElementsAre(4, 5, 6));
  EXPECT_TRUE(out[0].SharesBufferWith(in));

  Tensor s(DT_STRING, TensorShape({2}));
  s.flat<tstring>()(0) = "a";
  s.flat<tstring>()(1) = "bc";
  ASSERT_THAT((*ctx)->Run("Identity", {s}, &out), IsOk());
  EXPECT_EQ(out[0].flat<tstring>()(1), "bc");
}

using IdentityOpsTest = OpTest;

TEST_F(IdentityOpsTest, IdentityNKeepsEachInput) {
  Tensor a = I32({1, 2});
  Tensor b = Strings({"x"}, TensorShape({}));
  ASSERT_THAT(Run("IdentityN", {a, b}), IsOk());
  ASSERT_EQ(out_.size(), 2u);
  EXPECT_TRUE(out_[0].SharesBufferWith(a));
  EXPECT_THAT(Values<tstring>(out_[1]), ElementsAre("x"));
}

TEST_F(IdentityOpsTest, StopGradientAndPlaceholderWithDefault) {
  Tensor a = Iota(TensorShape({2}));
  ASSERT_THAT(Run("StopGradient", {a}), IsOk());
  EXPECT_TRUE(out_[0].SharesBufferWith(a));
  ASSERT_THAT(Run("PlaceholderWithDefault", {a},
                  {{"shape", Attr(PartialTensorShape({-1}))}}),
              IsOk());
  EXPECT_TRUE(out_[0].SharesBufferWith(a));
  EXPECT_THAT(Values<float>(out_[0]), ElementsAre(0, 1));
}

}  // namespace
}  // namespace opkit
