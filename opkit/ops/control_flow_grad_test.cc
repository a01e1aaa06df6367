// The gradients of Switch and Merge: a cond built from them is
// differentiated with AddSymbolicGradients and run with the predicate true
// and false; only the branch taken contributes.
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/gradients/graph_builder.h"
#include "opkit/gradients/symbolic_gradients.h"
#include "opkit/op/op_registry.h"
#include "opkit/runtime/session.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace {

using ::opkit::testing::IsOk;
using ::testing::ElementsAre;

Tensor Vec(std::vector<float> v) {
  Tensor t(DT_FLOAT, TensorShape({static_cast<int64_t>(v.size())}));
  for (size_t i = 0; i < v.size(); ++i) t.flat<float>()(i) = v[i];
  return t;
}

Tensor Bool(bool v) {
  Tensor t(DT_BOOL, TensorShape({}));
  t.scalar<bool>()() = v;
  return t;
}

std::vector<float> Values(const Tensor& t) {
  std::vector<float> v(t.NumElements());
  for (int64_t i = 0; i < t.NumElements(); ++i) v[i] = t.flat<float>()(i);
  return v;
}

struct Cond {
  GraphDef graph;
  std::string x, w, pred, y;
};

// y = pred ? x * x * w : 3 * x + w, then y * x (x also used outside the cond).
Cond MakeCond() {
  Cond c;
  GraphBuilder b(&c.graph, OpRegistry::Global(), "");
  const Output x = b.Add("Placeholder", {}, {{"dtype", Attr(DT_FLOAT)}});
  const Output w = b.Add("Placeholder", {}, {{"dtype", Attr(DT_FLOAT)}});
  const Output pred = b.Add("Placeholder", {}, {{"dtype", Attr(DT_BOOL)}});
  const std::vector<Output> sx = b.AddN("Switch", {x, pred});
  const std::vector<Output> sw = b.AddN("Switch", {w, pred});
  const Output on_true = b.Add("Mul", {b.Add("Mul", {sx[1], sx[1]}), sw[1]});
  const Output on_false =
      b.Add("AddV2", {b.Add("Mul", {b.Scalar(DT_FLOAT, 3), sx[0]}), sw[0]});
  const Output merged = b.AddN("Merge", {std::vector<Output>{on_false, on_true}})[0];
  const Output y = b.Add("Mul", {merged, x});
  EXPECT_THAT(b.status(), IsOk());
  c.x = x.name();
  c.w = w.name();
  c.pred = pred.name();
  c.y = y.name();
  return c;
}

std::vector<Tensor> RunCond(const GraphDef& g, const Cond& c, bool pred,
                            const std::vector<std::string>& fetches) {
  auto session = Session::New();
  EXPECT_THAT(session.status(), IsOk());
  EXPECT_THAT((*session)->Create(g), IsOk());
  std::vector<Tensor> out;
  EXPECT_THAT((*session)->Run({{c.x, Vec({1, 2, -3})}, {c.w, Vec({5, 7, 11})},
                               {c.pred, Bool(pred)}},
                              fetches, {}, &out),
              IsOk());
  return out;
}

TEST(ControlFlowGradTest, CondGradientFollowsTheBranchTaken) {
  Cond c = MakeCond();
  std::vector<std::string> grads;
  ASSERT_THAT(AddSymbolicGradients(&c.graph, {c.y}, {c.x, c.w}, {}, &grads), IsOk());
  ASSERT_EQ(grads.size(), 2u);
  // true: y = x^3 w -> dy/dx = 3 x^2 w, dy/dw = x^3.
  auto out = RunCond(c.graph, c, true, grads);
  EXPECT_THAT(Values(out[0]), ElementsAre(15, 84, 297));
  EXPECT_THAT(Values(out[1]), ElementsAre(1, 8, -27));
  // false: y = (3x + w) x -> dy/dx = 6x + w, dy/dw = x.
  out = RunCond(c.graph, c, false, grads);
  EXPECT_THAT(Values(out[0]), ElementsAre(11, 19, -7));
  EXPECT_THAT(Values(out[1]), ElementsAre(1, 2, -3));
}

TEST(ControlFlowGradTest, BranchOutputUsedOnlyOnOneSide) {
  // y = Merge(Identity(switch_true), w_false): x reaches y only when pred
  // is true; when false its gradient is zero, not dead or missing.
  GraphDef g;
  GraphBuilder b(&g, OpRegistry::Global(), "");
  const Output x = b.Add("Placeholder", {}, {{"dtype", Attr(DT_FLOAT)}});
  const Output w = b.Add("Placeholder", {}, {{"dtype", Attr(DT_FLOAT)}});
  const Output pred = b.Add("Placeholder", {}, {{"dtype", Attr(DT_BOOL)}});
  const std::vector<Output> sx = b.AddN("Switch", {x, pred});
  const std::vector<Output> sw = b.AddN("Switch", {w, pred});
  const Output y = b.AddN("Merge", {std::vector<Output>{sw[0], b.Add("Square", {sx[1]})}})[0];
  ASSERT_THAT(b.status(), IsOk());
  std::vector<std::string> grads;
  ASSERT_THAT(AddSymbolicGradients(&g, {y.name()}, {x.name()}, {}, &grads), IsOk());
  Cond c{g, x.name(), w.name(), pred.name(), y.name()};
  EXPECT_THAT(Values(RunCond(g, c, true, grads)[0]), ElementsAre(2, 4, -6));
  EXPECT_THAT(Values(RunCond(g, c, false, grads)[0]), ElementsAre(0, 0, 0));
}

}  // namespace
}  // namespace opkit
