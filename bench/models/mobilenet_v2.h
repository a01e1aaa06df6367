// A MobileNetV2 GraphDef with random weights, for benchmarks: the network of
// Sandler et al. 2018 ("MobileNetV2: Inverted Residuals and Linear
// Bottlenecks") laid out as Keras' applications.MobileNetV2 builds it, in
// the ops a TensorFlow 1.x export holds (NHWC, float):
//
//   GraphDef graph;
//   OPKIT_RETURN_IF_ERROR(bench::MakeMobileNetV2(MobileNetV2Options(), &graph));
//   session->Create(graph);
//   session->Run({{bench::kMobileNetV2Input, image}},   // [1,224,224,3]
//                {bench::kMobileNetV2Output}, {}, &outputs);  // [1,1000]
//
// Layers: Conv2D 3x3/2 + batch norm + Relu6; 17 inverted-residual blocks
// (1x1 expansion Conv2D + batch norm + Relu6, absent in the first block;
// DepthwiseConv2dNative 3x3 + batch norm + Relu6; 1x1 projection Conv2D +
// batch norm; AddV2 of the block's input when the stride is 1 and the
// channels match); Conv2D 1x1 to 1280 + batch norm + Relu6; Mean over H and
// W; MatMul + BiasAdd to the classes; Softmax. At alpha 1.0 that is
// 3,504,872 trainable parameters (3,538,984 with the batch norms' moving
// statistics), as Keras counts them.
//
// Padding is "SAME" everywhere (Keras pads stride-2 convolutions by hand and
// uses "VALID"; the output sizes are the same, the border differs by one
// pixel, which does not matter for timing).
//
// Weights come from a fixed seed (the same graph on every platform: the
// generator draws from std::mt19937_64, whose sequence the standard fixes,
// and turns it into normals itself). Convolution weights are He-scaled
// (standard deviation sqrt(2 / fan_in)) so activations stay in range.
#ifndef OPKIT_BENCH_MODELS_MOBILENET_V2_H_
#define OPKIT_BENCH_MODELS_MOBILENET_V2_H_

#include <cstdint>

#include "opkit/core/status.h"
#include "opkit/graph.pb.h"

namespace opkit {
namespace bench {

// The Placeholder the image is fed to, and the Softmax node to fetch.
inline constexpr char kMobileNetV2Input[] = "input";
inline constexpr char kMobileNetV2Output[] = "predictions";

struct MobileNetV2Options {
  // Images per step (the input's first dimension).
  int batch = 1;
  // Height and width of the input image (3 channels).
  int input_size = 224;
  // Width multiplier: each layer's channels scaled by alpha and rounded to
  // a multiple of 8, as Keras does; the last Conv2D keeps 1280 channels
  // for alpha <= 1.
  float alpha = 1.0f;
  int num_classes = 1000;
  // true: each batch norm is a FusedBatchNormV3 (is_training=false, random
  // scale, offset, mean and positive variance), which a graph optimiser can
  // fold into the convolution before it. false: a BiasAdd instead (the
  // graph as it looks after folding).
  bool batch_norm = true;
  uint64_t seed = 1;
};

// Replaces *graph with the MobileNetV2 of `options`. InvalidArgument, naming
// the field, for a batch, input size or class count below 1, an input size
// above 4096, or an alpha outside (0, 4].
Status MakeMobileNetV2(const MobileNetV2Options& options, GraphDef* graph);

}  // namespace bench
}  // namespace opkit

#endif  // OPKIT_BENCH_MODELS_MOBILENET_V2_H_
