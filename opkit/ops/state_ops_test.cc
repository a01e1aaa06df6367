// Shape functions of VariableV2, Assign, AssignAdd, AssignSub.
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/op/node_def_util.h"
#include "opkit/tensor/tensor_shape.h"
#include "opkit/shape/shape_inference_testutil.h"

namespace opkit {
namespace {

using shape_inference::ShapeInferenceTestOp;

TEST(StateOpsShapeTest, VariableV2TakesItsShapeAttr) {
  ShapeInferenceTestOp op("VariableV2");
  AddNodeAttr("dtype", DT_FLOAT, &op.node_def);
  AddNodeAttr("shape", TensorShape({2, 3}), &op.node_def);
  INFER_OK(op, "", "[2,3]");
  ShapeInferenceTestOp partial("VariableV2");
  AddNodeAttr("dtype", DT_FLOAT, &partial.node_def);
  AddNodeAttr("shape", PartialTensorShape({-1, 3}), &partial.node_def);
  INFER_OK(partial, "", "[?,3]");
}

TEST(StateOpsShapeTest, Assign) {
  ShapeInferenceTestOp op("Assign");
  AddNodeAttr("T", DT_FLOAT, &op.node_def);
  INFER_OK(op, "[1,2];[1,2]", "in1");
  INFER_OK(op, "?;[1,2]", "in1");
  INFER_ERROR("Dimension 1 in both shapes must be equal", op, "[1,3];[1,2]");
  AddNodeAttr("validate_shape", false, &op.node_def);
  INFER_OK(op, "[1,3];[1,2]", "in1");
}

TEST(StateOpsShapeTest, AssignAddAndSubMergeBothInputs) {
  for (const char* name : {"AssignAdd", "AssignSub"}) {
    ShapeInferenceTestOp op(name);
    AddNodeAttr("T", DT_FLOAT, &op.node_def);
    INFER_OK(op, "[1,?];[?,2]", "[d0_0,d1_1]");
    INFER_OK(op, "?;[3]", "in1");
    INFER_ERROR("Dimension 0 in both shapes must be equal", op, "[1];[2]");
  }
}

}  // namespace
}  // namespace opkit
