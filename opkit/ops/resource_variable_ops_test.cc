// Shape functions of the resource-variable ops: the variable's dtype and
// shape travel as handle data from VarHandleOp to its readers and writers.
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/op/node_def_util.h"
#include "opkit/tensor/tensor_shape.h"
#include "opkit/shape/shape_inference_testutil.h"

namespace opkit {
namespace {

using shape_inference::ShapeInferenceTestOp;

TEST(ResourceVariableOpsShapeTest, VarHandleOpIsAScalarHandle) {
  ShapeInferenceTestOp op("VarHandleOp");
  AddNodeAttr("dtype", DT_FLOAT, &op.node_def);
  AddNodeAttr("shape", PartialTensorShape({2, -1}), &op.node_def);
  INFER_OK(op, "", "[]");
}

TEST(ResourceVariableOpsShapeTest, ReadVariableOpHasTheHandleDataShape) {
  ShapeInferenceTestOp op("ReadVariableOp");
  AddNodeAttr("dtype", DT_FLOAT, &op.node_def);
  INFER_OK(op, "[]", "?");  // No handle data: unknown.
  std::vector<std::pair<PartialTensorShape, DataType>> data = {
      {PartialTensorShape({2, 3}), DT_FLOAT}};
  op.input_resource_handle_shapes_and_types = {&data};
  INFER_OK(op, "[]", "[2,3]");
  data[0].second = DT_INT32;
  INFER_ERROR("Trying to read variable with wrong dtype. Expected int32 got "
              "float",
              op, "[]");
}

TEST(ResourceVariableOpsShapeTest, AssignVariableOpChecksTheValueShape) {
  for (const char* name :
       {"AssignVariableOp", "AssignAddVariableOp", "AssignSubVariableOp"}) {
    ShapeInferenceTestOp op(name);
    AddNodeAttr("dtype", DT_FLOAT, &op.node_def);
    INFER_OK(op, "[];[5]", "");
    std::vector<std::pair<PartialTensorShape, DataType>> data = {
        {PartialTensorShape({2}), DT_FLOAT}};
    op.input_resource_handle_shapes_and_types = {&data, nullptr};
    INFER_OK(op, "[];[2]", "");
    INFER_ERROR("Dimension 0 in both shapes must be equal", op, "[];[3]");
  }
}

TEST(ResourceVariableOpsShapeTest, VarIsInitializedAndDestroy) {
  ShapeInferenceTestOp init("VarIsInitializedOp");
  INFER_OK(init, "[]", "[]");
  ShapeInferenceTestOp destroy("DestroyResourceOp");
  INFER_OK(destroy, "[]", "");
}

}  // namespace
}  // namespace opkit
