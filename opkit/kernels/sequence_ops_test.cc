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

using RangeOpTest = OpTest;

template <typename T>
Tensor S(T v) {
  return AsTensor<T>({v}, TensorShape({}));
}

TEST_F(RangeOpTest, Integers) {
  ASSERT_THAT(Run("Range", {S<int32>(0), S<int32>(5), S<int32>(2)}), IsOk());
  EXPECT_THAT(Values<int32>(out_[0]), ElementsAre(0, 2, 4));
  ASSERT_THAT(Run("Range", {S<int64>(5), S<int64>(-1), S<int64>(-3)}), IsOk());
  EXPECT_THAT(Values<int64>(out_[0]), ElementsAre(5, 2));
  ASSERT_THAT(Run("Range", {S<int8>(3), S<int8>(3), S<int8>(1)}), IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({0}));
  ASSERT_THAT(Run("Range", {S<uint32>(1), S<uint32>(4), S<uint32>(1)}), IsOk());
  EXPECT_THAT(Values<uint32>(out_[0]), ElementsAre(1u, 2u, 3u));
  // The extremes of the type do not overflow.
  ASSERT_THAT(Run("Range", {S<int32>(INT32_MAX - 2), S<int32>(INT32_MAX), S<int32>(1)}),
              IsOk());
  EXPECT_THAT(Values<int32>(out_[0]), ElementsAre(INT32_MAX - 2, INT32_MAX - 1));
  ASSERT_THAT(Run("Range", {S<int16>(-3), S<int16>(0), S<int16>(INT16_MAX)}), IsOk());
  EXPECT_THAT(Values<int16>(out_[0]), ElementsAre(-3));
}

TEST_F(RangeOpTest, Floats) {
  ASSERT_THAT(Run("Range", {S<float>(0.f), S<float>(1.f), S<float>(0.25f)}), IsOk());
  EXPECT_THAT(Values<float>(out_[0]), ElementsAre(0.f, 0.25f, 0.5f, 0.75f));
  ASSERT_THAT(Run("Range", {S<double>(1.0), S<double>(0.0), S<double>(-0.4)}), IsOk());
  EXPECT_EQ(out_[0].NumElements(), 3);
  ASSERT_THAT(Run("Range", {S<half>(half(0.f)), S<half>(half(2.f)), S<half>(half(1.f))}),
              IsOk());
  EXPECT_EQ(out_[0].NumElements(), 2);
  EXPECT_EQ(static_cast<float>(Values<half>(out_[0])[1]), 1.f);
  ASSERT_THAT(Run("Range", {S<bfloat16>(bfloat16(0.f)), S<bfloat16>(bfloat16(3.f)),
                            S<bfloat16>(bfloat16(2.f))}),
              IsOk());
  EXPECT_EQ(out_[0].NumElements(), 2);
}

TEST_F(RangeOpTest, Errors) {
  EXPECT_THAT(Run("Range", {S<int32>(0), S<int32>(5), S<int32>(0)}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Requires delta != 0")));
  EXPECT_THAT(Run("Range", {S<int32>(5), S<int32>(1), S<int32>(1)}),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Requires start <= limit when delta > 0: 5/1")));
  EXPECT_THAT(Run("Range", {S<int32>(1), S<int32>(5), S<int32>(-1)}),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Requires start >= limit when delta < 0: 1/5")));
  EXPECT_THAT(Run("Range", {I32({0, 1}), S<int32>(5), S<int32>(1)}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("start must be a scalar")));
  EXPECT_THAT(Run("Range", {S<int64>(INT64_MIN), S<int64>(INT64_MAX), S<int64>(1)}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Requires ((limit - start) / delta)")));
  EXPECT_THAT(Run("Range", {S<float>(0.f), S<float>(INFINITY), S<float>(1.f)}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Requires ((limit - start) / delta)")));
  EXPECT_THAT(Run("Range", {S<float>(0.f), S<float>(NAN), S<float>(1.f)}),
              StatusIs(error::INVALID_ARGUMENT));
}

}  // namespace
}  // namespace opkit
