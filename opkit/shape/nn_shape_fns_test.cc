// Tests of the neural-network shape functions: Conv2D, MaxPool, AvgPool,
// FusedBatchNorm and windowed output sizes. Run against a test-local
// OpRegistry (testing/common_shape_fns_test_fixture.h).
#include "opkit/shape/common_shape_fns.h"

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/core/errors.h"
#include "opkit/op/node_def_util.h"
#include "opkit/op/op_def_builder.h"
#include "opkit/op/op_registry.h"
#include "opkit/shape/shape_inference.h"
#include "opkit/shape/testing/common_shape_fns_test_fixture.h"
#include "opkit/tensor/tensor.h"
#include "opkit/tensor/tensor_shape.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace shape_inference {
namespace {

using ::opkit::testing::StatusIs;
using ::testing::HasSubstr;
using shape_test::CommonShapeFnsTest;

class CommonShapeFnsConvTest : public CommonShapeFnsTest {
 protected:
  void Conv(const std::string& padding,
            std::vector<int32> strides = {1, 1, 1, 1},
            const char* op = "Conv2D") {
    Op(op);
    Attr("padding", padding);
    Attr("strides", strides);
  }
};

TEST_F(CommonShapeFnsConvTest, ValidAndSame) {
  Conv("VALID");
  EXPECT_EQ(Infer("[1,5,5,3];[2,2,3,4]"), "[1,4,4,4]");
  EXPECT_EQ(Infer("?;?"), "[?,?,?,?]");
  EXPECT_EQ(Infer("[1,?,5,3];[2,2,3,4]"), "[1,?,4,4]");
  EXPECT_EQ(Infer("[1,5,5,3];[?,2,3,4]"), "[1,?,4,4]");
  EXPECT_EQ(Infer("[1,5,5,3];[5,5,3,4]"), "[1,1,1,4]");
  EXPECT_EQ(Infer("[1,0,0,3];[0,0,3,4]"), "[1,1,1,4]");
  EXPECT_INFER_ERROR("Negative dimension size caused by subtracting 3 from 2",
                     "[1,2,2,3];[3,3,3,4]");
  EXPECT_INFER_ERROR("Shape must be rank 4 but is rank 3", "[1,5,5];[2,2,3,4]");
  EXPECT_INFER_ERROR("Shape must be rank 4 but is rank 2", "[1,5,5,3];[2,2]");
  Conv("VALID", {1, 2, 2, 1});
  EXPECT_EQ(Infer("[1,5,5,3];[3,3,3,4]"), "[1,2,2,4]");
  EXPECT_EQ(Infer("[1,6,5,3];[3,3,3,4]"), "[1,2,2,4]");
  Conv("SAME", {1, 2, 2, 1});
  EXPECT_EQ(Infer("[1,5,5,3];[3,3,3,4]"), "[1,3,3,4]");
  EXPECT_EQ(Infer("[1,5,5,3];[?,?,3,4]"), "[1,3,3,4]");
  EXPECT_EQ(Infer("[1,2,2,3];[3,3,3,4]"), "[1,1,1,4]");
  Conv("SAME", {1, 1, 3, 1});
  EXPECT_EQ(Infer("[?,7,7,3];[3,3,3,?]"), "[?,7,3,?]");
}

TEST_F(CommonShapeFnsConvTest, DilationsFormatsAndGroups) {
  Conv("VALID");
  Attr("dilations", std::vector<int32>{1, 2, 2, 1});
  EXPECT_EQ(Infer("[1,5,5,3];[3,3,3,4]"), "[1,1,1,4]");
  EXPECT_INFER_ERROR("Negative dimension size caused by subtracting 5 from 4",
                     "[1,4,4,3];[3,3,3,4]");
  EXPECT_INFER_ERROR("Negative dimension size caused by subtracting 1 from 0",
                     "[1,4,4,3];[0,0,3,4]");
  Conv("VALID");
  Attr("data_format", "NCHW");
  EXPECT_EQ(Infer("[1,3,5,5];[2,2,3,4]"), "[1,4,4,4]");
  Conv("SAME", {1, 1, 2, 2});
  Attr("data_format", "NCHW");
  EXPECT_EQ(Infer("[1,3,5,6];[3,3,3,4]"), "[1,4,3,3]");
  Conv("VALID");
  Attr("filter_format", "OIHW");
  EXPECT_EQ(Infer("[1,5,5,3];[4,3,2,2]"), "[1,4,4,4]");
  // Grouped convolution: 6 input channels in groups of 3.
  Conv("VALID");
  EXPECT_EQ(Infer("[1,5,5,6];[2,2,3,4]"), "[1,4,4,4]");
  EXPECT_INFER_ERROR(
      "Depth of output (5) is not a multiple of the number of groups (2)",
      "[1,5,5,6];[2,2,3,5]");
  EXPECT_INFER_ERROR(
      "Depth of input (5) is not a multiple of input depth of filter (3)",
      "[1,5,5,5];[2,2,3,4]");
  EXPECT_EQ(Infer("[1,5,5,0];[2,2,3,5]"), "[1,4,4,5]");
  EXPECT_INFER_ERROR("Depth of input of filter must be > 0",
                     "[1,5,5,5];[2,2,0,4]");
}

TEST_F(CommonShapeFnsConvTest, BadAttrs) {
  Conv("VALID", {1, 1, 1});
  EXPECT_INFER_ERROR(
      "Conv2D on data format NHWC requires the stride attribute to contain 4 "
      "values, but got: 3",
      "[1,5,5,3];[2,2,3,4]");
  Conv("VALID", {1, 0, 1, 1});
  EXPECT_INFER_ERROR("Stride must be > 0, but got 0", "[1,5,5,3];[2,2,3,4]");
  Conv("SAME", {1, 1, -2, 1});
  EXPECT_INFER_ERROR("Stride must be > 0, but got -2", "[1,5,5,3];[2,2,3,4]");
  Conv("SAME");
  Attr("dilations", std::vector<int32>{1, 0, 1, 1});
  EXPECT_INFER_ERROR("Dilation rate must be >= 1, but got 0",
                     "[1,5,5,3];[2,2,3,4]");
  Conv("SAME");
  Attr("dilations", std::vector<int32>{1, 1});
  EXPECT_INFER_ERROR(
      "Conv2D requires the dilation attribute to contain 4 values, but got: 2",
      "[1,5,5,3];[2,2,3,4]");
  Conv("FOO");
  EXPECT_INFER_ERROR("FOO is not an allowed padding type",
                     "[1,5,5,3];[2,2,3,4]");
  Conv("SAME");
  Attr("data_format", "NCDHW");
  EXPECT_INFER_ERROR("Invalid data format string: NCDHW",
                     "[1,5,5,3];[2,2,3,4]");
  Conv("SAME");
  Attr("filter_format", "XYZW");
  EXPECT_INFER_ERROR("Invalid filter format string: XYZW",
                     "[1,5,5,3];[2,2,3,4]");
  Conv("SAME");
  Attr("strides", std::vector<int64>{1, 5000000000LL, 1, 1});
  EXPECT_INFER_ERROR("out of range for an int32", "[1,5,5,3];[2,2,3,4]");
  Conv("SAME");
  Attr("strides", 4);
  EXPECT_THAT(Run("[1,5,5,3];[2,2,3,4]"), StatusIs(error::INVALID_ARGUMENT));
}

TEST_F(CommonShapeFnsConvTest, ExplicitPadding) {
  Conv("EXPLICIT");
  Attr("explicit_paddings", std::vector<int64>{0, 0, 1, 1, 2, 2, 0, 0});
  EXPECT_EQ(Infer("[1,5,5,3];[2,2,3,4]"), "[1,6,8,4]");
  EXPECT_EQ(Infer("[1,?,5,3];[2,2,3,4]"), "[1,?,8,4]");
  Conv("EXPLICIT", {1, 1, 2, 2});
  Attr("data_format", "NCHW");
  Attr("explicit_paddings", std::vector<int64>{0, 0, 0, 0, 1, 0, 0, 1});
  EXPECT_EQ(Infer("[1,3,5,5];[2,2,3,4]"), "[1,4,3,3]");

  Conv("EXPLICIT");
  Attr("explicit_paddings", std::vector<int64>{0, 0, 1, 1});
  EXPECT_INFER_ERROR(
      "explicit_paddings attribute must contain 8 values, but got: 4",
      "[1,5,5,3];[2,2,3,4]");
  Conv("EXPLICIT");
  EXPECT_INFER_ERROR(
      "explicit_paddings attribute must contain 8 values, but got: 0",
      "[1,5,5,3];[2,2,3,4]");
  Conv("EXPLICIT");
  Attr("explicit_paddings", std::vector<int64>{0, 0, -1, 1, 0, 0, 0, 0});
  EXPECT_INFER_ERROR("must be nonnegative", "[1,5,5,3];[2,2,3,4]");
  Conv("EXPLICIT");
  Attr("explicit_paddings", std::vector<int64>{1, 0, 0, 0, 0, 0, 0, 0});
  EXPECT_INFER_ERROR("Nonzero explicit padding in the batch or depth",
                     "[1,5,5,3];[2,2,3,4]");
  Conv("EXPLICIT");
  Attr("explicit_paddings", std::vector<int64>{0, 0, 0, 0, 0, 0, 0, 1});
  EXPECT_INFER_ERROR("Nonzero explicit padding in the batch or depth",
                     "[1,5,5,3];[2,2,3,4]");
  Conv("SAME");
  Attr("explicit_paddings", std::vector<int64>{0, 0, 1, 1, 2, 2, 0, 0});
  EXPECT_INFER_ERROR(
      "explicit_paddings attribute must be empty if the padding attribute is "
      "not EXPLICIT",
      "[1,5,5,3];[2,2,3,4]");
  Conv("EXPLICIT");
  Attr("explicit_paddings",
       std::vector<int64>{0, 0, std::numeric_limits<int64>::max(), 1, 0, 0, 0,
                          0});
  EXPECT_INFER_ERROR("overflow", "[1,5,5,3];[2,2,3,4]");
  Conv("EXPLICIT", {1, 1, 1, 1}, "Conv2DNoExplicit");
  EXPECT_INFER_ERROR("does not support EXPLICIT padding",
                     "[1,5,5,3];[2,2,3,4]");
  Conv("VALID", {1, 1, 1, 1}, "Conv2DNoExplicit");
  EXPECT_EQ(Infer("[1,5,5,3];[2,2,3,4]"), "[1,4,4,4]");
}

TEST_F(CommonShapeFnsConvTest, HugeDimensions) {
  Conv("SAME", {1, 2, 2, 1});
  EXPECT_INFER_ERROR("overflow", "[?,9223372036854775807,1,1];[1,1,1,1]");
  Conv("VALID", {1, 2, 2, 1});
  EXPECT_EQ(Infer("[?,9223372036854775807,1,1];[1,1,1,1]"),
            "[?,4611686018427387904,1,1]");
  Conv("VALID");
  Attr("dilations", std::vector<int32>{1, 2147483647, 1, 1});
  EXPECT_EQ(Infer("[?,9223372036854775807,1,1];[4294967298,1,1,1]"),
            "[?,2147483648,1,1]");
  EXPECT_INFER_ERROR("overflows int64",
                     "[?,9223372036854775807,1,1];[8589934592,1,1,1]");
}

TEST_F(CommonShapeFnsTest, MaxPoolWithExplicitPadding) {
  auto pool = [this](const std::string& padding,
                     std::vector<int64> explicit_paddings) {
    Op("MaxPoolExplicit");
    Attr("padding", padding);
    Attr("ksize", std::vector<int32>{1, 2, 2, 1});
    Attr("strides", std::vector<int32>{1, 2, 2, 1});
    Attr("explicit_paddings", explicit_paddings);
  };
  pool("EXPLICIT", {0, 0, 1, 1, 0, 1, 0, 0});
  EXPECT_EQ(Infer("[1,4,4,3]"), "[1,3,2,3]");
  EXPECT_EQ(Infer("[?,4,?,3]"), "[?,3,?,3]");
  pool("VALID", {});
  EXPECT_EQ(Infer("[1,4,4,3]"), "[1,2,2,3]");
  pool("EXPLICIT", {0, 0, 1, 1});
  EXPECT_INFER_ERROR(
      "explicit_paddings attribute must contain 8 values, but got: 4",
      "[1,4,4,3]");
  pool("EXPLICIT", {0, 0, 1, 1, -1, 0, 0, 0});
  EXPECT_INFER_ERROR("but element 4 is -1", "[1,4,4,3]");
  pool("EXPLICIT", {0, 0, 1, 1, 0, 0, 0, 1});
  EXPECT_INFER_ERROR("Nonzero explicit padding in the batch or depth",
                     "[1,4,4,3]");
  pool("SAME", {0, 0, 1, 1, 0, 0, 0, 0});
  EXPECT_INFER_ERROR("explicit_paddings attribute must be empty", "[1,4,4,3]");
  // Padding as large as the window (a window could pool no input), huge
  // padding that would overflow among it.
  pool("EXPLICIT", {0, 0, 1, 1, 0, 2, 0, 0});
  EXPECT_INFER_ERROR("must be smaller than the window size 2", "[1,4,4,3]");
  pool("EXPLICIT", {0, 0, std::numeric_limits<int64>::max(), 1, 0, 0, 0, 0});
  EXPECT_INFER_ERROR("must be smaller than the window size", "[1,4,4,3]");
  pool("EXPLICIT", {0, 0, 0, 0, 0, 0, 0, 0});
  Attr("data_format", "NCHW");
  Attr("ksize", std::vector<int32>{1, 1, 2, 2});
  Attr("strides", std::vector<int32>{1, 1, 2, 2});
  EXPECT_EQ(Infer("[1,3,4,6]"), "[1,3,2,3]");
}

TEST_F(CommonShapeFnsTest, FusedBatchNorm) {
  Op("FusedBatchNorm");
  Attr("is_training", false);
  EXPECT_EQ(Infer("[2,4,4,3];[3];[3];[3];[3]"), "[2,4,4,3];[3];[3];[3];[3]");
  EXPECT_EQ(Infer("[2,4,4,?];[?];[?];[?];[3]"), "[2,4,4,3];[3];[3];[3];[3]");
  EXPECT_EQ(Infer("?;?;?;?;?"), "[?,?,?,?];[?];[?];[?];[?]");
  EXPECT_INFER_ERROR("Shape must be rank 4 but is rank 2", "[2,3];[3];[3];[3];[3]");
  EXPECT_INFER_ERROR("Dimensions must be equal, but are 3 and 2",
                     "[2,4,4,3];[3];[3];[3];[2]");
  // Training (factor 1 by default) reads only scale and offset.
  Op("FusedBatchNorm");
  EXPECT_EQ(Infer("[2,4,4,3];[3];[3];[0];[0]"), "[2,4,4,3];[3];[3];[3];[3]");
  Op("FusedBatchNorm");
  Attr("data_format", "NCHW");
  EXPECT_EQ(Infer("[2,3,4,5];[?];[3];[3];[3]"), "[2,3,4,5];[3];[3];[3];[3]");
  Attr("data_format", "NDHWC");
  EXPECT_EQ(Infer("[2,3,4,5,6];[6];[6];[6];[6]"),
            "[2,3,4,5,6];[6];[6];[6];[6]");
  EXPECT_INFER_ERROR("Shape must be rank 5 but is rank 4",
                     "[2,3,4,5];[3];[3];[3];[3]");
  Attr("data_format", "NCDHW");
  EXPECT_EQ(Infer("[2,3,4,5,6];[3];[3];[3];[3]"),
            "[2,3,4,5,6];[3];[3];[3];[3]");
  Attr("data_format", "NCHW_VECT_C");
  EXPECT_INFER_ERROR("Invalid data format string: NCHW_VECT_C",
                     "[2,3,4,5];[3];[3];[3];[3]");
  Op("FusedBatchNormTooFewOutputs");
  EXPECT_INFER_ERROR("needs at least 5 inputs and 5 outputs",
                     "[2,4,4,3];[3];[3];[3];[3]");
}

TEST_F(CommonShapeFnsTest, FusedBatchNormV3) {
  Op("FusedBatchNormV3");
  Attr("U", DT_FLOAT);
  Attr("is_training", false);
  EXPECT_EQ(Infer("[2,4,4,3];[3];[3];[3];[3]"), "[2,4,4,3];[3];[3];[3];[3];?");
  // A running-average factor makes training read mean and variance too.
  Attr("is_training", true);
  Attr("exponential_avg_factor", 0.5f);
  EXPECT_INFER_ERROR("Dimensions must be equal, but are 3 and 0",
                     "[2,4,4,3];[3];[3];[0];[0]");
  Attr("exponential_avg_factor", 1.0f);
  EXPECT_EQ(Infer("[2,4,4,3];[3];[3];[0];[0]"), "[2,4,4,3];[3];[3];[3];[3];?");
}

TEST_F(CommonShapeFnsTest, FusedBatchNormGrad) {
  Op("FusedBatchNormGrad");
  EXPECT_EQ(Infer("[2,4,4,3];[2,4,4,3];[3];[3];[3]"),
            "[2,4,4,3];[3];[3];[0];[0]");
  EXPECT_EQ(Infer("[2,4,4,?];[2,4,4,?];[?];[?];[3]"),
            "[2,4,4,3];[3];[3];[0];[0]");
  EXPECT_INFER_ERROR("Dimensions must be equal, but are 3 and 4",
                     "[2,4,4,3];[2,4,4,4];[3];[3];[3]");
  EXPECT_INFER_ERROR("Shape must be rank 1 but is rank 0",
                     "[2,4,4,3];[2,4,4,3];[3];[];[3]");
  Attr("data_format", "NCHW");
  EXPECT_EQ(Infer("[2,3,4,4];?;[3];[3];[3]"), "[2,3,4,4];[3];[3];[0];[0]");
}

class CommonShapeFnsPoolTest : public CommonShapeFnsTest {
 protected:
  void Pool(const char* op, const std::string& padding,
            std::vector<int32> ksize, std::vector<int32> strides) {
    Op(op);
    Attr("padding", padding);
    Attr("ksize", ksize);
    Attr("strides", strides);
  }
};

TEST_F(CommonShapeFnsPoolTest, MaxPool) {
  Pool("MaxPool", "VALID", {1, 2, 2, 1}, {1, 2, 2, 1});
  EXPECT_EQ(Infer("[1,4,4,3]"), "[1,2,2,3]");
  EXPECT_EQ(Infer("[?,5,?,3]"), "[?,2,?,3]");
  EXPECT_EQ(Infer("?"), "[?,?,?,?]");
  EXPECT_INFER_ERROR("Shape must be rank 4 but is rank 3", "[1,4,4]");
  EXPECT_INFER_ERROR("Negative dimension size caused by subtracting 2 from 1",
                     "[1,1,4,3]");
  Pool("MaxPool", "SAME", {1, 3, 3, 1}, {1, 2, 2, 1});
  EXPECT_EQ(Infer("[1,5,5,3]"), "[1,3,3,3]");
  Pool("MaxPool", "VALID", {1, 1, 2, 2}, {1, 1, 2, 2});
  Attr("data_format", "NCHW");
  EXPECT_EQ(Infer("[1,3,4,4]"), "[1,3,2,2]");
  // Pooling across channels.
  Pool("MaxPool", "VALID", {1, 1, 1, 3}, {1, 1, 1, 3});
  EXPECT_EQ(Infer("[1,4,4,6]"), "[1,4,4,2]");

  Pool("MaxPool", "VALID", {1, 2, 2, 1}, {1, 2, 2});
  EXPECT_INFER_ERROR(
      "MaxPool requires the stride attribute to contain 4 values, but got: 3",
      "[1,4,4,3]");
  Pool("MaxPool", "VALID", {1, 2, 2}, {1, 2, 2, 1});
  EXPECT_INFER_ERROR(
      "MaxPool requires the ksize attribute to contain 4 values, but got: 3",
      "[1,4,4,3]");
  Pool("MaxPool", "VALID", {1, 0, 2, 1}, {1, 2, 2, 1});
  EXPECT_INFER_ERROR("MaxPool requires ksize values to be >= 1", "[1,4,4,3]");
  Pool("MaxPool", "VALID", {1, 2, 2, 1}, {1, 0, 2, 1});
  EXPECT_INFER_ERROR("Stride must be > 0, but got 0", "[1,4,4,3]");
  Pool("MaxPool", "EXPLICIT", {1, 2, 2, 1}, {1, 2, 2, 1});
  EXPECT_INFER_ERROR("MaxPool does not support EXPLICIT padding", "[1,4,4,3]");
  Pool("MaxPool", "same", {1, 2, 2, 1}, {1, 2, 2, 1});
  EXPECT_INFER_ERROR("same is not an allowed padding type", "[1,4,4,3]");
  Pool("MaxPool", "SAME", {1, 2, 2, 1}, {1, 2, 2, 1});
  Attr("data_format", "NCHW_VECT_C");
  EXPECT_INFER_ERROR("Invalid data format string: NCHW_VECT_C", "[1,4,4,3]");
}

TEST_F(CommonShapeFnsPoolTest, AvgPool) {
  Pool("AvgPool", "VALID", {1, 2, 2, 1}, {1, 2, 2, 1});
  EXPECT_EQ(Infer("[1,4,4,3]"), "[1,2,2,3]");
  Pool("AvgPool", "SAME", {1, 3, 3, 1}, {1, 1, 1, 1});
  EXPECT_EQ(Infer("[?,5,5,?]"), "[?,5,5,?]");
  // AvgPool does not pool across channels.
  Pool("AvgPool", "VALID", {1, 1, 1, 3}, {1, 1, 1, 3});
  EXPECT_EQ(Infer("[1,4,4,6]"), "[1,4,4,6]");
  Pool("AvgPool", "VALID", {1, 1, 2, 2}, {1, 1, 2, 2});
  Attr("data_format", "NCHW");
  EXPECT_EQ(Infer("[1,3,4,4]"), "[1,3,2,2]");
  Pool("AvgPool", "VALID", {1, 2, 2, 1}, {1, 2, 2, 1, 1});
  EXPECT_INFER_ERROR(
      "AvgPool requires the stride attribute to contain 4 values, but got: 5",
      "[1,4,4,3]");
  Pool("AvgPool", "VALID", {1, 2, 2, 1, 1}, {1, 2, 2, 1});
  EXPECT_INFER_ERROR(
      "AvgPool requires the ksize attribute to contain 4 values, but got: 5",
      "[1,4,4,3]");
  Pool("AvgPool", "VALID", {1, -2, 2, 1}, {1, 2, 2, 1});
  EXPECT_INFER_ERROR("AvgPool requires ksize values to be >= 1", "[1,4,4,3]");
}

TEST_F(CommonShapeFnsTest, WindowedOutputSizeDirect) {
  Op("Identity");
  InferenceContext c(0, AttrSlice(node_), reg_->op_def,
                     std::vector<PartialTensorShape>{PartialTensorShape({7})},
                     {nullptr});
  OPKIT_ASSERT_OK(c.construction_status());
  DimensionHandle in = c.Dim(c.input(0), 0);
  DimensionHandle out;
  EXPECT_THAT(GetWindowedOutputSizeFromDims(&c, in, 2, 1, Padding::EXPLICIT,
                                            &out),
              StatusIs(error::INTERNAL));
  OPKIT_ASSERT_OK(
      GetWindowedOutputSizeFromDims(&c, in, 3, 2, Padding::VALID, &out));
  EXPECT_EQ(c.Value(out), 3);
  OPKIT_ASSERT_OK(GetWindowedOutputSizeFromDims(&c, in, c.UnknownDim(), 2,
                                                Padding::VALID, &out));
  EXPECT_FALSE(c.ValueKnown(out));
  OPKIT_ASSERT_OK(GetWindowedOutputSizeFromDimsV2(
      &c, in, c.MakeDim(3), 3, 1, Padding::EXPLICIT, 2, 1, &out));
  EXPECT_EQ(c.Value(out), 4);  // 7 + 2 + 1 padded, window 7 when dilated
  EXPECT_THAT(GetWindowedOutputSizeFromDimsV2(&c, in, 3, 1, 1,
                                              Padding::EXPLICIT, -1, 0, &out),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("nonnegative")));
  EXPECT_THAT(
      GetWindowedOutputSizeFromDims(&c, in, -2, 1, Padding::VALID, &out),
      StatusIs(error::INVALID_ARGUMENT, HasSubstr("Window size must be >= 0")));
  Padding p;
  EXPECT_THAT(GetPaddingFromString("valid", &p),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("valid is not an allowed padding type")));
  OPKIT_ASSERT_OK(GetPaddingFromString("EXPLICIT", &p));
  EXPECT_EQ(p, Padding::EXPLICIT);
}

}  // namespace
}  // namespace shape_inference
}  // namespace opkit
