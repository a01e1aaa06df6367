// Gradients of the neural-network ops (activations, softmax and its
// cross-entropies, bias, convolution, pooling, batch norm), registered with
// REGISTER_GRADIENT_OP. Each follows TensorFlow's gradient of the same op
// and builds on its *Grad op where TensorFlow has one.
#include <string>
#include <vector>

#include "opkit/gradients/grad_helpers.h"
#include "opkit/gradients/gradient_registry.h"
#include "opkit/gradients/graph_builder.h"

namespace opkit {
namespace {

// The activations whose gradient needs only their output: dx = <Op>Grad(dy, y).
constexpr char kReluGrad[] = "ReluGrad";
constexpr char kRelu6Grad[] = "Relu6Grad";
constexpr char kEluGrad[] = "EluGrad";
constexpr char kSeluGrad[] = "SeluGrad";
REGISTER_GRADIENT_OP("Relu", (grad::GradFromOutput<kReluGrad, false>));
REGISTER_GRADIENT_OP("Relu6", (grad::GradFromOutput<kRelu6Grad, false>));
REGISTER_GRADIENT_OP("Elu", (grad::GradFromOutput<kEluGrad, false>));
REGISTER_GRADIENT_OP("Selu", (grad::GradFromOutput<kSeluGrad, false>));

Status LeakyReluGrad(GraphBuilder& b, const GradientOp& op, const std::vector<Output>& dy,
                     std::vector<Output>* dx) {
  *dx = {b.Add("LeakyReluGrad", {dy[0], op.inputs[0]}, op.Attrs({"alpha"}))};
  return b.status();
}
REGISTER_GRADIENT_OP("LeakyRelu", LeakyReluGrad);

Status BiasAddGrad(GraphBuilder& b, const GradientOp& op, const std::vector<Output>& dy,
                   std::vector<Output>* dx) {
  *dx = {dy[0], b.Add("BiasAddGrad", {dy[0]}, op.Attrs({"data_format"}))};
  return b.status();
}
REGISTER_GRADIENT_OP("BiasAdd", BiasAddGrad);

// ReluGrad, Relu6Grad and LeakyReluGrad(gradients, features) apply a mask
// of the features to the gradients: linear in gradients (the same op, with
// its attrs, applied to the incoming gradient), flat in features
// (TensorFlow's _ReluGradGrad, _Relu6GradGrad, _LeakyReluGradGrad).
Status MaskedGradGrad(GraphBuilder& b, const GradientOp& op, const std::vector<Output>& dy,
                      std::vector<Output>* dx) {
  const Output& features = op.inputs[1];
  *dx = {b.Add(op.type(), {dy[0], features}, op.Attrs({"alpha"})),
         b.Add("ZerosLike", {features})};
  return b.status();
}
REGISTER_GRADIENT_OP("ReluGrad", MaskedGradGrad);
REGISTER_GRADIENT_OP("Relu6Grad", MaskedGradGrad);
REGISTER_GRADIENT_OP("LeakyReluGrad", MaskedGradGrad);

// EluGrad(g, y) = g * (y + 1) where y < 0, g elsewhere; SeluGrad(g, y) =
// g * (y + scale * alpha) where y < 0, g * scale elsewhere. Both are linear
// in g and, where y < 0, have slope g in y (TensorFlow's _EluGradGrad,
// _SeluGradGrad).
template <const char* kGradOp>
Status EluOrSeluGradGrad(GraphBuilder& b, const GradientOp& op, const std::vector<Output>& dy,
                         std::vector<Output>* dx) {
  const Output& g = op.inputs[0];
  const Output& y = op.inputs[1];
  const Output negative = b.Add("Less", {y, b.Scalar(y.dtype, 0.0)});
  *dx = {b.Add(kGradOp, {dy[0], y}),
         b.Add("SelectV2", {negative, b.Add("Mul", {dy[0], g}), b.Scalar(y.dtype, 0.0)})};
  return b.status();
}
REGISTER_GRADIENT_OP("EluGrad", EluOrSeluGradGrad<kEluGrad>);
REGISTER_GRADIENT_OP("SeluGrad", EluOrSeluGradGrad<kSeluGrad>);

// BiasAddGrad sums out_backprop over all but the channel dimension, so its
// gradient is the incoming [C] gradient broadcast back along them
// (TensorFlow's _BiasAddGradGrad): the channel is last in NHWC, second in
// NCHW.
Status BiasAddGradGrad(GraphBuilder& b, const GradientOp& op, const std::vector<Output>& dy,
                       std::vector<Output>* dx) {
  std::string data_format;
  OPKIT_RETURN_IF_ERROR(op.GetAttr("data_format", &data_format));
  const Output shape = b.Add("Shape", {op.inputs[0]});
  Output bias = dy[0];
  if (data_format == "NCHW") {
    // [C] -> [C, 1, ..., 1], one 1 per dimension after the channel.
    const Output rest = b.Add("Slice", {shape, b.ConstInt({2}), b.ConstInt({-1})});
    const Output expanded = b.Add(
        "ConcatV2", {Input({b.Add("Shape", {dy[0]}), b.Add("OnesLike", {rest})}),
                     b.ScalarInt(0)});
    bias = b.Add("Reshape", {dy[0], expanded});
  }
  *dx = {b.Add("BroadcastTo", {bias, shape})};
  return b.status();
}
REGISTER_GRADIENT_OP("BiasAddGrad", BiasAddGradGrad);

// TopKV2(input, k) -> (values, indices): each value's gradient goes back to
// the element it was taken from (TensorFlow's _TopKGrad, which scatters
// with ScatterNd; opkit sums into the flattened input with
// UnsortedSegmentSum, the same values as the positions are distinct). k
// and the indices output carry none.
Status TopKV2Grad(GraphBuilder& b, const GradientOp& op, const std::vector<Output>& dy,
                  std::vector<Output>* dx) {
  const Output& input = op.inputs[0];
  const Output& indices = op.outputs[1];
  auto last_dim = [&b](const Output& t) {
    return b.Add("GatherV2", {b.Add("Shape", {t}),
                              b.Add("Sub", {b.Add("Rank", {t}), b.ScalarInt(1)}),
                              b.ScalarInt(0)});
  };
  // Row r of the [outer, k] indices picks from row r of the [outer, n]
  // input: its flat positions are r * n + index. (n at least 1 so that an
  // empty last dimension still makes a valid range; outer spelled out, as
  // Reshape cannot infer it when k is 0.)
  const Output n = b.Add("Maximum", {last_dim(input), b.ScalarInt(1)});
  const Output outer = b.Add("FloorDiv", {b.Add("Size", {input}), n});
  const Output ind_2d =
      b.Add("Reshape", {indices, b.Add("Pack", {Input({outer, last_dim(indices)})})});
  const Output offsets = b.Add(
      "ExpandDims",
      {b.Add("Range", {b.ScalarInt(0), b.Add("Mul", {outer, n}), n}), b.ScalarInt(-1)});
  const Output flat_positions =
      b.Add("Reshape", {b.Add("AddV2", {ind_2d, offsets}), b.ConstInt({-1})});
  const Output flat = b.Add("UnsortedSegmentSum",
                            {b.Add("Reshape", {dy[0], b.ConstInt({-1})}), flat_positions,
                             b.Add("Size", {input})});
  *dx = {b.Add("Reshape", {flat, b.Add("Shape", {input})}), Output()};
  return b.status();
}
REGISTER_GRADIENT_OP("TopKV2", TopKV2Grad);

// Sum over the last axis, kept.
Output SumLast(GraphBuilder& b, const Output& t) {
  return b.Add("Sum", {t, b.ScalarInt(-1)}, {{"keep_dims", Attr(true)}});
}

// y = softmax(x): dx = (dy - sum(dy * y)) * y.
Status SoftmaxGrad(GraphBuilder& b, const GradientOp& op, const std::vector<Output>& dy,
                   std::vector<Output>* dx) {
  const Output& y = op.outputs[0];
  *dx = {b.Add("Mul", {b.Add("Sub", {dy[0], SumLast(b, b.Add("Mul", {dy[0], y}))}), y})};
  return b.status();
}
REGISTER_GRADIENT_OP("Softmax", SoftmaxGrad);

// y = log_softmax(x): dx = dy - exp(y) * sum(dy).
Status LogSoftmaxGrad(GraphBuilder& b, const GradientOp& op, const std::vector<Output>& dy,
                      std::vector<Output>* dx) {
  const Output& y = op.outputs[0];
  *dx = {b.Add("Sub", {dy[0], b.Add("Mul", {b.Add("Exp", {y}), SumLast(b, dy[0])})})};
  return b.status();
}
REGISTER_GRADIENT_OP("LogSoftmax", LogSoftmaxGrad);

// The loss's gradient (a vector over the batch) as a column.
Output Column(GraphBuilder& b, const Output& loss_grad) {
  return b.Add("ExpandDims", {loss_grad, b.ScalarInt(-1)});
}

// Outputs (loss, backprop): d logits = d loss * backprop; d labels =
// d loss * -log_softmax(logits). (The gradient through backprop, used
// only by second derivatives, is not propagated.)
Status SoftmaxCrossEntropyGrad(GraphBuilder& b, const GradientOp& op,
                               const std::vector<Output>& dy, std::vector<Output>* dx) {
  const Output column = Column(b, dy[0]);
  const Output d_logits = b.Add("Mul", {column, op.outputs[1]});
  const Output d_labels =
      b.Add("Mul", {column, b.Add("Neg", {b.Add("LogSoftmax", {op.inputs[0]})})});
  *dx = {d_logits, d_labels};
  return b.status();
}
REGISTER_GRADIENT_OP("SoftmaxCrossEntropyWithLogits", SoftmaxCrossEntropyGrad);

Status SparseSoftmaxCrossEntropyGrad(GraphBuilder& b, const GradientOp& op,
                                     const std::vector<Output>& dy, std::vector<Output>* dx) {
  *dx = {b.Add("Mul", {Column(b, dy[0]), op.outputs[1]}), Output()};
  return b.status();
}
REGISTER_GRADIENT_OP("SparseSoftmaxCrossEntropyWithLogits", SparseSoftmaxCrossEntropyGrad);

Status Conv2DGrad(GraphBuilder& b, const GradientOp& op, const std::vector<Output>& dy,
                  std::vector<Output>* dx) {
  const auto attrs = op.Attrs({"strides", "padding", "explicit_paddings", "data_format",
                               "dilations", "use_cudnn_on_gpu"});
  const Output& input = op.inputs[0];
  const Output& filter = op.inputs[1];
  *dx = {b.Add("Conv2DBackpropInput", {b.Add("Shape", {input}), filter, dy[0]}, attrs),
         b.Add("Conv2DBackpropFilter", {input, b.Add("Shape", {filter}), dy[0]}, attrs)};
  return b.status();
}
REGISTER_GRADIENT_OP("Conv2D", Conv2DGrad);

// Conv2DBackpropInput(input_sizes, filter, dy) is linear in filter and dy:
// its gradient in filter is the filter gradient of a convolution of the
// incoming gradient by dy, in dy the forward convolution of the incoming
// gradient (TensorFlow's _Conv2DBackpropInputGrad); and likewise for
// Conv2DBackpropFilter(input, filter_sizes, dy) in input and dy.
Status Conv2DBackpropInputGrad(GraphBuilder& b, const GradientOp& op,
                               const std::vector<Output>& dy, std::vector<Output>* dx) {
  const auto attrs = op.Attrs({"strides", "padding", "explicit_paddings", "data_format",
                               "dilations", "use_cudnn_on_gpu"});
  const Output& filter = op.inputs[1];
  *dx = {Output(),
         b.Add("Conv2DBackpropFilter", {dy[0], b.Add("Shape", {filter}), op.inputs[2]}, attrs),
         b.Add("Conv2D", {dy[0], filter}, attrs)};
  return b.status();
}
REGISTER_GRADIENT_OP("Conv2DBackpropInput", Conv2DBackpropInputGrad);

Status Conv2DBackpropFilterGrad(GraphBuilder& b, const GradientOp& op,
                                const std::vector<Output>& dy, std::vector<Output>* dx) {
  const auto attrs = op.Attrs({"strides", "padding", "explicit_paddings", "data_format",
                               "dilations", "use_cudnn_on_gpu"});
  const Output& input = op.inputs[0];
  *dx = {b.Add("Conv2DBackpropInput", {b.Add("Shape", {input}), dy[0], op.inputs[2]}, attrs),
         Output(), b.Add("Conv2D", {input, dy[0]}, attrs)};
  return b.status();
}
REGISTER_GRADIENT_OP("Conv2DBackpropFilter", Conv2DBackpropFilterGrad);

Status DepthwiseConv2dNativeGrad(GraphBuilder& b, const GradientOp& op,
                                 const std::vector<Output>& dy,
                                 std::vector<Output>* dx) {
  const auto attrs =
      op.Attrs({"strides", "padding", "explicit_paddings", "data_format", "dilations"});
  const Output& input = op.inputs[0];
  const Output& filter = op.inputs[1];
  *dx = {b.Add("DepthwiseConv2dNativeBackpropInput",
               {b.Add("Shape", {input}), filter, dy[0]}, attrs),
         b.Add("DepthwiseConv2dNativeBackpropFilter",
               {input, b.Add("Shape", {filter}), dy[0]}, attrs)};
  return b.status();
}
REGISTER_GRADIENT_OP("DepthwiseConv2dNative", DepthwiseConv2dNativeGrad);

// The depthwise backprop ops are linear in the same way as Conv2D's
// (TensorFlow's _DepthwiseConv2dNativeBackpropInputGrad / FilterGrad).
Status DepthwiseConv2dNativeBackpropInputGrad(GraphBuilder& b, const GradientOp& op,
                                              const std::vector<Output>& dy,
                                              std::vector<Output>* dx) {
  const auto attrs =
      op.Attrs({"strides", "padding", "explicit_paddings", "data_format", "dilations"});
  const Output& filter = op.inputs[1];
  *dx = {Output(),
         b.Add("DepthwiseConv2dNativeBackpropFilter",
               {dy[0], b.Add("Shape", {filter}), op.inputs[2]}, attrs),
         b.Add("DepthwiseConv2dNative", {dy[0], filter}, attrs)};
  return b.status();
}
REGISTER_GRADIENT_OP("DepthwiseConv2dNativeBackpropInput",
                     DepthwiseConv2dNativeBackpropInputGrad);

Status DepthwiseConv2dNativeBackpropFilterGrad(GraphBuilder& b, const GradientOp& op,
                                               const std::vector<Output>& dy,
                                               std::vector<Output>* dx) {
  const auto attrs =
      op.Attrs({"strides", "padding", "explicit_paddings", "data_format", "dilations"});
  const Output& input = op.inputs[0];
  *dx = {b.Add("DepthwiseConv2dNativeBackpropInput",
               {b.Add("Shape", {input}), dy[0], op.inputs[2]}, attrs),
         Output(), b.Add("DepthwiseConv2dNative", {input, dy[0]}, attrs)};
  return b.status();
}
REGISTER_GRADIENT_OP("DepthwiseConv2dNativeBackpropFilter",
                     DepthwiseConv2dNativeBackpropFilterGrad);

Status MaxPoolGrad(GraphBuilder& b, const GradientOp& op, const std::vector<Output>& dy,
                   std::vector<Output>* dx) {
  *dx = {b.Add("MaxPoolGrad", {op.inputs[0], op.outputs[0], dy[0]},
               op.Attrs({"ksize", "strides", "padding", "explicit_paddings", "data_format"}))};
  return b.status();
}
REGISTER_GRADIENT_OP("MaxPool", MaxPoolGrad);

Status AvgPoolGrad(GraphBuilder& b, const GradientOp& op, const std::vector<Output>& dy,
                   std::vector<Output>* dx) {
  *dx = {b.Add("AvgPoolGrad", {b.Add("Shape", {op.inputs[0]}), dy[0]},
               op.Attrs({"ksize", "strides", "padding", "data_format"}))};
  return b.status();
}
REGISTER_GRADIENT_OP("AvgPool", AvgPoolGrad);

// AvgPoolGrad(orig_input_shape, dy) spreads each window's gradient evenly
// over it, a linear map whose adjoint is AvgPool (TensorFlow's
// _AvgPoolGradGrad); the shape gets none.
Status AvgPoolGradGrad(GraphBuilder& b, const GradientOp& op, const std::vector<Output>& dy,
                       std::vector<Output>* dx) {
  *dx = {Output(),
         b.Add("AvgPool", {dy[0]}, op.Attrs({"ksize", "strides", "padding", "data_format"}))};
  return b.status();
}
REGISTER_GRADIENT_OP("AvgPoolGrad", AvgPoolGradGrad);

// FusedBatchNormV3(x, scale, offset, mean, variance) -> (y, batch_mean,
// batch_variance, reserve_space_1, reserve_space_2, reserve_space_3): the
// gradients of x, scale and offset from FusedBatchNormGradV3 and the
// reserve spaces; none for the running statistics.
Status FusedBatchNormV3Grad(GraphBuilder& b, const GradientOp& op,
                            const std::vector<Output>& dy, std::vector<Output>* dx) {
  const std::vector<Output> g = b.AddN(
      "FusedBatchNormGradV3",
      {dy[0], op.inputs[0], op.inputs[1], op.outputs[3], op.outputs[4], op.outputs[5]},
      op.Attrs({"epsilon", "data_format", "is_training"}));
  if (g.size() < 3) return b.status();
  *dx = {g[0], g[1], g[2], Output(), Output()};
  return b.status();
}
REGISTER_GRADIENT_OP("FusedBatchNormV3", FusedBatchNormV3Grad);

}  // namespace
}  // namespace opkit
