// The MobileNetV2 generator's graph, checked for structure without running
// it (DepthwiseConv2dNative need not be registered): node counts per op,
// the parameter count Keras reports for the same network, names and edges;
// and run once with each depthwise convolution swapped for the grouped
// Conv2D it equals.
#include "bench/models/mobilenet_v2.h"

#include <cmath>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "google/protobuf/util/message_differencer.h"
#include "opkit/runtime/session.h"
#include "opkit/tensor/tensor.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace bench {
namespace {

using ::opkit::testing::IsOk;
using ::opkit::testing::StatusIs;
using ::testing::HasSubstr;

std::map<std::string, int> OpCounts(const GraphDef& g) {
  std::map<std::string, int> counts;
  for (const NodeDef& n : g.node()) ++counts[n.op()];
  return counts;
}

const NodeDef* Find(const GraphDef& g, const std::string& name) {
  for (const NodeDef& n : g.node()) {
    if (n.name() == name) return &n;
  }
  return nullptr;
}

// Elements of the float constants whose names pass `keep`.
template <typename Keep>
int64_t CountParameters(const GraphDef& g, Keep keep) {
  int64_t total = 0;
  for (const NodeDef& n : g.node()) {
    if (n.op() != "Const" || !keep(n.name())) continue;
    const TensorProto& value = n.attr().at("value").tensor();
    if (value.dtype() != DT_FLOAT) continue;
    int64_t elements = 1;
    for (const auto& d : value.tensor_shape().dim()) elements *= d.size();
    total += elements;
  }
  return total;
}

bool IsMovingStatistic(const std::string& name) {
  return name.find("/moving_") != std::string::npos;
}

std::vector<int64_t> Shape(const NodeDef& n) {
  std::vector<int64_t> dims;
  for (const auto& d : n.attr().at("value").tensor().tensor_shape().dim()) {
    dims.push_back(d.size());
  }
  return dims;
}

TEST(MobileNetV2Test, HasTheLayersOfThePaper) {
  GraphDef g;
  ASSERT_THAT(MakeMobileNetV2(MobileNetV2Options(), &g), IsOk());
  std::map<std::string, int> counts = OpCounts(g);
  // 1 stem + 16 expansions + 17 projections + 1 head.
  EXPECT_EQ(counts["Conv2D"], 35);
  EXPECT_EQ(counts["DepthwiseConv2dNative"], 17);
  EXPECT_EQ(counts["FusedBatchNormV3"], 35 + 17);
  EXPECT_EQ(counts["Relu6"], 1 + 16 + 17 + 1);
  // Residuals: 1 + 2 + 3 + 2 + 2 repeats keep stride 1 and channels.
  EXPECT_EQ(counts["AddV2"], 10);
  EXPECT_EQ(counts["Mean"], 1);
  EXPECT_EQ(counts["MatMul"], 1);
  EXPECT_EQ(counts["BiasAdd"], 1);
  EXPECT_EQ(counts["Softmax"], 1);
  EXPECT_EQ(counts["Placeholder"], 1);
  // Weights of 52 convolutions, 4 per batch norm, the reduction axes, the
  // dense layer's kernel and bias.
  EXPECT_EQ(counts["Const"], 52 + 4 * 52 + 1 + 2);
  EXPECT_EQ(g.node_size(), 263 + 35 + 17 + 52 + 35 + 10 + 5);

  int stride2 = 0;
  for (const NodeDef& n : g.node()) {
    if (n.op() == "DepthwiseConv2dNative") {
      EXPECT_EQ(n.attr().at("padding").s(), "SAME");
      EXPECT_EQ(n.attr().at("data_format").s(), "NHWC");
      stride2 += n.attr().at("strides").list().i(1) == 2;
    }
    if (n.op() == "FusedBatchNormV3") {
      EXPECT_FALSE(n.attr().at("is_training").b());
    }
  }
  EXPECT_EQ(stride2, 4);
  EXPECT_EQ(Shape(*Find(g, "Conv1/kernel")), (std::vector<int64_t>{3, 3, 3, 32}));
  EXPECT_EQ(Shape(*Find(g, "block_16_depthwise/depthwise_kernel")),
            (std::vector<int64_t>{3, 3, 960, 1}));
  EXPECT_EQ(Shape(*Find(g, "Conv_1/kernel")), (std::vector<int64_t>{1, 1, 320, 1280}));
  EXPECT_EQ(Shape(*Find(g, "logits/kernel")), (std::vector<int64_t>{1280, 1000}));
  const NodeDef* input = Find(g, kMobileNetV2Input);
  ASSERT_NE(input, nullptr);
  EXPECT_EQ(input->op(), "Placeholder");
  EXPECT_EQ(input->attr().at("shape").shape().dim(1).size(), 224);
  ASSERT_NE(Find(g, kMobileNetV2Output), nullptr);
  EXPECT_EQ(Find(g, kMobileNetV2Output)->op(), "Softmax");
}

TEST(MobileNetV2Test, HasKerasParameterCount) {
  GraphDef g;
  ASSERT_THAT(MakeMobileNetV2(MobileNetV2Options(), &g), IsOk());
  // keras.applications.MobileNetV2().summary(): 3,538,984 total, of which
  // 34,112 are the batch norms' moving statistics.
  EXPECT_EQ(CountParameters(g, [](const std::string&) { return true; }), 3538984);
  const int64_t trainable =
      CountParameters(g, [](const std::string& name) { return !IsMovingStatistic(name); });
  EXPECT_EQ(trainable, 3504872);
  EXPECT_NEAR(static_cast<double>(trainable), 3.5e6, 3.5e4);
}

TEST(MobileNetV2Test, BiasAddInsteadOfBatchNorm) {
  MobileNetV2Options options;
  options.batch_norm = false;
  GraphDef g;
  ASSERT_THAT(MakeMobileNetV2(options, &g), IsOk());
  std::map<std::string, int> counts = OpCounts(g);
  EXPECT_EQ(counts.count("FusedBatchNormV3"), 0u);
  EXPECT_EQ(counts["BiasAdd"], 52 + 1);
  EXPECT_EQ(counts["Conv2D"], 35);
  EXPECT_EQ(counts["Const"], 52 + 52 + 1 + 2);
  // One bias per batch-norm channel in place of its scale and offset.
  const int64_t params = CountParameters(g, [](const std::string&) { return true; });
  EXPECT_EQ(params, 3504872 - 34112 / 2);
  EXPECT_NEAR(static_cast<double>(params), 3.5e6, 3.5e4);
}

TEST(MobileNetV2Test, NamesAreUniqueAndEveryInputExists) {
  for (bool batch_norm : {true, false}) {
    MobileNetV2Options options;
    options.batch_norm = batch_norm;
    GraphDef g;
    ASSERT_THAT(MakeMobileNetV2(options, &g), IsOk());
    std::set<std::string> names;
    for (const NodeDef& n : g.node()) {
      EXPECT_TRUE(names.insert(n.name()).second) << "duplicate " << n.name();
    }
    std::set<std::string> consumed;
    for (const NodeDef& n : g.node()) {
      for (const std::string& in : n.input()) {
        EXPECT_EQ(in.find(':'), std::string::npos) << in;  // output 0 everywhere
        EXPECT_TRUE(names.count(in)) << n.name() << " reads missing " << in;
        consumed.insert(in);
      }
    }
    // The output is the only node nothing reads.
    std::vector<std::string> sinks;
    for (const NodeDef& n : g.node()) {
      if (!consumed.count(n.name())) sinks.push_back(n.name());
    }
    EXPECT_EQ(sinks, std::vector<std::string>{kMobileNetV2Output});
  }
}

TEST(MobileNetV2Test, SeedFixesTheWeights) {
  GraphDef a, b, c;
  MobileNetV2Options options;
  ASSERT_THAT(MakeMobileNetV2(options, &a), IsOk());
  ASSERT_THAT(MakeMobileNetV2(options, &b), IsOk());
  options.seed = 2;
  ASSERT_THAT(MakeMobileNetV2(options, &c), IsOk());
  // Compared as messages: attr maps serialize in no fixed order. (Not
  // EXPECT_EQ on the bytes either: a failure would diff 14 MB strings.)
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(a, b));
  EXPECT_FALSE(google::protobuf::util::MessageDifferencer::Equals(a, c));
  // Weights are finite and He-scaled: Conv1's fan-in is 27.
  Tensor kernel;
  ASSERT_TRUE(kernel.FromProto(Find(a, "Conv1/kernel")->attr().at("value").tensor()));
  double sum_sq = 0;
  for (int64_t i = 0; i < kernel.NumElements(); ++i) {
    const float v = kernel.flat<float>()(i);
    ASSERT_TRUE(std::isfinite(v));
    sum_sq += static_cast<double>(v) * v;
  }
  EXPECT_NEAR(sum_sq / static_cast<double>(kernel.NumElements()), 2.0 / 27, 0.02);
}

TEST(MobileNetV2Test, OptionsScaleTheNetwork) {
  MobileNetV2Options options;
  options.alpha = 0.5f;
  options.input_size = 96;
  options.batch = 2;
  options.num_classes = 10;
  GraphDef g;
  ASSERT_THAT(MakeMobileNetV2(options, &g), IsOk());
  EXPECT_EQ(Shape(*Find(g, "Conv1/kernel")), (std::vector<int64_t>{3, 3, 3, 16}));
  EXPECT_EQ(Shape(*Find(g, "block_16_project/kernel")),
            (std::vector<int64_t>{1, 1, 480, 160}));
  EXPECT_EQ(Shape(*Find(g, "logits/kernel")), (std::vector<int64_t>{1280, 10}));
  const auto& shape = Find(g, kMobileNetV2Input)->attr().at("shape").shape();
  EXPECT_EQ(shape.dim(0).size(), 2);
  EXPECT_EQ(shape.dim(1).size(), 96);
}

// DepthwiseConv2dNative with channel multiplier 1 is Conv2D grouped by
// channel, and its [3,3,C,1] filter has the same bytes as the [3,3,1,C]
// filter of that Conv2D; so the graph runs on built-in ops with that swap,
// which checks every other node's attrs and shapes for real.
void DepthwiseToGroupedConv2D(GraphDef* g) {
  std::map<std::string, NodeDef*> by_name;
  for (NodeDef& n : *g->mutable_node()) by_name[n.name()] = &n;
  for (NodeDef& n : *g->mutable_node()) {
    if (n.op() != "DepthwiseConv2dNative") continue;
    n.set_op("Conv2D");
    TensorShapeProto* shape =
        (*by_name[n.input(1)]->mutable_attr())["value"].mutable_tensor()->mutable_tensor_shape();
    shape->mutable_dim(3)->set_size(shape->dim(2).size());
    shape->mutable_dim(2)->set_size(1);
  }
}

TEST(MobileNetV2Test, RunsWithDepthwiseAsGroupedConv2D) {
  for (bool batch_norm : {true, false}) {
    MobileNetV2Options options;
    options.input_size = 64;
    options.batch = 2;
    options.batch_norm = batch_norm;
    GraphDef g;
    ASSERT_THAT(MakeMobileNetV2(options, &g), IsOk());
    DepthwiseToGroupedConv2D(&g);
    StatusOr<std::unique_ptr<Session>> session = Session::New();
    ASSERT_THAT(session.status(), IsOk());
    ASSERT_THAT((*session)->Create(g), IsOk());
    Tensor image(DT_FLOAT, TensorShape({2, 64, 64, 3}));
    for (int64_t i = 0; i < image.NumElements(); ++i) {
      image.flat<float>()(i) = static_cast<float>(i % 17) / 8.0f - 1.0f;
    }
    std::vector<Tensor> out;
    ASSERT_THAT((*session)->Run({{kMobileNetV2Input, image}}, {kMobileNetV2Output}, {}, &out),
                IsOk());
    ASSERT_EQ(out.size(), 1u);
    ASSERT_EQ(out[0].shape(), TensorShape({2, 1000}));
    for (int b = 0; b < 2; ++b) {
      double sum = 0;
      for (int c = 0; c < 1000; ++c) {
        const float p = out[0].matrix<float>()(b, c);
        ASSERT_TRUE(std::isfinite(p)) << b << " " << c;
        ASSERT_GE(p, 0.0f);
        sum += p;
      }
      EXPECT_NEAR(sum, 1.0, 1e-4);
    }
  }
}

TEST(MobileNetV2Test, BadOptionsNameTheField) {
  GraphDef g;
  MobileNetV2Options options;
  options.alpha = 0;
  EXPECT_THAT(MakeMobileNetV2(options, &g),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("alpha")));
  options = MobileNetV2Options();
  options.input_size = 0;
  EXPECT_THAT(MakeMobileNetV2(options, &g),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("input_size")));
  options = MobileNetV2Options();
  options.batch = -1;
  EXPECT_THAT(MakeMobileNetV2(options, &g),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("batch")));
}

}  // namespace
}  // namespace bench
}  // namespace opkit
