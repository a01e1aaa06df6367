// FusedBatchNormV3 and FusedBatchNormGradV3 kernels, run through
// EagerContext (the gradient against central differences of the forward op).
#include <cmath>
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
using test::Attr;
using ::testing::ElementsAre;
using ::testing::FloatNear;
using ::testing::Pointwise;
using ::testing::HasSubstr;

Tensor Vec(std::initializer_list<float> v) {
  return test::AsTensor<float>(v, TensorShape({static_cast<int64_t>(v.size())}));
}

class FusedBatchNormTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto ctx = EagerContext::Create();
    ASSERT_THAT(ctx, IsOk());
    ctx_ = std::move(ctx).value();
  }

  Status Run(const Tensor& x, const Tensor& scale, const Tensor& offset,
             const Tensor& mean, const Tensor& variance, bool is_training,
             std::vector<Tensor>* outs, const std::string& data_format = "NHWC",
             float epsilon = 0.001f, float exponential_avg_factor = 1.0f) {
    return ctx_->Run("FusedBatchNormV3", {x, scale, offset, mean, variance},
                     {{"is_training", Attr(is_training)},
                      {"data_format", Attr(data_format)},
                      {"epsilon", Attr(epsilon)},
                      {"exponential_avg_factor", Attr(exponential_avg_factor)}},
                     outs);
  }

  std::unique_ptr<EagerContext> ctx_;
};

TEST_F(FusedBatchNormTest, InferenceNhwc) {
  // Two channels; [1,1,2,2] holds (c0, c1) twice.
  Tensor x = test::AsTensor<float>({1, 10, 3, 20}, TensorShape({1, 1, 2, 2}));
  std::vector<Tensor> outs;
  ASSERT_THAT(Run(x, Vec({2, 1}), Vec({0.5, -1}), Vec({2, 15}), Vec({4, 25}),
                  false, &outs, "NHWC", 0.0f),
              IsOk());
  ASSERT_EQ(outs.size(), 6u);
  EXPECT_EQ(outs[0].shape(), x.shape());
  // (1-2)/2*2+0.5, (10-15)/5*1-1, (3-2)/2*2+0.5, (20-15)/5-1.
  EXPECT_THAT(test::Values<float>(outs[0]),
              Pointwise(FloatNear(1e-6), {-0.5f, -2.f, 1.5f, 0.f}));
  EXPECT_THAT(test::Values<float>(outs[1]), ElementsAre(2, 15));
  EXPECT_THAT(test::Values<float>(outs[2]), ElementsAre(4, 25));
  EXPECT_THAT(test::Values<float>(outs[3]), ElementsAre(2, 15));
  EXPECT_THAT(test::Values<float>(outs[4]), ElementsAre(4, 25));
  EXPECT_EQ(outs[5].shape(), TensorShape({}));
}

TEST_F(FusedBatchNormTest, InferenceNchwAndEpsilon) {
  // [1,2,1,2]: channel 0 holds 1, 3; channel 1 holds 10, 20.
  Tensor x = test::AsTensor<float>({1, 3, 10, 20}, TensorShape({1, 2, 1, 2}));
  std::vector<Tensor> outs;
  ASSERT_THAT(Run(x, Vec({1, 1}), Vec({0, 0}), Vec({2, 15}), Vec({3, 24}),
                  false, &outs, "NCHW", 1.0f),
              IsOk());
  EXPECT_THAT(test::Values<float>(outs[0]),
              Pointwise(FloatNear(1e-6), {-0.5f, 0.5f, -1.f, 1.f}));
}

TEST_F(FusedBatchNormTest, InferenceFiveDimensional) {
  Tensor x(DT_FLOAT, TensorShape({1, 2, 1, 1, 3}));
  for (int i = 0; i < 6; ++i) x.flat<float>()(i) = i;
  std::vector<Tensor> outs;
  ASSERT_THAT(Run(x, Vec({1, 1, 1}), Vec({0, 0, 0}), Vec({1, 1, 1}),
                  Vec({1, 1, 1}), false, &outs, "NDHWC", 0.0f),
              IsOk());
  EXPECT_THAT(test::Values<float>(outs[0]), ElementsAre(-1, 0, 1, 2, 3, 4));
  ASSERT_THAT(Run(x, Vec({1, 2}), Vec({0, 0}), Vec({0, 0}), Vec({1, 1}), false,
                  &outs, "NCDHW", 0.0f),
              IsOk());
  EXPECT_THAT(test::Values<float>(outs[0]), ElementsAre(0, 1, 2, 6, 8, 10));
}

TEST_F(FusedBatchNormTest, HalfAndBfloat16Inputs) {
  Tensor xh = test::AsTensor<half>({half(1.f), half(3.f)}, TensorShape({1, 1, 2, 1}));
  std::vector<Tensor> outs;
  ASSERT_THAT(Run(xh, Vec({1}), Vec({0}), Vec({2}), Vec({1}), false, &outs,
                  "NHWC", 0.0f),
              IsOk());
  EXPECT_EQ(outs[0].dtype(), DT_HALF);
  EXPECT_EQ(static_cast<float>(outs[0].flat<half>()(0)), -1.f);
  EXPECT_EQ(static_cast<float>(outs[0].flat<half>()(1)), 1.f);
  EXPECT_EQ(outs[1].dtype(), DT_FLOAT);
  Tensor xb = test::AsTensor<bfloat16>({bfloat16(4.f)}, TensorShape({1, 1, 1, 1}));
  ASSERT_THAT(Run(xb, Vec({2}), Vec({1}), Vec({3}), Vec({1}), false, &outs,
                  "NHWC", 0.0f),
              IsOk());
  EXPECT_EQ(static_cast<float>(outs[0].flat<bfloat16>()(0)), 3.f);
}

TEST_F(FusedBatchNormTest, TrainingUsesBatchStatistics) {
  // One channel with values 1, 2, 3, 6: mean 3, biased variance 3.5,
  // unbiased 14/3.
  Tensor x = test::AsTensor<float>({1, 2, 3, 6}, TensorShape({2, 2, 1, 1}));
  std::vector<Tensor> outs;
  ASSERT_THAT(Run(x, Vec({1}), Vec({0}), Vec({}), Vec({}), true, &outs, "NHWC",
                  0.0f),
              IsOk());
  const double sd = std::sqrt(3.5);
  std::vector<float> y = test::Values<float>(outs[0]);
  ASSERT_EQ(y.size(), 4u);
  EXPECT_NEAR(y[0], -2 / sd, 1e-6);
  EXPECT_NEAR(y[3], 3 / sd, 1e-6);
  EXPECT_FLOAT_EQ(outs[1].flat<float>()(0), 3.f);
  EXPECT_FLOAT_EQ(outs[2].flat<float>()(0), 14.f / 3);
  EXPECT_FLOAT_EQ(outs[3].flat<float>()(0), 3.f);
  EXPECT_FLOAT_EQ(outs[4].flat<float>()(0), 3.5f);

  // Running averages with factor 0.25 against mean 7 / variance 2.
  ASSERT_THAT(Run(x, Vec({1}), Vec({0}), Vec({7}), Vec({2}), true, &outs,
                  "NHWC", 0.0f, 0.25f),
              IsOk());
  EXPECT_FLOAT_EQ(outs[1].flat<float>()(0), 0.75f * 7 + 0.25f * 3);
  EXPECT_FLOAT_EQ(outs[2].flat<float>()(0), 0.75f * 2 + 0.25f * 14 / 3);
  EXPECT_FLOAT_EQ(outs[3].flat<float>()(0), 3.f);
}

TEST_F(FusedBatchNormTest, EmptyInputs) {
  std::vector<Tensor> outs;
  ASSERT_THAT(Run(Tensor(DT_FLOAT, TensorShape({0, 2, 2, 2})), Vec({1, 1}),
                  Vec({0, 0}), Vec({5, 6}), Vec({1, 1}), false, &outs),
              IsOk());
  EXPECT_EQ(outs[0].shape(), TensorShape({0, 2, 2, 2}));
  EXPECT_THAT(test::Values<float>(outs[1]), ElementsAre(5, 6));
  ASSERT_THAT(Run(Tensor(DT_FLOAT, TensorShape({0, 2, 2, 2})), Vec({1, 1}),
                  Vec({0, 0}), Vec({}), Vec({}), true, &outs),
              IsOk());
  EXPECT_TRUE(std::isnan(outs[1].flat<float>()(0)));
  EXPECT_TRUE(std::isnan(outs[2].flat<float>()(1)));
  ASSERT_THAT(Run(Tensor(DT_FLOAT, TensorShape({2, 2, 2, 0})), Vec({}), Vec({}),
                  Vec({}), Vec({}), false, &outs),
              IsOk());
  EXPECT_EQ(outs[1].shape(), TensorShape({0}));
}

TEST_F(FusedBatchNormTest, LargeInputOnThePool) {
  Tensor x(DT_FLOAT, TensorShape({8, 32, 32, 4}));
  for (int64_t i = 0; i < x.NumElements(); ++i) x.flat<float>()(i) = i % 4 + 1;
  std::vector<Tensor> outs;
  ASSERT_THAT(Run(x, Vec({1, 1, 1, 1}), Vec({0, 0, 0, 0}), Vec({1, 2, 3, 4}),
                  Vec({1, 1, 1, 1}), false, &outs, "NHWC", 0.0f),
              IsOk());
  for (float v : test::Values<float>(outs[0])) ASSERT_EQ(v, 0.f);
}

TEST_F(FusedBatchNormTest, BadShapes) {
  std::vector<Tensor> outs;
  Tensor x(DT_FLOAT, TensorShape({1, 2, 2, 3}));
  x.flat<float>().setZero();
  EXPECT_THAT(Run(Tensor(DT_FLOAT, TensorShape({2, 3})), Vec({1, 1, 1}),
                  Vec({0, 0, 0}), Vec({0, 0, 0}), Vec({1, 1, 1}), false, &outs),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("input must be 4 or 5-dimensional")));
  EXPECT_THAT(Run(Tensor(DT_FLOAT, TensorShape({1, 2, 2, 2, 3})),
                  Vec({1, 1, 1}), Vec({0, 0, 0}), Vec({0, 0, 0}),
                  Vec({1, 1, 1}), false, &outs, "NHWC"),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("input must be 4-dimensional for data_format "
                                 "NHWC")));
  EXPECT_THAT(Run(x, Tensor(DT_FLOAT, TensorShape({3, 1})), Vec({0, 0, 0}),
                  Vec({0, 0, 0}), Vec({1, 1, 1}), false, &outs),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("scale must be 1-dimensional")));
  EXPECT_THAT(Run(x, Vec({1, 1, 1}), Tensor(DT_FLOAT, TensorShape({})),
                  Vec({0, 0, 0}), Vec({1, 1, 1}), false, &outs),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("offset must be 1-dimensional")));
  EXPECT_THAT(Run(x, Vec({1, 1, 1}), Vec({0, 0, 0}),
                  Tensor(DT_FLOAT, TensorShape({3, 1})), Vec({1, 1, 1}), false,
                  &outs),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("estimated_mean must be 1-dimensional")));
  EXPECT_THAT(Run(x, Vec({1, 1, 1}), Vec({0, 0, 0}), Vec({0, 0, 0}),
                  Tensor(DT_FLOAT, TensorShape({1, 3})), false, &outs),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("estimated_variance must be 1-dimensional")));
  EXPECT_THAT(Run(x, Vec({1, 1}), Vec({0, 0, 0}), Vec({0, 0, 0}),
                  Vec({1, 1, 1}), false, &outs),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("scale must have the same number of elements "
                                 "as the channels of x, got 2 and 3")));
  EXPECT_THAT(Run(x, Vec({1, 1, 1}), Vec({0, 0, 0, 0}), Vec({0, 0, 0}),
                  Vec({1, 1, 1}), false, &outs),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("offset must have the same number of "
                                 "elements as the channels of x, got 4 and 3")));
  EXPECT_THAT(Run(x, Vec({1, 1, 1}), Vec({0, 0, 0}), Vec({0}), Vec({1, 1, 1}),
                  false, &outs),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("When is_training=false, mean must have the "
                                 "same number of elements as the channels of "
                                 "x, got 1 and 3")));
  EXPECT_THAT(Run(x, Vec({1, 1, 1}), Vec({0, 0, 0}), Vec({0, 0, 0}), Vec({1}),
                  true, &outs, "NHWC", 0.001f, 0.5f),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("When exponential_avg_factor != 1, variance "
                                 "must have the same number of elements as "
                                 "the channels of x, got 1 and 3")));
  // The statistics are float whatever x is.
  EXPECT_THAT(ctx_->Run("FusedBatchNormV3",
                        {x, Tensor(DT_DOUBLE, TensorShape({3})), Vec({0, 0, 0}),
                         Vec({0, 0, 0}), Vec({1, 1, 1})},
                        &outs),
              StatusIs(error::INVALID_ARGUMENT));
}

class FusedBatchNormGradTest : public FusedBatchNormTest {
 protected:
  Status RunGrad(const Tensor& dy, const Tensor& x, const Tensor& scale,
                 const Tensor& mean, const Tensor& variance, bool is_training,
                 const std::string& data_format, std::vector<Tensor>* outs) {
    return ctx_->Run("FusedBatchNormGradV3",
                     {dy, x, scale, mean, variance, Tensor(DT_FLOAT, TensorShape({}))},
                     {{"is_training", Attr(is_training)},
                      {"data_format", Attr(data_format)},
                      {"epsilon", Attr(0.001f)}},
                     outs);
  }

  // sum(y * dy) of the forward op, in double.
  double Loss(const Tensor& x, const Tensor& scale, const Tensor& offset,
              const Tensor& mean, const Tensor& variance, bool is_training,
              const std::string& data_format, const Tensor& dy) {
    std::vector<Tensor> outs;
    EXPECT_THAT(Run(x, scale, offset, mean, variance, is_training, &outs, data_format),
                IsOk());
    if (outs.empty()) return 0;
    double sum = 0;
    for (int64_t i = 0; i < x.NumElements(); ++i) {
      sum += static_cast<double>(outs[0].flat<float>()(i)) * dy.flat<float>()(i);
    }
    return sum;
  }

  // Checks every output of the gradient against central differences of
  // Loss in each element of x, scale and offset.
  void CheckAgainstFiniteDifferences(const TensorShape& shape, int64_t channels,
                                     bool is_training, const std::string& data_format) {
    Tensor x(DT_FLOAT, shape);
    Tensor dy(DT_FLOAT, shape);
    for (int64_t i = 0; i < x.NumElements(); ++i) {
      x.flat<float>()(i) = static_cast<float>((i * 7) % 11) * 0.5f - 2.f;
      dy.flat<float>()(i) = static_cast<float>((i * 5) % 7) - 3.f;
    }
    Tensor scale(DT_FLOAT, TensorShape({channels}));
    Tensor offset(DT_FLOAT, TensorShape({channels}));
    Tensor mean(DT_FLOAT, TensorShape({channels}));
    Tensor variance(DT_FLOAT, TensorShape({channels}));
    for (int64_t c = 0; c < channels; ++c) {
      scale.flat<float>()(c) = 1.5f - 0.5f * c;
      offset.flat<float>()(c) = 0.25f * c;
      mean.flat<float>()(c) = 0.5f - c;
      variance.flat<float>()(c) = 2.0f + c;
    }
    // The reserve spaces the forward op leaves: batch statistics when
    // training, the given ones otherwise.
    std::vector<Tensor> fwd;
    ASSERT_THAT(Run(x, scale, offset, mean, variance, is_training, &fwd, data_format), IsOk());
    std::vector<Tensor> grads;
    ASSERT_THAT(RunGrad(dy, x, scale, fwd[3], fwd[4], is_training, data_format, &grads), IsOk());
    ASSERT_EQ(grads.size(), 5u);
    EXPECT_EQ(grads[0].shape(), shape);
    EXPECT_EQ(grads[1].shape(), TensorShape({channels}));
    EXPECT_EQ(grads[2].shape(), TensorShape({channels}));
    EXPECT_EQ(grads[3].shape(), TensorShape({0}));
    EXPECT_EQ(grads[4].shape(), TensorShape({0}));
    const float h = 1e-2f;
    auto numeric = [&](Tensor* t, int64_t i) {
      const float saved = t->flat<float>()(i);
      t->flat<float>()(i) = saved + h;
      const double hi = Loss(x, scale, offset, mean, variance, is_training, data_format, dy);
      t->flat<float>()(i) = saved - h;
      const double lo = Loss(x, scale, offset, mean, variance, is_training, data_format, dy);
      t->flat<float>()(i) = saved;
      return (hi - lo) / (2 * h);
    };
    for (int64_t i = 0; i < x.NumElements(); ++i) {
      EXPECT_NEAR(grads[0].flat<float>()(i), numeric(&x, i), 2e-3)
          << data_format << " training " << is_training << " x[" << i << "]";
    }
    for (int64_t c = 0; c < channels; ++c) {
      EXPECT_NEAR(grads[1].flat<float>()(c), numeric(&scale, c), 2e-3) << "scale " << c;
      EXPECT_NEAR(grads[2].flat<float>()(c), numeric(&offset, c), 2e-3) << "offset " << c;
    }
  }
};

TEST_F(FusedBatchNormGradTest, TrainingNhwc) {
  CheckAgainstFiniteDifferences(TensorShape({2, 2, 3, 2}), 2, true, "NHWC");
}
TEST_F(FusedBatchNormGradTest, TrainingNchw) {
  CheckAgainstFiniteDifferences(TensorShape({2, 3, 2, 2}), 3, true, "NCHW");
}
TEST_F(FusedBatchNormGradTest, InferenceNhwc) {
  CheckAgainstFiniteDifferences(TensorShape({1, 3, 2, 2}), 2, false, "NHWC");
}
TEST_F(FusedBatchNormGradTest, InferenceNchw) {
  CheckAgainstFiniteDifferences(TensorShape({2, 2, 1, 3}), 2, false, "NCHW");
}
TEST_F(FusedBatchNormGradTest, TrainingNdhwc) {
  CheckAgainstFiniteDifferences(TensorShape({1, 2, 2, 2, 2}), 2, true, "NDHWC");
}

TEST_F(FusedBatchNormGradTest, HalfAndEmpty) {
  Tensor x(DT_HALF, TensorShape({1, 1, 2, 1}));
  x.flat<half>()(0) = half(1.0f);
  x.flat<half>()(1) = half(3.0f);
  Tensor dy(DT_HALF, TensorShape({1, 1, 2, 1}));
  dy.flat<half>()(0) = half(1.0f);
  dy.flat<half>()(1) = half(1.0f);
  std::vector<Tensor> outs;
  // Inference: dx = dy * scale / sqrt(var + eps) = 1 * 2 / sqrt(1 + 0.001).
  ASSERT_THAT(RunGrad(dy, x, Vec({2}), Vec({2}), Vec({1}), false, "NHWC", &outs), IsOk());
  EXPECT_NEAR(static_cast<float>(outs[0].flat<half>()(0)), 2 / std::sqrt(1.001), 2e-3);
  EXPECT_THAT(test::Values<float>(outs[2]), ElementsAre(2));
  // No elements: zero scale and offset gradients.
  ASSERT_THAT(RunGrad(Tensor(DT_FLOAT, TensorShape({0, 2, 2, 3})),
                      Tensor(DT_FLOAT, TensorShape({0, 2, 2, 3})), Vec({1, 1, 1}),
                      Vec({0, 0, 0}), Vec({1, 1, 1}), true, "NHWC", &outs),
              IsOk());
  EXPECT_THAT(test::Values<float>(outs[1]), ElementsAre(0, 0, 0));
  EXPECT_THAT(test::Values<float>(outs[2]), ElementsAre(0, 0, 0));
}

TEST_F(FusedBatchNormGradTest, BadInputsAreInvalidArgument) {
  const Tensor x(DT_FLOAT, TensorShape({1, 2, 2, 3}));
  std::vector<Tensor> outs;
  EXPECT_THAT(RunGrad(Tensor(DT_FLOAT, TensorShape({1, 2, 3})), Tensor(DT_FLOAT, TensorShape({1, 2, 3})),
                      Vec({1, 1, 1}), Vec({0, 0, 0}), Vec({1, 1, 1}), true, "NHWC", &outs),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("x (input 1) must be 4-dimensional for data_format NHWC, "
                                 "got shape [1,2,3]")));
  EXPECT_THAT(RunGrad(Tensor(DT_FLOAT, TensorShape({1, 2, 3, 2})), x, Vec({1, 1, 1}),
                      Vec({0, 0, 0}), Vec({1, 1, 1}), true, "NHWC", &outs),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("y_backprop (input 0) must have the shape of x (input 1), "
                                 "got [1,2,3,2] and [1,2,2,3]")));
  EXPECT_THAT(RunGrad(x, x, Vec({1, 1}), Vec({0, 0, 0}), Vec({1, 1, 1}), true, "NHWC", &outs),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("scale (input 2) must be a vector of the 3 channels of x")));
  EXPECT_THAT(RunGrad(x, x, Vec({1, 1, 1}), Vec({0, 0, 0}), Vec({1, 1}), false, "NHWC", &outs),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("reserve_space_2 (input 4) must be a vector of the 3 channels")));
  // NCHW: the channels are dimension 1 (2 here), not 3.
  EXPECT_THAT(RunGrad(x, x, Vec({1, 1, 1}), Vec({0, 0, 0}), Vec({1, 1, 1}), true, "NCHW", &outs),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("must be a vector of the 2 channels")));
}

}  // namespace
}  // namespace opkit
