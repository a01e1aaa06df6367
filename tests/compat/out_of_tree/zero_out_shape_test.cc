// An op library's own shape-function test, as a TensorFlow op author writes
// it next to the op (TensorFlow's include paths, namespace tensorflow,
// ShapeInferenceTestOp, INFER_OK / INFER_ERROR). Built outside opkit's CMake
// project with g++, opkit-config and GoogleTest only
// (shape_fn_test_out_of_tree.sh): proof that the helpers are installed.
#include "tensorflow/core/framework/common_shape_fns.h"
#include "tensorflow/core/framework/op.h"
#include "tensorflow/core/framework/shape_inference.h"
#include "tensorflow/core/framework/shape_inference_testutil.h"
#include "tensorflow/core/framework/tensor.h"

namespace tensorflow {

REGISTER_OP("OutOfTreeZeroOut")
    .Input("to_zero: int32")
    .Output("zeroed: int32")
    .SetShapeFn([](shape_inference::InferenceContext* c) {
      shape_inference::ShapeHandle input;
      TF_RETURN_IF_ERROR(c->WithRank(c->input(0), 1, &input));
      c->set_output(0, input);
      return Status::OK();
    });

REGISTER_OP("OutOfTreeSameShapeAdd")
    .Input("x: float")
    .Input("y: float")
    .Output("z: float")
    .SetShapeFn(shape_inference::MergeBothInputsShapeFn);

namespace {

TEST(OutOfTreeShapeFnTest, ZeroOut) {
  ShapeInferenceTestOp op("OutOfTreeZeroOut");
  INFER_OK(op, "[5]", "in0");
  INFER_OK(op, "?", "[?]");
  INFER_ERROR("Shape must be rank 1 but is rank 2", op, "[1,2]");
}

TEST(OutOfTreeShapeFnTest, MergeBothInputs) {
  ShapeInferenceTestOp op("OutOfTreeSameShapeAdd");
  INFER_OK(op, "[2,?];[?,3]", "[d0_0,d1_1]");
  INFER_ERROR("Dimension 1 in both shapes must be equal, but are 3 and 4", op,
              "[2,3];[2,4]");
}

}  // namespace
}  // namespace tensorflow
