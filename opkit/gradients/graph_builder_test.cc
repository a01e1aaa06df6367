// GraphBuilder: unique names, attrs inferred from inputs, defaults, and the
// first error kept.
#include "opkit/gradients/graph_builder.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/op/op_registry.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace {

using ::opkit::testing::IsOk;
using ::opkit::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

Output Placeholder(GraphBuilder& b, DataType dt) {
  return b.Add("Placeholder", {}, {{"dtype", Attr(dt)}});
}

TEST(GraphBuilderTest, NamesAreUniqueUnderThePrefix) {
  GraphDef g;
  g.add_node()->set_name("grad/Placeholder");
  GraphBuilder b(&g, OpRegistry::Global(), "grad");
  const Output x = Placeholder(b, DT_FLOAT);
  const Output y = Placeholder(b, DT_FLOAT);
  ASSERT_THAT(b.status(), IsOk());
  EXPECT_EQ(x.node, "grad/Placeholder_1");
  EXPECT_EQ(y.node, "grad/Placeholder_2");
  GraphBuilder sub = b.WithPrefix("inner");
  EXPECT_EQ(Placeholder(sub, DT_FLOAT).node, "grad/inner/Placeholder");
}

TEST(GraphBuilderTest, InfersTypeAndNumberAttrsAndAppliesDefaults) {
  GraphDef g;
  GraphBuilder b(&g, OpRegistry::Global(), "");
  const Output x = Placeholder(b, DT_DOUBLE);
  const Output mm = b.Add("MatMul", {x, x}, {{"transpose_b", Attr(true)}});
  const Output sum = b.Add("AddN", {Input({x, x, x})});
  ASSERT_THAT(b.status(), IsOk());
  EXPECT_EQ(mm.dtype, DT_DOUBLE);
  EXPECT_EQ(mm.name(), "MatMul");
  const NodeDef& matmul = g.node(1);
  EXPECT_EQ(matmul.attr().at("T").type(), DT_DOUBLE);
  EXPECT_TRUE(matmul.attr().at("transpose_b").b());
  EXPECT_FALSE(matmul.attr().at("transpose_a").b());  // the default
  EXPECT_THAT(matmul.input(), ElementsAre("Placeholder", "Placeholder"));
  const NodeDef& addn = g.node(2);
  EXPECT_EQ(addn.attr().at("N").i(), 3);
  EXPECT_EQ(sum.dtype, DT_DOUBLE);
  const std::vector<Output> split =
      b.AddN("Split", {b.ScalarInt(0), x}, {{"num_split", Attr(int64_t{2})}});
  ASSERT_EQ(split.size(), 2u);
  EXPECT_EQ(split[1].name(), split[1].node + ":1");
}

TEST(GraphBuilderTest, FirstErrorSticksAndNamesTheOp) {
  GraphDef g;
  GraphBuilder b(&g, OpRegistry::Global(), "p");
  const Output x = Placeholder(b, DT_FLOAT);
  EXPECT_FALSE(b.Add("NoSuchOpAnywhere", {x}).valid());
  EXPECT_THAT(b.status(), StatusIs(error::NOT_FOUND, HasSubstr("NoSuchOpAnywhere")));
  EXPECT_FALSE(b.Add("Identity", {x}).valid());  // nothing after an error
  EXPECT_EQ(g.node_size(), 1);

  GraphBuilder c(&g, OpRegistry::Global(), "q");
  c.Add("MatMul", {x});
  EXPECT_THAT(c.status(), StatusIs(error::INVALID_ARGUMENT,
                                   HasSubstr("takes 2 inputs, given 1")));
  GraphBuilder d(&g, OpRegistry::Global(), "r");
  d.Add("Identity", {Output()});
  EXPECT_THAT(d.status(), StatusIs(error::INVALID_ARGUMENT, HasSubstr("no tensor")));
  GraphBuilder e(&g, OpRegistry::Global(), "s");
  e.Add("AddN", {x});
  EXPECT_THAT(e.status(), StatusIs(error::INVALID_ARGUMENT, HasSubstr("list of tensors")));
}

TEST(GraphBuilderTest, AddTargetNamesANodeWithoutOutputs) {
  GraphDef g;
  GraphBuilder b(&g, OpRegistry::Global(), "init");
  EXPECT_EQ(b.AddTarget("NoOp", {}), "init/NoOp");
  EXPECT_FALSE(b.Add("NoOp", {}).valid());  // Add needs an output
  EXPECT_THAT(b.status(), StatusIs(error::INVALID_ARGUMENT, HasSubstr("no outputs")));
  EXPECT_EQ(b.AddTarget("NoOp", {}), "");  // the first error sticks
}

TEST(GraphBuilderTest, OutputTypeReadsTheOpDef) {
  GraphDef g;
  GraphBuilder b(&g, OpRegistry::Global(), "");
  const Output x = Placeholder(b, DT_INT64);
  b.Add("Shape", {x}, {{"out_type", Attr(DT_INT64)}});
  ASSERT_THAT(b.status(), IsOk());
  DataType dt;
  ASSERT_THAT(GraphBuilder::OutputType(g, *OpRegistry::Global(), "Shape", &dt), IsOk());
  EXPECT_EQ(dt, DT_INT64);
  EXPECT_THAT(GraphBuilder::OutputType(g, *OpRegistry::Global(), "Shape:3", &dt),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("has 1 outputs")));
  EXPECT_THAT(GraphBuilder::OutputType(g, *OpRegistry::Global(), "missing", &dt),
              StatusIs(error::NOT_FOUND));
}

}  // namespace
}  // namespace opkit
