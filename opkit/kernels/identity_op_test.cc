#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/framework/attr_value_util.h"
#include "opkit/kernels/kernel_test_util.h"
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

template <typename V>
AttrValue Attr(const V& v) {
  AttrValue a;
  SetAttrValue(v, &a);
  return a;
}

// Runs ops eagerly; out_ holds the last results.
class OpTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto ctx = EagerContext::Create();
    ASSERT_THAT(ctx, IsOk());
    ctx_ = std::move(ctx).value();
  }
  Status Run(const char* op, const std::vector<Tensor>& inputs,
             const EagerAttrs& attrs = {}) {
    return ctx_->Run(op, inputs, attrs, &out_);
  }
  std::unique_ptr<EagerContext> ctx_;
  std::vector<Tensor> out_;
};

[[maybe_unused]] Tensor I32(std::initializer_list<int32> v) {
  return AsTensor<int32>(v, TensorShape({static_cast<int64_t>(v.size())}));
}
[[maybe_unused]] Tensor I64(std::initializer_list<int64> v) {
  return AsTensor<int64>(v, TensorShape({static_cast<int64_t>(v.size())}));
}
[[maybe_unused]] Tensor Iota(const TensorShape& shape) {
  Tensor t(DT_FLOAT, shape);
  auto f = t.flat<float>();
  for (int64_t i = 0; i < f.size(); ++i) f(i) = static_cast<float>(i);
  return t;
}
[[maybe_unused]] Tensor Strings(std::initializer_list<const char*> v, const TensorShape& shape) {
  Tensor t(DT_STRING, shape);
  int64_t i = 0;
  for (const char* s : v) t.flat<tstring>()(i++) = s;
  return t;
}

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
