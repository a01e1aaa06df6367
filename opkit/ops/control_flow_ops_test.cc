// Shape functions of the control-flow ops, in TensorFlow's test syntax.
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/op/node_def_util.h"
#include "opkit/shape/shape_inference_testutil.h"

namespace opkit {
namespace {

using shape_inference::ShapeInferenceTestOp;

TEST(ControlFlowOpsShapeTest, Switch) {
  ShapeInferenceTestOp op("Switch");
  AddNodeAttr("T", DT_FLOAT, &op.node_def);
  INFER_OK(op, "?;[]", "in0;in0");
  INFER_OK(op, "[2,?];?", "in0;in0");
  INFER_ERROR("Shape must be rank 0 but is rank 1", op, "[2];[1]");
}

TEST(ControlFlowOpsShapeTest, RefSwitch) {
  ShapeInferenceTestOp op("RefSwitch");
  AddNodeAttr("T", DT_FLOAT, &op.node_def);
  INFER_OK(op, "[1,2];[]", "in0;in0");
  INFER_ERROR("Shape must be rank 0 but is rank 2", op, "?;[1,1]");
}

TEST(ControlFlowOpsShapeTest, Merge) {
  ShapeInferenceTestOp op("Merge");
  AddNodeAttr("T", DT_FLOAT, &op.node_def);
  AddNodeAttr("N", 2, &op.node_def);
  op.input_tensors.resize(2);
  INFER_OK(op, "[2,3];[2,3]", "in0;[]");
  INFER_OK(op, "[2,3];[2,4]", "[d0_0,?];[]");
  INFER_OK(op, "[2,3];[2]", "?;[]");
  INFER_OK(op, "?;[2]", "?;[]");
}

TEST(ControlFlowOpsShapeTest, EnterExitNextIteration) {
  for (const char* name : {"Enter", "Exit", "NextIteration"}) {
    ShapeInferenceTestOp op(name);
    AddNodeAttr("T", DT_FLOAT, &op.node_def);
    if (std::string(name) == "Enter") AddNodeAttr("frame_name", "f", &op.node_def);
    INFER_OK(op, "?", "in0");
    INFER_OK(op, "[1,?,3]", "in0");
  }
}

TEST(ControlFlowOpsShapeTest, LoopCond) {
  ShapeInferenceTestOp op("LoopCond");
  INFER_OK(op, "[]", "in0");
  INFER_OK(op, "?", "[]");
  INFER_ERROR("Shape must be rank 0 but is rank 1", op, "[1]");
}

TEST(ControlFlowOpsShapeTest, NoOp) {
  ShapeInferenceTestOp op("NoOp");
  INFER_OK(op, "", "");
}

}  // namespace
}  // namespace opkit
