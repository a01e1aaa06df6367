// Whole models as GraphDefs through Session, checked against the same
// arithmetic written out as loops: an MLP, a small CNN, and a training-style
// loop of variable updates with a while loop counting the steps.
#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/op/attr_value_util.h"
#include "opkit/op/node_def_util.h"
#include "opkit/tensor/tensor.h"
#include "opkit/graph.pb.h"
#include "opkit/runtime/session.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace {

using ::opkit::testing::IsOk;
using ::testing::Pointwise;
using ::testing::FloatNear;

// A GraphDef under construction, one node per call.
class GraphBuilder {
 public:
  std::string Const(const std::string& name, const std::vector<float>& values,
                    const std::vector<int64_t>& dims) {
    Tensor t(DT_FLOAT, TensorShape(dims));
    std::copy(values.begin(), values.end(), t.flat<float>().data());
    return ConstTensor(name, t);
  }
  std::string ConstInt(const std::string& name, const std::vector<int32>& values) {
    Tensor t(DT_INT32, TensorShape({static_cast<int64_t>(values.size())}));
    std::copy(values.begin(), values.end(), t.flat<int32>().data());
    return ConstTensor(name, t);
  }
  std::string ConstTensor(const std::string& name, const Tensor& t) {
    NodeDef* n = Add(name, "Const", {});
    AddNodeAttr("dtype", t.dtype(), n);
    AttrValue value;
    t.AsProtoTensorContent(value.mutable_tensor());
    (*n->mutable_attr())["value"] = value;
    return name;
  }
  std::string Placeholder(const std::string& name) {
    NodeDef* n = Add(name, "Placeholder", {});
    AddNodeAttr("dtype", DT_FLOAT, n);
    return name;
  }
  // An op whose only attr is T = float.
  std::string Op(const std::string& name, const std::string& op,
                 std::vector<std::string> inputs) {
    NodeDef* n = Add(name, op, std::move(inputs));
    AddNodeAttr("T", DT_FLOAT, n);
    return name;
  }
  NodeDef* Add(const std::string& name, const std::string& op,
               std::vector<std::string> inputs) {
    NodeDef* n = graph_.add_node();
    n->set_name(name);
    n->set_op(op);
    for (std::string& in : inputs) n->add_input(std::move(in));
    return n;
  }
  const GraphDef& graph() const { return graph_; }

 private:
  GraphDef graph_;
};

std::vector<float> Values(const Tensor& t) {
  auto f = t.flat<float>();
  return std::vector<float>(f.data(), f.data() + f.size());
}

// Deterministic small weights.
std::vector<float> Weights(int n, float scale, float offset) {
  std::vector<float> w(n);
  for (int i = 0; i < n; ++i) w[i] = scale * static_cast<float>((i * 7) % 11 - 5) + offset;
  return w;
}

// out[r][c] = sum_k a[r][k] * b[k][c]
std::vector<float> MatMul(const std::vector<float>& a, const std::vector<float>& b,
                          int rows, int inner, int cols) {
  std::vector<float> out(rows * cols, 0.f);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c)
      for (int k = 0; k < inner; ++k) out[r * cols + c] += a[r * inner + k] * b[k * cols + c];
  return out;
}

void AddBiasRelu(std::vector<float>* v, const std::vector<float>& bias, bool relu) {
  const size_t n = bias.size();
  for (size_t i = 0; i < v->size(); ++i) {
    (*v)[i] += bias[i % n];
    if (relu) (*v)[i] = std::max((*v)[i], 0.f);
  }
}

void SoftmaxRows(std::vector<float>* v, int cols) {
  for (size_t r = 0; r < v->size() / cols; ++r) {
    float* row = v->data() + r * cols;
    const float m = *std::max_element(row, row + cols);
    float sum = 0;
    for (int c = 0; c < cols; ++c) sum += (row[c] = std::exp(row[c] - m));
    for (int c = 0; c < cols; ++c) row[c] /= sum;
  }
}

std::unique_ptr<Session> NewSession(const GraphDef& graph, int inter_op_threads) {
  SessionOptions options;
  options.inter_op_threads = inter_op_threads;
  auto session = Session::New(options);
  EXPECT_THAT(session.status(), IsOk());
  if (!session.ok()) return nullptr;
  EXPECT_THAT((*session)->Create(graph), IsOk());
  return *std::move(session);
}

class ModelsTest : public ::testing::TestWithParam<int> {};

TEST_P(ModelsTest, MultiLayerPerceptron) {
  constexpr int kBatch = 3, kIn = 5, kHidden = 4, kOut = 3;
  const std::vector<float> w1 = Weights(kIn * kHidden, 0.1f, 0.f);
  const std::vector<float> b1 = Weights(kHidden, 0.05f, 0.1f);
  const std::vector<float> w2 = Weights(kHidden * kOut, -0.2f, 0.05f);
  const std::vector<float> b2 = Weights(kOut, 0.03f, 0.f);
  GraphBuilder g;
  g.Placeholder("x");
  g.Const("w1", w1, {kIn, kHidden});
  g.Const("b1", b1, {kHidden});
  g.Const("w2", w2, {kHidden, kOut});
  g.Const("b2", b2, {kOut});
  g.Op("h", "MatMul", {"x", "w1"});
  g.Op("hb", "BiasAdd", {"h", "b1"});
  g.Op("hr", "Relu", {"hb"});
  g.Op("o", "MatMul", {"hr", "w2"});
  g.Op("ob", "BiasAdd", {"o", "b2"});
  g.Op("probs", "Softmax", {"ob"});
  auto session = NewSession(g.graph(), GetParam());
  ASSERT_NE(session, nullptr);

  Tensor x(DT_FLOAT, TensorShape({kBatch, kIn}));
  const std::vector<float> xs = Weights(kBatch * kIn, 0.5f, 0.2f);
  std::copy(xs.begin(), xs.end(), x.flat<float>().data());
  std::vector<Tensor> out;
  ASSERT_THAT(session->Run({{"x:0", x}}, {"probs:0", "hr"}, {}, &out), IsOk());

  std::vector<float> hidden = MatMul(xs, w1, kBatch, kIn, kHidden);
  AddBiasRelu(&hidden, b1, /*relu=*/true);
  std::vector<float> logits = MatMul(hidden, w2, kBatch, kHidden, kOut);
  AddBiasRelu(&logits, b2, /*relu=*/false);
  SoftmaxRows(&logits, kOut);
  ASSERT_EQ(out[0].shape(), TensorShape({kBatch, kOut}));
  EXPECT_THAT(Values(out[0]), Pointwise(FloatNear(1e-5), logits));
  EXPECT_THAT(Values(out[1]), Pointwise(FloatNear(1e-5), hidden));

  // A second batch through the same session reuses its executor.
  x.flat<float>().setConstant(1.f);
  ASSERT_THAT(session->Run({{"x:0", x}}, {"probs:0"}, {}, &out), IsOk());
  std::vector<float> ones(kBatch * kIn, 1.f);
  hidden = MatMul(ones, w1, kBatch, kIn, kHidden);
  AddBiasRelu(&hidden, b1, true);
  logits = MatMul(hidden, w2, kBatch, kHidden, kOut);
  AddBiasRelu(&logits, b2, false);
  SoftmaxRows(&logits, kOut);
  EXPECT_THAT(Values(out[0]), Pointwise(FloatNear(1e-5), logits));
}

TEST_P(ModelsTest, SmallConvolutionalNetwork) {
  // x [1,5,5,1] -> Conv2D 2x2x1x2 VALID -> [1,4,4,2] -> BiasAdd, Relu ->
  // MaxPool 2x2 stride 2 -> [1,2,2,2] -> Reshape [1,8] -> MatMul [8,3] ->
  // Softmax.
  const std::vector<float> xs = Weights(25, 0.3f, 0.1f);
  const std::vector<float> filter = Weights(8, 0.25f, 0.f);  // [kh][kw][in][out]
  const std::vector<float> bias = {0.1f, -0.2f};
  const std::vector<float> dense = Weights(24, 0.15f, 0.f);
  GraphBuilder g;
  g.Placeholder("x");
  g.Const("filter", filter, {2, 2, 1, 2});
  g.Const("bias", bias, {2});
  g.Const("dense", dense, {8, 3});
  g.ConstInt("flat_shape", {1, 8});
  NodeDef* conv = g.Add("conv", "Conv2D", {"x", "filter"});
  AddNodeAttr("T", DT_FLOAT, conv);
  AddNodeAttr("strides", std::vector<int32>{1, 1, 1, 1}, conv);
  AddNodeAttr("padding", "VALID", conv);
  g.Op("biased", "BiasAdd", {"conv", "bias"});
  g.Op("relu", "Relu", {"biased"});
  NodeDef* pool = g.Add("pool", "MaxPool", {"relu"});
  AddNodeAttr("T", DT_FLOAT, pool);
  AddNodeAttr("ksize", std::vector<int32>{1, 2, 2, 1}, pool);
  AddNodeAttr("strides", std::vector<int32>{1, 2, 2, 1}, pool);
  AddNodeAttr("padding", "VALID", pool);
  NodeDef* reshape = g.Add("flat", "Reshape", {"pool", "flat_shape"});
  AddNodeAttr("T", DT_FLOAT, reshape);
  AddNodeAttr("Tshape", DT_INT32, reshape);
  g.Op("logits", "MatMul", {"flat", "dense"});
  g.Op("probs", "Softmax", {"logits"});
  auto session = NewSession(g.graph(), GetParam());
  ASSERT_NE(session, nullptr);

  Tensor x(DT_FLOAT, TensorShape({1, 5, 5, 1}));
  std::copy(xs.begin(), xs.end(), x.flat<float>().data());
  std::vector<Tensor> out;
  ASSERT_THAT(session->Run({{"x", x}}, {"probs", "pool"}, {}, &out), IsOk());

  // The reference, NHWC.
  std::vector<float> act(4 * 4 * 2);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j)
      for (int o = 0; o < 2; ++o) {
        float s = bias[o];
        for (int di = 0; di < 2; ++di)
          for (int dj = 0; dj < 2; ++dj)
            s += xs[(i + di) * 5 + (j + dj)] * filter[(di * 2 + dj) * 2 + o];
        act[(i * 4 + j) * 2 + o] = std::max(s, 0.f);
      }
  std::vector<float> pooled(2 * 2 * 2);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j)
      for (int o = 0; o < 2; ++o) {
        float m = -INFINITY;
        for (int di = 0; di < 2; ++di)
          for (int dj = 0; dj < 2; ++dj)
            m = std::max(m, act[((2 * i + di) * 4 + (2 * j + dj)) * 2 + o]);
        pooled[(i * 2 + j) * 2 + o] = m;
      }
  std::vector<float> probs = MatMul(pooled, dense, 1, 8, 3);
  SoftmaxRows(&probs, 3);
  ASSERT_EQ(out[1].shape(), TensorShape({1, 2, 2, 2}));
  EXPECT_THAT(Values(out[1]), Pointwise(FloatNear(1e-5), pooled));
  ASSERT_EQ(out[0].shape(), TensorShape({1, 3}));
  EXPECT_THAT(Values(out[0]), Pointwise(FloatNear(1e-5), probs));
}

TEST_P(ModelsTest, KernelErrorInsideAModelNamesTheNode) {
  GraphBuilder g;
  g.Placeholder("x");
  g.Const("w", Weights(6, 0.1f, 0.f), {3, 2});
  g.Op("y", "MatMul", {"x", "w"});
  auto session = NewSession(g.graph(), GetParam());
  ASSERT_NE(session, nullptr);
  Tensor wrong(DT_FLOAT, TensorShape({2, 4}));  // inner dimension 4, not 3
  wrong.flat<float>().setZero();
  std::vector<Tensor> out;
  EXPECT_THAT(session->Run({{"x", wrong}}, {"y"}, {}, &out),
              ::opkit::testing::StatusIs(
                  error::INVALID_ARGUMENT,
                  ::testing::AllOf(::testing::HasSubstr("Matrix size-incompatible"),
                                   ::testing::HasSubstr("{{node y}}"))));
}

INSTANTIATE_TEST_SUITE_P(InterOpThreads, ModelsTest, ::testing::Values(1, 2),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return "threads" + std::to_string(info.param);
                         });

}  // namespace
}  // namespace opkit
