// Built-in math ops. OpDefs are TensorFlow's for the same names
// (ops_conformance_test checks them against TensorFlow's ops.pbtxt).
#include "opkit/framework/common_shape_fns.h"
#include "opkit/framework/op.h"

namespace opkit {

REGISTER_OP("AddV2")
    .Input("x: T")
    .Input("y: T")
    .Output("z: T")
    .Attr("T: {bfloat16, half, float, double, uint8, uint16, uint32, uint64, "
          "int8, int16, int32, int64, complex64, complex128}")
    .SetIsAggregate()
    .SetIsCommutative()
    .SetShapeFn(shape_inference::BroadcastBinaryOpShapeFn);

REGISTER_OP("MatMul")
    .Input("a: T")
    .Input("b: T")
    .Output("product: T")
    .Attr("transpose_a: bool = false")
    .Attr("transpose_b: bool = false")
    .Attr("T: {bfloat16, half, float, double, int32, int64, complex64, "
          "complex128}")
    .SetShapeFn(shape_inference::MatMulShape);

}  // namespace opkit
