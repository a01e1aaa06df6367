// Built-in array ops. OpDefs are TensorFlow's for the same names
// (ops_conformance_test checks them against TensorFlow's ops.pbtxt).
#include "opkit/framework/common_shape_fns.h"
#include "opkit/framework/op.h"

namespace opkit {

REGISTER_OP("Identity")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: type")
    .SetShapeFn(shape_inference::UnchangedShape);

}  // namespace opkit
