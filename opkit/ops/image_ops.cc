// Built-in image ops: ResizeBilinear, ResizeNearestNeighbor and
// NonMaxSuppressionV3/V4/V5. OpDefs are TensorFlow's for the same names
// (ops_conformance_test checks them against TensorFlow's ops.pbtxt); the
// shape functions behave as TensorFlow's.
#include <cstdint>

#include "opkit/core/errors.h"
#include "opkit/op/op.h"
#include "opkit/shape/common_shape_fns.h"
#include "opkit/shape/shape_inference.h"

namespace opkit {
namespace {

using shape_inference::DimensionHandle;
using shape_inference::InferenceContext;
using shape_inference::ShapeHandle;

// Resize*: images [batch, height, width, channels] and a 2-element int32
// `size` (new_height, new_width) give [batch, new_height, new_width,
// channels]; the new sizes are known when `size` is a constant.
Status ResizeShape(InferenceContext* c) {
  ShapeHandle images;
  OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(0), 4, &images));
  ShapeHandle size;
  OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &size));
  DimensionHandle unused;
  OPKIT_RETURN_IF_ERROR(c->WithValue(c->Dim(size, 0), 2, &unused));
  DimensionHandle height = c->UnknownDim();
  DimensionHandle width = c->UnknownDim();
  if (const Tensor* size_value = c->input_tensor(1); size_value != nullptr) {
    if (size_value->dtype() != DT_INT32) {
      return errors::InvalidArgument("size must be an int32 tensor, got ",
                                     DataTypeString(size_value->dtype()));
    }
    const int32 h = size_value->flat<int32>()(0);
    const int32 w = size_value->flat<int32>()(1);
    if (h < 0 || w < 0) {
      return errors::InvalidArgument("size must be non-negative, got [", h, ", ", w,
                                     "]; output dimensions must be positive");
    }
    height = c->MakeDim(h);
    width = c->MakeDim(w);
  }
  c->set_output(0, c->MakeShape({c->Dim(images, 0), height, width, c->Dim(images, 3)}));
  return OkStatus();
}

// NonMaxSuppression*: boxes [num_boxes, 4], scores [num_boxes], scalar
// max_output_size and thresholds (and soft_nms_sigma, from input 5 on, for
// V5); output 0 a vector of unknown length.
Status NmsInputsShape(InferenceContext* c, int num_scalar_inputs) {
  ShapeHandle boxes;
  OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(0), 2, &boxes));
  ShapeHandle scores;
  OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &scores));
  for (int i = 2; i < 2 + num_scalar_inputs; ++i) {
    ShapeHandle scalar;
    OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(i), 0, &scalar));
  }
  DimensionHandle unused;
  OPKIT_RETURN_IF_ERROR(c->Merge(c->Dim(boxes, 0), c->Dim(scores, 0), &unused));
  OPKIT_RETURN_IF_ERROR(c->WithValue(c->Dim(boxes, 1), 4, &unused));
  return OkStatus();
}

Status NmsV3Shape(InferenceContext* c) {
  OPKIT_RETURN_IF_ERROR(NmsInputsShape(c, 3));
  c->set_output(0, c->Vector(c->UnknownDim()));
  return OkStatus();
}

// V4 and V5: with pad_to_max_output_size the selections have
// max_output_size entries (known when it is a constant); valid_outputs, the
// last output, is a scalar. V5's selected_scores has the indices' shape.
Status NmsPaddedShape(InferenceContext* c, int num_scalar_inputs) {
  OPKIT_RETURN_IF_ERROR(NmsInputsShape(c, num_scalar_inputs));
  bool pad = false;
  OPKIT_RETURN_IF_ERROR(c->GetAttr("pad_to_max_output_size", &pad));
  DimensionHandle n = c->UnknownDim();
  if (pad) OPKIT_RETURN_IF_ERROR(c->MakeDimForScalarInput(2, &n));
  const int last = c->num_outputs() - 1;
  for (int i = 0; i < last; ++i) c->set_output(i, c->Vector(n));
  c->set_output(last, c->Scalar());
  return OkStatus();
}

}  // namespace

REGISTER_OP("ResizeBilinear")
    .Input("images: T")
    .Input("size: int32")
    .Output("resized_images: float")
    .Attr("T: {int8, uint8, int16, uint16, int32, int64, bfloat16, half, "
          "float, double, bfloat16}")
    .Attr("align_corners: bool = false")
    .Attr("half_pixel_centers: bool = false")
    .SetShapeFn(ResizeShape);

REGISTER_OP("ResizeNearestNeighbor")
    .Input("images: T")
    .Input("size: int32")
    .Output("resized_images: T")
    .Attr("T: {int8, uint8, int16, uint16, int32, int64, half, float, "
          "double, bfloat16}")
    .Attr("align_corners: bool = false")
    .Attr("half_pixel_centers: bool = false")
    .SetShapeFn(ResizeShape);

REGISTER_OP("NonMaxSuppressionV3")
    .Input("boxes: T")
    .Input("scores: T")
    .Input("max_output_size: int32")
    .Input("iou_threshold: T_threshold")
    .Input("score_threshold: T_threshold")
    .Output("selected_indices: int32")
    .Attr("T: {half, float} = DT_FLOAT")
    .Attr("T_threshold: {half, float} = DT_FLOAT")
    .SetShapeFn(NmsV3Shape);

REGISTER_OP("NonMaxSuppressionV4")
    .Input("boxes: T")
    .Input("scores: T")
    .Input("max_output_size: int32")
    .Input("iou_threshold: T_threshold")
    .Input("score_threshold: T_threshold")
    .Output("selected_indices: int32")
    .Output("valid_outputs: int32")
    .Attr("T: {half, float} = DT_FLOAT")
    .Attr("T_threshold: {half, float} = DT_FLOAT")
    .Attr("pad_to_max_output_size: bool = false")
    .SetShapeFn([](InferenceContext* c) { return NmsPaddedShape(c, 3); });

REGISTER_OP("NonMaxSuppressionV5")
    .Input("boxes: T")
    .Input("scores: T")
    .Input("max_output_size: int32")
    .Input("iou_threshold: T")
    .Input("score_threshold: T")
    .Input("soft_nms_sigma: T")
    .Output("selected_indices: int32")
    .Output("selected_scores: T")
    .Output("valid_outputs: int32")
    .Attr("T: {half, float} = DT_FLOAT")
    .Attr("pad_to_max_output_size: bool = false")
    .SetShapeFn([](InferenceContext* c) { return NmsPaddedShape(c, 4); });

}  // namespace opkit
