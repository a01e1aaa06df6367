// Shape functions of the built-in ops, in TensorFlow's test syntax.
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/op/attr_value_util.h"
#include "opkit/op/node_def_util.h"
#include "opkit/shape/shape_inference_testutil.h"

namespace opkit {
namespace {

using shape_inference::ShapeInferenceTestOp;

TEST(MathOpsShapeTest, MatMul) {
  ShapeInferenceTestOp op("MatMul");
  INFER_OK(op, "?;?", "[?,?]");
  INFER_OK(op, "[1,?];[?,2]", "[d0_0,d1_1]");
  INFER_OK(op, "[?,3];[3,?]", "[d0_0,d1_1]");
  INFER_ERROR("Shape must be rank 2 but is rank 1", op, "[1];[2,3]");
  INFER_ERROR("Dimensions must be equal, but are 3 and 4", op, "[2,3];[4,5]");
  AddNodeAttr("transpose_a", true, &op.node_def);
  AddNodeAttr("transpose_b", true, &op.node_def);
  INFER_OK(op, "[3,2];[5,3]", "[d0_1,d1_0]");
}

TEST(MathOpsShapeTest, AddV2Broadcasts) {
  ShapeInferenceTestOp op("AddV2");
  INFER_OK(op, "[2,3];[2,3]", "[d0_0|d1_0,d0_1|d1_1]");
  INFER_OK(op, "[2,1];[3]", "[d0_0,d1_0]");
  INFER_OK(op, "[];[4]", "[d1_0]");
  INFER_OK(op, "?;[4]", "?");
  INFER_ERROR("Dimensions must be equal, but are 2 and 3", op, "[2];[3]");
}

TEST(ArrayOpsShapeTest, Identity) {
  ShapeInferenceTestOp op("Identity");
  INFER_OK(op, "?", "in0");
  INFER_OK(op, "[1,?,3]", "in0");
}

}  // namespace
}  // namespace opkit
