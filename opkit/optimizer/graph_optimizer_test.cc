// OptimizeGraph: each pass on graphs where it applies and where it must not
// (protected nodes, several consumers, stateful ops, a kernel that fails),
// checking the rewritten GraphDef's nodes and that the optimised graph
// computes what the original does (both run by a Session with the
// optimizer off).
#include "opkit/optimizer/graph_optimizer.h"

#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/op/attr_value_util.h"
#include "opkit/runtime/session.h"
#include "opkit/testing/kernel_test_util.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace {

using ::opkit::testing::IsOk;
using ::opkit::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::UnorderedElementsAre;

// Builds GraphDefs node by node.
class GraphBuilder {
 public:
  NodeDef* Add(const std::string& name, const std::string& op,
               const std::vector<std::string>& inputs,
               DataType t = DT_FLOAT) {
    NodeDef* n = def_.add_node();
    n->set_name(name);
    n->set_op(op);
    for (const std::string& in : inputs) n->add_input(in);
    if (t != DT_INVALID) SetAttrValue(t, &(*n->mutable_attr())["T"]);
    return n;
  }
  NodeDef* Const(const std::string& name, const Tensor& value) {
    NodeDef* n = Add(name, "Const", {}, DT_INVALID);
    SetAttrValue(value.dtype(), &(*n->mutable_attr())["dtype"]);
    value.AsProtoTensorContent((*n->mutable_attr())["value"].mutable_tensor());
    return n;
  }
  NodeDef* Placeholder(const std::string& name, DataType dtype = DT_FLOAT) {
    NodeDef* n = Add(name, "Placeholder", {}, DT_INVALID);
    SetAttrValue(dtype, &(*n->mutable_attr())["dtype"]);
    return n;
  }
  template <typename V>
  static void Set(NodeDef* n, const std::string& attr, const V& v) {
    SetAttrValue(v, &(*n->mutable_attr())[attr]);
  }
  const GraphDef& def() const { return def_; }

 private:
  GraphDef def_;
};

Tensor Random(const std::vector<int64_t>& dims, uint32_t seed, float lo = -1,
              float hi = 1) {
  TensorShape shape;
  for (int64_t d : dims) shape.AddDim(d);
  Tensor t(DT_FLOAT, shape);
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  for (int64_t i = 0; i < t.NumElements(); ++i) t.flat<float>()(i) = dist(gen);
  return t;
}

// Runs `graph` as it is (optimizer off).
Status RunGraph(const GraphDef& graph,
                const std::vector<std::pair<std::string, Tensor>>& feeds,
                const std::vector<std::string>& fetches,
                std::vector<Tensor>* out, bool optimize = false) {
  SessionOptions options;
  options.optimize = optimize;
  OPKIT_ASSIGN_OR_RETURN(std::unique_ptr<Session> session,
                         Session::New(options));
  OPKIT_RETURN_IF_ERROR(session->Create(graph));
  return session->Run(feeds, fetches, {}, out);
}

std::map<std::string, const NodeDef*> ByName(const GraphDef& g) {
  std::map<std::string, const NodeDef*> m;
  for (const NodeDef& n : g.node()) m[n.name()] = &n;
  return m;
}

void ExpectNear(const Tensor& got, const Tensor& want, double tol = 1e-4) {
  ASSERT_EQ(got.shape(), want.shape());
  ASSERT_EQ(got.dtype(), want.dtype());
  for (int64_t i = 0; i < got.NumElements(); ++i) {
    const float w = want.flat<float>()(i);
    ASSERT_NEAR(got.flat<float>()(i), w, tol * (1 + std::fabs(w)))
        << "element " << i;
  }
}

// Optimises `graph` for the signature, then checks that the optimised graph
// fetches the same values as the original.
GraphDef OptimizeAndCompare(
    const GraphDef& graph,
    const std::vector<std::pair<std::string, Tensor>>& feeds,
    const std::vector<std::string>& fetches, GraphOptimizerStats* stats,
    GraphOptimizerOptions options = GraphOptimizerOptions()) {
  for (const auto& f : feeds) options.feeds.push_back(f.first);
  options.fetches = fetches;
  GraphDef optimized;
  EXPECT_THAT(OptimizeGraph(graph, options, &optimized, stats), IsOk());
  std::vector<Tensor> want, got;
  EXPECT_THAT(RunGraph(graph, feeds, fetches, &want), IsOk());
  EXPECT_THAT(RunGraph(optimized, feeds, fetches, &got), IsOk());
  EXPECT_EQ(want.size(), got.size());
  for (size_t i = 0; i < want.size() && i < got.size(); ++i) {
    SCOPED_TRACE(fetches[i]);
    ExpectNear(got[i], want[i]);
  }
  return optimized;
}

// --- Constant folding ---------------------------------------------------

TEST(ConstantFoldingTest, FoldsAChainOfConstantsKeepingNames) {
  GraphBuilder b;
  b.Const("a", test::AsTensor<float>({1, 2, 3}));
  b.Const("c", test::AsTensor<float>({10, 20, 30}));
  b.Add("sum", "AddV2", {"a", "c"});
  b.Add("sq", "Square", {"sum"});
  b.Placeholder("x");
  b.Add("out", "Mul", {"sq", "x"});
  GraphOptimizerStats stats;
  GraphDef g = OptimizeAndCompare(
      b.def(), {{"x:0", test::AsTensor<float>({1, 1, 2})}}, {"out:0"},
      &stats);
  EXPECT_EQ(stats.constants_folded, 2);
  auto nodes = ByName(g);
  ASSERT_EQ(nodes.count("sq"), 1u);
  EXPECT_EQ(nodes["sq"]->op(), "Const");
  EXPECT_EQ(nodes["sum"]->op(), "Const");
  Tensor sq;
  ASSERT_TRUE(sq.FromProto(nodes["sq"]->attr().at("value").tensor()));
  // (1 + 10)^2, (2 + 20)^2, (3 + 30)^2.
  EXPECT_EQ(test::Values<float>(sq), std::vector<float>({121, 484, 1089}));
  EXPECT_EQ(nodes["out"]->op(), "Mul");
}

TEST(ConstantFoldingTest, LeavesProtectedFedStatefulAndFailingNodes) {
  GraphBuilder b;
  b.Const("a", test::AsTensor<float>({1, 2}));
  b.Const("c", test::AsTensor<float>({3, 4}));
  b.Add("fetched", "AddV2", {"a", "c"});          // a fetch
  b.Add("from_fed", "AddV2", {"c", "c"});         // c is fed below
  b.Add("uses_fed", "Mul", {"from_fed", "a"});
  NodeDef* handle = b.Add("handle", "VarHandleOp", {}, DT_INVALID);  // stateful
  GraphBuilder::Set(handle, "dtype", DT_FLOAT);
  GraphBuilder::Set(handle, "shape", TensorShape({}));
  // Reshape of 2 values to 3: the kernel fails, so the node stays and
  // fails when the graph runs, as it would unoptimised.
  b.Const("bad_shape", test::AsTensor<int32>({3}));
  NodeDef* bad = b.Add("bad", "Reshape", {"a", "bad_shape"});
  GraphBuilder::Set(bad, "Tshape", DT_INT32);

  GraphOptimizerOptions options;
  options.feeds = {"c:0"};
  options.fetches = {"fetched:0", "uses_fed:0"};
  options.targets = {"handle", "bad"};
  GraphDef g;
  GraphOptimizerStats stats;
  ASSERT_THAT(OptimizeGraph(b.def(), options, &g, &stats), IsOk());
  EXPECT_EQ(stats.constants_folded, 0);
  auto nodes = ByName(g);
  EXPECT_EQ(nodes["fetched"]->op(), "AddV2");
  EXPECT_EQ(nodes["from_fed"]->op(), "AddV2");
  EXPECT_EQ(nodes["uses_fed"]->op(), "Mul");
  EXPECT_EQ(nodes["handle"]->op(), "VarHandleOp");
  EXPECT_EQ(nodes["bad"]->op(), "Reshape");

  // The failing node is not protected here and still is not folded; the
  // error comes when the graph runs, the same with and without the
  // optimizer.
  GraphBuilder b2;
  b2.Const("a", test::AsTensor<float>({1, 2}));
  b2.Const("bad_shape", test::AsTensor<int32>({3}));
  GraphBuilder::Set(b2.Add("bad", "Reshape", {"a", "bad_shape"}), "Tshape",
                    DT_INT32);
  b2.Add("out", "Neg", {"bad"});
  options = GraphOptimizerOptions();
  options.fetches = {"out:0"};
  ASSERT_THAT(OptimizeGraph(b2.def(), options, &g, &stats), IsOk());
  EXPECT_EQ(ByName(g)["bad"]->op(), "Reshape");
  std::vector<Tensor> out;
  for (bool optimize : {false, true}) {
    EXPECT_THAT(RunGraph(b2.def(), {}, {"out:0"}, &out, optimize),
                StatusIs(error::INVALID_ARGUMENT, HasSubstr("bad")));
  }
}

TEST(ConstantFoldingTest, KeepsControlDependencies) {
  GraphBuilder b;
  b.Placeholder("x");
  b.Add("side", "Neg", {"x"});
  b.Add("side2", "Neg", {"x"});
  NodeDef* a = b.Const("a", test::AsTensor<float>({2}));
  a->add_input("^side");
  b.Const("c", test::AsTensor<float>({5}));
  NodeDef* sum = b.Add("sum", "AddV2", {"a", "c"});
  sum->add_input("^side2");
  b.Add("out", "Mul", {"sum", "x"});
  GraphOptimizerStats stats;
  GraphDef g = OptimizeAndCompare(
      b.def(), {{"x:0", test::AsTensor<float>({3})}}, {"out:0"}, &stats);
  EXPECT_EQ(stats.constants_folded, 1);
  auto nodes = ByName(g);
  EXPECT_EQ(nodes["sum"]->op(), "Const");
  // Its own control input, and the one of the constant it read.
  EXPECT_THAT(std::vector<std::string>(nodes["sum"]->input().begin(),
                                       nodes["sum"]->input().end()),
              UnorderedElementsAre("^side2", "^side"));
}

TEST(ConstantFoldingTest, LeavesLargeResults) {
  GraphBuilder b;
  b.Const("dims", test::AsTensor<int32>({4, 4}));
  b.Const("v", test::AsTensor<float>({1.5f}, TensorShape({})));
  GraphBuilder::Set(b.Add("big", "Fill", {"dims", "v"}), "index_type",
                    DT_INT32);
  b.Add("out", "Neg", {"big"});
  GraphOptimizerOptions options;
  options.max_constant_bytes = 63;  // 16 floats take 64 bytes
  GraphOptimizerStats stats;
  GraphDef g = OptimizeAndCompare(b.def(), {}, {"out:0"}, &stats, options);
  EXPECT_EQ(stats.constants_folded, 0);
  EXPECT_EQ(ByName(g)["big"]->op(), "Fill");
  options.max_constant_bytes = 64;
  g = OptimizeAndCompare(b.def(), {}, {"out:0"}, &stats, options);
  EXPECT_EQ(stats.constants_folded, 1);
  EXPECT_EQ(ByName(g)["big"]->op(), "Const");
}

// --- Identity pruning ---------------------------------------------------

TEST(IdentityPruningTest, BypassesAndRemovesIdentities) {
  GraphBuilder b;
  b.Placeholder("x");
  b.Add("n", "Neg", {"x"});
  b.Add("i1", "Identity", {"n"});
  b.Add("i2", "Identity", {"i1"});
  b.Add("neg", "Neg", {"i2"});
  b.Add("after", "Neg", {"x"})->add_input("^i2");
  b.Add("out", "AddV2", {"neg", "after"});
  // Bypassing this one would make `after2` wait for the fed x itself.
  b.Add("i3", "Identity", {"x"});
  b.Add("after2", "Neg", {"x"})->add_input("^i3");
  b.Add("out2", "Neg", {"i3"});
  GraphOptimizerOptions options;
  options.fold_constants = false;
  GraphOptimizerStats stats;
  GraphDef g = OptimizeAndCompare(
      b.def(), {{"x:0", test::AsTensor<float>({1, -2})}},
      {"out:0", "out2:0", "after2:0"}, &stats, options);
  EXPECT_EQ(stats.identities_removed, 2);
  auto nodes = ByName(g);
  EXPECT_EQ(nodes.count("i1"), 0u);
  EXPECT_EQ(nodes.count("i2"), 0u);
  EXPECT_EQ(nodes["neg"]->input(0), "n");
  // The control consumer now waits for the Identity's input.
  EXPECT_EQ(nodes["after"]->input(1), "^n");
  EXPECT_EQ(nodes.count("i3"), 1u);
}

TEST(IdentityPruningTest, KeepsProtectedControlledAndCrossDeviceIdentities) {
  GraphBuilder b;
  b.Placeholder("x");
  b.Add("fetched", "Identity", {"x"});
  b.Add("controlled", "Identity", {"x"})->add_input("^fetched");
  b.Add("copy", "Identity", {"x"})->set_device("/device:CPU:1");
  b.Add("out", "AddV2", {"controlled", "copy"});
  GraphOptimizerOptions options;
  options.feeds = {"x"};
  options.fetches = {"fetched", "out"};
  GraphDef g;
  GraphOptimizerStats stats;
  ASSERT_THAT(OptimizeGraph(b.def(), options, &g, &stats), IsOk());
  EXPECT_EQ(stats.identities_removed, 0);
  EXPECT_EQ(g.node_size(), b.def().node_size());
}

// --- Fusion ---------------------------------------------------------------

// x [1, 6, 6, 3] -> Conv2D (3x3x3x4 const filter, SAME) -> BiasAdd -> act.
GraphBuilder ConvGraph(const std::string& activation) {
  GraphBuilder b;
  b.Placeholder("x");
  b.Const("w", Random({3, 3, 3, 4}, 1));
  b.Const("bias", Random({4}, 2));
  NodeDef* conv = b.Add("conv", "Conv2D", {"x", "w"});
  GraphBuilder::Set(conv, "strides", std::vector<int32>{1, 1, 1, 1});
  GraphBuilder::Set(conv, "padding", "SAME");
  b.Add("bias_add", "BiasAdd", {"conv", "bias"});
  if (!activation.empty()) b.Add("act", activation, {"bias_add"});
  return b;
}

TEST(FusionTest, ConvBiasAddActivationBecomeFusedConv2D) {
  const Tensor x = Random({1, 6, 6, 3}, 3);
  for (const std::string act : {"Relu", "Relu6", "Elu"}) {
    SCOPED_TRACE(act);
    GraphBuilder b = ConvGraph(act);
    GraphOptimizerStats stats;
    GraphDef g = OptimizeAndCompare(b.def(), {{"x:0", x}}, {"act:0"}, &stats);
    EXPECT_EQ(stats.nodes_fused, 1);
    auto nodes = ByName(g);
    ASSERT_EQ(nodes.count("act"), 1u);
    EXPECT_EQ(nodes["act"]->op(), "_FusedConv2D");
    EXPECT_EQ(nodes.count("conv"), 0u);
    EXPECT_EQ(nodes.count("bias_add"), 0u);
    EXPECT_THAT(std::vector<std::string>(nodes["act"]->input().begin(),
                                         nodes["act"]->input().end()),
                ElementsAre("x", "w", "bias"));
    const auto& ops = nodes["act"]->attr().at("fused_ops").list().s();
    EXPECT_THAT(std::vector<std::string>(ops.begin(), ops.end()),
                ElementsAre("BiasAdd", act));
  }
}

TEST(FusionTest, MatMulBiasAddBecomesFusedMatMul) {
  GraphBuilder b;
  b.Placeholder("x");
  b.Const("w", Random({5, 3}, 4));
  b.Const("bias", Random({3}, 5));
  GraphBuilder::Set(b.Add("mm", "MatMul", {"x", "w"}), "transpose_a", false);
  b.Add("bias_add", "BiasAdd", {"mm", "bias"});
  b.Add("out", "Neg", {"bias_add"});  // not an activation: stays
  GraphOptimizerStats stats;
  GraphDef g = OptimizeAndCompare(b.def(), {{"x:0", Random({4, 5}, 6)}},
                                  {"out:0"}, &stats);
  EXPECT_EQ(stats.nodes_fused, 1);
  auto nodes = ByName(g);
  EXPECT_EQ(nodes["bias_add"]->op(), "_FusedMatMul");
  EXPECT_EQ(nodes["out"]->op(), "Neg");
  EXPECT_EQ(nodes.count("mm"), 0u);

  // A MatMul that asks for a kernel by label keeps its kernel.
  GraphBuilder::Set(b.Add("mm2", "MatMul", {"x", "w"}), "_kernel", "eigen");
  b.Add("bias_add2", "BiasAdd", {"mm2", "bias"});
  g = OptimizeAndCompare(b.def(), {{"x:0", Random({4, 5}, 6)}},
                         {"out:0", "bias_add2:0"}, &stats);
  EXPECT_EQ(stats.nodes_fused, 1);
  EXPECT_EQ(ByName(g)["mm2"]->op(), "MatMul");
}

TEST(FusionTest, StopsAtProtectedOrSharedIntermediates) {
  const Tensor x = Random({1, 6, 6, 3}, 7);
  {
    // bias_add is fetched too: conv + bias add fuse under its name, the
    // Relu stays.
    GraphBuilder b = ConvGraph("Relu");
    GraphOptimizerStats stats;
    GraphDef g = OptimizeAndCompare(b.def(), {{"x:0", x}},
                                    {"act:0", "bias_add:0"}, &stats);
    auto nodes = ByName(g);
    EXPECT_EQ(nodes["bias_add"]->op(), "_FusedConv2D");
    EXPECT_EQ(nodes["act"]->op(), "Relu");
  }
  {
    // The convolution has a second consumer: nothing fuses.
    GraphBuilder b = ConvGraph("Relu");
    b.Add("other", "Neg", {"conv"});
    GraphOptimizerStats stats;
    GraphDef g =
        OptimizeAndCompare(b.def(), {{"x:0", x}}, {"act:0", "other:0"}, &stats);
    EXPECT_EQ(stats.nodes_fused, 0);
    EXPECT_EQ(ByName(g)["conv"]->op(), "Conv2D");
  }
  {
    // A control consumer of the bias add: the Relu does not join.
    GraphBuilder b = ConvGraph("Relu");
    b.Add("after", "Neg", {"x"})->add_input("^bias_add");
    GraphOptimizerStats stats;
    GraphDef g =
        OptimizeAndCompare(b.def(), {{"x:0", x}}, {"act:0", "after:0"}, &stats);
    auto nodes = ByName(g);
    EXPECT_EQ(nodes["bias_add"]->op(), "_FusedConv2D");
    EXPECT_EQ(nodes["act"]->op(), "Relu");
  }
}

TEST(FusionTest, InferenceBatchNormFoldsIntoTheFilter) {
  GraphBuilder b;
  b.Placeholder("x");
  b.Const("w", Random({3, 3, 3, 4}, 8));
  NodeDef* conv = b.Add("conv", "Conv2D", {"x", "w"});
  GraphBuilder::Set(conv, "strides", std::vector<int32>{1, 1, 1, 1});
  GraphBuilder::Set(conv, "padding", "VALID");
  b.Const("scale", Random({4}, 9, 0.5f, 1.5f));
  b.Const("offset", Random({4}, 10));
  b.Const("mean", Random({4}, 11));
  b.Const("variance", Random({4}, 12, 0.1f, 2.0f));
  NodeDef* bn = b.Add("bn", "FusedBatchNormV3",
                      {"conv", "scale", "offset", "mean", "variance"});
  GraphBuilder::Set(bn, "U", DT_FLOAT);
  GraphBuilder::Set(bn, "is_training", false);
  GraphBuilder::Set(bn, "epsilon", 0.001f);
  b.Add("relu", "Relu", {"bn"});
  GraphOptimizerStats stats;
  GraphDef g = OptimizeAndCompare(b.def(), {{"x:0", Random({2, 5, 5, 3}, 13)}},
                                  {"relu:0"}, &stats);
  EXPECT_EQ(stats.batch_norms_folded, 1);
  EXPECT_EQ(stats.nodes_fused, 1);
  auto nodes = ByName(g);
  EXPECT_EQ(nodes.count("bn"), 0u);
  EXPECT_EQ(nodes["relu"]->op(), "_FusedConv2D");
  EXPECT_EQ(nodes["relu"]->input(1), "conv/folded_filter");
  EXPECT_EQ(nodes["relu"]->input(2), "bn/folded_bias");

  // In training mode the batch norm computes its own statistics: left.
  GraphBuilder::Set(bn, "is_training", true);
  GraphDef t;
  GraphOptimizerOptions options;
  options.feeds = {"x"};
  options.fetches = {"relu"};
  ASSERT_THAT(OptimizeGraph(b.def(), options, &t, &stats), IsOk());
  EXPECT_EQ(stats.batch_norms_folded, 0);
  EXPECT_EQ(ByName(t)["bn"]->op(), "FusedBatchNormV3");
}

// --- Errors and the Session switch -----------------------------------------

TEST(GraphOptimizerTest, RefusesUnknownNamesAndInvalidGraphs) {
  GraphBuilder b = ConvGraph("Relu");
  GraphOptimizerOptions options;
  options.fetches = {"nope:0"};
  GraphDef g;
  EXPECT_THAT(OptimizeGraph(b.def(), options, &g),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("'nope'")));
  GraphBuilder bad;
  bad.Add("n", "Neg", {"missing"});
  EXPECT_THAT(OptimizeGraph(bad.def(), GraphOptimizerOptions(), &g),
              StatusIs(error::INVALID_ARGUMENT));
}

TEST(GraphOptimizerTest, SessionOptimizesUnlessTurnedOff) {
  GraphBuilder b = ConvGraph("Relu");
  b.Add("ident", "Identity", {"act"});
  const Tensor x = Random({1, 6, 6, 3}, 14);
  std::vector<Tensor> on, off;
  ASSERT_THAT(RunGraph(b.def(), {{"x:0", x}}, {"ident:0"}, &on, true), IsOk());
  ASSERT_THAT(RunGraph(b.def(), {{"x:0", x}}, {"ident:0"}, &off, false),
              IsOk());
  ExpectNear(on[0], off[0]);
  // Step stats show which graph ran.
  for (bool optimize : {true, false}) {
    SessionOptions options;
    options.optimize = optimize;
    auto session = Session::New(options);
    ASSERT_THAT(session.status(), IsOk());
    ASSERT_THAT((*session)->Create(b.def()), IsOk());
    RunOptions run_options;
    run_options.collect_step_stats = true;
    RunMetadata metadata;
    std::vector<Tensor> out;
    ASSERT_THAT((*session)->Run(run_options, {{"x:0", x}}, {"ident:0"}, {},
                                &out, &metadata),
                IsOk());
    std::vector<std::string> ops;
    for (const NodeExecStats& s : metadata.step_stats) ops.push_back(s.op);
    EXPECT_EQ(std::count(ops.begin(), ops.end(), "_FusedConv2D"),
              optimize ? 1 : 0);
    EXPECT_EQ(std::count(ops.begin(), ops.end(), "Conv2D"), optimize ? 0 : 1);
  }
}

}  // namespace
}  // namespace opkit
