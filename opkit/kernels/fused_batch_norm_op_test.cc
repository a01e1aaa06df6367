// FusedBatchNormV3 kernel, run through EagerContext.
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
using ::testing::ElementsAre;
using ::testing::FloatNear;
using ::testing::Pointwise;
using ::testing::HasSubstr;

template <typename V>
AttrValue Attr(const V& v) {
  AttrValue a;
  SetAttrValue(v, &a);
  return a;
}

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

}  // namespace
}  // namespace opkit
