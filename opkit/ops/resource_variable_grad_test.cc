// The resource variable ops' gradients: a read hands its gradient to the
// handle unchanged; VarIsInitializedOp has none.
#include <vector>

#include "gtest/gtest.h"
#include "opkit/gradients/gradient_registry.h"
#include "opkit/gradients/graph_builder.h"
#include "opkit/op/op_registry.h"

namespace opkit {
namespace {

TEST(ResourceVariableGradTest, ReadPassesItsGradientToTheHandle) {
  GradFunc fn;
  ASSERT_TRUE(GradientRegistry::Global()->Lookup("ReadVariableOp", &fn).ok());
  ASSERT_TRUE(fn);
  GraphDef graph;
  GraphBuilder b(&graph, OpRegistry::Global(), "f");
  const Output handle = b.Add("Placeholder", {}, {{"dtype", Attr(DT_RESOURCE)}});
  const Output read =
      b.Add("ReadVariableOp", {handle}, {{"dtype", Attr(DT_FLOAT)}});
  const Output dy = b.Add("Placeholder", {}, {{"dtype", Attr(DT_FLOAT)}});
  ASSERT_TRUE(b.status().ok()) << b.status();
  GradientOp op;
  op.graph = &graph;
  op.node = &graph.node(1);
  op.inputs = {handle};
  op.outputs = {read};
  const int nodes = graph.node_size();
  std::vector<Output> dx;
  ASSERT_TRUE(fn(b, op, {dy}, &dx).ok());
  ASSERT_EQ(dx.size(), 1u);
  EXPECT_EQ(dx[0].name(), dy.name());
  EXPECT_EQ(graph.node_size(), nodes);  // nothing added
}

TEST(ResourceVariableGradTest, VarIsInitializedHasNone) {
  GradFunc fn = [](GraphBuilder&, const GradientOp&, const std::vector<Output>&,
                   std::vector<Output>*) { return Status(); };
  ASSERT_TRUE(GradientRegistry::Global()->Lookup("VarIsInitializedOp", &fn).ok());
  EXPECT_FALSE(fn);
}

}  // namespace
}  // namespace opkit
