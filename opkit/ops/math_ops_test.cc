// Shape functions of the math ops (opkit/ops/math_ops.cc), in TensorFlow's
// test syntax.
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/op/node_def_util.h"
#include "opkit/op/op_registry.h"
#include "opkit/tensor/tensor.h"
#include "opkit/shape/shape_inference_testutil.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace {

using shape_inference::ShapeInferenceTestOp;
using ::opkit::testing::IsOk;

TEST(MathOpsShapeTest, EveryOpIsRegistered) {
  for (const char* name :
       {"Add", "AddV2", "AddN", "Sub", "Mul", "RealDiv", "Div", "FloorDiv", "Maximum",
        "Minimum", "Pow", "SquaredDifference", "Neg", "Abs", "Square", "Sqrt", "Rsqrt",
        "Exp", "Log", "Tanh", "Sigmoid", "MatMul", "BatchMatMulV2", "Cast", "Equal",
        "NotEqual", "Less", "LessEqual", "Greater", "GreaterEqual", "LogicalAnd",
        "LogicalOr", "LogicalNot", "Select", "SelectV2", "Sum", "Mean", "Max", "Min",
        "Prod", "ArgMax", "ArgMin", "SigmoidGrad", "TanhGrad", "SqrtGrad", "RsqrtGrad",
        "ReciprocalGrad", "BroadcastGradientArgs", "UnsortedSegmentSum",
        "UnsortedSegmentProd", "UnsortedSegmentMax", "UnsortedSegmentMin"}) {
    const OpDef* def = nullptr;
    EXPECT_THAT(OpRegistry::Global()->LookUpOpDef(name, &def), IsOk()) << name;
  }
}

TEST(MathOpsShapeTest, UnaryOpsKeepTheShape) {
  for (const char* name : {"Neg", "Abs", "Square", "Sqrt", "Rsqrt", "Exp", "Log", "Tanh",
                           "Sigmoid", "LogicalNot"}) {
    SCOPED_TRACE(name);
    ShapeInferenceTestOp op(name);
    INFER_OK(op, "?", "in0");
    INFER_OK(op, "[]", "in0");
    INFER_OK(op, "[1,?,3]", "in0");
  }
}

TEST(MathOpsShapeTest, RoundingAndTrigonometryKeepTheShape) {
  for (const char* name : {"Floor", "Ceil", "Round", "Reciprocal", "Sin", "Cos"}) {
    SCOPED_TRACE(name);
    ShapeInferenceTestOp op(name);
    INFER_OK(op, "?", "in0");
    INFER_OK(op, "[]", "in0");
    INFER_OK(op, "[1,?,3]", "in0");
  }
}

TEST(MathOpsShapeTest, FloorModAndAtan2Broadcast) {
  for (const char* name : {"FloorMod", "Atan2"}) {
    SCOPED_TRACE(name);
    ShapeInferenceTestOp op(name);
    INFER_OK(op, "?;?", "?");
    INFER_OK(op, "[2,1];[3]", "[d0_0,d1_0]");
    INFER_OK(op, "[];[4,?]", "[d1_0,d1_1]");
    INFER_ERROR("Dimensions must be equal, but are 2 and 3", op, "[2];[3]");
  }
}

TEST(MathOpsShapeTest, CastKeepsTheShape) {
  ShapeInferenceTestOp op("Cast");
  AddNodeAttr("SrcT", DT_FLOAT, &op.node_def);
  AddNodeAttr("DstT", DT_INT32, &op.node_def);
  INFER_OK(op, "?", "in0");
  INFER_OK(op, "[2,?]", "in0");
}

TEST(MathOpsShapeTest, BinaryOpsBroadcast) {
  for (const char* name :
       {"Add", "AddV2", "Sub", "Mul", "RealDiv", "Div", "FloorDiv", "Maximum", "Minimum",
        "Pow", "SquaredDifference", "Less", "LessEqual", "Greater", "GreaterEqual",
        "LogicalAnd", "LogicalOr", "Equal", "NotEqual"}) {
    SCOPED_TRACE(name);
    ShapeInferenceTestOp op(name);
    INFER_OK(op, "?;?", "?");
    INFER_OK(op, "[1,2];?", "?");
    INFER_OK(op, "[2,1];[3]", "[d0_0,d1_0]");
    INFER_OK(op, "[];[4,?]", "[d1_0,d1_1]");
    INFER_OK(op, "[1,?];[5,1]", "[d1_0,d0_1]");
    INFER_OK(op, "[?,3];[2,3]", "[d1_0,d0_1|d1_1]");
    INFER_ERROR("Dimensions must be equal, but are 2 and 3", op, "[2];[3]");
    INFER_ERROR("Dimensions must be equal, but are 4 and 5", op, "[1,4];[5]");
  }
}

TEST(MathOpsShapeTest, EqualityWithoutIncompatibleShapeError) {
  for (const char* name : {"Equal", "NotEqual"}) {
    SCOPED_TRACE(name);
    ShapeInferenceTestOp op(name);
    AddNodeAttr("incompatible_shape_error", false, &op.node_def);
    INFER_OK(op, "[2];[3]", "[]");
    INFER_OK(op, "[?];[3]", "?");
    INFER_OK(op, "[2,1];[3]", "[d0_0,d1_0]");
  }
}

TEST(MathOpsShapeTest, AddNMergesEveryInput) {
  ShapeInferenceTestOp op("AddN");
  AddNodeAttr("N", 3, &op.node_def);
  AddNodeAttr("T", DT_FLOAT, &op.node_def);
  INFER_OK(op, "?;?;?", "in0|in1|in2");
  INFER_OK(op, "[1,?];[?,2];?", "[d0_0,d1_1]");
  INFER_OK(op, "[1,2];?;?", "in0");
  INFER_ERROR("Dimension 0 in both shapes must be equal, but are 1 and 2", op,
              "[1];[2];?");
  INFER_ERROR("From merging shape 0 with other shapes.", op, "[1];[2];?");
  INFER_ERROR("Shapes must be equal rank, but are 1 and 2", op, "[1];?;[1,2]");

  ShapeInferenceTestOp one("AddN");
  AddNodeAttr("N", 1, &one.node_def);
  AddNodeAttr("T", DT_INT32, &one.node_def);
  INFER_OK(one, "[3]", "in0");
}

TEST(MathOpsShapeTest, Select) {
  ShapeInferenceTestOp op("Select");
  // Unknown or scalar condition: the merged t / e.
  INFER_OK(op, "?;[2,?];[?,3]", "[d2_0|d1_0,d2_1|d1_1]");
  INFER_OK(op, "[];?;[2]", "in2");
  INFER_OK(op, "[];[2,3];?", "in1");
  // A vector condition picks rows.
  INFER_OK(op, "[2];[?,3];?", "in1");
  INFER_OK(op, "[?];[2,3];[2,3]", "in1|in2");
  // Otherwise the condition has the values' shape.
  INFER_OK(op, "[2,3];[?,3];[2,?]", "[d0_0|d2_0,d0_1|d1_1]");
  // Scalar values need a scalar condition.
  INFER_ERROR("Shapes must be equal rank, but are 0 and 1", op, "[2];[];[]");
  INFER_ERROR("must be equal", op, "[];[2];[3]");
  INFER_ERROR("Dimension 0 in both shapes must be equal, but are 3 and 2", op,
              "[3];[2,3];[2,3]");
  INFER_ERROR("Dimension 1 in both shapes must be equal, but are 3 and 2", op,
              "[2,2];[2,3];[2,3]");
  INFER_ERROR("Shapes must be equal rank, but are 2 and 3", op, "[2,3,4];[2,3];?");
}

TEST(MathOpsShapeTest, SelectV2Broadcasts) {
  ShapeInferenceTestOp op("SelectV2");
  INFER_OK(op, "?;[2];[2]", "?");
  INFER_OK(op, "[2,1];[1,3];[]", "[d0_0,d1_1]");
  INFER_OK(op, "[];[4];[1]", "[d1_0]");
  INFER_OK(op, "[3,1,1];[2,1];[1,5]", "[d0_0,d1_0,d2_1]");
  INFER_ERROR("Dimensions must be equal, but are 2 and 3", op, "[];[2];[3]");
  INFER_ERROR("Dimensions must be equal, but are 4 and 2", op, "[4];[2];[2]");
}

TEST(MathOpsShapeTest, ArgMaxAndArgMin) {
  for (const char* name : {"ArgMax", "ArgMin"}) {
    SCOPED_TRACE(name);
    ShapeInferenceTestOp op(name);
    INFER_OK(op, "?;?", "?");
    INFER_OK(op, "[];[]", "[]");
    INFER_OK(op, "[5];?", "[]");
    INFER_OK(op, "[2,3,4];[]", "[?,?]");
    INFER_ERROR("Shape must be rank 0 but is rank 1", op, "[2,3];[1]");

    Tensor dim(int32{1});
    op.input_tensors = {nullptr, &dim};
    INFER_OK(op, "[2,3,4];[]", "[d0_0,d0_2]");
    dim = Tensor(int32{-1});
    INFER_OK(op, "[2,3,4];[]", "[d0_0,d0_1]");
    Tensor dim64(int64{-3});
    op.input_tensors = {nullptr, &dim64};
    INFER_OK(op, "[2,3,4];[]", "[d0_1,d0_2]");
    dim = Tensor(int32{3});
    op.input_tensors = {nullptr, &dim};
    INFER_ERROR(
        "Dimension (3) must be in the range [-3, 3), where 3 is the number of "
        "dimensions in the input.",
        op, "[2,3,4];[]");
    dim = Tensor(int32{-4});
    INFER_ERROR("Dimension (-4) must be in the range [-3, 3)", op, "[2,3,4];[]");
  }
}

TEST(MathOpsShapeTest, Reductions) {
  for (const char* name : {"Sum", "Mean", "Max", "Min", "Prod"}) {
    SCOPED_TRACE(name);
    ShapeInferenceTestOp op(name);
    INFER_OK(op, "[2,3];?", "?");
    Tensor axes(DT_INT32, TensorShape({1}));
    axes.flat<int32>()(0) = -1;
    op.input_tensors = {nullptr, &axes};
    INFER_OK(op, "[2,3];[1]", "[d0_0]");
    axes.flat<int32>()(0) = 2;
    INFER_ERROR("Invalid reduction dimension 2 for input with 2 dimensions.", op,
                "[2,3];[1]");
    INFER_ERROR("Shape must be at most rank 1 but is rank 2", op, "[2,3];[1,1]");

    ShapeInferenceTestOp keep(name);
    AddNodeAttr("keep_dims", true, &keep.node_def);
    Tensor zero(DT_INT64, TensorShape({1}));
    zero.flat<int64>()(0) = 0;
    keep.input_tensors = {nullptr, &zero};
    INFER_OK(keep, "[2,3];[1]", "[1,d0_1]");
  }
}

TEST(MathOpsShapeTest, UnaryGradsMergeYAndDy) {
  for (const char* name :
       {"SigmoidGrad", "TanhGrad", "SqrtGrad", "RsqrtGrad", "ReciprocalGrad"}) {
    SCOPED_TRACE(name);
    ShapeInferenceTestOp op(name);
    INFER_OK(op, "?;?", "in0|in1");
    INFER_OK(op, "[1,?];[?,2]", "[d0_0,d1_1]");
    INFER_ERROR("Dimension 1 in both shapes must be equal, but are 3 and 2", op,
                "[2,3];[2,2]");
  }
}

TEST(MathOpsShapeTest, BroadcastGradientArgs) {
  ShapeInferenceTestOp op("BroadcastGradientArgs");
  INFER_OK(op, "?;?", "[?];[?]");
  INFER_OK(op, "[3];[2]", "[?];[?]");
  INFER_ERROR("Shape must be rank 1 but is rank 2", op, "[3,1];[2]");
}

TEST(MathOpsShapeTest, UnsortedSegmentReductions) {
  for (const char* name : {"UnsortedSegmentSum", "UnsortedSegmentProd", "UnsortedSegmentMax",
                           "UnsortedSegmentMin"}) {
    SCOPED_TRACE(name);
    ShapeInferenceTestOp op(name);
    INFER_OK(op, "?;?;?", "?");
    INFER_OK(op, "[3,4,5];[3];?", "[?,d0_1,d0_2]");
    INFER_OK(op, "[3,4,5];[?,4];[]", "[?,d0_2]");
    INFER_ERROR("Shape must be rank 0 but is rank 1", op, "[3,4];[3];[1]");
    INFER_ERROR("Dimensions must be equal, but are 3 and 2", op, "[3,4];[2];[]");
    Tensor num(int64{7});
    op.input_tensors = {nullptr, nullptr, &num};
    INFER_OK(op, "[3,4,5];[3,4];[]", "[7,d0_2]");
  }
}

TEST(MathOpsShapeTest, BatchMatMulV2) {
  ShapeInferenceTestOp op("BatchMatMulV2");
  INFER_OK(op, "?;?", "?");
  INFER_OK(op, "[3,4];[4,5]", "[d0_0,d1_1]");
  INFER_OK(op, "[2,1,3,4];[5,4,6]", "[d0_0,d1_0,d0_2,d1_2]");
  INFER_OK(op, "[1,3,4];[7,4,6]", "[d1_0,d0_1,d1_2]");
  INFER_ERROR("Shape must be at least rank 2 but is rank 1", op, "[3];[3,4]");
  INFER_ERROR("Shape must be at least rank 2 but is rank 1", op, "[3,4];[4]");
  INFER_ERROR("Dimensions must be equal, but are 3 and 4", op, "[2,3];[4,5]");
  INFER_ERROR("Dimensions must be equal, but are 2 and 3", op, "[2,4,5];[3,5,6]");

  AddNodeAttr("adj_x", true, &op.node_def);
  INFER_OK(op, "[4,3];[4,5]", "[d0_1,d1_1]");
  AddNodeAttr("adj_y", true, &op.node_def);
  INFER_OK(op, "[4,3];[5,4]", "[d0_1,d1_0]");
}

}  // namespace
}  // namespace opkit
