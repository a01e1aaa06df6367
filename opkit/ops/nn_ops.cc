// Built-in neural-network ops: activations, softmax, cross entropy, top-k,
// bias, convolution, pooling and batch normalisation, and the gradient ops
// of the activations, bias, pooling and batch normalisation. OpDefs are TensorFlow's for the same
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

// SoftmaxCrossEntropyWithLogits: features and labels [batch, classes], or
// two shapes that broadcast to a matrix. Output 0 (loss) is [batch], output
// 1 (backprop) the matrix.
Status SoftmaxCrossEntropyShape(shape_inference::InferenceContext* c) {
  shape_inference::ShapeHandle input;
  if (c->WithRank(c->input(0), 2, &input).ok() &&
      c->Merge(input, c->input(1), &input).ok()) {
    c->set_output(0, c->Vector(c->Dim(input, 0)));
    c->set_output(1, input);
    return OkStatus();
  }
  OPKIT_RETURN_IF_ERROR(shape_inference::BroadcastBinaryOpOutputShapeFn(c, 1));
  const shape_inference::ShapeHandle out = c->output(1);
  if (!c->RankKnown(out)) {
    return errors::InvalidArgument(
        "features and labels must broadcast to a matrix [batch, classes], "
        "but the rank of the broadcast shape is unknown");
  }
  if (c->Rank(out) != 2) {
    return errors::InvalidArgument(
        "features and labels must broadcast to a matrix [batch, classes], "
        "but broadcast to rank ",
        c->Rank(out));
  }
  c->set_output(0, c->Vector(c->Dim(out, 0)));
  return OkStatus();
}

// SparseSoftmaxCrossEntropyWithLogits: features [batch, classes] and labels
// [batch]. Output 0 (loss) is [batch], output 1 (backprop) features' shape.
Status SparseSoftmaxCrossEntropyShape(shape_inference::InferenceContext* c) {
  shape_inference::ShapeHandle features;
  OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(0), 2, &features));
  shape_inference::ShapeHandle labels;
  OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &labels));
  shape_inference::DimensionHandle batch;
  OPKIT_RETURN_IF_ERROR(
      c->Merge(c->Dim(features, 0), c->Dim(labels, 0), &batch));
  OPKIT_RETURN_IF_ERROR(c->ReplaceDim(features, 0, batch, &features));
  c->set_output(0, c->Vector(batch));
  c->set_output(1, features);
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

// Gradients of the activations: the incoming gradients and the forward
// op's features (or outputs, for Elu and Selu) have one shape.
REGISTER_OP("ReluGrad")
    .Input("gradients: T")
    .Input("features: T")
    .Output("backprops: T")
    .Attr("T: realnumbertype")
    .SetShapeFn(shape_inference::MergeBothInputsShapeFn);

REGISTER_OP("Relu6Grad")
    .Input("gradients: T")
    .Input("features: T")
    .Output("backprops: T")
    .Attr("T: realnumbertype")
    .SetShapeFn(shape_inference::MergeBothInputsShapeFn);

REGISTER_OP("EluGrad")
    .Input("gradients: T")
    .Input("outputs: T")
    .Output("backprops: T")
    .Attr("T: {half, bfloat16, float, double}")
    .SetShapeFn(shape_inference::MergeBothInputsShapeFn);

REGISTER_OP("LeakyReluGrad")
    .Input("gradients: T")
    .Input("features: T")
    .Output("backprops: T")
    .Attr("alpha: float = 0.2")
    .Attr("T: {half, bfloat16, float, double} = DT_FLOAT")
    .SetShapeFn(shape_inference::MergeBothInputsShapeFn);

REGISTER_OP("Selu")
    .Input("features: T")
    .Output("activations: T")
    .Attr("T: {half, bfloat16, float, double}")
    .SetShapeFn(shape_inference::UnchangedShape);

REGISTER_OP("SeluGrad")
    .Input("gradients: T")
    .Input("outputs: T")
    .Output("backprops: T")
    .Attr("T: {half, bfloat16, float, double}")
    .SetShapeFn(shape_inference::MergeBothInputsShapeFn);

REGISTER_OP("SoftmaxCrossEntropyWithLogits")
    .Input("features: T")
    .Input("labels: T")
    .Output("loss: T")
    .Output("backprop: T")
    .Attr("T: {half, bfloat16, float, double}")
    .SetShapeFn(SoftmaxCrossEntropyShape);

REGISTER_OP("SparseSoftmaxCrossEntropyWithLogits")
    .Input("features: T")
    .Input("labels: Tlabels")
    .Output("loss: T")
    .Output("backprop: T")
    .Attr("T: {half, bfloat16, float, double}")
    .Attr("Tlabels: {int32, int64} = DT_INT64")
    .SetShapeFn(SparseSoftmaxCrossEntropyShape);

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

// The sum of out_backprop over every dimension but the channel one.
REGISTER_OP("BiasAddGrad")
    .Attr("T: numbertype")
    .Input("out_backprop: T")
    .Attr("data_format: { 'NHWC', 'NCHW' } = 'NHWC' ")
    .Output("output: T")
    .SetShapeFn(shape_inference::BiasAddGradShape);

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

// The gradients of DepthwiseConv2dNative; the output's shape is the
// constant input_sizes / filter_sizes.
REGISTER_OP("DepthwiseConv2dNativeBackpropInput")
    .Input("input_sizes: int32")
    .Input("filter: T")
    .Input("out_backprop: T")
    .Output("output: T")
    .Attr("T: {half, bfloat16, float, double}")
    .Attr("strides: list(int)")
    .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
    .Attr("explicit_paddings: list(int) = []")
    .Attr("data_format: { 'NHWC', 'NCHW' } = 'NHWC' ")
    .Attr("dilations: list(int) = [1, 1, 1, 1]")
    .SetShapeFn([](shape_inference::InferenceContext* c) {
      shape_inference::ShapeHandle s;
      OPKIT_RETURN_IF_ERROR(c->MakeShapeFromShapeTensor(0, &s));
      OPKIT_RETURN_IF_ERROR(c->WithRank(s, 4, &s));
      c->set_output(0, s);
      return OkStatus();
    });

REGISTER_OP("DepthwiseConv2dNativeBackpropFilter")
    .Input("input: T")
    .Input("filter_sizes: int32")
    .Input("out_backprop: T")
    .Output("output: T")
    .Attr("T: {half, bfloat16, float, double}")
    .Attr("strides: list(int)")
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

// The gradient of AvgPool with respect to its input, whose shape is the
// constant orig_input_shape.
REGISTER_OP("AvgPoolGrad")
    .Input("orig_input_shape: int32")
    .Input("grad: T")
    .Output("output: T")
    .Attr("ksize: list(int) >= 4")
    .Attr("strides: list(int) >= 4")
    .Attr("padding: {'SAME', 'VALID'}")
    .Attr("data_format: { 'NHWC', 'NCHW' } = 'NHWC' ")
    .Attr("T: {half, bfloat16, float, double}")
    .SetShapeFn(shape_inference::AvgPoolGradShape);

// The gradient of MaxPool with respect to its input (orig_input's shape).
REGISTER_OP("MaxPoolGrad")
    .Attr("ksize: list(int) >= 4")
    .Attr("strides: list(int) >= 4")
    .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
    .Attr("explicit_paddings: list(int) = []")
    .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .Input("orig_input: T")
    .Input("orig_output: T")
    .Input("grad: T")
    .Output("output: T")
    .Attr("T: realnumbertype = DT_FLOAT")
    .SetShapeFn(shape_inference::MaxPoolGradShape);

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

REGISTER_OP("FusedBatchNormGradV3")
    .Input("y_backprop: T")
    .Input("x: T")
    .Input("scale: float")
    .Input("reserve_space_1: U")
    .Input("reserve_space_2: U")
    .Input("reserve_space_3: U")
    .Output("x_backprop: T")
    .Output("scale_backprop: U")
    .Output("offset_backprop: U")
    .Output("reserve_space_4: U")
    .Output("reserve_space_5: U")
    .Attr("T: {half, bfloat16, float}")
    .Attr("U: {float}")
    .Attr("epsilon: float = 0.0001")
    .Attr("data_format: { 'NHWC', 'NCHW', 'NDHWC', 'NCDHW' } = 'NHWC' ")
    .Attr("is_training: bool = true")
    .SetShapeFn(shape_inference::FusedBatchNormGradShape);

}  // namespace opkit
