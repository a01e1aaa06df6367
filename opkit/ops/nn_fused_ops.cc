// TensorFlow's fused ops: a convolution or matrix product followed by a
// bias add or batch norm and an activation, in one op. They are internal
// (names start with "_"): TensorFlow's graph optimiser writes them into
// graphs, and so does opkit's (opkit/optimizer/). OpDefs are TensorFlow's
// (ops_conformance_test checks them against the registrations of
// tests/testdata/tensorflow/registrations_internal.jsonl); which fused_ops
// lists a kernel accepts is the kernel's business (fused_epilogue.h).
#include "opkit/op/op.h"
#include "opkit/shape/common_shape_fns.h"

namespace opkit {

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
    // For FusedBatchNorm.
    .Attr("epsilon: float = 0.0001")
    // For LeakyRelu.
    .Attr("leakyrelu_alpha: float = 0.2")
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
    // For FusedBatchNorm.
    .Attr("epsilon: float = 0.0001")
    // For LeakyRelu.
    .Attr("leakyrelu_alpha: float = 0.2")
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
    // For FusedBatchNorm.
    .Attr("epsilon: float = 0.0001")
    // For LeakyRelu.
    .Attr("leakyrelu_alpha: float = 0.2")
    .SetShapeFn(shape_inference::MatMulShape);

}  // namespace opkit
