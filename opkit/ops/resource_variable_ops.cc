// TensorFlow's resource variables: VarHandleOp makes a DT_RESOURCE handle,
// AssignVariableOp / AssignAddVariableOp / AssignSubVariableOp write the
// variable it names, ReadVariableOp reads it, VarIsInitializedOp and
// DestroyResourceOp ask about and remove it. OpDefs are TensorFlow's for the
// same names (ops_conformance_test checks them); the shape functions pass the
// variable's dtype and shape along the handle (handle shapes and types), as
// TensorFlow's do.
#include <vector>

#include "opkit/core/errors.h"
#include "opkit/op/op.h"
#include "opkit/shape/common_shape_fns.h"
#include "opkit/shape/shape_inference.h"

namespace opkit {
namespace {

using shape_inference::InferenceContext;
using shape_inference::ShapeAndType;
using shape_inference::ShapeHandle;

// A scalar handle carrying the `dtype` and `shape` attrs as handle data.
Status VarHandleShape(InferenceContext* c) {
  c->set_output(0, c->Scalar());
  DataType dtype;
  OPKIT_RETURN_IF_ERROR(c->GetAttr("dtype", &dtype));
  PartialTensorShape shape;
  OPKIT_RETURN_IF_ERROR(c->GetAttr("shape", &shape));
  ShapeHandle s;
  OPKIT_RETURN_IF_ERROR(c->MakeShapeFromPartialTensorShape(shape, &s));
  c->set_output_handle_shapes_and_types(0,
                                        std::vector<ShapeAndType>{{s, dtype}});
  return OkStatus();
}

// The variable's shape and dtype from input 0's handle data (unknown when
// there is none); InvalidArgument when the handle's dtype is not `dtype`.
Status VariableShapeAndType(InferenceContext* c, ShapeAndType* out) {
  const std::vector<ShapeAndType>* data = c->input_handle_shapes_and_types(0);
  if (data == nullptr || data->empty()) {
    *out = ShapeAndType(c->UnknownShape(), DT_INVALID);
    return OkStatus();
  }
  *out = (*data)[0];
  DataType dtype;
  OPKIT_RETURN_IF_ERROR(c->GetAttr("dtype", &dtype));
  if (out->dtype != dtype) {
    return errors::InvalidArgument(
        "Trying to read variable with wrong dtype. Expected ",
        DataTypeString(out->dtype), " got ", DataTypeString(dtype));
  }
  return OkStatus();
}

Status ReadVariableShape(InferenceContext* c) {
  ShapeAndType var;
  OPKIT_RETURN_IF_ERROR(VariableShapeAndType(c, &var));
  c->set_output(0, var.shape);
  return OkStatus();
}

// The value must fit the variable's known shape.
Status AssignVariableShape(InferenceContext* c) {
  ShapeAndType var;
  OPKIT_RETURN_IF_ERROR(VariableShapeAndType(c, &var));
  ShapeHandle unused;
  return c->Merge(var.shape, c->input(1), &unused);
}

}  // namespace

REGISTER_OP("VarHandleOp")
    .Attr("container: string = ''")
    .Attr("shared_name: string = ''")
    .Attr("dtype: type")
    .Attr("shape: shape")
    .Attr("allowed_devices: list(string) = []")
    .Output("resource: resource")
    .SetIsStateful()
    .SetShapeFn(VarHandleShape);

REGISTER_OP("ReadVariableOp")
    .Input("resource: resource")
    .Output("value: dtype")
    .Attr("dtype: type")
    .SetShapeFn(ReadVariableShape);

REGISTER_OP("AssignVariableOp")
    .Input("resource: resource")
    .Input("value: dtype")
    .Attr("dtype: type")
    .SetShapeFn(AssignVariableShape);

REGISTER_OP("AssignAddVariableOp")
    .Input("resource: resource")
    .Input("value: dtype")
    .Attr("dtype: type")
    .SetShapeFn(AssignVariableShape);

REGISTER_OP("AssignSubVariableOp")
    .Input("resource: resource")
    .Input("value: dtype")
    .Attr("dtype: type")
    .SetShapeFn(AssignVariableShape);

REGISTER_OP("VarIsInitializedOp")
    .Input("resource: resource")
    .Output("is_initialized: bool")
    .SetShapeFn(shape_inference::ScalarShape);

REGISTER_OP("DestroyResourceOp")
    .Input("resource: resource")
    .Attr("ignore_lookup_error: bool = true")
    .SetShapeFn(shape_inference::NoOutputs);

}  // namespace opkit
