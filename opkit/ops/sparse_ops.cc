// Built-in sparse ops: SparseToDense. OpDefs are TensorFlow's for the same
// names (ops_conformance_test checks them against TensorFlow's ops.pbtxt).
#include "opkit/op/op.h"
#include "opkit/shape/common_shape_fns.h"
#include "opkit/shape/shape_inference.h"

namespace opkit {
namespace {

using shape_inference::InferenceContext;
using shape_inference::ShapeHandle;

// The output's shape is the value of `output_shape` (input 1), as far as it
// is known.
Status SparseToDenseShape(InferenceContext* c) {
  ShapeHandle out;
  OPKIT_RETURN_IF_ERROR(c->MakeShapeFromShapeTensor(1, &out));
  c->set_output(0, out);
  return OkStatus();
}

}  // namespace

REGISTER_OP("SparseToDense")
    .Input("sparse_indices: Tindices")
    .Input("output_shape: Tindices")
    .Input("sparse_values: T")
    .Input("default_value: T")
    .Attr("validate_indices: bool = true")
    .Attr("T: type")
    .Output("dense: T")
    .Attr("Tindices: {int32, int64}")
    .SetShapeFn(SparseToDenseShape);

}  // namespace opkit
