// Tests, in TensorFlow's INFER_OK / INFER_ERROR syntax, of the convolution
// and pooling shape functions beyond Conv2D/MaxPool/AvgPool: Conv3D,
// Pool3D, DepthwiseConv2DNative, Conv2DBackpropInput, MaxPoolV2 and the
// pooling gradients. Expected shapes are what TensorFlow infers for the same
// ops, attrs and inputs.
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "opkit/op/node_def_util.h"
#include "opkit/op/op_def_builder.h"
#include "opkit/op/op_registry.h"
#include "opkit/shape/common_shape_fns.h"
#include "opkit/shape/shape_inference_testutil.h"
#include "opkit/shape/testing/common_shape_fns_test_fixture.h"
#include "opkit/tensor/tensor.h"

namespace opkit {
namespace shape_inference {
namespace {

using shape_test::AddTestOp;
using shape_test::Int32s;
using shape_test::TestOpIn;

// The ops, declared as TensorFlow declares them (nn_ops.cc).
const OpRegistry& NnOps() {
  static OpRegistry* registry = [] {
    auto* r = new OpRegistry;
    AddTestOp(r, std::move(OpDefBuilder("Conv3D")
                               .Input("input: T")
                               .Input("filter: T")
                               .Output("output: T")
                               .Attr("T: {half, float, double}")
                               .Attr("strides: list(int) >= 5")
                               .Attr("padding: {'SAME', 'VALID'}")
                               .Attr("data_format: {'NDHWC', 'NCDHW'} = 'NDHWC'")
                               .Attr("dilations: list(int) = [1, 1, 1, 1, 1]")
                               .SetShapeFn(Conv3DShape)));
    AddTestOp(r, std::move(OpDefBuilder("MaxPool3D")
                               .Input("input: T")
                               .Output("output: T")
                               .Attr("ksize: list(int) >= 5")
                               .Attr("strides: list(int) >= 5")
                               .Attr("padding: {'SAME', 'VALID'}")
                               .Attr("data_format: {'NDHWC', 'NCDHW'} = 'NDHWC'")
                               .Attr("T: {half, float}")
                               .SetShapeFn(Pool3DShape)));
    AddTestOp(r, std::move(OpDefBuilder("MaxPool3DGrad")
                               .Input("orig_input: TInput")
                               .Input("orig_output: TInput")
                               .Input("grad: T")
                               .Output("output: T")
                               .Attr("ksize: list(int) >= 5")
                               .Attr("strides: list(int) >= 5")
                               .Attr("padding: {'SAME', 'VALID'}")
                               .Attr("T: {half, float} = DT_FLOAT")
                               .Attr("TInput: {half, float} = DT_FLOAT")
                               .SetShapeFn(MaxPool3DGradShape)));
    AddTestOp(r, std::move(OpDefBuilder("AvgPool3DGrad")
                               .Input("orig_input_shape: int32")
                               .Input("grad: T")
                               .Output("output: T")
                               .Attr("T: {half, float}")
                               .SetShapeFn(AvgPool3DGradShape)));
    AddTestOp(r, std::move(OpDefBuilder("AvgPoolGrad")
                               .Input("orig_input_shape: int32")
                               .Input("grad: T")
                               .Output("output: T")
                               .Attr("T: {half, float}")
                               .SetShapeFn(AvgPoolGradShape)));
    AddTestOp(r, std::move(OpDefBuilder("MaxPoolGrad")
                               .Input("orig_input: T")
                               .Input("orig_output: T")
                               .Input("grad: T")
                               .Output("output: T")
                               .Attr("T: realnumbertype = DT_FLOAT")
                               .SetShapeFn(MaxPoolGradShape)));
    for (bool explicit_padding : {false, true}) {
      OpDefBuilder b(explicit_padding ? "DepthwiseConv2dNative"
                                      : "DepthwiseNoExplicit");
      b.Input("input: T")
          .Input("filter: T")
          .Output("output: T")
          .Attr("T: {half, float, double}")
          .Attr("strides: list(int)")
          .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
          .Attr("explicit_paddings: list(int) = []")
          .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
          .Attr("dilations: list(int) = [1, 1, 1, 1]");
      b.SetShapeFn(explicit_padding
                       ? DepthwiseConv2DNativeShapeWithExplicitPadding
                       : DepthwiseConv2DNativeShape);
      AddTestOp(r, std::move(b));
    }
    AddTestOp(r, std::move(OpDefBuilder("Conv2DBackpropInput")
                               .Input("input_sizes: int32")
                               .Input("filter: T")
                               .Input("out_backprop: T")
                               .Output("output: T")
                               .Attr("T: {half, float, double}")
                               .Attr("strides: list(int)")
                               .Attr("padding: {'SAME', 'VALID'}")
                               .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
                               .SetShapeFn(Conv2DBackpropInputShape)));
    AddTestOp(r, std::move(OpDefBuilder("MaxPoolV2")
                               .Input("input: T")
                               .Input("ksize: int32")
                               .Input("strides: int32")
                               .Output("output: T")
                               .Attr("T: {half, float} = DT_FLOAT")
                               .Attr("padding: {'SAME', 'VALID'}")
                               .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
                               .SetShapeFn([](InferenceContext* c) {
                                 return MaxPoolV2Shape(c, 3);
                               })));
    // MaxPool's own declaration with MaxPoolV2Shape: sizes from attrs.
    AddTestOp(r, std::move(OpDefBuilder("MaxPoolAttrs")
                               .Input("input: float")
                               .Output("output: float")
                               .Attr("ksize: list(int) >= 4")
                               .Attr("strides: list(int) >= 4")
                               .Attr("padding: {'SAME', 'VALID'}")
                               .SetShapeFn([](InferenceContext* c) {
                                 return MaxPoolV2Shape(c, 3);
                               })));
    return r;
  }();
  return *registry;
}

ShapeInferenceTestOp Op(const char* name) { return TestOpIn(NnOps(), name); }

TEST(Conv3DShapeTest, OutputSizes) {
  ShapeInferenceTestOp op = Op("Conv3D");
  AddNodeAttr("strides", std::vector<int32>{1, 1, 1, 1, 1}, &op.node_def);
  AddNodeAttr("padding", "VALID", &op.node_def);
  INFER_OK(op, "[1,5,6,7,3];[2,2,2,3,4]", "[d0_0,4,5,6,d1_4]");
  // A 1x1x1 window with stride 1 keeps the input's dimensions.
  INFER_OK(op, "[1,5,6,7,3];[1,1,1,3,4]", "[d0_0,d0_1,d0_2,d0_3,d1_4]");
  INFER_OK(op, "?;?", "[?,?,?,?,?]");
  INFER_ERROR("Shape must be rank 5 but is rank 4", op, "[1,5,6,7];[1,1,1,3,4]");
  INFER_ERROR(
      "Depth of input (10) is not a multiple of input depth of filter (3)", op,
      "[1,5,5,5,10];[1,1,1,3,4]");
  INFER_ERROR("Depth of output (5) is not a multiple of the number of groups "
              "(2)",
              op, "[1,5,5,5,6];[1,1,1,3,5]");
  INFER_ERROR("Negative dimension size caused by subtracting 3 from 2", op,
              "[1,2,5,5,3];[3,1,1,3,4]");

  ShapeInferenceTestOp same = Op("Conv3D");
  AddNodeAttr("strides", std::vector<int32>{1, 2, 2, 2, 1}, &same.node_def);
  AddNodeAttr("padding", "SAME", &same.node_def);
  INFER_OK(same, "[1,5,6,7,3];[3,3,3,3,4]", "[d0_0,3,3,4,d1_4]");

  ShapeInferenceTestOp ncdhw = Op("Conv3D");
  AddNodeAttr("strides", std::vector<int32>{1, 1, 1, 1, 1}, &ncdhw.node_def);
  AddNodeAttr("padding", "VALID", &ncdhw.node_def);
  AddNodeAttr("data_format", "NCDHW", &ncdhw.node_def);
  INFER_OK(ncdhw, "[1,3,5,6,7];[2,2,2,3,4]", "[d0_0,d1_4,4,5,6]");

  ShapeInferenceTestOp bad = Op("Conv3D");
  AddNodeAttr("strides", std::vector<int32>{1, 1, 1, 1}, &bad.node_def);
  AddNodeAttr("padding", "VALID", &bad.node_def);
  INFER_ERROR("Conv3D requires the stride attribute to contain 5 values, but "
              "got: 4",
              bad, "[1,5,6,7,3];[2,2,2,3,4]");
}

TEST(Pool3DShapeTest, OutputSizes) {
  ShapeInferenceTestOp op = Op("MaxPool3D");
  AddNodeAttr("ksize", std::vector<int32>{1, 2, 2, 2, 1}, &op.node_def);
  AddNodeAttr("strides", std::vector<int32>{1, 2, 2, 2, 1}, &op.node_def);
  AddNodeAttr("padding", "VALID", &op.node_def);
  INFER_OK(op, "[2,4,6,8,3]", "[d0_0,2,3,4,d0_4]");
  INFER_OK(op, "?", "[?,?,?,?,?]");
  INFER_ERROR("Shape must be rank 5 but is rank 4", op, "[2,4,6,8]");

  ShapeInferenceTestOp same = Op("MaxPool3D");
  AddNodeAttr("ksize", std::vector<int32>{1, 3, 3, 3, 1}, &same.node_def);
  AddNodeAttr("strides", std::vector<int32>{1, 2, 2, 2, 1}, &same.node_def);
  AddNodeAttr("padding", "SAME", &same.node_def);
  INFER_OK(same, "[2,5,5,5,3]", "[d0_0,3,3,3,d0_4]");

  ShapeInferenceTestOp ncdhw = Op("MaxPool3D");
  AddNodeAttr("ksize", std::vector<int32>{1, 1, 2, 2, 2}, &ncdhw.node_def);
  AddNodeAttr("strides", std::vector<int32>{1, 1, 2, 2, 2}, &ncdhw.node_def);
  AddNodeAttr("padding", "VALID", &ncdhw.node_def);
  AddNodeAttr("data_format", "NCDHW", &ncdhw.node_def);
  INFER_OK(ncdhw, "[2,3,4,6,8]", "[d0_0,d0_1,2,3,4]");

  ShapeInferenceTestOp bad = Op("MaxPool3D");
  AddNodeAttr("ksize", std::vector<int32>{1, 2, 2, 1}, &bad.node_def);
  AddNodeAttr("strides", std::vector<int32>{1, 2, 2, 2, 1}, &bad.node_def);
  AddNodeAttr("padding", "VALID", &bad.node_def);
  INFER_ERROR("Pool3D requires the ksize attribute to contain 5 values, but "
              "got: 4",
              bad, "[2,4,6,8,3]");
}

TEST(PoolGradShapeTest, MaxPoolGradsKeepTheOriginalInput) {
  ShapeInferenceTestOp grad3d = Op("MaxPool3DGrad");
  AddNodeAttr("ksize", std::vector<int32>{1, 2, 2, 2, 1}, &grad3d.node_def);
  AddNodeAttr("strides", std::vector<int32>{1, 2, 2, 2, 1}, &grad3d.node_def);
  AddNodeAttr("padding", "VALID", &grad3d.node_def);
  INFER_OK(grad3d, "[1,2,3,4,5];?;?", "in0");
  INFER_ERROR("Shape must be rank 5 but is rank 4", grad3d, "[1,2,3,4];?;?");

  ShapeInferenceTestOp grad = Op("MaxPoolGrad");
  INFER_OK(grad, "[1,2,3,4];?;?", "in0");
  INFER_ERROR("Shape must be rank 4 but is rank 5", grad, "[1,2,3,4,5];?;?");
}

TEST(PoolGradShapeTest, AvgPoolGradsReadTheShapeInput) {
  Tensor shape5 = Int32s({1, 2, 3, 4, 5});
  ShapeInferenceTestOp grad3d = Op("AvgPool3DGrad");
  grad3d.input_tensors = {&shape5, nullptr};
  INFER_OK(grad3d, "[5];?", "[1,2,3,4,5]");
  grad3d.input_tensors.clear();
  INFER_OK(grad3d, "[5];?", "[?,?,?,?,?]");
  INFER_ERROR("Shape must be rank 5 but is rank 4", grad3d, "[4];?");

  Tensor shape4 = Int32s({1, 6, 6, 3});
  ShapeInferenceTestOp grad = Op("AvgPoolGrad");
  grad.input_tensors = {&shape4, nullptr};
  INFER_OK(grad, "[4];?", "[1,6,6,3]");
  grad.input_tensors.clear();
  INFER_ERROR("Shape must be rank 4 but is rank 3", grad, "[3];?");
}

TEST(DepthwiseConv2DNativeShapeTest, OutputChannelsAreInputTimesMultiplier) {
  ShapeInferenceTestOp op = Op("DepthwiseConv2dNative");
  AddNodeAttr("strides", std::vector<int32>{1, 1, 1, 1}, &op.node_def);
  AddNodeAttr("padding", "VALID", &op.node_def);
  INFER_OK(op, "[1,5,5,3];[2,2,3,2]", "[d0_0,4,4,6]");
  // A multiplier of 1 keeps the (merged) input channel dimension.
  INFER_OK(op, "[1,5,5,3];[2,2,3,1]", "[d0_0,4,4,d0_3]");
  INFER_OK(op, "[1,5,5,?];[2,2,3,1]", "[d0_0,4,4,d1_2]");
  INFER_ERROR("Dimensions must be equal, but are 3 and 4", op,
              "[1,5,5,3];[2,2,4,2]");
  INFER_ERROR("Shape must be rank 4 but is rank 3", op, "[1,5,5];[2,2,3,2]");

  ShapeInferenceTestOp nchw = Op("DepthwiseConv2dNative");
  AddNodeAttr("strides", std::vector<int32>{1, 1, 1, 1}, &nchw.node_def);
  AddNodeAttr("padding", "VALID", &nchw.node_def);
  AddNodeAttr("data_format", "NCHW", &nchw.node_def);
  INFER_OK(nchw, "[1,3,5,5];[2,2,3,2]", "[d0_0,6,4,4]");

  ShapeInferenceTestOp strided = Op("DepthwiseConv2dNative");
  AddNodeAttr("strides", std::vector<int32>{1, 2, 2, 1}, &strided.node_def);
  AddNodeAttr("padding", "SAME", &strided.node_def);
  INFER_OK(strided, "[1,5,6,3];[3,3,3,2]", "[d0_0,3,3,6]");
}

TEST(DepthwiseConv2DNativeShapeTest, ExplicitPadding) {
  ShapeInferenceTestOp op = Op("DepthwiseConv2dNative");
  AddNodeAttr("strides", std::vector<int32>{1, 1, 1, 1}, &op.node_def);
  AddNodeAttr("padding", "EXPLICIT", &op.node_def);
  AddNodeAttr("explicit_paddings", std::vector<int64>{0, 0, 1, 1, 2, 2, 0, 0},
              &op.node_def);
  INFER_OK(op, "[1,5,5,3];[3,3,3,1]", "[d0_0,5,7,d0_3]");

  ShapeInferenceTestOp bad = Op("DepthwiseConv2dNative");
  AddNodeAttr("strides", std::vector<int32>{1, 1, 1, 1}, &bad.node_def);
  AddNodeAttr("padding", "EXPLICIT", &bad.node_def);
  AddNodeAttr("explicit_paddings", std::vector<int64>{0, 0, 1, 1},
              &bad.node_def);
  INFER_ERROR("explicit_paddings attribute must contain 8 values, but got: 4",
              bad, "[1,5,5,3];[3,3,3,1]");

  ShapeInferenceTestOp unsupported = Op("DepthwiseNoExplicit");
  AddNodeAttr("strides", std::vector<int32>{1, 1, 1, 1}, &unsupported.node_def);
  AddNodeAttr("padding", "EXPLICIT", &unsupported.node_def);
  INFER_ERROR("does not support EXPLICIT padding", unsupported,
              "[1,5,5,3];[3,3,3,1]");
}

TEST(Conv2DBackpropInputShapeTest, OutputIsInputSizes) {
  ShapeInferenceTestOp op = Op("Conv2DBackpropInput");
  AddNodeAttr("strides", std::vector<int32>{1, 1, 1, 1}, &op.node_def);
  AddNodeAttr("padding", "VALID", &op.node_def);
  // The batch comes from out_backprop, the rest from input_sizes.
  Tensor sizes4 = Int32s({1, 5, 5, 3});
  op.input_tensors = {&sizes4, nullptr, nullptr};
  INFER_OK(op, "[4];[2,2,3,4];[1,4,4,4]", "[d2_0,5,5,3]");
  INFER_ERROR("Dimensions must be equal, but are 5 and 4", op,
              "[4];[2,2,3,4];[1,4,4,5]");
  Tensor wrong_batch = Int32s({2, 5, 5, 3});
  op.input_tensors = {&wrong_batch, nullptr, nullptr};
  INFER_ERROR("Dimensions must be equal, but are 2 and 1", op,
              "[4];[2,2,3,4];[1,4,4,4]");
  // Two values: rows and columns; the channels are the filter's.
  Tensor sizes2 = Int32s({5, 5});
  op.input_tensors = {&sizes2, nullptr, nullptr};
  INFER_OK(op, "[2];[2,2,3,4];[1,4,4,4]", "[d2_0,5,5,d1_2]");
  Tensor sizes3 = Int32s({5, 5, 3});
  op.input_tensors = {&sizes3, nullptr, nullptr};
  INFER_ERROR("Conv2DBackpropInput requires input_sizes to contain 4 values "
              "or 2 values, but got: 3",
              op, "[3];[2,2,3,4];[1,4,4,4]");
  op.input_tensors.clear();
  INFER_OK(op, "[4];[2,2,3,4];[1,4,4,4]", "[d2_0,?,?,?]");
}

TEST(MaxPoolV2ShapeTest, SizesFromInputsOrAttrs) {
  ShapeInferenceTestOp op = Op("MaxPoolV2");
  AddNodeAttr("padding", "VALID", &op.node_def);
  Tensor ksize = Int32s({1, 2, 2, 1});
  Tensor strides = Int32s({1, 2, 2, 1});
  op.input_tensors = {nullptr, &ksize, &strides};
  INFER_OK(op, "[1,4,6,3];[4];[4]", "[d0_0,2,3,d0_3]");
  INFER_ERROR("Shape must be rank 1 but is rank 2", op, "[1,4,6,3];[4,1];[4]");
  INFER_ERROR("Dimension must be 4 but is 3", op, "[1,4,6,3];[3];[4]");
  // Sizes not known: nothing is known of the output.
  op.input_tensors.clear();
  INFER_OK(op, "[1,4,6,3];[4];[4]", "?");

  ShapeInferenceTestOp attrs = Op("MaxPoolAttrs");
  AddNodeAttr("ksize", std::vector<int32>{1, 2, 2, 1}, &attrs.node_def);
  AddNodeAttr("strides", std::vector<int32>{1, 1, 1, 1}, &attrs.node_def);
  AddNodeAttr("padding", "VALID", &attrs.node_def);
  INFER_OK(attrs, "[1,4,6,3]", "[d0_0,3,5,d0_3]");
}

}  // namespace
}  // namespace shape_inference
}  // namespace opkit
