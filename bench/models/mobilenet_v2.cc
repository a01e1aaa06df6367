#include "bench/models/mobilenet_v2.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "opkit/core/errors.h"
#include "opkit/core/str_util.h"
#include "opkit/op/node_def_util.h"
#include "opkit/tensor/tensor.h"
#include "opkit/tensor/tensor_shape.h"

namespace opkit {
namespace bench {
namespace {

// Keras' _make_divisible: `v` rounded to the nearest multiple of 8, never
// below 8 and never more than 10% below `v`.
int MakeDivisible(double v) {
  constexpr int kDivisor = 8;
  int rounded = std::max(kDivisor, static_cast<int>(v + kDivisor / 2.0) / kDivisor * kDivisor);
  if (rounded < 0.9 * v) rounded += kDivisor;
  return rounded;
}

AttrValue IntList(const std::vector<int64_t>& values) {
  AttrValue v;
  for (int64_t x : values) v.mutable_list()->add_i(x);
  return v;
}

// Adds the nodes of the network to a GraphDef. Each method returns the name
// of the tensor it produced.
class Builder {
 public:
  Builder(const MobileNetV2Options& options, GraphDef* graph)
      : options_(options), graph_(graph), rng_(options.seed) {}

  std::string Input(int batch, int size) {
    NodeDef* n = AddNode(kMobileNetV2Input, "Placeholder", {});
    AddNodeAttr("dtype", DT_FLOAT, n);
    AddNodeAttr("shape", TensorShape({batch, size, size, 3}), n);
    return n->name();
  }

  // A k x k convolution from `in` to `out` channels, no bias.
  std::string Conv(const std::string& name, const std::string& input, int in, int out,
                   int k, int stride) {
    const std::string kernel =
        NormalConst(name + "/kernel", {k, k, in, out}, std::sqrt(2.0 / (k * k * in)));
    NodeDef* n = AddNode(name, "Conv2D", {input, kernel});
    AddNodeAttr("T", DT_FLOAT, n);
    AddNodeAttr("strides", IntList({1, stride, stride, 1}), n);
    AddNodeAttr("use_cudnn_on_gpu", true, n);
    AddNodeAttr("padding", "SAME", n);
    AddNodeAttr("explicit_paddings", IntList({}), n);
    AddNodeAttr("data_format", "NHWC", n);
    AddNodeAttr("dilations", IntList({1, 1, 1, 1}), n);
    return name;
  }

  // A 3x3 depthwise convolution with channel multiplier 1.
  std::string Depthwise(const std::string& name, const std::string& input, int channels,
                        int stride) {
    const std::string kernel =
        NormalConst(name + "/depthwise_kernel", {3, 3, channels, 1}, std::sqrt(2.0 / 9));
    NodeDef* n = AddNode(name, "DepthwiseConv2dNative", {input, kernel});
    AddNodeAttr("T", DT_FLOAT, n);
    AddNodeAttr("strides", IntList({1, stride, stride, 1}), n);
    AddNodeAttr("padding", "SAME", n);
    AddNodeAttr("explicit_paddings", IntList({}), n);
    AddNodeAttr("data_format", "NHWC", n);
    AddNodeAttr("dilations", IntList({1, 1, 1, 1}), n);
    return name;
  }

  // A batch norm in inference mode, or the BiasAdd it folds into.
  std::string Norm(const std::string& name, const std::string& input, int channels) {
    if (!options_.batch_norm) {
      return BiasAdd(name, input, UniformConst(name + "/bias", {channels}, -0.1f, 0.1f));
    }
    const std::string gamma = UniformConst(name + "/gamma", {channels}, 0.5f, 1.5f);
    const std::string beta = UniformConst(name + "/beta", {channels}, -0.1f, 0.1f);
    const std::string mean = UniformConst(name + "/moving_mean", {channels}, -0.1f, 0.1f);
    const std::string var = UniformConst(name + "/moving_variance", {channels}, 0.5f, 1.5f);
    NodeDef* n = AddNode(name, "FusedBatchNormV3", {input, gamma, beta, mean, var});
    AddNodeAttr("T", DT_FLOAT, n);
    AddNodeAttr("U", DT_FLOAT, n);
    AddNodeAttr("epsilon", 0.001f, n);  // Keras' BatchNormalization in MobileNetV2
    AddNodeAttr("exponential_avg_factor", 1.0f, n);
    AddNodeAttr("data_format", "NHWC", n);
    AddNodeAttr("is_training", false, n);
    return name;
  }

  std::string BiasAdd(const std::string& name, const std::string& input,
                      const std::string& bias) {
    NodeDef* n = AddNode(name, "BiasAdd", {input, bias});
    AddNodeAttr("T", DT_FLOAT, n);
    AddNodeAttr("data_format", "NHWC", n);
    return name;
  }

  std::string Unary(const std::string& name, const std::string& op, const std::string& input) {
    AddNodeAttr("T", DT_FLOAT, AddNode(name, op, {input}));
    return name;
  }

  std::string Add(const std::string& name, const std::string& a, const std::string& b) {
    AddNodeAttr("T", DT_FLOAT, AddNode(name, "AddV2", {a, b}));
    return name;
  }

  // Mean over H and W: [N,H,W,C] -> [N,C].
  std::string GlobalAveragePool(const std::string& name, const std::string& input) {
    Tensor axes(DT_INT32, TensorShape({2}));
    axes.flat<int32>()(0) = 1;
    axes.flat<int32>()(1) = 2;
    const std::string axes_name = Const(name + "/reduction_indices", axes);
    NodeDef* n = AddNode(name, "Mean", {input, axes_name});
    AddNodeAttr("T", DT_FLOAT, n);
    AddNodeAttr("Tidx", DT_INT32, n);
    AddNodeAttr("keep_dims", false, n);
    return name;
  }

  // [N,in] x [in,out] + bias.
  std::string Dense(const std::string& name, const std::string& input, int in, int out) {
    const std::string kernel =
        NormalConst(name + "/kernel", {in, out}, std::sqrt(1.0 / in));
    NodeDef* n = AddNode(name + "/MatMul", "MatMul", {input, kernel});
    AddNodeAttr("T", DT_FLOAT, n);
    AddNodeAttr("transpose_a", false, n);
    AddNodeAttr("transpose_b", false, n);
    return BiasAdd(name + "/BiasAdd", n->name(),
                   UniformConst(name + "/bias", {out}, -0.1f, 0.1f));
  }

 private:
  NodeDef* AddNode(const std::string& name, const std::string& op,
                   const std::vector<std::string>& inputs) {
    NodeDef* n = graph_->add_node();
    n->set_name(name);
    n->set_op(op);
    for (const std::string& in : inputs) n->add_input(in);
    return n;
  }

  std::string Const(const std::string& name, const Tensor& value) {
    NodeDef* n = AddNode(name, "Const", {});
    AddNodeAttr("dtype", value.dtype(), n);
    AddNodeAttr("value", value, n);
    return name;
  }

  // Uniform in [0, 1), from the 53 high bits of one draw.
  double Uniform() { return static_cast<double>(rng_() >> 11) * 0x1.0p-53; }

  // Standard normal (Box-Muller, one of the pair).
  double Normal() {
    const double u1 = 1.0 - Uniform();  // (0, 1]: log is finite
    const double u2 = Uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
  }

  std::string NormalConst(const std::string& name, const std::vector<int64_t>& shape,
                          double stddev) {
    Tensor t(DT_FLOAT, TensorShape(shape));
    auto flat = t.flat<float>();
    for (int64_t i = 0; i < flat.size(); ++i) flat(i) = static_cast<float>(Normal() * stddev);
    return Const(name, t);
  }

  std::string UniformConst(const std::string& name, const std::vector<int64_t>& shape,
                           float lo, float hi) {
    Tensor t(DT_FLOAT, TensorShape(shape));
    auto flat = t.flat<float>();
    for (int64_t i = 0; i < flat.size(); ++i) {
      flat(i) = lo + static_cast<float>(Uniform()) * (hi - lo);
    }
    return Const(name, t);
  }

  const MobileNetV2Options& options_;
  GraphDef* graph_;
  std::mt19937_64 rng_;
};

// One row of the paper's table: expansion factor t, output channels c,
// repeats n, stride s of the first repeat.
struct Stage {
  int t, c, n, s;
};
constexpr Stage kStages[] = {{1, 16, 1, 1}, {6, 24, 2, 2},  {6, 32, 3, 2}, {6, 64, 4, 2},
                             {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};

}  // namespace

Status MakeMobileNetV2(const MobileNetV2Options& options, GraphDef* graph) {
  if (options.batch < 1) {
    return errors::InvalidArgument("MobileNetV2Options.batch is ", options.batch,
                                   "; give 1 or more");
  }
  if (options.input_size < 1 || options.input_size > 4096) {
    return errors::InvalidArgument("MobileNetV2Options.input_size is ", options.input_size,
                                   "; give a size in [1, 4096]");
  }
  if (!(options.alpha > 0.0f && options.alpha <= 4.0f)) {
    return errors::InvalidArgument("MobileNetV2Options.alpha is ", options.alpha,
                                   "; give a width multiplier in (0, 4]");
  }
  if (options.num_classes < 1) {
    return errors::InvalidArgument("MobileNetV2Options.num_classes is ", options.num_classes,
                                   "; give 1 or more");
  }
  graph->Clear();
  Builder b(options, graph);
  const double alpha = options.alpha;

  // Stem. Names follow Keras' layer names.
  std::string x = b.Input(options.batch, options.input_size);
  int channels = MakeDivisible(32 * alpha);
  x = b.Conv("Conv1", x, 3, channels, 3, 2);
  x = b.Norm("bn_Conv1", x, channels);
  x = b.Unary("Conv1_relu", "Relu6", x);

  int block = 0;
  for (const Stage& stage : kStages) {
    const int out = MakeDivisible(stage.c * alpha);
    for (int i = 0; i < stage.n; ++i, ++block) {
      const int stride = i == 0 ? stage.s : 1;
      const std::string prefix =
          block == 0 ? std::string("expanded_conv_") : StrCat("block_", block, "_");
      const std::string block_input = x;
      int expanded = channels;
      if (stage.t != 1) {
        expanded = channels * stage.t;
        x = b.Conv(prefix + "expand", x, channels, expanded, 1, 1);
        x = b.Norm(prefix + "expand_BN", x, expanded);
        x = b.Unary(prefix + "expand_relu", "Relu6", x);
      }
      x = b.Depthwise(prefix + "depthwise", x, expanded, stride);
      x = b.Norm(prefix + "depthwise_BN", x, expanded);
      x = b.Unary(prefix + "depthwise_relu", "Relu6", x);
      x = b.Conv(prefix + "project", x, expanded, out, 1, 1);
      x = b.Norm(prefix + "project_BN", x, out);
      if (stride == 1 && channels == out) x = b.Add(prefix + "add", block_input, x);
      channels = out;
    }
  }

  const int last = alpha > 1.0 ? MakeDivisible(1280 * alpha) : 1280;
  x = b.Conv("Conv_1", x, channels, last, 1, 1);
  x = b.Norm("Conv_1_bn", x, last);
  x = b.Unary("out_relu", "Relu6", x);
  x = b.GlobalAveragePool("global_average_pooling2d", x);
  x = b.Dense("logits", x, last, options.num_classes);
  b.Unary(kMobileNetV2Output, "Softmax", x);
  return OkStatus();
}

}  // namespace bench
}  // namespace opkit
