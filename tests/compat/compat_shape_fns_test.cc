// TensorFlow's shape functions through compat/, tested the way TensorFlow
// tests them: ops registered with REGISTER_OP in namespace tensorflow, and
// ShapeInferenceTestOp with INFER_OK / INFER_ERROR from
// tensorflow/core/framework/shape_inference_testutil.h. Expected shapes and
// messages are TensorFlow's for the same ops and inputs.
#include <vector>

#include "tensorflow/core/framework/common_shape_fns.h"
#include "tensorflow/core/framework/node_def_util.h"
#include "tensorflow/core/framework/op.h"
#include "tensorflow/core/framework/shape_inference.h"
#include "tensorflow/core/framework/shape_inference_testutil.h"
#include "tensorflow/core/framework/tensor.h"
#include "tensorflow/core/framework/tensor_shape.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tensorflow {

using shape_inference::DimensionHandle;
using shape_inference::InferenceContext;
using shape_inference::ShapeHandle;

REGISTER_OP("CompatShapeConv3D")
    .Input("input: T")
    .Input("filter: T")
    .Output("output: T")
    .Attr("T: {float, double}")
    .Attr("strides: list(int) >= 5")
    .Attr("padding: {'SAME', 'VALID'}")
    .Attr("data_format: {'NDHWC', 'NCDHW'} = 'NDHWC'")
    .Attr("dilations: list(int) = [1, 1, 1, 1, 1]")
    .SetShapeFn(shape_inference::Conv3DShape);

REGISTER_OP("CompatShapeAvgPool3D")
    .Input("input: T")
    .Output("output: T")
    .Attr("ksize: list(int) >= 5")
    .Attr("strides: list(int) >= 5")
    .Attr("padding: {'SAME', 'VALID'}")
    .Attr("data_format: {'NDHWC', 'NCDHW'} = 'NDHWC'")
    .Attr("T: {float, double}")
    .SetShapeFn(shape_inference::Pool3DShape);

REGISTER_OP("CompatShapeDepthwise")
    .Input("input: T")
    .Input("filter: T")
    .Output("output: T")
    .Attr("T: {float, double}")
    .Attr("strides: list(int)")
    .Attr("padding: {'SAME', 'VALID'}")
    .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .Attr("dilations: list(int) = [1, 1, 1, 1]")
    .SetShapeFn(shape_inference::DepthwiseConv2DNativeShape);

REGISTER_OP("CompatShapeSlice")
    .Input("input: T")
    .Input("begin: Index")
    .Input("size: Index")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Index: {int32,int64}")
    .SetShapeFn(shape_inference::SliceShape);

REGISTER_OP("CompatShapeGatherNd")
    .Input("params: Tparams")
    .Input("indices: Tindices")
    .Output("output: Tparams")
    .Attr("Tparams: type")
    .Attr("Tindices: {int32,int64}")
    .SetShapeFn(shape_inference::GatherNdShape);

REGISTER_OP("CompatShapeGeluGrad")
    .Input("gradients: T")
    .Input("features: T")
    .Output("backprops: T")
    .Attr("T: {float, double}")
    .SetShapeFn(shape_inference::MergeBothInputsShapeFn);

// Output 1 is the broadcast; output 0 a scalar count.
REGISTER_OP("CompatShapeBroadcastSecond")
    .Input("x: float")
    .Input("y: float")
    .Output("count: int32")
    .Output("z: float")
    .SetShapeFn([](InferenceContext* c) {
      c->set_output(0, c->Scalar());
      return shape_inference::BroadcastBinaryOpOutputShapeFn(c, 1);
    });

REGISTER_OP("CompatShapeSparseSum")
    .Input("input_indices: int64")
    .Input("input_values: T")
    .Input("input_shape: int64")
    .Input("reduction_axes: int32")
    .Attr("keep_dims: bool = False")
    .Output("output: T")
    .Attr("T: numbertype")
    .SetShapeFn(shape_inference::SparseReduceShapeFn);

REGISTER_OP("CompatShapeRandom")
    .Input("shape: T")
    .Output("output: float")
    .Attr("T: {int32, int64}")
    .SetShapeFn(shape_inference::RandomShape);

// A shape function using the InferenceContext members op libraries call:
// inputs by name, Subshape with a stride, ReplaceDim, Concatenate, dimension
// arithmetic, and DebugString in its own error message.
REGISTER_OP("CompatShapeEveryOther")
    .Input("x: float")
    .Input("extra: N * float")
    .Attr("N: int >= 1")
    .Output("y: float")
    .SetShapeFn([](InferenceContext* c) {
      std::vector<ShapeHandle> extras;
      TF_RETURN_IF_ERROR(c->input("extra", &extras));
      ShapeHandle x;
      TF_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 2, &x));
      if (c->Rank(x) > 6) {
        return errors::InvalidArgument("Too many dimensions: ",
                                       c->DebugString(x), " in ",
                                       c->DebugString());
      }
      ShapeHandle every_other;
      TF_RETURN_IF_ERROR(c->Subshape(x, 0, -1, 2, &every_other));
      DimensionHandle doubled;
      TF_RETURN_IF_ERROR(c->Multiply(c->Dim(x, -1), 2, &doubled));
      ShapeHandle tail = c->Vector(doubled);
      ShapeHandle out;
      TF_RETURN_IF_ERROR(c->Concatenate(every_other, tail, &out));
      TF_RETURN_IF_ERROR(
          c->ReplaceDim(out, 0, c->MakeDim(static_cast<int64>(extras.size())),
                        &out));
      c->set_output(0, out);
      return Status::OK();
    });

namespace {

TEST(CompatShapeFnsTest, Conv3D) {
  ShapeInferenceTestOp op("CompatShapeConv3D");
  AddNodeAttr("strides", std::vector<int32>{1, 2, 2, 2, 1}, &op.node_def);
  AddNodeAttr("padding", "SAME", &op.node_def);
  INFER_OK(op, "[1,5,6,7,3];[3,3,3,3,4]", "[d0_0,3,3,4,d1_4]");
  INFER_ERROR("Shape must be rank 5 but is rank 4", op, "[1,5,6,7];?");
}

TEST(CompatShapeFnsTest, Pool3D) {
  ShapeInferenceTestOp op("CompatShapeAvgPool3D");
  AddNodeAttr("ksize", std::vector<int32>{1, 2, 2, 2, 1}, &op.node_def);
  AddNodeAttr("strides", std::vector<int32>{1, 2, 2, 2, 1}, &op.node_def);
  AddNodeAttr("padding", "VALID", &op.node_def);
  INFER_OK(op, "[2,4,6,8,3]", "[d0_0,2,3,4,d0_4]");
}

TEST(CompatShapeFnsTest, DepthwiseConv2DNative) {
  ShapeInferenceTestOp op("CompatShapeDepthwise");
  AddNodeAttr("strides", std::vector<int32>{1, 1, 1, 1}, &op.node_def);
  AddNodeAttr("padding", "VALID", &op.node_def);
  INFER_OK(op, "[1,5,5,3];[2,2,3,2]", "[d0_0,4,4,6]");
  INFER_ERROR("Dimensions must be equal, but are 3 and 4", op,
              "[1,5,5,3];[2,2,4,2]");
}

TEST(CompatShapeFnsTest, SliceWithConstantSizes) {
  ShapeInferenceTestOp op("CompatShapeSlice");
  Tensor begin(DT_INT64, TensorShape({2}));
  begin.flat<int64>().setValues({1, 0});
  Tensor size(DT_INT64, TensorShape({2}));
  size.flat<int64>().setValues({-1, 2});
  op.input_tensors = {nullptr, &begin, &size};
  INFER_OK(op, "[4,5];[2];[2]", "[3,2]");
}

TEST(CompatShapeFnsTest, GatherNd) {
  ShapeInferenceTestOp op("CompatShapeGatherNd");
  INFER_OK(op, "[4,5,6];[7,1]", "[d1_0,d0_1,d0_2]");
  INFER_ERROR("indices.shape[-1] must be <= params.rank", op, "[4];[7,2]");
}

TEST(CompatShapeFnsTest, MergeBothInputs) {
  ShapeInferenceTestOp op("CompatShapeGeluGrad");
  INFER_OK(op, "[?,3];[2,?]", "[d1_0,d0_1]");
  INFER_ERROR("Dimension 1 in both shapes must be equal, but are 3 and 4", op,
              "[2,3];[2,4]");
}

TEST(CompatShapeFnsTest, BroadcastIntoSecondOutput) {
  ShapeInferenceTestOp op("CompatShapeBroadcastSecond");
  INFER_OK(op, "[2,1];[3]", "[];[d0_0,d1_0]");
  INFER_ERROR("Dimensions must be equal, but are 2 and 3", op, "[2];[3]");
}

TEST(CompatShapeFnsTest, SparseReduce) {
  ShapeInferenceTestOp op("CompatShapeSparseSum");
  AddNodeAttr("keep_dims", true, &op.node_def);
  Tensor shape(DT_INT64, TensorShape({2}));
  shape.flat<int64>().setValues({7, 9});
  Tensor axes(DT_INT32, TensorShape({1}));
  axes.flat<int32>().setValues({0});
  op.input_tensors = {nullptr, nullptr, &shape, &axes};
  INFER_OK(op, "[?,2];[?];[2];[1]", "[1,9]");
}

TEST(CompatShapeFnsTest, RandomShape) {
  ShapeInferenceTestOp op("CompatShapeRandom");
  Tensor shape(DT_INT32, TensorShape({3}));
  shape.flat<int32>().setValues({4, 1, 2});
  op.input_tensors = {&shape};
  INFER_OK(op, "[3]", "[4,1,2]");
}

TEST(CompatShapeFnsTest, InferenceContextMembersOpLibrariesUse) {
  ShapeInferenceTestOp op("CompatShapeEveryOther");
  AddNodeAttr("N", 2, &op.node_def);
  // x = [a,b,c,d]: dims 0 and 2, then 2*d; dim 0 replaced by N.
  INFER_OK(op, "[5,6,7,8];?;?", "[2,d0_2,16]");
  INFER_ERROR("Too many dimensions: [1,1,1,1,1,1,1] in InferenceContext for "
              "node: ",
              op, "[1,1,1,1,1,1,1];?;?");
}

}  // namespace
}  // namespace tensorflow
