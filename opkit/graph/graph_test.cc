// Graph: parsing GraphDefs, building the graph, topological order, and one
// test per validation fault, each checking that the error names the node.
#include "opkit/graph/graph.h"

#include <algorithm>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/core/env.h"
#include "opkit/op/op_registry.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace {

using ::opkit::testing::IsOk;
using ::opkit::testing::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;

std::string ConstF(const std::string& name) {
  return "node { name: '" + name +
         "' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } } "
         "attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape {} "
         "float_val: 1 } } } }\n";
}
std::string ConstI(const std::string& name) {
  return "node { name: '" + name +
         "' op: 'Const' attr { key: 'dtype' value { type: DT_INT32 } } "
         "attr { key: 'value' value { tensor { dtype: DT_INT32 tensor_shape {} "
         "int_val: 1 } } } }\n";
}
std::string Add(const std::string& name, const std::string& a,
                const std::string& b, const std::string& t = "DT_FLOAT") {
  return "node { name: '" + name + "' op: 'AddV2' input: '" + a +
         "' input: '" + b + "' attr { key: 'T' value { type: " + t + " } } }\n";
}
std::string Ident(const std::string& name, const std::string& in,
                  const std::string& t = "DT_FLOAT") {
  return "node { name: '" + name + "' op: 'Identity' input: '" + in +
         "' attr { key: 'T' value { type: " + t + " } } }\n";
}

StatusOr<std::unique_ptr<Graph>> Build(const std::string& text) {
  GraphDef def;
  OPKIT_RETURN_IF_ERROR(ParseGraphDefText(text, &def));
  return Graph::Create(def, OpRegistry::Global());
}

Status BuildStatus(const std::string& text) { return Build(text).status(); }

TEST(GraphTest, DiamondEdgesAndOrder) {
  auto g = Build(ConstF("a") + Ident("b", "a") + Ident("c", "a:0") +
                 Add("d", "b", "c") + "node { name: 'n' op: 'NoOp' input: '^d' }");
  OPKIT_ASSERT_OK(g.status());
  const Graph& graph = **g;
  EXPECT_EQ(graph.num_nodes(), 5);
  const Node* d = graph.FindNode("d");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->op(), "AddV2");
  EXPECT_EQ(d->num_inputs(), 2);
  ASSERT_EQ(d->in_edges().size(), 2u);
  const GraphEdge& e1 = graph.edge(d->in_edges()[1]);
  EXPECT_EQ(graph.node(e1.src).name(), "c");
  EXPECT_EQ(e1.dst_input, 1);
  const Node* n = graph.FindNode("n");
  ASSERT_EQ(n->in_edges().size(), 1u);
  EXPECT_TRUE(graph.edge(n->in_edges()[0]).IsControl());
  EXPECT_EQ(graph.FindNode("missing"), nullptr);
  // Every node after its inputs.
  std::vector<int> pos(graph.num_nodes());
  const auto& order = graph.topological_order();
  ASSERT_EQ(order.size(), 5u);
  for (size_t i = 0; i < order.size(); ++i) pos[order[i]] = static_cast<int>(i);
  for (const GraphEdge& e : graph.edges()) EXPECT_LT(pos[e.src], pos[e.dst]);
}

TEST(GraphTest, DefaultsAreAdded) {
  auto g = Build(ConstF("a") + ConstF("b") +
                 "node { name: 'm' op: 'MatMul' input: 'a' input: 'b' "
                 "attr { key: 'T' value { type: DT_FLOAT } } }");
  OPKIT_ASSERT_OK(g.status());
  EXPECT_TRUE((*g)->FindNode("m")->def().attr().count("transpose_a"));
}

TEST(GraphTest, RefOutputMayFeedNonRefInput) {
  const std::string var =
      "node { name: 'v' op: 'VariableV2' attr { key: 'dtype' value { type: "
      "DT_FLOAT } } attr { key: 'shape' value { shape {} } } }\n";
  OPKIT_EXPECT_OK(BuildStatus(var + Ident("r", "v")));
  OPKIT_EXPECT_OK(BuildStatus(
      var + ConstF("c") +
      "node { name: 'as' op: 'Assign' input: 'v' input: 'c' attr { key: 'T' "
      "value { type: DT_FLOAT } } }"));
  EXPECT_EQ(BuildStatus(var).ok(), true);
}

TEST(GraphTest, LoopThroughNextIterationIsAllowed) {
  const std::string t = "attr { key: 'T' value { type: DT_FLOAT } }";
  OPKIT_EXPECT_OK(BuildStatus(
      ConstF("a") +
      "node { name: 'e' op: 'Enter' input: 'a' " + t +
      " attr { key: 'frame_name' value { s: 'f' } } }"
      "node { name: 'm' op: 'Merge' input: 'e' input: 'ni' " + t +
      " attr { key: 'N' value { i: 2 } } }"
      "node { name: 'ni' op: 'NextIteration' input: 'm' " + t + " }"));
}

// --- One test per validation fault ------------------------------------------

TEST(GraphValidationTest, UnknownOp) {
  EXPECT_THAT(BuildStatus("node { name: 'x' op: 'NoSuchOpForGraphTest' }"),
              StatusIs(error::NOT_FOUND, AllOf(HasSubstr("NoSuchOpForGraphTest"),
                                               HasSubstr("{{node x}}"))));
}

TEST(GraphValidationTest, MissingAttr) {
  EXPECT_THAT(BuildStatus(ConstF("a") +
                          "node { name: 'i' op: 'Identity' input: 'a' }"),
              StatusIs(error::INVALID_ARGUMENT,
                       AllOf(HasSubstr("missing attr 'T'"), HasSubstr("{{node i}}"))));
}

TEST(GraphValidationTest, AttrOfWrongKind) {
  EXPECT_THAT(BuildStatus(ConstF("a") +
                          "node { name: 'i' op: 'Identity' input: 'a' "
                          "attr { key: 'T' value { i: 3 } } }"),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("{{node i}}")));
}

TEST(GraphValidationTest, AttrOutsideConstraints) {
  EXPECT_THAT(BuildStatus(ConstF("a") +
                          "node { name: 'i' op: 'AssignAdd' input: 'a' input: 'a' "
                          "attr { key: 'T' value { type: DT_STRING } } }"),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("{{node i}}")));
}

TEST(GraphValidationTest, AttrNotInOp) {
  EXPECT_THAT(BuildStatus(ConstF("a") + "node { name: 'i' op: 'Identity' "
                                        "input: 'a' attr { key: 'T' value { "
                                        "type: DT_FLOAT } } attr { key: "
                                        "'bogus' value { i: 1 } } }"),
              StatusIs(error::INVALID_ARGUMENT,
                       AllOf(HasSubstr("bogus"), HasSubstr("{{node i}}"))));
}

TEST(GraphValidationTest, WrongNumberOfInputs) {
  EXPECT_THAT(BuildStatus(ConstF("a") +
                          "node { name: 's' op: 'AddV2' input: 'a' attr { key: "
                          "'T' value { type: DT_FLOAT } } }"),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("{{node s}}")));
  EXPECT_THAT(BuildStatus(ConstF("a") + "node { name: 's' op: 'AddV2' input: "
                                        "'a' input: 'a' input: 'a' attr { key: "
                                        "'T' value { type: DT_FLOAT } } }"),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("{{node s}}")));
}

TEST(GraphValidationTest, WrongInputType) {
  EXPECT_THAT(
      BuildStatus(ConstI("a") + ConstF("b") + Add("s", "b", "a")),
      StatusIs(error::INVALID_ARGUMENT,
               AllOf(HasSubstr("Input 1 of node s was passed int32 from a:0 "
                               "incompatible with expected float"),
                     HasSubstr("{{node s}}"))));
}

TEST(GraphValidationTest, NonRefIntoRefInput) {
  EXPECT_THAT(
      BuildStatus(ConstF("a") +
                  "node { name: 'as' op: 'Assign' input: 'a' input: 'a' attr "
                  "{ key: 'T' value { type: DT_FLOAT } } }"),
      StatusIs(error::INVALID_ARGUMENT,
               AllOf(HasSubstr("incompatible with expected float_ref"),
                     HasSubstr("{{node as}}"))));
}

TEST(GraphValidationTest, InputNamesNoNode) {
  EXPECT_THAT(BuildStatus(Ident("i", "ghost")),
              StatusIs(error::INVALID_ARGUMENT,
                       AllOf(HasSubstr("Unknown input node 'ghost'"),
                             HasSubstr("{{node i}}"))));
  EXPECT_THAT(BuildStatus("node { name: 'n' op: 'NoOp' input: '^ghost' }"),
              StatusIs(error::INVALID_ARGUMENT,
                       AllOf(HasSubstr("ghost"), HasSubstr("{{node n}}"))));
}

TEST(GraphValidationTest, InputNamesNoSuchOutput) {
  EXPECT_THAT(BuildStatus(ConstF("a") + Ident("i", "a:1")),
              StatusIs(error::INVALID_ARGUMENT,
                       AllOf(HasSubstr("Connecting to invalid output 1 of "
                                       "source node a which has 1 outputs"),
                             HasSubstr("{{node i}}"))));
}

TEST(GraphValidationTest, MalformedInputName) {
  EXPECT_THAT(BuildStatus(ConstF("a") + Ident("i", "a:-1")),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("{{node i}}")));
}

TEST(GraphValidationTest, CycleWithoutNextIteration) {
  EXPECT_THAT(BuildStatus(Ident("x", "y") + Ident("y", "x") + ConstF("a")),
              StatusIs(error::INVALID_ARGUMENT,
                       AllOf(HasSubstr("contains a cycle with 2 nodes"),
                             HasSubstr("{{node x}}"))));
  EXPECT_THAT(BuildStatus(Ident("self", "self")),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("{{node self}}")));
}

TEST(GraphValidationTest, DuplicateNames) {
  EXPECT_THAT(BuildStatus(ConstF("a") + ConstF("a")),
              StatusIs(error::INVALID_ARGUMENT,
                       AllOf(HasSubstr("Node 'a' is not unique"),
                             HasSubstr("{{node a}}"))));
}

TEST(GraphValidationTest, NodeWithoutName) {
  EXPECT_THAT(BuildStatus("node { op: 'NoOp' }"),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("no name")));
}

// --- Parsing ---------------------------------------------------------------------

TEST(GraphParseTest, TextAndBinary) {
  GraphDef def;
  OPKIT_ASSERT_OK(ParseGraphDef(ConstF("a") + Ident("b", "a"), &def));
  ASSERT_EQ(def.node_size(), 2);
  std::string bytes;
  ASSERT_TRUE(def.SerializeToString(&bytes));
  GraphDef back;
  OPKIT_ASSERT_OK(ParseGraphDef(bytes, &back));
  EXPECT_EQ(back.node(1).name(), "b");
  OPKIT_ASSERT_OK(ParseGraphDefBinary(bytes, &back));
  EXPECT_EQ(back.node_size(), 2);
}

TEST(GraphParseTest, Errors) {
  GraphDef def;
  EXPECT_THAT(ParseGraphDefText("node { name: 'a'\n op: }", &def),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("line 2")));
  EXPECT_THAT(ParseGraphDef(std::string("\x0a\x05\xff\xff", 4), &def),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("binary GraphDef")));
  EXPECT_FALSE(ReadGraphDefFromFile("/nonexistent/graph.pbtxt", &def).ok());
}

TEST(GraphParseTest, ReadsFiles) {
  const std::string path = ::testing::TempDir() + "/graph_test.pbtxt";
  FILE* f = fopen(path.c_str(), "w");
  ASSERT_NE(f, nullptr);
  const std::string text = ConstF("a");
  fwrite(text.data(), 1, text.size(), f);
  fclose(f);
  GraphDef def;
  OPKIT_ASSERT_OK(ReadGraphDefFromFile(path, &def));
  EXPECT_EQ(def.node(0).name(), "a");
}

}  // namespace
}  // namespace opkit
