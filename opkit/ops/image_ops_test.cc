// Shape functions of the built-in image ops (opkit/ops/image_ops.cc), in
// TensorFlow's test syntax.
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/op/node_def_util.h"
#include "opkit/tensor/tensor.h"
#include "opkit/shape/shape_inference_testutil.h"

namespace opkit {
namespace {

using shape_inference::ShapeInferenceTestOp;

TEST(ImageOpsShapeTest, Resize) {
  for (const char* name : {"ResizeBilinear", "ResizeNearestNeighbor"}) {
    SCOPED_TRACE(name);
    ShapeInferenceTestOp op(name);
    INFER_OK(op, "[1,2,3,4];[2]", "[d0_0,?,?,d0_3]");
    INFER_ERROR("Shape must be rank 4 but is rank 3", op, "[1,2,3];[2]");
    INFER_ERROR("Shape must be rank 1 but is rank 0", op, "[1,2,3,4];[]");
    INFER_ERROR("Dimension must be 2 but is 3", op, "[1,2,3,4];[3]");
    Tensor size(DT_INT32, TensorShape({2}));
    size.flat<int32>()(0) = 20;
    size.flat<int32>()(1) = 30;
    op.input_tensors = {nullptr, &size};
    INFER_OK(op, "[?,2,3,4];[2]", "[d0_0,20,30,d0_3]");
    size.flat<int32>()(1) = -1;
    INFER_ERROR("size must be non-negative", op, "[?,2,3,4];[2]");
  }
}

TEST(ImageOpsShapeTest, NonMaxSuppression) {
  ShapeInferenceTestOp v3("NonMaxSuppressionV3");
  INFER_OK(v3, "[5,4];[5];[];[];[]", "[?]");
  INFER_ERROR("Dimensions must be equal, but are 5 and 6", v3, "[5,4];[6];[];[];[]");
  INFER_ERROR("Dimension must be 4 but is 3", v3, "[5,3];[5];[];[];[]");
  INFER_ERROR("Shape must be rank 0 but is rank 1", v3, "[5,4];[5];[1];[];[]");

  ShapeInferenceTestOp v4("NonMaxSuppressionV4");
  INFER_OK(v4, "[5,4];[5];[];[];[]", "[?];[]");
  AddNodeAttr("pad_to_max_output_size", true, &v4.node_def);
  Tensor max_size(DT_INT32, TensorShape({}));
  max_size.scalar<int32>()() = 7;
  v4.input_tensors = {nullptr, nullptr, &max_size};
  INFER_OK(v4, "[5,4];[5];[];[];[]", "[7];[]");

  ShapeInferenceTestOp v5("NonMaxSuppressionV5");
  INFER_OK(v5, "[?,4];[5];[];[];[];[]", "[?];[?];[]");
  INFER_ERROR("Shape must be rank 0 but is rank 1", v5, "[5,4];[5];[];[];[];[2]");
  AddNodeAttr("pad_to_max_output_size", true, &v5.node_def);
  v5.input_tensors = {nullptr, nullptr, &max_size};
  INFER_OK(v5, "[5,4];[5];[];[];[];[]", "[7];[7];[]");
}

}  // namespace
}  // namespace opkit
