// Built-in neural-network ops: activations, softmax, top-k, bias,
// convolution, pooling and batch normalisation. OpDefs are TensorFlow's for the same
// names (ops_conformance_test checks them against TensorFlow's ops.pbtxt);
// the shape functions are opkit's, with TensorFlow's behaviour.
#include "opkit/core/errors.h"
#include "opkit/shape/common_shape_fns.h"
#include "opkit/op/op.h"

namespace opkit {

namespace {

// Softmax and LogSoftmax work on the last dimension, so a scalar is refused.
Status SoftmaxShape(shape_inference::InferenceContext* c) {
  return shape_inference::UnchangedShapeWithRankAtLeast(c, 1);
}

// TopKV2: the input with its last dimension replaced by k (both outputs).
// The input must have at least k entries in its last dimension where both
// are known.
Status TopKShape(shape_inference::InferenceContext* c) {
  shape_inference::ShapeHandle input;
  OPKIT_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 1, &input));
  shape_inference::ShapeHandle k_shape;
  OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(1), 0, &k_shape));
  shape_inference::DimensionHandle k;
  OPKIT_RETURN_IF_ERROR(c->MakeDimForScalarInput(1, &k));
  const shape_inference::DimensionHandle last = c->Dim(input, -1);
  if (c->ValueKnown(last) && c->ValueKnown(k) && c->Value(last) < c->Value(k)) {
    return errors::InvalidArgument("input must have last dimension >= k = ",
                                   c->Value(k), " but is ", c->Value(last));
  }
  shape_inference::ShapeHandle out;
  OPKIT_RETURN_IF_ERROR(c->Subshape(input, 0, -1, &out));
  OPKIT_RETURN_IF_ERROR(c->Concatenate(out, c->Vector(k), &out));
  c->set_output(0, out);
  c->set_output(1, out);
  return OkStatus();
}

}  // namespace

REGISTER_OP("Relu")
    .Input("features: T")
    .Output("activations: T")
    .Attr("T: {realnumbertype, qint8}")
    .SetShapeFn(shape_inference::UnchangedShape);

REGISTER_OP("Relu6")
    .Input("features: T")
    .Output("activations: T")
    .Attr("T: realnumbertype")
    .SetShapeFn(shape_inference::UnchangedShape);

REGISTER_OP("Elu")
    .Input("features: T")
    .Output("activations: T")
    .Attr("T: {half, bfloat16, float, double}")
    .SetShapeFn(shape_inference::UnchangedShape);

REGISTER_OP("LeakyRelu")
    .Input("features: T")
    .Output("activations: T")
    .Attr("alpha: float = 0.2")
    .Attr("T: {half, bfloat16, float, double} = DT_FLOAT")
    .SetShapeFn(shape_inference::UnchangedShape);

REGISTER_OP("Softmax")
    .Input("logits: T")
    .Output("softmax: T")
    .Attr("T: {half, bfloat16, float, double}")
    .SetShapeFn(SoftmaxShape);

REGISTER_OP("LogSoftmax")
    .Input("logits: T")
    .Output("logsoftmax: T")
    .Attr("T: {half, bfloat16, float, double}")
    .SetShapeFn(SoftmaxShape);

REGISTER_OP("TopKV2")
    .Input("input: T")
    .Input("k: int32")
    .Output("values: T")
    .Output("indices: int32")
    .Attr("sorted: bool = true")
    .Attr("T: realnumbertype")
    .SetShapeFn(TopKShape);

REGISTER_OP("BiasAdd")
    .Attr("T: numbertype")
    .Input("value: T")
    .Input("bias: T")
    .Attr("data_format: { 'NHWC', 'NCHW' } = 'NHWC' ")
    .Output("output: T")
    .SetShapeFn(shape_inference::BiasAddShape);

REGISTER_OP("Conv2D")
    .Input("input: T")
    .Input("filter: T")
    .Output("output: T")
    .Attr("T: {half, bfloat16, float, double, int32}")
    .Attr("strides: list(int)")
    .Attr("use_cudnn_on_gpu: bool = true")
    .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
    .Attr("explicit_paddings: list(int) = []")
    .Attr("data_format: { 'NHWC', 'NCHW' } = 'NHWC' ")
    .Attr("dilations: list(int) = [1, 1, 1, 1]")
    .SetShapeFn(shape_inference::Conv2DShapeWithExplicitPadding);

REGISTER_OP("Conv2DBackpropInput")
    .Input("input_sizes: int32")
    .Input("filter: T")
    .Input("out_backprop: T")
    .Output("output: T")
    .Attr("T: {half, bfloat16, float, double, int32}")
    .Attr("strides: list(int)")
    .Attr("use_cudnn_on_gpu: bool = true")
    .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
    .Attr("explicit_paddings: list(int) = []")
    .Attr("data_format: { 'NHWC', 'NCHW' } = 'NHWC' ")
    .Attr("dilations: list(int) = [1, 1, 1, 1]")
    .SetShapeFn(shape_inference::Conv2DBackpropInputShape);

// The output is the filter's shape, given as the constant filter_sizes.
REGISTER_OP("Conv2DBackpropFilter")
    .Input("input: T")
    .Input("filter_sizes: int32")
    .Input("out_backprop: T")
    .Output("output: T")
    .Attr("T: {half, bfloat16, float, double}")
    .Attr("strides: list(int)")
    .Attr("use_cudnn_on_gpu: bool = true")
    .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
    .Attr("explicit_paddings: list(int) = []")
    .Attr("data_format: { 'NHWC', 'NCHW' } = 'NHWC' ")
    .Attr("dilations: list(int) = [1, 1, 1, 1]")
    .SetShapeFn([](shape_inference::InferenceContext* c) {
      shape_inference::ShapeHandle s;
      OPKIT_RETURN_IF_ERROR(c->MakeShapeFromShapeTensor(1, &s));
      OPKIT_RETURN_IF_ERROR(c->WithRank(s, 4, &s));
      c->set_output(0, s);
      return OkStatus();
    });

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
    .SetShapeFn(
        shape_inference::DepthwiseConv2DNativeShapeWithExplicitPadding);

REGISTER_OP("Conv3D")
    .Input("input: T")
    .Input("filter: T")
    .Output("output: T")
    .Attr("T: {half, bfloat16, float, double}")
    .Attr("strides: list(int) >= 5")
    .Attr("padding: {'SAME', 'VALID'}")
    .Attr("data_format: { 'NDHWC', 'NCDHW' } = 'NDHWC' ")
    .Attr("dilations: list(int) = [1, 1, 1, 1, 1]")
    .SetShapeFn(shape_inference::Conv3DShape);

REGISTER_OP("AvgPool")
    .Input("value: T")
    .Output("output: T")
    .Attr("ksize: list(int) >= 4")
    .Attr("strides: list(int) >= 4")
    .Attr("padding: {'SAME', 'VALID'}")
    .Attr("data_format: { 'NHWC', 'NCHW' } = 'NHWC' ")
    .Attr("T: {half, bfloat16, float, double}")
    .SetShapeFn(shape_inference::AvgPoolShape);

REGISTER_OP("MaxPool")
    .Attr(
        "T: {half, bfloat16, float, double, int32, int64, uint8, int16, int8, "
        "uint16, qint8} = DT_FLOAT")
    .Attr("ksize: list(int) >= 4")
    .Attr("strides: list(int) >= 4")
    .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
    .Attr("explicit_paddings: list(int) = []")
    .Attr("data_format: {'NHWC', 'NCHW', 'NCHW_VECT_C'} = 'NHWC'")
    .Input("input: T")
    .Output("output: T")
    .SetShapeFn(shape_inference::MaxPoolShapeWithExplicitPadding);

REGISTER_OP("FusedBatchNormV3")
    .Input("x: T")
    .Input("scale: U")
    .Input("offset: U")
    .Input("mean: U")
    .Input("variance: U")
    .Output("y: T")
    .Output("batch_mean: U")
    .Output("batch_variance: U")
    .Output("reserve_space_1: U")
    .Output("reserve_space_2: U")
    .Output("reserve_space_3: U")
    .Attr("T: {half, bfloat16, float}")
    .Attr("U: {float}")
    .Attr("epsilon: float = 0.0001")
    .Attr("exponential_avg_factor: float = 1.0")
    .Attr("data_format: { 'NHWC', 'NCHW', 'NDHWC', 'NCDHW' } = 'NHWC' ")
    .Attr("is_training: bool = true")
    .SetShapeFn(shape_inference::FusedBatchNormV3Shape);

}  // namespace opkit
