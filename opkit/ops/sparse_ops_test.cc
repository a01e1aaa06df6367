// Shape functions of the built-in sparse ops (opkit/ops/sparse_ops.cc), in
// TensorFlow's test syntax.
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/tensor/tensor.h"
#include "opkit/shape/shape_inference_testutil.h"

namespace opkit {
namespace {

using shape_inference::ShapeInferenceTestOp;

TEST(SparseOpsShapeTest, SparseToDenseTakesTheOutputShapeInput) {
  ShapeInferenceTestOp op("SparseToDense");
  INFER_OK(op, "[2,2];[2];[2];[]", "[?,?]");
  INFER_OK(op, "?;?;?;?", "?");
  Tensor shape(DT_INT64, TensorShape({2}));
  shape.flat<int64>()(0) = 3;
  shape.flat<int64>()(1) = 4;
  op.input_tensors = {nullptr, &shape};
  INFER_OK(op, "[2,2];[2];[2];[]", "[3,4]");
  INFER_ERROR("must be rank 1", op, "[2,2];[2,2];[2];[]");
}

}  // namespace
}  // namespace opkit
