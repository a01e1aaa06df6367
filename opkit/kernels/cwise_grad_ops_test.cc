// SigmoidGrad, TanhGrad, SqrtGrad, RsqrtGrad, ReciprocalGrad: each checked
// against a central finite difference of its forward function, on a
// non-square input, for double and float, plus complex and bad shapes.
#include <cmath>
#include <complex>
#include <functional>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/testing/kernel_test_util.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace {

using ::opkit::testing::IsOk;
using ::opkit::testing::StatusIs;
using ::testing::HasSubstr;
using test::AsTensor;
using test::Values;
using OpTest = test::EagerOpTest;

struct GradCase {
  const char* op;
  std::function<double(double)> f;
};

std::vector<GradCase> Cases() {
  return {
      {"SigmoidGrad", [](double x) { return 1 / (1 + std::exp(-x)); }},
      {"TanhGrad", [](double x) { return std::tanh(x); }},
      {"SqrtGrad", [](double x) { return std::sqrt(x); }},
      {"RsqrtGrad", [](double x) { return 1 / std::sqrt(x); }},
      {"ReciprocalGrad", [](double x) { return 1 / x; }},
  };
}

// Positive inputs keep Sqrt and Rsqrt defined; shape [2, 3].
const std::vector<double> kX = {0.3, 0.75, 1.2, 1.9, 2.5, 3.1};
const std::vector<double> kDy = {1.0, -2.0, 0.5, 3.0, -0.25, 1.5};

TEST_F(OpTest, UnaryGradsMatchFiniteDifferencesInDouble) {
  const TensorShape shape({2, 3});
  for (const GradCase& c : Cases()) {
    Tensor y(DT_DOUBLE, shape), dy(DT_DOUBLE, shape);
    std::vector<double> want(kX.size());
    for (size_t i = 0; i < kX.size(); ++i) {
      y.flat<double>()(i) = c.f(kX[i]);
      dy.flat<double>()(i) = kDy[i];
      const double h = 1e-6;
      want[i] = kDy[i] * (c.f(kX[i] + h) - c.f(kX[i] - h)) / (2 * h);
    }
    ASSERT_THAT(Run(c.op, {y, dy}), IsOk()) << c.op;
    ASSERT_EQ(out_[0].shape(), shape) << c.op;
    const std::vector<double> got = Values<double>(out_[0]);
    for (size_t i = 0; i < want.size(); ++i) {
      EXPECT_NEAR(got[i], want[i], 1e-6 * (1 + std::abs(want[i]))) << c.op << " at " << i;
    }
  }
}

TEST_F(OpTest, UnaryGradsInFloatByHand) {
  // y = 0.5, dy = 2 (and y = 4, dy = -1):
  //   Sigmoid: 2 * 0.5 * 0.5 = 0.5        -1 * 4 * -3 = 12
  //   Tanh:    2 * (1 - 0.25) = 1.5       -1 * (1 - 16) = 15
  //   Sqrt:    2 * 0.5 / 0.5 = 2          -1 * 0.5 / 4 = -0.125
  //   Rsqrt:   2 * -0.5 * 0.125 = -0.125  -1 * -0.5 * 64 = 32
  //   Recip.:  2 * -0.25 = -0.5           -1 * -16 = 16
  const Tensor y = AsTensor<float>({0.5f, 4.0f}, TensorShape({2, 1}));
  const Tensor dy = AsTensor<float>({2.0f, -1.0f}, TensorShape({2, 1}));
  const std::vector<std::pair<const char*, std::vector<float>>> want = {
      {"SigmoidGrad", {0.5f, 12.0f}}, {"TanhGrad", {1.5f, 15.0f}},
      {"SqrtGrad", {2.0f, -0.125f}},  {"RsqrtGrad", {-0.125f, 32.0f}},
      {"ReciprocalGrad", {-0.5f, 16.0f}}};
  for (const auto& [op, values] : want) {
    ASSERT_THAT(Run(op, {y, dy}), IsOk()) << op;
    EXPECT_EQ(out_[0].shape(), TensorShape({2, 1})) << op;
    EXPECT_THAT(Values<float>(out_[0]), ::testing::ElementsAreArray(values)) << op;
  }
}

TEST_F(OpTest, UnaryGradsHalfAndEmpty) {
  Tensor y(DT_HALF, TensorShape({3}));
  Tensor dy(DT_HALF, TensorShape({3}));
  for (int i = 0; i < 3; ++i) {
    y.flat<half>()(i) = half(0.5f * (i + 1));
    dy.flat<half>()(i) = half(1.0f);
  }
  ASSERT_THAT(Run("ReciprocalGrad", {y, dy}), IsOk());
  const std::vector<half> got = Values<half>(out_[0]);
  ASSERT_EQ(got.size(), 3u);
  EXPECT_FLOAT_EQ(static_cast<float>(got[0]), -0.25f);
  EXPECT_FLOAT_EQ(static_cast<float>(got[1]), -1.0f);
  EXPECT_FLOAT_EQ(static_cast<float>(got[2]), -2.25f);
  ASSERT_THAT(Run("TanhGrad", {Tensor(DT_FLOAT, TensorShape({0, 4})),
                               Tensor(DT_FLOAT, TensorShape({0, 4}))}),
              IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({0, 4}));
}

TEST_F(OpTest, UnaryGradsConjugateForComplex) {
  // ReciprocalGrad: dy * conj(-y^2). y = 1 + i: -y^2 = -2i, conj = 2i.
  const Tensor y = AsTensor<complex64>({complex64(1, 1)}, TensorShape({1}));
  const Tensor dy = AsTensor<complex64>({complex64(1, 0)}, TensorShape({1}));
  ASSERT_THAT(Run("ReciprocalGrad", {y, dy}), IsOk());
  EXPECT_EQ(Values<complex64>(out_[0])[0], complex64(0, 2));
  // SqrtGrad: dy * 0.5 / conj(y) = 0.5 / (1 - i) = 0.25 + 0.25i.
  ASSERT_THAT(Run("SqrtGrad", {y, dy}), IsOk());
  const complex64 s = Values<complex64>(out_[0])[0];
  EXPECT_FLOAT_EQ(s.real(), 0.25f);
  EXPECT_FLOAT_EQ(s.imag(), 0.25f);
}

TEST_F(OpTest, UnaryGradsRefuseMismatchedShapes) {
  const Tensor y = AsTensor<float>({1, 2, 3, 4, 5, 6}, TensorShape({2, 3}));
  const Tensor dy = AsTensor<float>({1, 2, 3}, TensorShape({3}));
  for (const GradCase& c : Cases()) {
    EXPECT_THAT(Run(c.op, {y, dy}),
                StatusIs(error::INVALID_ARGUMENT,
                         HasSubstr("y and dy must have the same shape, but y has shape "
                                   "[2,3] and dy has shape [3]")))
        << c.op;
  }
  // Same element count, different shape: still refused (the shape function
  // would not merge them either).
  EXPECT_THAT(Run("SigmoidGrad", {y, AsTensor<float>({1, 2, 3, 4, 5, 6})}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("dy has shape [6]")));
}

}  // namespace
}  // namespace opkit
