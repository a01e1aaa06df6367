// Softmax and LogSoftmax kernels, run through EagerContext.
#include <cmath>
#include <limits>
#include <memory>
#include <type_traits>
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
using ::testing::HasSubstr;

class SoftmaxTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto ctx = EagerContext::Create();
    ASSERT_THAT(ctx, IsOk());
    ctx_ = std::move(ctx).value();
  }

  template <typename T>
  std::vector<double> Run(const char* op, const Tensor& in) {
    std::vector<Tensor> out;
    Status s = ctx_->Run(op, {in}, &out);
    EXPECT_THAT(s, IsOk());
    std::vector<double> values;
    if (!s.ok()) return values;
    EXPECT_EQ(out[0].shape(), in.shape());
    for (T v : test::Values<T>(out[0])) {
      if constexpr (std::is_same_v<T, double>) {
        values.push_back(v);
      } else {
        values.push_back(static_cast<double>(static_cast<float>(v)));
      }
    }
    return values;
  }

  std::unique_ptr<EagerContext> ctx_;
};

// softmax and log-softmax of one row, in double.
std::vector<double> Reference(const std::vector<double>& x, bool log) {
  double max = x[0];
  for (double v : x) max = std::max(max, v);
  double sum = 0;
  for (double v : x) sum += std::exp(v - max);
  std::vector<double> out;
  for (double v : x) {
    out.push_back(log ? v - max - std::log(sum) : std::exp(v - max) / sum);
  }
  return out;
}

TEST_F(SoftmaxTest, HandComputedRows) {
  Tensor in = test::AsTensor<float>({1.f, 2.f, 3.f, -1.f, 0.f, 1000.f},
                                    TensorShape({2, 3}));
  std::vector<double> got = Run<float>("Softmax", in);
  ASSERT_EQ(got.size(), 6u);
  // e^0, e^1, e^2 over their sum.
  const double s = 1 + std::exp(1.0) + std::exp(2.0);
  EXPECT_NEAR(got[0], 1 / s, 1e-6);
  EXPECT_NEAR(got[1], std::exp(1.0) / s, 1e-6);
  EXPECT_NEAR(got[2], std::exp(2.0) / s, 1e-6);
  // A huge logit takes everything, without overflow.
  EXPECT_NEAR(got[3], 0, 1e-6);
  EXPECT_NEAR(got[4], 0, 1e-6);
  EXPECT_NEAR(got[5], 1, 1e-6);

  std::vector<double> log = Run<float>("LogSoftmax", in);
  ASSERT_EQ(log.size(), 6u);
  EXPECT_NEAR(log[0], -std::log(s), 1e-5);
  EXPECT_NEAR(log[2], 2 - std::log(s), 1e-5);
  EXPECT_NEAR(log[3], -1001, 1e-3);
  EXPECT_NEAR(log[5], 0, 1e-5);
}

TEST_F(SoftmaxTest, HigherRankUsesLastDimension) {
  Tensor in(DT_DOUBLE, TensorShape({2, 2, 4}));
  for (int i = 0; i < 16; ++i) in.flat<double>()(i) = (i * 7 % 5) - 2.0;
  for (bool log : {false, true}) {
    std::vector<double> got = Run<double>(log ? "LogSoftmax" : "Softmax", in);
    ASSERT_EQ(got.size(), 16u);
    for (int r = 0; r < 4; ++r) {
      std::vector<double> row;
      for (int i = 0; i < 4; ++i) row.push_back(in.flat<double>()(r * 4 + i));
      std::vector<double> want = Reference(row, log);
      for (int i = 0; i < 4; ++i) EXPECT_NEAR(got[r * 4 + i], want[i], 1e-12);
    }
  }
}

template <typename T>
class SoftmaxTypedTest : public SoftmaxTest {};
using SoftmaxTypes = ::testing::Types<float, double, half, bfloat16>;
TYPED_TEST_SUITE(SoftmaxTypedTest, SoftmaxTypes);

TYPED_TEST(SoftmaxTypedTest, RowsSumToOne) {
  using T = TypeParam;
  Tensor in(DataTypeToEnum<T>::value, TensorShape({3, 5}));
  for (int i = 0; i < 15; ++i) {
    in.flat<T>()(i) = static_cast<T>(static_cast<float>(i % 4) - 1.5f);
  }
  std::vector<double> got = this->template Run<T>("Softmax", in);
  ASSERT_EQ(got.size(), 15u);
  for (int r = 0; r < 3; ++r) {
    double sum = 0;
    for (int i = 0; i < 5; ++i) sum += got[r * 5 + i];
    EXPECT_NEAR(sum, 1.0, 2e-2);
  }
  std::vector<double> log = this->template Run<T>("LogSoftmax", in);
  ASSERT_EQ(log.size(), 15u);
  for (int i = 0; i < 15; ++i) EXPECT_NEAR(std::exp(log[i]), got[i], 2e-2);
}

TEST_F(SoftmaxTest, VectorAndEmpty) {
  Tensor vec = test::AsTensor<float>({0.f, 0.f}, TensorShape({2}));
  EXPECT_THAT(Run<float>("Softmax", vec), ::testing::ElementsAre(0.5, 0.5));
  EXPECT_TRUE(Run<float>("Softmax", Tensor(DT_FLOAT, TensorShape({0, 3}))).empty());
  EXPECT_TRUE(Run<float>("LogSoftmax", Tensor(DT_FLOAT, TensorShape({3, 0}))).empty());
}

TEST_F(SoftmaxTest, NanLogitMakesItsRowNan) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Tensor in = test::AsTensor<float>({1.f, nan, 0.f, 0.f}, TensorShape({2, 2}));
  std::vector<double> got = Run<float>("Softmax", in);
  ASSERT_EQ(got.size(), 4u);
  EXPECT_TRUE(std::isnan(got[0]));
  EXPECT_TRUE(std::isnan(got[1]));
  EXPECT_EQ(got[2], 0.5);
  EXPECT_EQ(got[3], 0.5);
}

TEST_F(SoftmaxTest, ManyRowsOnThePool) {
  const int64_t rows = 5000, depth = 7;
  Tensor in(DT_FLOAT, TensorShape({rows, depth}));
  for (int64_t i = 0; i < rows * depth; ++i) {
    in.flat<float>()(i) = static_cast<float>((i * 31) % 11) * 0.25f;
  }
  std::vector<double> got = Run<float>("Softmax", in);
  ASSERT_EQ(got.size(), static_cast<size_t>(rows * depth));
  for (int64_t r = 0; r < rows; r += 499) {
    std::vector<double> row;
    for (int64_t i = 0; i < depth; ++i) row.push_back(in.flat<float>()(r * depth + i));
    std::vector<double> want = Reference(row, false);
    for (int64_t i = 0; i < depth; ++i) {
      EXPECT_NEAR(got[r * depth + i], want[i], 1e-6);
    }
  }
}

TEST_F(SoftmaxTest, ScalarIsRejected) {
  std::vector<Tensor> out;
  for (const char* op : {"Softmax", "LogSoftmax"}) {
    EXPECT_THAT(ctx_->Run(op, {Tensor(DT_FLOAT, TensorShape({}))}, &out),
                StatusIs(error::INVALID_ARGUMENT,
                         HasSubstr("logits must have >= 1 dimension, got []")));
  }
  EXPECT_THAT(ctx_->Run("Softmax", {Tensor(DT_INT32, TensorShape({2}))}, &out),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("int32")));
}

}  // namespace
}  // namespace opkit
