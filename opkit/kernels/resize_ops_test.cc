// Tests of ResizeBilinear and ResizeNearestNeighbor. Expected values are
// worked out by hand from TensorFlow's documented coordinate rules (see
// resize_ops.cc): e.g. half_pixel_centers maps output column i of a 2 -> 4
// resize to source (i + 0.5) * 0.5 - 0.5 = -0.25, 0.25, 0.75, 1.25, which
// interpolates [1, 2] to [1, 1.25, 1.75, 2].
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
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;
using test::AsTensor;
using test::Attr;
using test::I32;
using test::Values;

using ResizeTest = test::EagerOpTest;

// A [1, 2, 2, 1] image [[1, 2], [3, 4]].
Tensor Image2x2() { return AsTensor<float>({1, 2, 3, 4}, TensorShape({1, 2, 2, 1})); }

EagerAttrs Mode(bool align_corners, bool half_pixel_centers) {
  return {{"align_corners", Attr(align_corners)},
          {"half_pixel_centers", Attr(half_pixel_centers)}};
}

TEST_F(ResizeTest, BilinearUpscaleInEachMode) {
  // Legacy: source x * 0.5 = 0, 0.5, 1, 1.5 (the last clamps to column 1).
  ASSERT_THAT(Run("ResizeBilinear", {Image2x2(), I32({4, 4})}), IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({1, 4, 4, 1}));
  EXPECT_THAT(Values<float>(out_[0]), ElementsAre(1, 1.5, 2, 2,    //
                                                  2, 2.5, 3, 3,    //
                                                  3, 3.5, 4, 4,    //
                                                  3, 3.5, 4, 4));
  // align_corners: scale (2 - 1) / (3 - 1) = 0.5 and the corners stay put.
  ASSERT_THAT(Run("ResizeBilinear", {Image2x2(), I32({3, 3})}, Mode(true, false)), IsOk());
  EXPECT_THAT(Values<float>(out_[0]), ElementsAre(1, 1.5, 2, 2, 2.5, 3, 3, 3.5, 4));
  // half_pixel_centers: sources -0.25, 0.25, 0.75, 1.25.
  ASSERT_THAT(Run("ResizeBilinear", {Image2x2(), I32({4, 4})}, Mode(false, true)), IsOk());
  EXPECT_THAT(Values<float>(out_[0]), ElementsAre(1, 1.25, 1.75, 2,          //
                                                  1.5, 1.75, 2.25, 2.5,      //
                                                  2.5, 2.75, 3.25, 3.5,      //
                                                  3, 3.25, 3.75, 4));
}

TEST_F(ResizeTest, BilinearIsExactOnARampAndKeepsChannelsApart) {
  // Channel 0 is the column index, channel 1 ten times it; with
  // align_corners a 4 -> 7 resize samples columns 0, 0.5, ..., 3 exactly.
  std::vector<float> in;
  for (int y = 0; y < 2; ++y) {
    for (int x = 0; x < 4; ++x) {
      in.push_back(static_cast<float>(x));
      in.push_back(static_cast<float>(10 * x));
    }
  }
  Tensor image(DT_FLOAT, TensorShape({1, 2, 4, 2}));
  std::copy(in.begin(), in.end(), image.flat<float>().data());
  ASSERT_THAT(Run("ResizeBilinear", {image, I32({2, 7})}, Mode(true, false)), IsOk());
  const std::vector<float> out = Values<float>(out_[0]);
  ASSERT_EQ(out.size(), 2u * 7 * 2);
  for (int y = 0; y < 2; ++y) {
    for (int x = 0; x < 7; ++x) {
      EXPECT_FLOAT_EQ(out[(y * 7 + x) * 2], 0.5f * x);
      EXPECT_FLOAT_EQ(out[(y * 7 + x) * 2 + 1], 5.0f * x);
    }
  }
}

TEST_F(ResizeTest, BilinearOfIntegersGivesFloatAndBatchesAreSeparate) {
  const Tensor image = AsTensor<uint8>({0, 100, 200, 250}, TensorShape({2, 1, 2, 1}));
  ASSERT_THAT(Run("ResizeBilinear", {image, I32({1, 4})}), IsOk());
  EXPECT_EQ(out_[0].dtype(), DT_FLOAT);
  // Sources 0, 0.5, 1, 1.5 in each image.
  EXPECT_THAT(Values<float>(out_[0]), ElementsAre(0, 50, 100, 100, 200, 225, 250, 250));
  // Downscale, legacy: sources 0 and 2 of a 4-wide row.
  ASSERT_THAT(Run("ResizeBilinear", {AsTensor<double>({1, 2, 3, 4}, TensorShape({1, 1, 4, 1})),
                                     I32({1, 2})}),
              IsOk());
  EXPECT_THAT(Values<float>(out_[0]), ElementsAre(1, 3));
}

TEST_F(ResizeTest, NearestNeighborInEachMode) {
  const Tensor row = AsTensor<int32>({10, 20, 30, 40}, TensorShape({1, 1, 4, 1}));
  // Legacy 4 -> 2: floor(0), floor(2).
  ASSERT_THAT(Run("ResizeNearestNeighbor", {row, I32({1, 2})}), IsOk());
  EXPECT_EQ(out_[0].dtype(), DT_INT32);
  EXPECT_THAT(Values<int32>(out_[0]), ElementsAre(10, 30));
  // half_pixel_centers 4 -> 2: floor((i + 0.5) * 2) = 1, 3.
  ASSERT_THAT(Run("ResizeNearestNeighbor", {row, I32({1, 2})}, Mode(false, true)), IsOk());
  EXPECT_THAT(Values<int32>(out_[0]), ElementsAre(20, 40));
  // align_corners 4 -> 3: round(0), round(1.5) = 2 (half up), round(3).
  ASSERT_THAT(Run("ResizeNearestNeighbor", {row, I32({1, 3})}, Mode(true, false)), IsOk());
  EXPECT_THAT(Values<int32>(out_[0]), ElementsAre(10, 30, 40));
  // Upscale 2 -> 3: legacy floor(0, 0.667, 1.333) = 0, 0, 1; half-pixel
  // floor(0.333, 1, 1.667) = 0, 1, 1; align_corners round(0, 0.5, 1) = 0, 1, 1.
  const Tensor two = AsTensor<float>({1, 2}, TensorShape({1, 1, 2, 1}));
  ASSERT_THAT(Run("ResizeNearestNeighbor", {two, I32({1, 3})}), IsOk());
  EXPECT_THAT(Values<float>(out_[0]), ElementsAre(1, 1, 2));
  ASSERT_THAT(Run("ResizeNearestNeighbor", {two, I32({1, 3})}, Mode(false, true)), IsOk());
  EXPECT_THAT(Values<float>(out_[0]), ElementsAre(1, 2, 2));
  ASSERT_THAT(Run("ResizeNearestNeighbor", {two, I32({1, 3})}, Mode(true, false)), IsOk());
  EXPECT_THAT(Values<float>(out_[0]), ElementsAre(1, 2, 2));
}

TEST_F(ResizeTest, NearestNeighborCopiesWholePixels) {
  // Two rows, three channels, 2x upscale of height and width.
  const Tensor image =
      AsTensor<half>({half(1.f), half(2.f), half(3.f), half(4.f), half(5.f), half(6.f)},
                     TensorShape({1, 2, 1, 3}));
  ASSERT_THAT(Run("ResizeNearestNeighbor", {image, I32({4, 2})}), IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({1, 4, 2, 3}));
  std::vector<float> got;
  for (half h : Values<half>(out_[0])) got.push_back(static_cast<float>(h));
  EXPECT_THAT(got, ElementsAreArray({1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3,
                                     4, 5, 6, 4, 5, 6, 4, 5, 6, 4, 5, 6}));
}

TEST_F(ResizeTest, LargeImage) {
  Tensor image(DT_FLOAT, TensorShape({2, 64, 64, 3}));
  for (int64_t i = 0; i < image.NumElements(); ++i) image.flat<float>()(i) = 7.0f;
  for (const char* op : {"ResizeBilinear", "ResizeNearestNeighbor"}) {
    ASSERT_THAT(Run(op, {image, I32({200, 150})}, Mode(false, true)), IsOk()) << op;
    EXPECT_EQ(out_[0].shape(), TensorShape({2, 200, 150, 3}));
    for (float v : Values<float>(out_[0])) ASSERT_EQ(v, 7.0f) << op;
  }
  // An empty batch gives an empty output.
  ASSERT_THAT(Run("ResizeBilinear", {Tensor(DT_FLOAT, TensorShape({0, 2, 2, 1})), I32({3, 3})}),
              IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({0, 3, 3, 1}));
}

TEST_F(ResizeTest, BadInputsAreRejected) {
  for (const char* op : {"ResizeBilinear", "ResizeNearestNeighbor"}) {
    SCOPED_TRACE(op);
    EXPECT_THAT(Run(op, {Image2x2(), I32({2, 2})}, Mode(true, true)),
                StatusIs(error::INVALID_ARGUMENT,
                         HasSubstr("If half_pixel_centers is True, align_corners must be "
                                   "False.")));
    EXPECT_THAT(Run(op, {AsTensor<float>({1, 2}, TensorShape({2, 1, 1})), I32({2, 2})}),
                StatusIs(error::INVALID_ARGUMENT, HasSubstr("input must be 4-dimensional")));
    EXPECT_THAT(Run(op, {Image2x2(), I32({2, 0})}),
                StatusIs(error::INVALID_ARGUMENT,
                         HasSubstr("output dimensions must be positive")));
    EXPECT_THAT(Run(op, {Image2x2(), I32({-2, 2})}),
                StatusIs(error::INVALID_ARGUMENT,
                         HasSubstr("output dimensions must be positive")));
    EXPECT_THAT(Run(op, {Image2x2(), I32({2, 2, 2})}),
                StatusIs(error::INVALID_ARGUMENT, HasSubstr("shape_t must have two elements")));
    EXPECT_THAT(Run(op, {Tensor(DT_FLOAT, TensorShape({1, 0, 2, 1})), I32({2, 2})}),
                StatusIs(error::INVALID_ARGUMENT,
                         HasSubstr("input image must be of non-zero size")));
    EXPECT_THAT(Run(op, {Tensor(DT_FLOAT, TensorShape({1, 2, 2, 0})), I32({2, 2})}),
                StatusIs(error::INVALID_ARGUMENT,
                         HasSubstr("image must have at least one channel")));
  }
}

}  // namespace
}  // namespace opkit
