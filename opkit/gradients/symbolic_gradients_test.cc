// AddSymbolicGradients: sums over paths, stops at StopGradient, unconnected
// xs, grad_ys, a missing gradient named, loops refused, the graph unchanged
// on error; the gradient graphs run and give the right numbers.
#include "opkit/gradients/symbolic_gradients.h"

#include <memory>

#include "gmock/gmock.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "opkit/gradients/gradient_registry.h"
#include "opkit/gradients/graph_builder.h"
#include "opkit/op/op.h"
#include "opkit/runtime/session.h"
#include "opkit/graph/graph.h"
#include "opkit/shape/common_shape_fns.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {

// An op with no gradient registered, for the error path.
REGISTER_OP("SymbolicGradientsTestNoGrad")
    .Input("x: float")
    .Output("y: float")
    .SetShapeFn(shape_inference::UnchangedShape);

namespace {

using ::opkit::testing::IsOk;
using ::opkit::testing::StatusIs;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

Output Feed(GraphBuilder& b, DataType dt = DT_FLOAT) {
  return b.Add("Placeholder", {}, {{"dtype", Attr(dt)}});
}

Tensor Vec(std::vector<float> v) {
  Tensor t(DT_FLOAT, TensorShape({static_cast<int64_t>(v.size())}));
  for (size_t i = 0; i < v.size(); ++i) t.flat<float>()(i) = v[i];
  return t;
}

std::vector<float> Values(const Tensor& t) {
  std::vector<float> v(t.NumElements());
  for (int64_t i = 0; i < t.NumElements(); ++i) v[i] = t.flat<float>()(i);
  return v;
}

std::vector<Tensor> RunGraph(const GraphDef& g, std::vector<std::pair<std::string, Tensor>> feeds,
                        const std::vector<std::string>& fetches) {
  auto session = Session::New();
  EXPECT_THAT(session.status(), IsOk());
  EXPECT_THAT((*session)->Create(g), IsOk());
  std::vector<Tensor> out;
  EXPECT_THAT((*session)->Run(feeds, fetches, {}, &out), IsOk());
  return out;
}

TEST(SymbolicGradientsTest, SumsOverEveryPath) {
  // y = x * x + x: dy/dx = 2x + 1.
  GraphDef g;
  GraphBuilder b(&g, OpRegistry::Global(), "");
  const Output x = Feed(b);
  const Output y = b.Add("AddV2", {b.Add("Mul", {x, x}), x});
  ASSERT_THAT(b.status(), IsOk());
  std::vector<std::string> dx;
  ASSERT_THAT(AddSymbolicGradients(&g, {y.name()}, {x.name()}, {}, &dx), IsOk());
  ASSERT_EQ(dx.size(), 1u);
  EXPECT_THAT(dx[0], HasSubstr("gradients/"));
  const auto out = RunGraph(g, {{x.name(), Vec({1, -2, 0.5})}}, dx);
  EXPECT_THAT(Values(out[0]), ElementsAre(3, -3, 2));
}

TEST(SymbolicGradientsTest, StopGradientAndUnconnectedInputs) {
  // y = x + StopGradient(x * x); z is not used.
  GraphDef g;
  GraphBuilder b(&g, OpRegistry::Global(), "");
  const Output x = Feed(b);
  const Output z = Feed(b);
  const Output y = b.Add("AddV2", {x, b.Add("StopGradient", {b.Add("Mul", {x, x})})});
  ASSERT_THAT(b.status(), IsOk());
  GraphDef with_none = g;
  std::vector<std::string> dx;
  ASSERT_THAT(AddSymbolicGradients(&with_none, {y.name()}, {x.name(), z.name()}, {}, &dx),
              IsOk());
  ASSERT_EQ(dx.size(), 2u);
  EXPECT_EQ(dx[1], "");
  auto out = RunGraph(with_none, {{x.name(), Vec({4, 5})}}, {dx[0]});
  EXPECT_THAT(Values(out[0]), ElementsAre(1, 1));

  SymbolicGradientOptions zero;
  zero.unconnected_zero = true;
  ASSERT_THAT(AddSymbolicGradients(&g, {y.name()}, {x.name(), z.name()}, {}, &dx, zero),
              IsOk());
  out = RunGraph(g, {{x.name(), Vec({4, 5})}, {z.name(), Vec({7, 7, 7})}}, {dx[1]});
  EXPECT_THAT(Values(out[0]), ElementsAre(0, 0, 0));
}

TEST(SymbolicGradientsTest, GradYsSeedTheBackprop) {
  GraphDef g;
  GraphBuilder b(&g, OpRegistry::Global(), "");
  const Output x = Feed(b);
  const Output dy = Feed(b);
  const Output y = b.Add("Mul", {x, x});
  ASSERT_THAT(b.status(), IsOk());
  std::vector<std::string> dx;
  ASSERT_THAT(AddSymbolicGradients(&g, {y.name()}, {x.name()}, {dy.name()}, &dx), IsOk());
  const auto out = RunGraph(g, {{x.name(), Vec({1, 2})}, {dy.name(), Vec({10, 100})}}, dx);
  EXPECT_THAT(Values(out[0]), ElementsAre(20, 400));
  EXPECT_THAT(AddSymbolicGradients(&g, {y.name()}, {x.name()}, {dy.name(), dy.name()}, &dx),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("one gradient per y")));
}

TEST(SymbolicGradientsTest, MissingGradientNamesTheOpAndLeavesTheGraphUnchanged) {
  GraphDef g;
  GraphBuilder b(&g, OpRegistry::Global(), "");
  const Output x = Feed(b);
  const Output y = b.Add("Mul", {b.Add("SymbolicGradientsTestNoGrad", {x}), x});
  ASSERT_THAT(b.status(), IsOk());
  const GraphDef before = g;
  std::vector<std::string> dx;
  EXPECT_THAT(AddSymbolicGradients(&g, {y.name()}, {x.name()}, {}, &dx),
              StatusIs(error::NOT_FOUND,
                       AllOf(HasSubstr("No gradient defined for op: SymbolicGradientsTestNoGrad"),
                             HasSubstr("REGISTER_GRADIENT_OP"),
                             HasSubstr("node SymbolicGradientsTestNoGrad"))));
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(g, before));
  EXPECT_TRUE(dx.empty());
}

TEST(SymbolicGradientsTest, BadNamesAreInvalidArgument) {
  GraphDef g;
  GraphBuilder b(&g, OpRegistry::Global(), "");
  const Output x = Feed(b);
  ASSERT_THAT(b.status(), IsOk());
  std::vector<std::string> dx;
  EXPECT_THAT(AddSymbolicGradients(&g, {"nope"}, {x.name()}, {}, &dx),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("y 'nope'")));
  EXPECT_THAT(AddSymbolicGradients(&g, {x.name()}, {x.name() + ":4"}, {}, &dx),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("has 1 outputs")));
}

TEST(SymbolicGradientsTest, MalformedNodesAreInvalidArgumentNotIndexedPast) {
  // A MatMul with one input: its gradient function would read input 1.
  GraphDef g;
  ASSERT_THAT(ParseGraphDefText(R"pb(
    node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "y" op: "MatMul" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
  )pb", &g), IsOk());
  std::vector<std::string> dx;
  EXPECT_THAT(AddSymbolicGradients(&g, {"y"}, {"x"}, {}, &dx),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("node y (MatMul)")));
}

TEST(SymbolicGradientsTest, LoopsAreUnimplemented) {
  GraphDef g;
  ASSERT_THAT(ParseGraphDefText(R"pb(
    node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "m" op: "Merge" input: "x" input: "n"
           attr { key: "T" value { type: DT_FLOAT } } attr { key: "N" value { i: 2 } } }
    node { name: "n" op: "NextIteration" input: "m"
           attr { key: "T" value { type: DT_FLOAT } } }
  )pb", &g), IsOk());
  std::vector<std::string> dx;
  EXPECT_THAT(AddSymbolicGradients(&g, {"m"}, {"x"}, {}, &dx),
              StatusIs(error::UNIMPLEMENTED, HasSubstr("while loop")));
}

TEST(SymbolicGradientsTest, ACustomRegistryIsUsed) {
  // Registered in a registry of its own: d/dx of the no-gradient op is dy.
  GradientRegistry registry;
  ASSERT_THAT(registry.Register("SymbolicGradientsTestNoGrad",
                                [](GraphBuilder& b, const GradientOp&,
                                   const std::vector<Output>& dy, std::vector<Output>* dx) {
                                  *dx = {b.Add("Identity", {dy[0]})};
                                  return b.status();
                                }),
              IsOk());
  GraphDef g;
  GraphBuilder b(&g, OpRegistry::Global(), "");
  const Output x = Feed(b);
  const Output y = b.Add("SymbolicGradientsTestNoGrad", {x});
  ASSERT_THAT(b.status(), IsOk());
  SymbolicGradientOptions options;
  options.registry = &registry;
  std::vector<std::string> dx;
  ASSERT_THAT(AddSymbolicGradients(&g, {y.name()}, {x.name()}, {}, &dx, options), IsOk());
  EXPECT_THAT(dx[0], HasSubstr("SymbolicGradientsTestNoGrad_grad/Identity"));
}

}  // namespace
}  // namespace opkit
