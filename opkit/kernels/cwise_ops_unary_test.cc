// Neg, Abs, Square, Sqrt, Rsqrt, Exp, Log, Tanh, Sigmoid, Sin, Cos, Floor,
// Ceil, Round, Reciprocal, LogicalNot.
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
using ::testing::DoubleNear;
using ::testing::ElementsAre;
using ::testing::FloatNear;
using ::testing::HasSubstr;
using test::AsTensor;
using test::Values;

class UnaryOpsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto ctx = EagerContext::Create();
    ASSERT_THAT(ctx, IsOk());
    ctx_ = std::move(ctx).value();
  }

  Tensor Run(const std::string& op, const Tensor& x) {
    std::vector<Tensor> out;
    Status s = ctx_->Run(op, {x}, &out);
    EXPECT_THAT(s, IsOk()) << op;
    if (!s.ok() || out.size() != 1) return Tensor();
    EXPECT_EQ(out[0].shape(), x.shape()) << op;
    return out[0];
  }

  std::unique_ptr<EagerContext> ctx_;
};

TEST_F(UnaryOpsTest, SignedOpsOnFloats) {
  const Tensor x = AsTensor<float>({-1.5, 0, 2}, TensorShape({3}));
  EXPECT_THAT(Values<float>(Run("Neg", x)), ElementsAre(1.5, 0, -2));
  EXPECT_THAT(Values<float>(Run("Abs", x)), ElementsAre(1.5, 0, 2));
  EXPECT_THAT(Values<float>(Run("Square", x)), ElementsAre(2.25, 0, 4));
  const Tensor d = AsTensor<double>({-3}, TensorShape({1, 1}));
  EXPECT_THAT(Values<double>(Run("Abs", d)), ElementsAre(3));
}

TEST_F(UnaryOpsTest, SignedOpsOnIntegersWrap) {
  const int32 min = std::numeric_limits<int32>::min();
  const Tensor x = AsTensor<int32>({-3, 7, min}, TensorShape({3}));
  EXPECT_THAT(Values<int32>(Run("Neg", x)), ElementsAre(3, -7, min));
  EXPECT_THAT(Values<int32>(Run("Abs", x)), ElementsAre(3, 7, min));
  EXPECT_THAT(Values<int32>(Run("Square", x)), ElementsAre(9, 49, 0));
  const Tensor y = AsTensor<int64>({-4, int64{1} << 32}, TensorShape({2}));
  EXPECT_THAT(Values<int64>(Run("Square", y)), ElementsAre(16, 0));
  EXPECT_THAT(Values<int64>(Run("Neg", y)), ElementsAre(4, -(int64{1} << 32)));
}

TEST_F(UnaryOpsTest, Transcendental) {
  const Tensor x = AsTensor<float>({4, 1, 0.25}, TensorShape({3}));
  EXPECT_THAT(Values<float>(Run("Sqrt", x)), ElementsAre(2, 1, 0.5));
  EXPECT_THAT(Values<float>(Run("Rsqrt", x)),
              ElementsAre(FloatNear(0.5, 1e-6), FloatNear(1, 1e-6), FloatNear(2, 1e-6)));
  EXPECT_THAT(Values<float>(Run("Log", x)),
              ElementsAre(FloatNear(std::log(4.f), 1e-6), 0, FloatNear(std::log(0.25f), 1e-6)));
  const Tensor z = AsTensor<double>({0, 1, -1}, TensorShape({3}));
  EXPECT_THAT(Values<double>(Run("Exp", z)),
              ElementsAre(1, DoubleNear(std::exp(1.0), 1e-12), DoubleNear(std::exp(-1.0), 1e-12)));
  EXPECT_THAT(Values<double>(Run("Tanh", z)),
              ElementsAre(0, DoubleNear(std::tanh(1.0), 1e-12), DoubleNear(std::tanh(-1.0), 1e-12)));
  EXPECT_THAT(Values<double>(Run("Sigmoid", z)),
              ElementsAre(0.5, DoubleNear(1 / (1 + std::exp(-1.0)), 1e-12),
                          DoubleNear(1 / (1 + std::exp(1.0)), 1e-12)));
}

TEST_F(UnaryOpsTest, IeeeEdgeCases) {
  const Tensor x = AsTensor<float>({-1, 0}, TensorShape({2}));
  const std::vector<float> s = Values<float>(Run("Sqrt", x));
  EXPECT_TRUE(std::isnan(s[0]));
  EXPECT_EQ(s[1], 0);
  const std::vector<float> l = Values<float>(Run("Log", x));
  EXPECT_TRUE(std::isnan(l[0]));
  EXPECT_EQ(l[1], -std::numeric_limits<float>::infinity());
  EXPECT_EQ(Values<float>(Run("Rsqrt", x))[1], std::numeric_limits<float>::infinity());
  const Tensor big = AsTensor<float>({100, -100}, TensorShape({2}));
  EXPECT_THAT(Values<float>(Run("Sigmoid", big)), ElementsAre(1, FloatNear(0, 1e-30)));
  EXPECT_THAT(Values<float>(Run("Tanh", big)), ElementsAre(1, -1));
}

TEST_F(UnaryOpsTest, HalfAndBfloat16) {
  const Tensor h = AsTensor<half>({half(4.0f), half(-2.0f)}, TensorShape({2}));
  EXPECT_EQ(static_cast<float>(Values<half>(Run("Sqrt", AsTensor<half>({half(4.0f)},
                                                                        TensorShape({1}))))[0]),
            2.0f);
  EXPECT_EQ(static_cast<float>(Values<half>(Run("Neg", h))[1]), 2.0f);
  EXPECT_EQ(static_cast<float>(Values<half>(Run("Abs", h))[1]), 2.0f);
  const Tensor b = AsTensor<bfloat16>({bfloat16(0.0f)}, TensorShape({1}));
  EXPECT_EQ(static_cast<float>(Values<bfloat16>(Run("Exp", b))[0]), 1.0f);
  EXPECT_EQ(static_cast<float>(Values<bfloat16>(Run("Sigmoid", b))[0]), 0.5f);
  EXPECT_EQ(static_cast<float>(Values<bfloat16>(Run("Square", AsTensor<bfloat16>(
                                                               {bfloat16(3.0f)},
                                                               TensorShape({1}))))[0]),
            9.0f);
  EXPECT_EQ(static_cast<float>(Values<half>(Run("Tanh", AsTensor<half>({half(0.0f)},
                                                                        TensorShape({1}))))[0]),
            0.0f);
}

TEST_F(UnaryOpsTest, LogicalNot) {
  EXPECT_THAT(Values<bool>(Run("LogicalNot", AsTensor<bool>({true, false}, TensorShape({2})))),
              ElementsAre(false, true));
}

TEST_F(UnaryOpsTest, EmptyAndScalar) {
  for (const char* op : {"Neg", "Abs", "Square", "Sqrt", "Rsqrt", "Exp", "Log", "Tanh",
                         "Sigmoid"}) {
    const Tensor e = Run(op, Tensor(DT_FLOAT, TensorShape({0, 4})));
    EXPECT_EQ(e.NumElements(), 0) << op;
    const Tensor s = Run(op, AsTensor<float>({1}, TensorShape({})));
    EXPECT_EQ(s.dims(), 0) << op;
  }
}

TEST_F(UnaryOpsTest, LargeInputsUseThePool) {
  const int64_t n = 1 << 18;
  Tensor x(DT_FLOAT, TensorShape({n}));
  for (int64_t i = 0; i < n; ++i) x.flat<float>()(i) = static_cast<float>(i % 7) - 3;
  const Tensor y = Run("Exp", x);
  for (int64_t i = 0; i < n; ++i) {
    ASSERT_NEAR(y.flat<float>()(i), std::exp(x.flat<float>()(i)), 1e-4) << i;
  }
  const Tensor a = Run("Abs", x);
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(a.flat<float>()(i), std::abs(x.flat<float>()(i)));
  // The caller's input is not overwritten.
  EXPECT_EQ(x.flat<float>()(0), -3.0f);
}

TEST_F(UnaryOpsTest, TypesOutsideTheOpAreRejected) {
  std::vector<Tensor> out;
  EXPECT_THAT(ctx_->Run("Sqrt", {AsTensor<int32>({4}, TensorShape({1}))}, &out),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("int32")));
  EXPECT_FALSE(ctx_->Run("LogicalNot", {AsTensor<float>({1}, TensorShape({1}))}, &out).ok());
}

// Expected values from numpy (np.round rounds halves to even, as
// TensorFlow's Round does; np.sin / np.cos on float32).
TEST_F(UnaryOpsTest, RoundingOps) {
  const Tensor x = AsTensor<float>({0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 2.4, -2.6});
  EXPECT_THAT(Values<float>(Run("Round", x)), ElementsAre(0, 2, 2, -0.0f, -2, -2, 2, -3));
  EXPECT_THAT(Values<float>(Run("Floor", x)), ElementsAre(0, 1, 2, -1, -2, -3, 2, -3));
  EXPECT_THAT(Values<float>(Run("Ceil", x)), ElementsAre(1, 2, 3, -0.0f, -1, -2, 3, -2));
  EXPECT_THAT(Values<double>(Run("Round", AsTensor<double>({3.5, 4.5, -7.5}))),
              ElementsAre(4, 4, -8));
  EXPECT_THAT(Values<int32>(Run("Round", AsTensor<int32>({-3, 7}))), ElementsAre(-3, 7));
  EXPECT_EQ(static_cast<float>(
                Values<half>(Run("Round", AsTensor<half>({half(2.5f)}, TensorShape({1}))))[0]),
            2.0f);
  EXPECT_EQ(static_cast<float>(Values<bfloat16>(
                Run("Floor", AsTensor<bfloat16>({bfloat16(-1.5f)}, TensorShape({1}))))[0]),
            -2.0f);
  // A large input goes through the pool and the vectorised path.
  const int64_t n = 1 << 17;
  Tensor big(DT_FLOAT, TensorShape({n}));
  for (int64_t i = 0; i < n; ++i) big.flat<float>()(i) = static_cast<float>(i % 9) * 0.5f - 2;
  const Tensor r = Run("Round", big);
  for (int64_t i = 0; i < n; ++i) {
    ASSERT_EQ(r.flat<float>()(i), std::nearbyint(big.flat<float>()(i))) << i;
  }
}

TEST_F(UnaryOpsTest, TrigonometryAndReciprocal) {
  const Tensor x = AsTensor<float>({0, 0.5, 1, -2});
  EXPECT_THAT(Values<float>(Run("Sin", x)),
              ElementsAre(0, FloatNear(0.47942555f, 1e-6f), FloatNear(0.841471f, 1e-6f),
                          FloatNear(-0.9092974f, 1e-6f)));
  EXPECT_THAT(Values<float>(Run("Cos", x)),
              ElementsAre(1, FloatNear(0.87758255f, 1e-6f), FloatNear(0.5403023f, 1e-6f),
                          FloatNear(-0.4161468f, 1e-6f)));
  EXPECT_THAT(Values<double>(Run("Sin", AsTensor<double>({1.0}))), ElementsAre(std::sin(1.0)));
  EXPECT_THAT(Values<float>(Run("Reciprocal", AsTensor<float>({2, -0.25, 0}))),
              ElementsAre(0.5, -4, std::numeric_limits<float>::infinity()));
  EXPECT_EQ(static_cast<float>(Values<half>(
                Run("Cos", AsTensor<half>({half(0.0f)}, TensorShape({1}))))[0]),
            1.0f);
  for (const char* op : {"Sin", "Cos", "Floor", "Ceil", "Round", "Reciprocal"}) {
    EXPECT_EQ(Run(op, Tensor(DT_FLOAT, TensorShape({0, 3}))).NumElements(), 0) << op;
  }
  std::vector<Tensor> out;
  EXPECT_THAT(ctx_->Run("Floor", {AsTensor<int32>({4})}, &out),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("int32")));
}

}  // namespace
}  // namespace opkit
