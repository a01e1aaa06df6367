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

}  // namespace
}  // namespace opkit
