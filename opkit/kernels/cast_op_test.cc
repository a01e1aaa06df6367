// Tests of the Cast kernel: truncation, saturation, NaN, integer wrap-around,
// bool.
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/testing/kernel_test_util.h"
#include "opkit/runtime/eager_context.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace {

using ::opkit::testing::IsOk;
using ::opkit::testing::StatusIs;
using test::Attr;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using test::AsTensor;
using test::Values;

AttrValue Type(DataType t) {
  AttrValue v;
  v.set_type(t);
  return v;
}

class CastTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto ctx = EagerContext::Create();
    ASSERT_THAT(ctx, IsOk());
    ctx_ = std::move(ctx).value();
  }

  Status CastStatus(const Tensor& x, DataType to, bool truncate, Tensor* out) {
    std::vector<Tensor> outs;
    OPKIT_RETURN_IF_ERROR(ctx_->Run(
        "Cast", {x}, {{"DstT", Type(to)}, {"Truncate", Attr(truncate)}}, &outs));
    *out = outs.at(0);
    return OkStatus();
  }
  Tensor Cast(const Tensor& x, DataType to, bool truncate = false) {
    Tensor out;
    EXPECT_THAT(CastStatus(x, to, truncate, &out), IsOk());
    EXPECT_EQ(out.dtype(), to);
    EXPECT_EQ(out.shape(), x.shape());
    return out;
  }

  std::unique_ptr<EagerContext> ctx_;
};

TEST_F(CastTest, FloatToIntTruncatesTowardsZero) {
  const Tensor x = AsTensor<float>({1.7f, -1.7f, 0.0f, 123456.9f}, TensorShape({2, 2}));
  EXPECT_THAT(Values<int32>(Cast(x, DT_INT32)), ElementsAre(1, -1, 0, 123456));
  EXPECT_THAT(Values<int64>(Cast(x, DT_INT64)), ElementsAre(1, -1, 0, 123456));
}

TEST_F(CastTest, OutOfRangeFloatsSaturateAndNanIsZero) {
  const float inf = std::numeric_limits<float>::infinity();
  const Tensor x = AsTensor<float>({std::nanf(""), inf, -inf, 1e10f, -1e10f}, TensorShape({5}));
  const int32 max = std::numeric_limits<int32>::max();
  const int32 min = std::numeric_limits<int32>::min();
  EXPECT_THAT(Values<int32>(Cast(x, DT_INT32)), ElementsAre(0, max, min, max, min));
  EXPECT_THAT(Values<uint8>(Cast(x, DT_UINT8)), ElementsAre(0, 255, 0, 255, 0));
  const Tensor d = AsTensor<double>({1e300, -5.5, 9.3e18}, TensorShape({3}));
  EXPECT_THAT(Values<int64>(Cast(d, DT_INT64)),
              ElementsAre(std::numeric_limits<int64>::max(), -5,
                          std::numeric_limits<int64>::max()));
  EXPECT_THAT(Values<uint64>(Cast(d, DT_UINT64)),
              ElementsAre(std::numeric_limits<uint64>::max(), 0, uint64{9300000000000000000u}));
}

TEST_F(CastTest, IntegerToIntegerWraps) {
  const Tensor x = AsTensor<int32>({300, -1, 65536}, TensorShape({3}));
  EXPECT_THAT(Values<uint8>(Cast(x, DT_UINT8)), ElementsAre(44, 255, 0));
  EXPECT_THAT(Values<int16>(Cast(x, DT_INT16)), ElementsAre(300, -1, 0));
  EXPECT_THAT(Values<uint32>(Cast(x, DT_UINT32)), ElementsAre(300u, 4294967295u, 65536u));
  EXPECT_THAT(Values<int32>(Cast(AsTensor<int64>({int64{1} << 32 | 5}, TensorShape({1})),
                                 DT_INT32)),
              ElementsAre(5));
}

TEST_F(CastTest, Bool) {
  const Tensor x = AsTensor<float>({0.0f, -0.0f, 0.5f, std::nanf("")}, TensorShape({4}));
  EXPECT_THAT(Values<bool>(Cast(x, DT_BOOL)), ElementsAre(false, false, true, true));
  EXPECT_THAT(Values<bool>(Cast(AsTensor<int64>({0, 7}, TensorShape({2})), DT_BOOL)),
              ElementsAre(false, true));
  EXPECT_THAT(Values<float>(Cast(AsTensor<bool>({true, false}, TensorShape({2})), DT_FLOAT)),
              ElementsAre(1, 0));
  EXPECT_THAT(Values<int32>(Cast(AsTensor<bool>({true}, TensorShape({})), DT_INT32)),
              ElementsAre(1));
}

TEST_F(CastTest, Complex) {
  const Tensor c = AsTensor<complex64>({{1.5f, -2}, {0, 3}}, TensorShape({2}));
  EXPECT_THAT(Values<float>(Cast(c, DT_FLOAT)), ElementsAre(1.5, 0));
  EXPECT_THAT(Values<int32>(Cast(c, DT_INT32)), ElementsAre(1, 0));
  EXPECT_THAT(Values<bool>(Cast(c, DT_BOOL)), ElementsAre(true, true));
  EXPECT_THAT(Values<complex128>(Cast(c, DT_COMPLEX128)),
              ElementsAre(complex128(1.5, -2), complex128(0, 3)));
  EXPECT_THAT(Values<complex64>(Cast(AsTensor<int32>({4}, TensorShape({1})), DT_COMPLEX64)),
              ElementsAre(complex64(4, 0)));
}

TEST_F(CastTest, HalfAndBfloat16) {
  const Tensor x = AsTensor<float>({1.5f, -2.25f, 65504.0f}, TensorShape({3}));
  const Tensor h = Cast(x, DT_HALF);
  EXPECT_EQ(static_cast<float>(Values<half>(h)[0]), 1.5f);
  EXPECT_EQ(static_cast<float>(Values<half>(h)[2]), 65504.0f);
  EXPECT_THAT(Values<int32>(Cast(h, DT_INT32)), ElementsAre(1, -2, 65504));
  const Tensor b = Cast(x, DT_BFLOAT16);
  EXPECT_EQ(static_cast<float>(Values<bfloat16>(b)[1]), -2.25f);
  EXPECT_THAT(Values<double>(Cast(b, DT_DOUBLE)), ElementsAre(1.5, -2.25, 65536.0));
  const Tensor hb = Cast(h, DT_BFLOAT16);
  EXPECT_EQ(static_cast<float>(Values<bfloat16>(hb)[0]), 1.5f);
}

TEST_F(CastTest, TruncateDropsMantissaBitsInsteadOfRounding) {
  // 1 + 2^-7 + 2^-8 + 2^-9 rounds up to 1 + 2^-6 in bfloat16 (7 mantissa
  // bits) but truncates to 1 + 2^-7.
  const float v = 1.0f + 0.0078125f + 0.00390625f + 0.001953125f;
  const Tensor x = AsTensor<float>({v}, TensorShape({1}));
  EXPECT_EQ(static_cast<float>(Values<bfloat16>(Cast(x, DT_BFLOAT16, true))[0]), 1.0078125f);
  EXPECT_EQ(static_cast<float>(Values<bfloat16>(Cast(x, DT_BFLOAT16))[0]), 1.015625f);
  // The same with half's 10 bits.
  const float w = 1.0f + 0.0009765625f + 0.00048828125f + 0.000244140625f;
  const Tensor y = AsTensor<float>({w}, TensorShape({1}));
  EXPECT_EQ(static_cast<float>(Values<half>(Cast(y, DT_HALF))[0]), 1.001953125f);
  EXPECT_EQ(static_cast<float>(Values<half>(Cast(y, DT_HALF, true))[0]), 1.0009765625f);
  // NaN stays NaN; infinities stay infinite.
  const Tensor z = AsTensor<float>({std::nanf(""), -std::numeric_limits<float>::infinity()},
                                   TensorShape({2}));
  const Tensor zb = Cast(z, DT_BFLOAT16, true);
  EXPECT_TRUE(std::isnan(static_cast<float>(Values<bfloat16>(zb)[0])));
  EXPECT_EQ(static_cast<float>(Values<bfloat16>(zb)[1]), -std::numeric_limits<float>::infinity());
}

TEST_F(CastTest, SameTypeForwardsTheInput) {
  const Tensor x = AsTensor<tstring>({"a", "b"}, TensorShape({2}));
  EXPECT_THAT(Values<tstring>(Cast(x, DT_STRING)), ElementsAre("a", "b"));
  const Tensor y = AsTensor<int32>({1, 2}, TensorShape({2}));
  EXPECT_THAT(Values<int32>(Cast(y, DT_INT32)), ElementsAre(1, 2));
}

TEST_F(CastTest, EmptyAndLarge) {
  EXPECT_EQ(Cast(Tensor(DT_FLOAT, TensorShape({0, 5})), DT_INT64).shape(), TensorShape({0, 5}));
  const int64_t n = 1 << 17;
  Tensor x(DT_INT32, TensorShape({n}));
  for (int64_t i = 0; i < n; ++i) x.flat<int32>()(i) = static_cast<int32>(i);
  const Tensor y = Cast(x, DT_DOUBLE);
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(y.flat<double>()(i), static_cast<double>(i));
}

TEST_F(CastTest, UnsupportedPairsAreUnimplemented) {
  Tensor out;
  EXPECT_THAT(CastStatus(AsTensor<tstring>({"1"}, TensorShape({1})), DT_FLOAT, false, &out),
              StatusIs(error::UNIMPLEMENTED, HasSubstr("Cast string to float is not supported")));
  EXPECT_THAT(CastStatus(AsTensor<float>({1}, TensorShape({1})), DT_STRING, false, &out),
              StatusIs(error::UNIMPLEMENTED, HasSubstr("Cast float to string is not supported")));
}

}  // namespace
}  // namespace opkit
