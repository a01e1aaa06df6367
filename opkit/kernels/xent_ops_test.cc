// SoftmaxCrossEntropyWithLogits and SparseSoftmaxCrossEntropyWithLogits
// kernels, run through EagerContext: losses against a direct computation,
// backprops against central differences of the losses.
#include <cmath>
#include <limits>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/testing/kernel_test_util.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace {

using ::opkit::testing::IsOk;
using ::opkit::testing::StatusIs;
using ::testing::DoubleNear;
using ::testing::ElementsAre;
using ::testing::FloatNear;
using ::testing::HasSubstr;

using XentTest = test::EagerOpTest;

// -sum(labels * log(softmax(logits))) of one row, directly.
double RowLoss(const std::vector<double>& logits,
               const std::vector<double>& labels) {
  double sum = 0;
  for (double x : logits) sum += std::exp(x);
  double loss = 0;
  for (size_t c = 0; c < logits.size(); ++c) {
    loss -= labels[c] * (logits[c] - std::log(sum));
  }
  return loss;
}

TEST_F(XentTest, DenseLossAndBackpropMatchDirectAndFiniteDifferences) {
  // Two rows of three classes.
  const std::vector<double> f = {1.0, -2.0, 0.5, 3.0, 3.5, -1.0};
  const std::vector<double> l = {0.2, 0.3, 0.5, 1.0, 0.0, 0.0};
  const Tensor features = test::AsTensor<double>({1.0, -2.0, 0.5, 3.0, 3.5, -1.0},
                                                 TensorShape({2, 3}));
  const Tensor labels = test::AsTensor<double>({0.2, 0.3, 0.5, 1.0, 0.0, 0.0},
                                               TensorShape({2, 3}));
  ASSERT_THAT(Run("SoftmaxCrossEntropyWithLogits", {features, labels}), IsOk());
  ASSERT_EQ(out_[0].shape(), TensorShape({2}));
  ASSERT_EQ(out_[1].shape(), TensorShape({2, 3}));
  const Tensor loss = out_[0];
  const Tensor backprop = out_[1];
  EXPECT_NEAR(loss.flat<double>()(0), RowLoss({f[0], f[1], f[2]}, {l[0], l[1], l[2]}), 1e-12);
  EXPECT_NEAR(loss.flat<double>()(1), RowLoss({f[3], f[4], f[5]}, {l[3], l[4], l[5]}), 1e-12);
  const double h = 1e-6;
  for (int i = 0; i < 6; ++i) {
    double at[2];
    for (int side = 0; side < 2; ++side) {
      Tensor shifted = test::AsTensor<double>({1.0, -2.0, 0.5, 3.0, 3.5, -1.0},
                                              TensorShape({2, 3}));
      shifted.flat<double>()(i) += side == 0 ? -h : h;
      ASSERT_THAT(Run("SoftmaxCrossEntropyWithLogits", {shifted, labels}), IsOk());
      at[side] = out_[0].flat<double>()(i / 3);
    }
    EXPECT_NEAR(backprop.flat<double>()(i), (at[1] - at[0]) / (2 * h), 1e-6) << i;
  }
}

TEST_F(XentTest, DenseBroadcastsToAMatrix) {
  // One row of labels for two rows of logits.
  ASSERT_THAT(Run("SoftmaxCrossEntropyWithLogits",
                  {test::AsTensor<float>({0, 0, 1, 1}, TensorShape({2, 2})),
                   test::AsTensor<float>({1, 0}, TensorShape({1, 2}))}),
              IsOk());
  EXPECT_EQ(out_[1].shape(), TensorShape({2, 2}));
  EXPECT_THAT(test::Values<float>(out_[0]),
              ElementsAre(FloatNear(std::log(2.f), 1e-6f), FloatNear(std::log(2.f), 1e-6f)));
  EXPECT_THAT(test::Values<float>(out_[1]), ElementsAre(-0.5, 0.5, -0.5, 0.5));
  // A vector of logits against a column of label rows: [3] and [2,1].
  ASSERT_THAT(Run("SoftmaxCrossEntropyWithLogits",
                  {test::AsTensor<double>({0.0, 0.0, 0.0}),
                   test::AsTensor<double>({1.0, 0.0}, TensorShape({2, 1}))}),
              IsOk());
  EXPECT_EQ(out_[1].shape(), TensorShape({2, 3}));
  EXPECT_THAT(test::Values<double>(out_[0]),
              ElementsAre(DoubleNear(3 * std::log(3.0), 1e-12), 0));
}

TEST_F(XentTest, DenseHalfLargeLogitsAndEmpty) {
  ASSERT_THAT(Run("SoftmaxCrossEntropyWithLogits",
                  {test::AsTensor<half>({half(0.f), half(0.f)}, TensorShape({1, 2})),
                   test::AsTensor<half>({half(1.f), half(0.f)}, TensorShape({1, 2}))}),
              IsOk());
  EXPECT_NEAR(static_cast<float>(out_[0].flat<half>()(0)), std::log(2.0), 1e-3);
  // Logits far beyond exp's range stay finite: the row maximum is taken out.
  ASSERT_THAT(Run("SoftmaxCrossEntropyWithLogits",
                  {test::AsTensor<float>({1000.f, 0.f}, TensorShape({1, 2})),
                   test::AsTensor<float>({0.f, 1.f}, TensorShape({1, 2}))}),
              IsOk());
  EXPECT_NEAR(out_[0].flat<float>()(0), 1000.f, 1e-3);
  ASSERT_THAT(Run("SoftmaxCrossEntropyWithLogits",
                  {Tensor(DT_FLOAT, TensorShape({0, 4})), Tensor(DT_FLOAT, TensorShape({0, 4}))}),
              IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({0}));
}

TEST_F(XentTest, DenseBadShapesAreInvalidArgument) {
  EXPECT_THAT(Run("SoftmaxCrossEntropyWithLogits",
                  {Tensor(DT_FLOAT, TensorShape({2, 3})), Tensor(DT_FLOAT, TensorShape({2, 4}))}),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("features (input 0) and labels (input 1) must have the same "
                                 "shape or broadcast to one, got [2,3] and [2,4]")));
  EXPECT_THAT(Run("SoftmaxCrossEntropyWithLogits",
                  {Tensor(DT_FLOAT, TensorShape({2, 2, 3})), Tensor(DT_FLOAT, TensorShape({2, 2, 3}))}),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("must be matrices [batch, classes] or broadcast to one")));
  EXPECT_THAT(Run("SoftmaxCrossEntropyWithLogits",
                  {Tensor(DT_FLOAT, TensorShape({3})), Tensor(DT_FLOAT, TensorShape({3}))}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("(broadcast shape [3])")));
}

TEST_F(XentTest, SparseMatchesDenseOneHot) {
  const Tensor features = test::AsTensor<double>({1.0, -2.0, 0.5, 3.0, 3.5, -1.0, 0.0, 0.0, 0.0},
                                                 TensorShape({3, 3}));
  const Tensor one_hot = test::AsTensor<double>({0, 0, 1, 0, 1, 0, 1, 0, 0}, TensorShape({3, 3}));
  ASSERT_THAT(Run("SoftmaxCrossEntropyWithLogits", {features, one_hot}), IsOk());
  const std::vector<double> dense_loss = test::Values<double>(out_[0]);
  const std::vector<double> dense_backprop = test::Values<double>(out_[1]);
  for (const Tensor& labels : {test::I32({2, 1, 0}), test::I64({2, 1, 0})}) {
    ASSERT_THAT(Run("SparseSoftmaxCrossEntropyWithLogits", {features, labels}), IsOk());
    ASSERT_EQ(out_[0].shape(), TensorShape({3}));
    ASSERT_EQ(out_[1].shape(), TensorShape({3, 3}));
    const std::vector<double> loss = test::Values<double>(out_[0]);
    const std::vector<double> backprop = test::Values<double>(out_[1]);
    for (int i = 0; i < 3; ++i) EXPECT_NEAR(loss[i], dense_loss[i], 1e-12) << i;
    for (int i = 0; i < 9; ++i) EXPECT_NEAR(backprop[i], dense_backprop[i], 1e-12) << i;
  }
  EXPECT_NEAR(test::Values<double>(out_[0])[2], std::log(3.0), 1e-12);
}

TEST_F(XentTest, SparseFloatAndEmpty) {
  ASSERT_THAT(Run("SparseSoftmaxCrossEntropyWithLogits",
                  {test::AsTensor<float>({0, 0, 0, 0}, TensorShape({1, 4})), test::I64({3})}),
              IsOk());
  EXPECT_NEAR(out_[0].flat<float>()(0), std::log(4.0), 1e-6);
  EXPECT_THAT(test::Values<float>(out_[1]), ElementsAre(0.25, 0.25, 0.25, -0.75));
  // No rows: no classes needed.
  ASSERT_THAT(Run("SparseSoftmaxCrossEntropyWithLogits",
                  {Tensor(DT_FLOAT, TensorShape({0, 0})), Tensor(DT_INT32, TensorShape({0}))}),
              IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({0}));
}

TEST_F(XentTest, SparseLabelOutOfRangeNamesItAndItsPosition) {
  const Tensor features(DT_FLOAT, TensorShape({3, 4}));
  EXPECT_THAT(Run("SparseSoftmaxCrossEntropyWithLogits", {features, test::I32({0, 4, 1})}),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("labels (input 1) holds 4 at position 1, outside the valid "
                                 "class range [0, 4)")));
  EXPECT_THAT(Run("SparseSoftmaxCrossEntropyWithLogits", {features, test::I64({0, 1, -1})}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("holds -1 at position 2")));
}

TEST_F(XentTest, SparseBadShapesAreInvalidArgument) {
  EXPECT_THAT(Run("SparseSoftmaxCrossEntropyWithLogits",
                  {Tensor(DT_FLOAT, TensorShape({4})), test::I32({0})}),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("features (input 0) must be a matrix [batch, classes], got "
                                 "shape [4]")));
  EXPECT_THAT(Run("SparseSoftmaxCrossEntropyWithLogits",
                  {Tensor(DT_FLOAT, TensorShape({2, 4})), Tensor(DT_INT32, TensorShape({2, 1}))}),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("labels (input 1) must be a vector [batch], got shape [2,1]")));
  EXPECT_THAT(Run("SparseSoftmaxCrossEntropyWithLogits",
                  {Tensor(DT_FLOAT, TensorShape({2, 4})), test::I32({0, 1, 2})}),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("got 3 labels for features of shape [2,4]")));
  EXPECT_THAT(Run("SparseSoftmaxCrossEntropyWithLogits",
                  {Tensor(DT_FLOAT, TensorShape({2, 0})), test::I32({0, 0})}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("at least one class")));
}

}  // namespace
}  // namespace opkit
