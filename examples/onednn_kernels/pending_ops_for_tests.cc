// TEMPORARY: the OpDefs of DepthwiseConv2dNative, _FusedConv2D,
// _FusedDepthwiseConv2dNative and _FusedMatMul, which opkit's built-in op
// library does not define yet (they are being added to opkit/ops/ in
// parallel). Linked into the onednn_kernels test and benchmark only, never
// into the library, so that they can load it and run its kernels. Delete
// this file (and its target in this folder's CMakeLists.txt) once opkit/ops/
// registers these ops: the test program would then fail with duplicate op
// names. Copied from TensorFlow 2.6.3's core/ops/nn_ops.cc and
// math_ops.cc, the version of opkit's op conformance data.
#include "opkit/op/op.h"
#include "opkit/shape/common_shape_fns.h"

namespace opkit {

REGISTER_OP("DepthwiseConv2dNative")
    .Input("input: T")
    .Input("filter: T")
    .Output("output: T")
    .Attr("T: {half, bfloat16, float, double}")
    .Attr("strides: list(int)")
    .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
    .Attr("explicit_paddings: list(int) = []")
    .Attr("data_format: { 'NHWC', 'NCHW' } = 'NHWC' ")
    .Attr("dilations: list(int) = [1, 1, 1, 1]")
    .SetShapeFn(shape_inference::DepthwiseConv2DNativeShapeWithExplicitPadding);

REGISTER_OP("_FusedConv2D")
    .Input("input: T")
    .Input("filter: T")
    .Input("args: num_args * T")
    .Output("output: T")
    .Attr("T: {float, double}")
    .Attr("num_args: int >= 0")
    .Attr("strides: list(int)")
    .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
    .Attr("explicit_paddings: list(int) = []")
    .Attr("data_format: { 'NHWC', 'NCHW' } = 'NHWC' ")
    .Attr("dilations: list(int) = [1, 1, 1, 1]")
    .Attr("use_cudnn_on_gpu: bool = true")
    .Attr("fused_ops: list(string) = []")
    // Attributes for the FusedBatchNorm ------------------------------------ //
    .Attr("epsilon: float = 0.0001")
    // Attributes for the LeakyRelu ----------------------------------------- //
    .Attr("leakyrelu_alpha: float = 0.2")
    // ---------------------------------------------------------------------- //
    .SetShapeFn(shape_inference::Conv2DShapeWithExplicitPadding);

REGISTER_OP("_FusedDepthwiseConv2dNative")
    .Input("input: T")
    .Input("filter: T")
    .Input("args: num_args * T")
    .Output("output: T")
    .Attr("T: {half, bfloat16, float, double}")
    .Attr("num_args: int >= 0")
    .Attr("strides: list(int)")
    .Attr("padding: {'SAME', 'VALID'}")
    .Attr("data_format: { 'NHWC', 'NCHW' } = 'NHWC' ")
    .Attr("dilations: list(int) = [1, 1, 1, 1]")
    .Attr("fused_ops: list(string) = []")
    // Attributes for the FusedBatchNorm ------------------------------------ //
    .Attr("epsilon: float = 0.0001")
    // Attributes for the LeakyRelu ----------------------------------------- //
    .Attr("leakyrelu_alpha: float = 0.2")
    // ---------------------------------------------------------------------- //
    .SetShapeFn(shape_inference::DepthwiseConv2DNativeShape);

REGISTER_OP("_FusedMatMul")
    .Input("a: T")
    .Input("b: T")
    .Input("args: num_args * T")
    .Output("product: T")
    .Attr("transpose_a: bool = false")
    .Attr("transpose_b: bool = false")
    .Attr("T: {bfloat16, float}")
    .Attr("num_args: int >= 0")
    .Attr("fused_ops: list(string) = []")
    // Attributes for the FusedBatchNorm ----------------------------------- //
    .Attr("epsilon: float = 0.0001")
    // Attributes for the LeakyRelu ---------------------------------------- //
    .Attr("leakyrelu_alpha: float = 0.2")
    // --------------------------------------------------------------------- //
    .SetShapeFn(shape_inference::MatMulShape);

}  // namespace opkit
