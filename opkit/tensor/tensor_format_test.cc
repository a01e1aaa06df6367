// Tests of TensorFormat and TensorFlow's helpers over it (tensor_format.h):
// the indices and shapes TensorFlow's tensor_format.h gives for the same
// arguments.
#include "opkit/tensor/tensor_format.h"

#include <vector>

#include "gtest/gtest.h"

namespace opkit {
namespace {

TEST(TensorFormatTest, FromAndToString) {
  TensorFormat f;
  ASSERT_TRUE(FormatFromString("NCHW", &f));
  EXPECT_EQ(f, FORMAT_NCHW);
  EXPECT_STREQ(ToString(f), "NCHW");
  ASSERT_TRUE(FormatFromString("NHWC", &f));
  EXPECT_EQ(f, FORMAT_NHWC);
  EXPECT_FALSE(FormatFromString("NCHW_VECT_C", &f));
  EXPECT_EQ(f, FORMAT_NHWC);  // untouched on failure
}

TEST(TensorFormatTest, DimIndexFourD) {
  EXPECT_EQ(GetTensorDimIndex(FORMAT_NHWC, 'N'), 0);
  EXPECT_EQ(GetTensorDimIndex(FORMAT_NHWC, 'H'), 1);
  EXPECT_EQ(GetTensorDimIndex(FORMAT_NHWC, 'W'), 2);
  EXPECT_EQ(GetTensorDimIndex(FORMAT_NHWC, 'C'), 3);
  EXPECT_EQ(GetTensorDimIndex(FORMAT_NCHW, 'N'), 0);
  EXPECT_EQ(GetTensorDimIndex(FORMAT_NCHW, 'C'), 1);
  EXPECT_EQ(GetTensorDimIndex(FORMAT_NCHW, 'H'), 2);
  EXPECT_EQ(GetTensorDimIndex(FORMAT_NCHW, 'W'), 3);
  // Spatial dimensions by number.
  EXPECT_EQ(GetTensorDimIndex(FORMAT_NHWC, '0'), 1);
  EXPECT_EQ(GetTensorDimIndex(FORMAT_NCHW, '1'), 3);
  EXPECT_EQ(GetTensorDimIndex(FORMAT_NHWC, 'X'), -1);
  EXPECT_EQ(GetTensorDimIndex(FORMAT_NHWC, 'D'), -1);  // no depth in 4-D
  EXPECT_EQ(FormatDimIndex(FORMAT_NCHW, 'W'), 3);
}

TEST(TensorFormatTest, DimIndexFiveD) {
  // NDHWC / NCDHW.
  EXPECT_EQ(GetTensorDimIndex<3>(FORMAT_NHWC, 'D'), 1);
  EXPECT_EQ(GetTensorDimIndex<3>(FORMAT_NHWC, 'H'), 2);
  EXPECT_EQ(GetTensorDimIndex<3>(FORMAT_NHWC, 'W'), 3);
  EXPECT_EQ(GetTensorDimIndex<3>(FORMAT_NHWC, 'C'), 4);
  EXPECT_EQ(GetTensorDimIndex<3>(FORMAT_NCHW, 'C'), 1);
  EXPECT_EQ(GetTensorDimIndex<3>(FORMAT_NCHW, 'D'), 2);
  EXPECT_EQ(GetTensorDimIndex(FORMAT_NCHW, 'W', 5), 4);
  EXPECT_EQ(GetTensorFeatureDimIndex(5, FORMAT_NHWC), 4);
  EXPECT_EQ(GetTensorSpatialDims(5, FORMAT_NCHW), 3);
  EXPECT_EQ(GetTensorSpatialDimIndex(5, FORMAT_NCHW, 0), 2);
  EXPECT_EQ(GetTensorBatchDimIndex(5, FORMAT_NCHW), 0);
}

TEST(TensorFormatTest, GetTensorDimOfShapeAndAttributes) {
  const TensorShape nchw({8, 3, 32, 16});
  EXPECT_EQ(GetTensorDim(nchw, FORMAT_NCHW, 'C'), 3);
  EXPECT_EQ(GetTensorDim(nchw, FORMAT_NCHW, 'W'), 16);
  const std::vector<int32_t> strides = {1, 2, 3, 1};  // NHWC strides attr
  EXPECT_EQ(GetTensorDim(strides, FORMAT_NHWC, 'H'), 2);
  EXPECT_EQ(GetTensorDim(strides, FORMAT_NHWC, 'W'), 3);
  const int64_t ksize[] = {1, 1, 5, 7};  // NCHW ksize attr
  EXPECT_EQ(GetTensorDim(absl::Span<const int64_t>(ksize), FORMAT_NCHW, 'H'),
            5);
}

TEST(TensorFormatTest, ShapeFromFormat) {
  EXPECT_EQ(ShapeFromFormat(FORMAT_NHWC, 2, 5, 7, 3), TensorShape({2, 5, 7, 3}));
  EXPECT_EQ(ShapeFromFormat(FORMAT_NCHW, 2, 5, 7, 3), TensorShape({2, 3, 5, 7}));
  const int64_t spatial[] = {4, 5, 6};
  EXPECT_EQ(ShapeFromFormat(FORMAT_NCHW, 1, spatial, 2),
            TensorShape({1, 2, 4, 5, 6}));
}

TEST(TensorFormatTest, AttrStrings) {
  EXPECT_EQ(GetConvnetDataFormatAttrString(),
            "data_format: { 'NHWC', 'NCHW' } = 'NHWC' ");
  EXPECT_EQ(GetConvnet3dDataFormatAttrString(),
            "data_format: { 'NDHWC', 'NCDHW' } = 'NDHWC' ");
}

}  // namespace
}  // namespace opkit
