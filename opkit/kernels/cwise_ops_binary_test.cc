// Sub, Mul, Div, RealDiv, FloorDiv, FloorMod, Maximum, Minimum, Pow,
// SquaredDifference, Atan2.
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/kernels/cwise_ops_common.h"
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

class BinaryOpsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto ctx = EagerContext::Create();
    ASSERT_THAT(ctx, IsOk());
    ctx_ = std::move(ctx).value();
  }

  // Runs `op` on two tensors and returns its one output.
  Tensor Run(const std::string& op, const Tensor& x, const Tensor& y) {
    std::vector<Tensor> out;
    Status s = ctx_->Run(op, {x, y}, &out);
    EXPECT_THAT(s, IsOk()) << op;
    if (!s.ok() || out.size() != 1) return Tensor();
    return out[0];
  }
  Status RunStatus(const std::string& op, const Tensor& x, const Tensor& y) {
    std::vector<Tensor> out;
    return ctx_->Run(op, {x, y}, &out);
  }

  std::unique_ptr<EagerContext> ctx_;
};

Tensor F(std::initializer_list<float> v, const TensorShape& s) { return AsTensor<float>(v, s); }
Tensor I(std::initializer_list<int32> v, const TensorShape& s) { return AsTensor<int32>(v, s); }

TEST_F(BinaryOpsTest, FloatArithmetic) {
  const Tensor x = F({1, -2, 3, 8}, TensorShape({4}));
  const Tensor y = F({4, 2, -1, 0.5}, TensorShape({4}));
  EXPECT_THAT(Values<float>(Run("Sub", x, y)), ElementsAre(-3, -4, 4, 7.5));
  EXPECT_THAT(Values<float>(Run("Mul", x, y)), ElementsAre(4, -4, -3, 4));
  EXPECT_THAT(Values<float>(Run("Div", x, y)), ElementsAre(0.25, -1, -3, 16));
  EXPECT_THAT(Values<float>(Run("RealDiv", x, y)), ElementsAre(0.25, -1, -3, 16));
  EXPECT_THAT(Values<float>(Run("FloorDiv", x, y)), ElementsAre(0, -1, -3, 16));
  EXPECT_THAT(Values<float>(Run("Maximum", x, y)), ElementsAre(4, 2, 3, 8));
  EXPECT_THAT(Values<float>(Run("Minimum", x, y)), ElementsAre(1, -2, -1, 0.5));
  EXPECT_THAT(Values<float>(Run("SquaredDifference", x, y)), ElementsAre(9, 16, 16, 56.25));
  EXPECT_THAT(Values<float>(Run("Pow", F({2, 9, 4}, TensorShape({3})),
                                F({3, 0.5, -1}, TensorShape({3})))),
              ElementsAre(8, 3, 0.25));
}

TEST_F(BinaryOpsTest, FloorDivRoundsDownForFloats) {
  EXPECT_THAT(Values<float>(Run("FloorDiv", F({-7, 7, -7}, TensorShape({3})),
                                F({2, -2, -2}, TensorShape({3})))),
              ElementsAre(-4, -4, 3));
}

TEST_F(BinaryOpsTest, FloatDivisionByZeroFollowsIeee) {
  const Tensor z = Run("Div", F({1, -1, 0}, TensorShape({3})), F({0}, TensorShape({})));
  const std::vector<float> v = Values<float>(z);
  EXPECT_EQ(v[0], std::numeric_limits<float>::infinity());
  EXPECT_EQ(v[1], -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(v[2]));
}

TEST_F(BinaryOpsTest, MaximumAndMinimumPropagateNan) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const Tensor x = F({nan, 1, 2}, TensorShape({3}));
  const Tensor y = F({1, nan, 3}, TensorShape({3}));
  for (const char* op : {"Maximum", "Minimum"}) {
    const std::vector<float> v = Values<float>(Run(op, x, y));
    EXPECT_TRUE(std::isnan(v[0])) << op;
    EXPECT_TRUE(std::isnan(v[1])) << op;
    EXPECT_FALSE(std::isnan(v[2])) << op;
  }
}

TEST_F(BinaryOpsTest, IntegerDivisionTruncatesAndFloorDivRoundsDown) {
  const Tensor x = I({-7, 7, -7, 7, 6}, TensorShape({5}));
  const Tensor y = I({2, -2, -2, 2, 3}, TensorShape({5}));
  EXPECT_THAT(Values<int32>(Run("Div", x, y)), ElementsAre(-3, -3, 3, 3, 2));
  EXPECT_THAT(Values<int32>(Run("FloorDiv", x, y)), ElementsAre(-4, -4, 3, 3, 2));
  EXPECT_THAT(Values<int64>(Run("FloorDiv", AsTensor<int64>({-1, 0}, TensorShape({2})),
                                AsTensor<int64>({5}, TensorShape({})))),
              ElementsAre(-1, 0));
}

TEST_F(BinaryOpsTest, IntegerDivisionByZeroIsAnError) {
  for (const char* op : {"Div", "FloorDiv"}) {
    EXPECT_THAT(RunStatus(op, I({1, 2}, TensorShape({2})), I({1, 0}, TensorShape({2}))),
                StatusIs(error::INVALID_ARGUMENT, HasSubstr("Integer division by zero")))
        << op;
    EXPECT_THAT(RunStatus(op, AsTensor<int64>({1, 2}, TensorShape({2})),
                          AsTensor<int64>({0}, TensorShape({}))),
                StatusIs(error::INVALID_ARGUMENT, HasSubstr("Integer division by zero")))
        << op;
  }
}

TEST_F(BinaryOpsTest, IntegerOverflowWraps) {
  const int32 min = std::numeric_limits<int32>::min();
  const int32 max = std::numeric_limits<int32>::max();
  // INT_MIN / -1 does not fit: it wraps to INT_MIN (C++ leaves it undefined).
  EXPECT_THAT(Values<int32>(Run("Div", I({min, 6}, TensorShape({2})),
                                I({-1}, TensorShape({})))),
              ElementsAre(min, -6));
  EXPECT_THAT(Values<int32>(Run("FloorDiv", I({min}, TensorShape({1})),
                                I({-1}, TensorShape({1})))),
              ElementsAre(min));
  EXPECT_THAT(Values<int32>(Run("Mul", I({65536, max}, TensorShape({2})),
                                I({65536, 2}, TensorShape({2})))),
              ElementsAre(0, -2));
  EXPECT_THAT(Values<int32>(Run("Sub", I({min}, TensorShape({1})), I({1}, TensorShape({1})))),
              ElementsAre(max));
  EXPECT_THAT(Values<int32>(Run("SquaredDifference", I({max}, TensorShape({1})),
                                I({-max}, TensorShape({1})))),
              ElementsAre(4));
}

TEST_F(BinaryOpsTest, IntegerPow) {
  EXPECT_THAT(Values<int32>(Run("Pow", I({2, 3, -2, 5, 0, 2}, TensorShape({6})),
                                I({10, 0, 3, 1, 0, 40}, TensorShape({6})))),
              ElementsAre(1024, 1, -8, 5, 1, 0));
  EXPECT_THAT(Values<int64>(Run("Pow", AsTensor<int64>({3}, TensorShape({})),
                                AsTensor<int64>({39}, TensorShape({})))),
              ElementsAre(int64{4052555153018976267}));
  EXPECT_THAT(RunStatus("Pow", I({2, 2}, TensorShape({2})), I({1, -1}, TensorShape({2}))),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Integers to negative integer powers are not allowed")));
}

TEST_F(BinaryOpsTest, IntegerMaximumMinimum) {
  EXPECT_THAT(Values<int64>(Run("Maximum", AsTensor<int64>({1, -5, 9}, TensorShape({3})),
                                AsTensor<int64>({0}, TensorShape({})))),
              ElementsAre(1, 0, 9));
  EXPECT_THAT(Values<int32>(Run("Minimum", I({1, -5, 9}, TensorShape({3, 1})),
                                I({0, 3}, TensorShape({1, 2})))),
              ElementsAre(0, 1, -5, -5, 0, 3));
}

TEST_F(BinaryOpsTest, ReducedPrecisionTypes) {
  const Tensor h = Run("Sub", AsTensor<half>({half(1.5f), half(4.0f)}, TensorShape({2})),
                       AsTensor<half>({half(0.5f)}, TensorShape({})));
  ASSERT_EQ(h.dtype(), DT_HALF);
  EXPECT_EQ(static_cast<float>(Values<half>(h)[0]), 1.0f);
  EXPECT_EQ(static_cast<float>(Values<half>(h)[1]), 3.5f);
  const Tensor b = Run("Mul", AsTensor<bfloat16>({bfloat16(3.0f)}, TensorShape({1})),
                       AsTensor<bfloat16>({bfloat16(-2.0f)}, TensorShape({1})));
  EXPECT_EQ(static_cast<float>(Values<bfloat16>(b)[0]), -6.0f);
  const Tensor d = Run("FloorDiv", AsTensor<half>({half(-3.0f)}, TensorShape({1})),
                       AsTensor<half>({half(2.0f)}, TensorShape({1})));
  EXPECT_EQ(static_cast<float>(Values<half>(d)[0]), -2.0f);
  const Tensor p = Run("Pow", AsTensor<bfloat16>({bfloat16(2.0f)}, TensorShape({1})),
                       AsTensor<bfloat16>({bfloat16(3.0f)}, TensorShape({1})));
  EXPECT_EQ(static_cast<float>(Values<bfloat16>(p)[0]), 8.0f);
  const Tensor m = Run("Maximum", AsTensor<half>({half(-1.0f)}, TensorShape({1})),
                       AsTensor<half>({half(2.0f)}, TensorShape({1})));
  EXPECT_EQ(static_cast<float>(Values<half>(m)[0]), 2.0f);
  const Tensor r = Run("RealDiv", AsTensor<double>({1}, TensorShape({1})),
                       AsTensor<double>({4}, TensorShape({1})));
  EXPECT_THAT(Values<double>(r), ElementsAre(0.25));
}

TEST_F(BinaryOpsTest, BroadcastingAndEmptyInputs) {
  const Tensor z = Run("Sub", F({10, 20}, TensorShape({2, 1})), F({1, 2, 3}, TensorShape({3})));
  EXPECT_EQ(z.shape(), TensorShape({2, 3}));
  EXPECT_THAT(Values<float>(z), ElementsAre(9, 8, 7, 19, 18, 17));
  const Tensor e = Run("Mul", Tensor(DT_FLOAT, TensorShape({0, 3})), F({1, 2, 3}, TensorShape({3})));
  EXPECT_EQ(e.shape(), TensorShape({0, 3}));
  // An empty divisor has no zero to complain about.
  const Tensor d = Run("Div", Tensor(DT_INT32, TensorShape({0})), Tensor(DT_INT32, TensorShape({0})));
  EXPECT_EQ(d.shape(), TensorShape({0}));
}

TEST_F(BinaryOpsTest, IncompatibleShapesAreAnError) {
  for (const char* op : {"Sub", "Mul", "Div", "RealDiv", "FloorDiv", "Maximum", "Minimum",
                         "Pow", "SquaredDifference"}) {
    EXPECT_THAT(RunStatus(op, F({1, 2}, TensorShape({2})), F({1, 2, 3}, TensorShape({3}))),
                StatusIs(error::INVALID_ARGUMENT,
                         HasSubstr("Incompatible shapes: [2] vs. [3]")))
        << op;
  }
}

TEST_F(BinaryOpsTest, UnsupportedTypesAreRejected) {
  std::vector<Tensor> out;
  EXPECT_FALSE(ctx_->Run("RealDiv", {I({1}, TensorShape({1})), I({1}, TensorShape({1}))}, &out)
                   .ok());
  EXPECT_FALSE(ctx_->Run("Maximum", {AsTensor<bool>({true}, TensorShape({1})),
                                     AsTensor<bool>({true}, TensorShape({1}))},
                         &out)
                   .ok());
}

// Expected values from numpy: np.mod (Python's %, the divisor's sign) and
// np.arctan2 on the same inputs.
TEST_F(BinaryOpsTest, FloorModTakesTheDivisorsSign) {
  EXPECT_THAT(Values<int32>(Run("FloorMod", I({-7, 7, -7, 7, 0, -1}, TensorShape({6})),
                                I({3, -3, -3, 3, 5, 4}, TensorShape({6})))),
              ElementsAre(2, -2, -1, 1, 0, 3));
  EXPECT_THAT(Values<float>(Run("FloorMod", F({-7.5, 7.5, -7.5, 5, 1}, TensorShape({5})),
                                F({2, -2, -2, 2.5, 3}, TensorShape({5})))),
              ElementsAre(0.5, -0.5, -1.5, 0, 1));
  // INT_MIN % -1 would trap on x86; Python gives 0. Broadcast scalar divisor.
  const int64 kMin = std::numeric_limits<int64>::min();
  EXPECT_THAT(Values<int64>(Run("FloorMod", AsTensor<int64>({kMin, kMin + 1, 5}),
                                AsTensor<int64>({-1}, TensorShape({})))),
              ElementsAre(0, 0, 0));
  EXPECT_THAT(Values<int64>(Run("FloorMod", AsTensor<int64>({kMin, -5}),
                                AsTensor<int64>({3}, TensorShape({})))),
              ElementsAre(1, 1));
  // A [2,1] by [3] broadcast.
  EXPECT_THAT(Values<int32>(Run("FloorMod", I({-4, 9}, TensorShape({2, 1})),
                                I({2, 4, -5}, TensorShape({3})))),
              ElementsAre(0, 0, -4, 1, 1, -1));
  // Floating-point division by zero is NaN, as fmod gives.
  EXPECT_TRUE(std::isnan(Values<float>(Run("FloorMod", F({1}, TensorShape({1})),
                                           F({0}, TensorShape({1}))))[0]));
  const Tensor h = Run("FloorMod", AsTensor<half>({half(-7.0f)}, TensorShape({1})),
                       AsTensor<half>({half(3.0f)}, TensorShape({1})));
  EXPECT_EQ(static_cast<float>(Values<half>(h)[0]), 2.0f);
}

TEST_F(BinaryOpsTest, FloorModIntegerDivisionByZeroIsAnError) {
  EXPECT_THAT(RunStatus("FloorMod", I({1, 2}, TensorShape({2})), I({1, 0}, TensorShape({2}))),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Integer division by zero")));
  EXPECT_THAT(RunStatus("FloorMod", I({1, 2}, TensorShape({2})), I({1, 2, 3}, TensorShape({3}))),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Incompatible shapes")));
}

TEST_F(BinaryOpsTest, AnEmptyOperandIsNotCheckedAgainstAZeroDivisor) {
  // Nothing is divided: TensorFlow returns the empty result (the gradient of
  // a sum over all axes of a scalar computes FloorMod([], rank 0)).
  for (const char* op : {"FloorMod", "FloorDiv", "Div"}) {
    const Tensor z = Run(op, I({}, TensorShape({0})), I({0}, TensorShape({})));
    EXPECT_EQ(z.shape(), TensorShape({0})) << op;
  }
  EXPECT_THAT(RunStatus("FloorMod", I({}, TensorShape({0})), I({1, 2}, TensorShape({2}))),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Incompatible shapes")));
}

TEST_F(BinaryOpsTest, Atan2TakesYFirst) {
  const Tensor z = Run("Atan2", F({1, 1, -1, 0, -1}, TensorShape({5})),
                       F({1, -1, -1, -1, 0}, TensorShape({5})));
  EXPECT_THAT(Values<float>(z), ElementsAre(::testing::FloatNear(0.7853982f, 1e-6f),
                                            ::testing::FloatNear(2.3561945f, 1e-6f),
                                            ::testing::FloatNear(-2.3561945f, 1e-6f),
                                            ::testing::FloatNear(3.1415927f, 1e-6f),
                                            ::testing::FloatNear(-1.5707964f, 1e-6f)));
  const Tensor d = Run("Atan2", AsTensor<double>({1.0}, TensorShape({1})),
                       AsTensor<double>({2.0, 1.0}, TensorShape({2})));
  EXPECT_THAT(Values<double>(d), ElementsAre(::testing::DoubleNear(0.4636476090008061, 1e-15),
                                             ::testing::DoubleNear(0.7853981633974483, 1e-15)));
  EXPECT_FALSE(RunStatus("Atan2", I({1}, TensorShape({1})), I({1}, TensorShape({1}))).ok());
}

TEST(BroadcastLayoutTest, MoreThanInt32MaxElements) {
  // TFSA-2022-150: Mul of [1, 2500000000] and [2, 1, 1] broadcasts to 5e9
  // elements; TensorFlow's kernel sized the broadcast in int32 and crashed.
  // Every count and stride here must stay exact (the Python proof of
  // concept itself needs a 2.5 GB input).
  BCast b(TensorShape({1, 2500000000}), TensorShape({2, 1, 1}));
  ASSERT_TRUE(b.valid());
  EXPECT_EQ(b.output_shape(), TensorShape({2, 1, 2500000000}));
  const internal::BroadcastLayout l = internal::MakeBroadcastLayout(b);
  EXPECT_EQ(l.out, (std::vector<int64_t>{2, 2500000000}));
  EXPECT_EQ(l.x_stride, (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(l.y_stride, (std::vector<int64_t>{1, 0}));
}

}  // namespace
}  // namespace opkit
