// TensorFlow's TensorList ops: a list of tensors carried as a scalar
// DT_VARIANT tensor (opkit/kernels/tensor_list.h), what converted while
// loops use to collect per-iteration values. OpDefs are TensorFlow's for the
// same names (ops_conformance_test checks them). The shape functions give the
// list handle a scalar shape carrying the element dtype and shape as handle
// data, as TensorFlow's do, so that GetItem and Stack know their element
// shape where the graph tells it.
#include <vector>

#include "opkit/core/errors.h"
#include "opkit/op/full_type_util.h"
#include "opkit/op/op.h"
#include "opkit/shape/common_shape_fns.h"
#include "opkit/shape/shape_inference.h"

namespace opkit {
namespace {

using shape_inference::DimensionHandle;
using shape_inference::InferenceContext;
using shape_inference::ShapeAndType;
using shape_inference::ShapeHandle;

// A scalar list handle whose element shape is the shape tensor input
// `shape_input` (a scalar -1: unknown rank) and whose dtype is the
// element_dtype attr.
Status NewListShape(InferenceContext* c, int shape_input) {
  c->set_output(0, c->Scalar());
  DataType element_dtype;
  OPKIT_RETURN_IF_ERROR(c->GetAttr("element_dtype", &element_dtype));
  ShapeHandle element_shape;
  OPKIT_RETURN_IF_ERROR(
      c->MakeShapeFromShapeTensorTreatScalarAsUnknownShape(shape_input,
                                                           &element_shape));
  c->set_output_handle_shapes_and_types(
      0, std::vector<ShapeAndType>{{element_shape, element_dtype}});
  return OkStatus();
}

// The element shape the list handle (input 0) carries, merged with the
// element_shape input `shape_input` when there is one (-1 to skip);
// InvalidArgument when the handle's dtype is not element_dtype.
Status ListElementShape(InferenceContext* c, int shape_input,
                        ShapeHandle* out) {
  *out = c->UnknownShape();
  if (shape_input >= 0) {
    OPKIT_RETURN_IF_ERROR(
        c->MakeShapeFromShapeTensorTreatScalarAsUnknownShape(shape_input, out));
  }
  const std::vector<ShapeAndType>* data = c->input_handle_shapes_and_types(0);
  if (data == nullptr || data->size() != 1) return OkStatus();
  DataType element_dtype;
  OPKIT_RETURN_IF_ERROR(c->GetAttr("element_dtype", &element_dtype));
  const ShapeAndType& list = (*data)[0];
  if (list.dtype != DT_INVALID && list.dtype != element_dtype) {
    return errors::InvalidArgument(
        "Expected list with element dtype ", DataTypeString(element_dtype),
        " but got list with element dtype ", DataTypeString(list.dtype));
  }
  return c->Merge(*out, list.shape, out);
}

// Ops that return the list handle they were given, changed.
Status PassListHandle(InferenceContext* c) {
  c->set_output(0, c->Scalar());
  const std::vector<ShapeAndType>* data = c->input_handle_shapes_and_types(0);
  if (data != nullptr) c->set_output_handle_shapes_and_types(0, *data);
  return OkStatus();
}

}  // namespace

REGISTER_OP("EmptyTensorList")
    .Input("element_shape: shape_type")
    .Input("max_num_elements: int32")
    .Output("handle: variant")
    .Attr("element_dtype: type")
    .Attr("shape_type: {int32, int64}")
    .SetTypeConstructor(full_type::Unary(TFT_ARRAY, "element_dtype"))
    .SetShapeFn([](InferenceContext* c) { return NewListShape(c, 0); });

REGISTER_OP("TensorListReserve")
    .Input("element_shape: shape_type")
    .Input("num_elements: int32")
    .Output("handle: variant")
    .Attr("element_dtype: type")
    .Attr("shape_type: {int32, int64}")
    .SetTypeConstructor(full_type::Unary(TFT_ARRAY, "element_dtype"))
    .SetShapeFn([](InferenceContext* c) { return NewListShape(c, 0); });

REGISTER_OP("TensorListFromTensor")
    .Input("tensor: element_dtype")
    .Input("element_shape: shape_type")
    .Output("output_handle: variant")
    .Attr("element_dtype: type")
    .Attr("shape_type: {int32, int64}")
    .SetTypeConstructor(full_type::Unary(TFT_ARRAY, "element_dtype"))
    .SetShapeFn([](InferenceContext* c) {
      c->set_output(0, c->Scalar());
      DataType element_dtype;
      OPKIT_RETURN_IF_ERROR(c->GetAttr("element_dtype", &element_dtype));
      ShapeHandle tensor = c->input(0);
      ShapeHandle element = c->UnknownShape();
      if (c->RankKnown(tensor)) {
        if (c->Rank(tensor) < 1) {
          return errors::InvalidArgument(
              "TensorListFromTensor needs a tensor of rank >= 1 (its first "
              "dimension becomes the list), got a scalar");
        }
        OPKIT_RETURN_IF_ERROR(c->Subshape(tensor, 1, &element));
      }
      ShapeHandle given;
      OPKIT_RETURN_IF_ERROR(
          c->MakeShapeFromShapeTensorTreatScalarAsUnknownShape(1, &given));
      OPKIT_RETURN_IF_ERROR(c->Merge(element, given, &element));
      c->set_output_handle_shapes_and_types(
          0, std::vector<ShapeAndType>{{element, element_dtype}});
      return OkStatus();
    });

REGISTER_OP("TensorListLength")
    .Input("input_handle: variant")
    .Output("length: int32")
    .SetShapeFn(shape_inference::ScalarShape);

REGISTER_OP("TensorListElementShape")
    .Input("input_handle: variant")
    .Output("element_shape: shape_type")
    .Attr("shape_type: {int32, int64}")
    .SetShapeFn([](InferenceContext* c) {
      const std::vector<ShapeAndType>* data =
          c->input_handle_shapes_and_types(0);
      if (data != nullptr && data->size() == 1 &&
          c->RankKnown((*data)[0].shape)) {
        c->set_output(0, c->Vector(c->Rank((*data)[0].shape)));
      } else {
        c->set_output(0, c->UnknownShapeOfRank(1));
      }
      return OkStatus();
    });

REGISTER_OP("TensorListGetItem")
    .Input("input_handle: variant")
    .Input("index: int32")
    .Input("element_shape: int32")
    .Output("item: element_dtype")
    .Attr("element_dtype: type")
    .SetShapeFn([](InferenceContext* c) {
      ShapeHandle element;
      OPKIT_RETURN_IF_ERROR(ListElementShape(c, 2, &element));
      c->set_output(0, element);
      return OkStatus();
    });

REGISTER_OP("TensorListSetItem")
    .Input("input_handle: variant")
    .Input("index: int32")
    .Input("item: element_dtype")
    .Output("output_handle: variant")
    .Attr("element_dtype: type")
    .SetTypeConstructor(full_type::Unary(TFT_ARRAY, "element_dtype"))
    .SetShapeFn(PassListHandle);

REGISTER_OP("TensorListPushBack")
    .Input("input_handle: variant")
    .Input("tensor: element_dtype")
    .Output("output_handle: variant")
    .Attr("element_dtype: type")
    .SetTypeConstructor(full_type::Unary(TFT_ARRAY, "element_dtype"))
    .SetShapeFn(PassListHandle);

REGISTER_OP("TensorListPopBack")
    .Input("input_handle: variant")
    .Input("element_shape: int32")
    .Output("output_handle: variant")
    .Output("tensor: element_dtype")
    .Attr("element_dtype: type")
    .SetShapeFn([](InferenceContext* c) {
      OPKIT_RETURN_IF_ERROR(PassListHandle(c));
      ShapeHandle element;
      OPKIT_RETURN_IF_ERROR(ListElementShape(c, 1, &element));
      c->set_output(1, element);
      return OkStatus();
    });

REGISTER_OP("TensorListResize")
    .Input("input_handle: variant")
    .Input("size: int32")
    .Output("output_handle: variant")
    .SetShapeFn([](InferenceContext* c) {
      ShapeHandle unused;
      OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(1), 0, &unused));
      return PassListHandle(c);
    });

REGISTER_OP("TensorListStack")
    .Input("input_handle: variant")
    .Input("element_shape: int32")
    .Output("tensor: element_dtype")
    .Attr("element_dtype: type")
    .Attr("num_elements: int = -1")
    .SetShapeFn([](InferenceContext* c) {
      ShapeHandle element;
      OPKIT_RETURN_IF_ERROR(ListElementShape(c, 1, &element));
      int64_t num_elements;
      OPKIT_RETURN_IF_ERROR(c->GetAttr("num_elements", &num_elements));
      DimensionHandle n = num_elements >= 0 ? c->MakeDim(num_elements)
                                            : c->UnknownDim();
      ShapeHandle out;
      OPKIT_RETURN_IF_ERROR(c->Concatenate(c->Vector(n), element, &out));
      c->set_output(0, out);
      return OkStatus();
    });

REGISTER_OP("TensorListGather")
    .Input("input_handle: variant")
    .Input("indices: int32")
    .Input("element_shape: int32")
    .Output("values: element_dtype")
    .Attr("element_dtype: type")
    .SetShapeFn([](InferenceContext* c) {
      ShapeHandle element;
      OPKIT_RETURN_IF_ERROR(ListElementShape(c, 2, &element));
      ShapeHandle indices;
      OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &indices));
      ShapeHandle out;
      OPKIT_RETURN_IF_ERROR(c->Concatenate(indices, element, &out));
      c->set_output(0, out);
      return OkStatus();
    });

}  // namespace opkit
