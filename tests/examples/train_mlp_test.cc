// examples/train_mlp: training from C++ through AddSymbolicGradients makes
// the loss fall and classifies held-out points.
#include "examples/train_mlp/mlp_training.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace {

using ::opkit::testing::IsOk;

TEST(TrainMlpExampleTest, LossFallsAndHeldOutAccuracyIsHigh) {
  examples::MlpTrainingOptions options;
  options.epochs = 15;
  int calls = 0;
  options.on_epoch = [&](int epoch, float) { EXPECT_EQ(epoch, calls++); };
  examples::MlpTrainingResult result;
  ASSERT_THAT(examples::TrainMlp(options, &result), IsOk());
  ASSERT_EQ(result.losses.size(), 15u);
  EXPECT_EQ(calls, 15);
  EXPECT_LT(result.losses.back(), 0.5f * result.losses.front());
  EXPECT_GT(result.accuracy, 0.9f);
}

TEST(TrainMlpExampleTest, BadOptionsAreInvalidArgument) {
  examples::MlpTrainingOptions options;
  options.classes = 1;
  examples::MlpTrainingResult result;
  EXPECT_EQ(examples::TrainMlp(options, &result).code(), error::INVALID_ARGUMENT);
}

}  // namespace
}  // namespace opkit
