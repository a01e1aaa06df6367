// Tests of NonMaxSuppressionV3/V4/V5. The boxes are three clusters
// (TensorFlow's own test case for these ops): boxes 0-2 overlap around
// x in [0, 1], boxes 3-4 around x in [10, 11], box 5 alone at x = 100.
// Expected selections follow by hand from the greedy rule; the Soft-NMS
// scores were computed with a Python transcription of the algorithm
// (0.95, 0.9, 0.384, 0.3, 0.256, 0.197, matching TensorFlow's test).
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/testing/kernel_test_util.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace {

using ::opkit::testing::IsOk;
using ::opkit::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::FloatNear;
using ::testing::HasSubstr;
using test::AsTensor;
using test::Attr;
using test::Values;

using NmsTest = test::EagerOpTest;

Tensor Boxes(std::initializer_list<float> v) {
  return AsTensor<float>(v, TensorShape({static_cast<int64_t>(v.size() / 4), 4}));
}
Tensor ThreeClusters() {
  return Boxes({0, 0, 1, 1, 0, 0.1f, 1, 1.1f, 0, -0.1f, 1, 0.9f,
                0, 10, 1, 11, 0, 10.1f, 1, 11.1f, 0, 100, 1, 101});
}
Tensor Scores() { return AsTensor<float>({0.9f, 0.75f, 0.6f, 0.95f, 0.5f, 0.3f}); }
Tensor F(float v) { return AsTensor<float>({v}, TensorShape({})); }
Tensor I(int32 v) { return AsTensor<int32>({v}, TensorShape({})); }

TEST_F(NmsTest, V3SelectsOnePerCluster) {
  ASSERT_THAT(Run("NonMaxSuppressionV3", {ThreeClusters(), Scores(), I(3), F(0.5f), F(0.0f)}),
              IsOk());
  EXPECT_THAT(Values<int32>(out_[0]), ElementsAre(3, 0, 5));
  // At most max_output_size.
  ASSERT_THAT(Run("NonMaxSuppressionV3", {ThreeClusters(), Scores(), I(2), F(0.5f), F(0.0f)}),
              IsOk());
  EXPECT_THAT(Values<int32>(out_[0]), ElementsAre(3, 0));
  // Corners in either order give the same boxes.
  const Tensor flipped = Boxes({1, 1, 0, 0, 0, 0.1f, 1, 1.1f, 0, 0.9f, 1, -0.1f,
                                0, 10, 1, 11, 1, 10.1f, 0, 11.1f, 1, 101, 0, 100});
  ASSERT_THAT(Run("NonMaxSuppressionV3", {flipped, Scores(), I(3), F(0.5f), F(0.0f)}), IsOk());
  EXPECT_THAT(Values<int32>(out_[0]), ElementsAre(3, 0, 5));
  // score_threshold drops box 5 (0.3).
  ASSERT_THAT(Run("NonMaxSuppressionV3", {ThreeClusters(), Scores(), I(6), F(0.5f), F(0.4f)}),
              IsOk());
  EXPECT_THAT(Values<int32>(out_[0]), ElementsAre(3, 0));
  // iou_threshold 1 suppresses nothing: all boxes by score.
  ASSERT_THAT(Run("NonMaxSuppressionV3", {ThreeClusters(), Scores(), I(6), F(1.0f), F(0.0f)}),
              IsOk());
  EXPECT_THAT(Values<int32>(out_[0]), ElementsAre(3, 0, 1, 2, 4, 5));
}

TEST_F(NmsTest, TiesAndDegenerateBoxes) {
  // Ten identical boxes with equal scores: the first one wins.
  std::vector<float> b;
  for (int i = 0; i < 10; ++i) b.insert(b.end(), {0, 0, 1, 1});
  Tensor boxes(DT_FLOAT, TensorShape({10, 4}));
  std::copy(b.begin(), b.end(), boxes.flat<float>().data());
  Tensor scores(DT_FLOAT, TensorShape({10}));
  for (int i = 0; i < 10; ++i) scores.flat<float>()(i) = 0.9f;
  ASSERT_THAT(Run("NonMaxSuppressionV3", {boxes, scores, I(3), F(0.5f), F(0.0f)}), IsOk());
  EXPECT_THAT(Values<int32>(out_[0]), ElementsAre(0));
  // Zero-area boxes overlap nothing, even themselves.
  ASSERT_THAT(Run("NonMaxSuppressionV3", {Boxes({0, 0, 0, 1, 0, 0, 0, 1}),
                                          AsTensor<float>({0.5f, 0.6f}), I(5), F(0.0f),
                                          F(0.0f)}),
              IsOk());
  EXPECT_THAT(Values<int32>(out_[0]), ElementsAre(1, 0));
  // No boxes.
  ASSERT_THAT(Run("NonMaxSuppressionV3", {Tensor(DT_FLOAT, TensorShape({0, 4})),
                                          Tensor(DT_FLOAT, TensorShape({0})), I(3), F(0.5f),
                                          F(0.0f)}),
              IsOk());
  EXPECT_EQ(out_[0].NumElements(), 0);
}

TEST_F(NmsTest, V4PadsToMaxOutputSize) {
  ASSERT_THAT(Run("NonMaxSuppressionV4", {ThreeClusters(), Scores(), I(6), F(0.5f), F(0.4f)},
                  {{"pad_to_max_output_size", Attr(true)}}),
              IsOk());
  EXPECT_THAT(Values<int32>(out_[0]), ElementsAre(3, 0, 0, 0, 0, 0));
  EXPECT_THAT(Values<int32>(out_[1]), ElementsAre(2));
  EXPECT_EQ(out_[1].dims(), 0);
  ASSERT_THAT(Run("NonMaxSuppressionV4", {ThreeClusters(), Scores(), I(6), F(0.5f), F(0.4f)}),
              IsOk());
  EXPECT_THAT(Values<int32>(out_[0]), ElementsAre(3, 0));
  EXPECT_THAT(Values<int32>(out_[1]), ElementsAre(2));
}

TEST_F(NmsTest, V5SoftNms) {
  ASSERT_THAT(Run("NonMaxSuppressionV5",
                  {ThreeClusters(), Scores(), I(6), F(0.5f), F(0.0f), F(0.5f)}),
              IsOk());
  EXPECT_THAT(Values<int32>(out_[0]), ElementsAre(3, 0, 1, 5, 4, 2));
  EXPECT_THAT(Values<float>(out_[1]),
              ElementsAre(FloatNear(0.95f, 1e-5f), FloatNear(0.9f, 1e-5f),
                          FloatNear(0.384f, 1e-4f), FloatNear(0.3f, 1e-5f),
                          FloatNear(0.256f, 1e-4f), FloatNear(0.19697f, 1e-4f)));
  EXPECT_THAT(Values<int32>(out_[2]), ElementsAre(6));
  // sigma 0 is plain NMS, with its scores; padding pads both outputs.
  ASSERT_THAT(Run("NonMaxSuppressionV5",
                  {ThreeClusters(), Scores(), I(4), F(0.5f), F(0.0f), F(0.0f)},
                  {{"pad_to_max_output_size", Attr(true)}}),
              IsOk());
  EXPECT_THAT(Values<int32>(out_[0]), ElementsAre(3, 0, 5, 0));
  EXPECT_THAT(Values<float>(out_[1]), ElementsAre(0.95f, 0.9f, 0.3f, 0.0f));
  EXPECT_THAT(Values<int32>(out_[2]), ElementsAre(3));
}

TEST_F(NmsTest, HalfInputs) {
  const Tensor boxes = AsTensor<half>(
      {half(0.f), half(0.f), half(1.f), half(1.f), half(0.f), half(0.1f), half(1.f), half(1.1f),
       half(0.f), half(10.f), half(1.f), half(11.f)},
      TensorShape({3, 4}));
  const Tensor scores = AsTensor<half>({half(0.9f), half(0.75f), half(0.6f)});
  ASSERT_THAT(Run("NonMaxSuppressionV3", {boxes, scores, I(3), F(0.5f), F(0.0f)}), IsOk());
  EXPECT_THAT(Values<int32>(out_[0]), ElementsAre(0, 2));
}

TEST_F(NmsTest, BadInputsAreRejected) {
  const Tensor boxes = ThreeClusters();
  EXPECT_THAT(Run("NonMaxSuppressionV3", {boxes, Scores(), I(3), F(1.2f), F(0.0f)}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("iou_threshold must be in [0, 1]")));
  EXPECT_THAT(Run("NonMaxSuppressionV3", {boxes, Scores(), I(-1), F(0.5f), F(0.0f)}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("output size must be non-negative")));
  EXPECT_THAT(Run("NonMaxSuppressionV3", {boxes, Scores(), test::I32({3}), F(0.5f), F(0.0f)}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("max_output_size must be 0-D")));
  EXPECT_THAT(Run("NonMaxSuppressionV3",
                  {AsTensor<float>({0, 0, 1}, TensorShape({1, 3})), AsTensor<float>({1}), I(3),
                   F(0.5f), F(0.0f)}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("boxes must have 4 columns")));
  EXPECT_THAT(Run("NonMaxSuppressionV3", {AsTensor<float>({0, 0, 1, 1}), AsTensor<float>({1}),
                                          I(3), F(0.5f), F(0.0f)}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("boxes must be 2-D")));
  EXPECT_THAT(Run("NonMaxSuppressionV3", {boxes, AsTensor<float>({1, 2}), I(3), F(0.5f),
                                          F(0.0f)}),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("scores has incompatible shape (Dimensions must be equal, "
                                 "but are 6 and 2)")));
  EXPECT_THAT(Run("NonMaxSuppressionV5", {boxes, Scores(), I(3), F(0.5f), F(0.0f), F(-1.0f)}),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("soft_nms_sigma_val must be non-negative")));
}

}  // namespace
}  // namespace opkit
