// TensorFlow's v1 variables: VariableV2 (a Ref output to a tensor that lives
// in the session's ResourceMgr) and Assign, AssignAdd, AssignSub, which
// update it through a Ref input. OpDefs are TensorFlow's for the same names
// (ops_conformance_test checks them).
#include "opkit/core/errors.h"
#include "opkit/shape/common_shape_fns.h"
#include "opkit/op/op.h"
#include "opkit/shape/shape_inference.h"

namespace opkit {
namespace {

using shape_inference::InferenceContext;
using shape_inference::ShapeHandle;

// The `shape` attr, as declared.
Status VariableShape(InferenceContext* c) {
  TensorShapeProto shape;
  OPKIT_RETURN_IF_ERROR(c->GetAttr("shape", &shape));
  ShapeHandle out;
  OPKIT_RETURN_IF_ERROR(c->MakeShapeFromShapeProto(shape, &out));
  c->set_output(0, out);
  return OkStatus();
}

// With validate_shape the value must fit the variable's shape; either way
// the variable takes the value's shape.
Status AssignShape(InferenceContext* c) {
  bool validate_shape = true;
  OPKIT_RETURN_IF_ERROR(c->GetAttr("validate_shape", &validate_shape));
  if (validate_shape) {
    ShapeHandle unused;
    OPKIT_RETURN_IF_ERROR(c->Merge(c->input(0), c->input(1), &unused));
  }
  c->set_output(0, c->input(1));
  return OkStatus();
}

// The variable and the value have one shape.
Status MergeBothInputsShape(InferenceContext* c) {
  ShapeHandle out;
  OPKIT_RETURN_IF_ERROR(c->Merge(c->input(0), c->input(1), &out));
  c->set_output(0, out);
  return OkStatus();
}

}  // namespace

REGISTER_OP("VariableV2")
    .Output("ref: Ref(dtype)")
    .Attr("shape: shape")
    .Attr("dtype: type")
    .Attr("container: string = ''")
    .Attr("shared_name: string = ''")
    .SetIsStateful()
    .SetShapeFn(VariableShape);

REGISTER_OP("Assign")
    .Input("ref: Ref(T)")
    .Input("value: T")
    .Output("output_ref: Ref(T)")
    .Attr("T: type")
    .Attr("validate_shape: bool = true")
    .Attr("use_locking: bool = true")
    .SetAllowsUninitializedInput()
    .SetShapeFn(AssignShape);

REGISTER_OP("AssignAdd")
    .Input("ref: Ref(T)")
    .Input("value: T")
    .Output("output_ref: Ref(T)")
    .Attr("T: numbertype")
    .Attr("use_locking: bool = false")
    .SetShapeFn(MergeBothInputsShape);

REGISTER_OP("AssignSub")
    .Input("ref: Ref(T)")
    .Input("value: T")
    .Output("output_ref: Ref(T)")
    .Attr("T: numbertype")
    .Attr("use_locking: bool = false")
    .SetShapeFn(MergeBothInputsShape);

}  // namespace opkit
