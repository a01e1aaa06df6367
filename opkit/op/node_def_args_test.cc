// Tests for the types and index ranges of a node's inputs and outputs
// (InOutTypesForNode, OutputTypesForNode, NameRangesForNode in
// node_def_util.h).
#include "opkit/op/node_def_util.h"

#include <climits>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/core/errors.h"
#include "opkit/op/attr_value_util.h"
#include "opkit/op/testing/op_test_util.h"
#include "opkit/tensor/tensor.h"
#include "opkit/tensor/tensor_shape.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace {

using ::opkit::testing::IsOk;
using ::opkit::testing::StatusIs;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using op_test::ExpectValid;
using op_test::kRefOp;
using op_test::ToAttrValue;
using op_test::ToNodeDef;
using op_test::ToOpDef;

// ---------------------------------------------------------------------------
// Input and output types.

const char kSimpleOp[] = R"pb(
  name: "Simple"
  input_arg { name: "a" type: DT_FLOAT }
  input_arg { name: "b" type: DT_INT32 }
  output_arg { name: "c" type: DT_STRING }
  output_arg { name: "d" type: DT_BOOL }
)pb";

TEST(InOutTypesForNodeTest, Simple) {
  const OpDef op = ToOpDef(kSimpleOp);
  const NodeDef node = ToNodeDef(R"pb(name: "simple" op: "Simple" input: "a" input: "b")pb");
  DataTypeVector inputs, outputs;
  OPKIT_ASSERT_OK(InOutTypesForNode(node, op, &inputs, &outputs));
  EXPECT_THAT(inputs, ElementsAre(DT_FLOAT, DT_INT32));
  EXPECT_THAT(outputs, ElementsAre(DT_STRING, DT_BOOL));

  DataType type;
  OPKIT_ASSERT_OK(InputTypeForNode(node, op, 0, &type));
  EXPECT_EQ(type, DT_FLOAT);
  OPKIT_ASSERT_OK(InputTypeForNode(node, op, 1, &type));
  EXPECT_EQ(type, DT_INT32);
  EXPECT_THAT(InputTypeForNode(node, op, 2, &type),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Input 2 not found for node simple")));
  EXPECT_THAT(InputTypeForNode(node, op, -1, &type),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Input -1 not found for node simple")));
  OPKIT_ASSERT_OK(OutputTypeForNode(node, op, 0, &type));
  EXPECT_EQ(type, DT_STRING);
  OPKIT_ASSERT_OK(OutputTypeForNode(node, op, 1, &type));
  EXPECT_EQ(type, DT_BOOL);
  EXPECT_THAT(OutputTypeForNode(node, op, 2, &type),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Output 2 not found for node simple")));
  EXPECT_THAT(OutputTypeForNode(node, op, INT_MIN, &type),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("not found")));
  int num_outputs = 0;
  OPKIT_ASSERT_OK(NumOutputsForNode(node, op, &num_outputs));
  EXPECT_EQ(num_outputs, 2);
}

TEST(InOutTypesForNodeTest, RefTypes) {
  const OpDef op = ToOpDef(kRefOp);
  const NodeDef node = ToNodeDef(R"pb(
    name: "n" op: "Assign" attr { key: "T" value { type: DT_INT64 } }
  )pb");
  DataTypeVector inputs, outputs;
  OPKIT_ASSERT_OK(InOutTypesForNode(node, op, &inputs, &outputs));
  EXPECT_THAT(inputs, ElementsAre(DT_INT64_REF, DT_INT64));
  EXPECT_THAT(outputs, ElementsAre(DT_INT64_REF));
  DataType type;
  OPKIT_ASSERT_OK(InputTypeForNode(node, op, 0, &type));
  EXPECT_EQ(type, DT_INT64_REF);
}

TEST(InOutTypesForNodeTest, RefOfRefIsAnError) {
  OpDef op = ToOpDef(R"pb(
    name: "R" input_arg { name: "a" type: DT_FLOAT_REF is_ref: true }
  )pb");
  DataTypeVector inputs;
  EXPECT_THAT(InputTypesForNode(ToNodeDef(R"pb(name: "n" op: "R")pb"), op, &inputs),
              StatusIs(error::INVALID_ARGUMENT,
                       AllOf(HasSubstr("Requested reference to a reference type"),
                             HasSubstr("for input 'a' of op R"), HasSubstr("{{node n}}"))));
}

TEST(InOutTypesForNodeTest, MalformedOpDefsGiveErrors) {
  const NodeDef node = ToNodeDef(R"pb(name: "n" op: "Bad" attr { key: "N" value { i: 2 } })pb");
  DataTypeVector types;
  // An arg with no type at all.
  EXPECT_THAT(InputTypesForNode(node, ToOpDef(R"pb(name: "Bad" input_arg { name: "a" })pb"),
                                &types),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("No type fields in")));
  // N * <nothing>.
  EXPECT_THAT(InputTypesForNode(node,
                                ToOpDef(R"pb(
                                  name: "Bad" input_arg { name: "a" number_attr: "N" }
                                )pb"),
                                &types),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Missing type or type_attr")));
  // A fixed type outside the DataType enum, with is_ref (whose +100 must not
  // overflow).
  OpDef op = ToOpDef(R"pb(name: "Bad" input_arg { name: "a" is_ref: true })pb");
  op.mutable_input_arg(0)->set_type(static_cast<DataType>(INT_MAX));
  EXPECT_THAT(InputTypesForNode(node, op, &types),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Invalid DataType")));
  // A type_attr naming an attr that holds an int.
  EXPECT_THAT(OutputTypesForNode(node,
                                 ToOpDef(R"pb(
                                   name: "Bad" output_arg { name: "o" type_attr: "N" }
                                 )pb"),
                                 &types),
              StatusIs(error::INVALID_ARGUMENT,
                       AllOf(HasSubstr("'int' when 'type' expected"),
                             HasSubstr("for output 'o' of op Bad"))));
}

const char kNRepeatsOp[] = R"pb(
  name: "NRepeats"
  input_arg { name: "a" type: DT_INT32 number_attr: "N" }
  input_arg { name: "b" type_attr: "T" number_attr: "N" }
  output_arg { name: "c" type_attr: "T" }
  output_arg { name: "d" type: DT_STRING number_attr: "N" }
  output_arg { name: "e" type: DT_BOOL number_attr: "M" }
  attr { name: "N" type: "int" }
  attr { name: "M" type: "int" }
  attr { name: "T" type: "type" }
)pb";

TEST(InOutTypesForNodeTest, NRepeats) {
  const OpDef op = ToOpDef(kNRepeatsOp);
  const NodeDef node = ToNodeDef(R"pb(
    name: "nr" op: "NRepeats"
    attr { key: "N" value { i: 2 } }
    attr { key: "M" value { i: 3 } }
    attr { key: "T" value { type: DT_DOUBLE } }
  )pb");
  DataTypeVector inputs, outputs;
  OPKIT_ASSERT_OK(InOutTypesForNode(node, op, &inputs, &outputs));
  EXPECT_THAT(inputs, ElementsAre(DT_INT32, DT_INT32, DT_DOUBLE, DT_DOUBLE));
  EXPECT_THAT(outputs,
              ElementsAre(DT_DOUBLE, DT_STRING, DT_STRING, DT_BOOL, DT_BOOL, DT_BOOL));
  int num_outputs = 0;
  OPKIT_ASSERT_OK(NumOutputsForNode(node, op, &num_outputs));
  EXPECT_EQ(num_outputs, 6);
  DataType type;
  OPKIT_ASSERT_OK(OutputTypeForNode(node, op, 5, &type));
  EXPECT_EQ(type, DT_BOOL);

  NodeDef missing = node;
  missing.mutable_attr()->erase("M");
  outputs.clear();
  EXPECT_THAT(OutputTypesForNode(missing, op, &outputs),
              StatusIs(error::NOT_FOUND,
                       AllOf(HasSubstr("No attr named 'M' in NodeDef:"),
                             HasSubstr("for output 'e' of op NRepeats"),
                             HasSubstr("[[{{node nr}}]]"))));
  // Inputs do not need M.
  inputs.clear();
  OPKIT_EXPECT_OK(InputTypesForNode(missing, op, &inputs));
  EXPECT_EQ(inputs.size(), 4u);
}

TEST(InOutTypesForNodeTest, LargeOutputIsAnError) {
  const OpDef op = ToOpDef(R"pb(
    name: "TestSplitOp"
    input_arg { name: "value" type: DT_INT64 }
    output_arg { name: "output" type: DT_INT64 number_attr: "num_split" }
    attr { name: "num_split" type: "int" has_minimum: true minimum: 1 }
  )pb");
  NodeDef node = ToNodeDef(R"pb(name: "test_split_op" op: "TestSplitOp" input: "x")pb");
  AddNodeAttr("num_split", int64{1000000000000}, &node);
  DataTypeVector types;
  EXPECT_THAT(OutputTypesForNode(node, op, &types),
              StatusIs(error::INVALID_ARGUMENT,
                       AllOf(HasSubstr("Number of outputs is too big: 1000000000000"),
                             HasSubstr("{{node test_split_op}}"))));
  int num = -1;
  EXPECT_THAT(NumOutputsForNode(node, op, &num),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("too big")));
  EXPECT_EQ(num, -1);
  NameRangeMap outputs;
  EXPECT_THAT(NameRangesForNode(node, op, nullptr, &outputs),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("too big")));
}

TEST(InOutTypesForNodeTest, TotalAcrossArgsIsCapped) {
  const OpDef op = ToOpDef(R"pb(
    name: "Two"
    output_arg { name: "a" type: DT_INT8 number_attr: "N" }
    output_arg { name: "b" type: DT_INT8 number_attr: "N" }
    attr { name: "N" type: "int" }
  )pb");
  NodeDef node = ToNodeDef(R"pb(name: "n" op: "Two")pb");
  AddNodeAttr("N", int64{kMaxArgsPerNode / 2 + 1}, &node);
  DataTypeVector types;
  EXPECT_THAT(OutputTypesForNode(node, op, &types),
              StatusIs(error::INVALID_ARGUMENT,
                       AllOf(HasSubstr("Number of outputs is too big"),
                             HasSubstr("for output 'b'"))));
  NameRangeMap outputs;
  EXPECT_THAT(NameRangesForNode(node, op, nullptr, &outputs),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("too big")));
  AddNodeAttr("N", int64{kMaxArgsPerNode / 2}, &node);
  types.clear();
  OPKIT_EXPECT_OK(OutputTypesForNode(node, op, &types));
  EXPECT_EQ(types.size(), static_cast<size_t>(kMaxArgsPerNode));
}

TEST(InOutTypesForNodeTest, TypeListAndDefaults) {
  const OpDef op = ToOpDef(R"pb(
    name: "TypeList"
    input_arg { name: "a" type_list_attr: "T1" }
    output_arg { name: "b" type_list_attr: "T2" }
    output_arg { name: "c" type_attr: "T3" }
    attr { name: "T1" type: "list(type)" }
    attr { name: "T2" type: "list(type)" default_value { list { type: DT_HALF } } }
    attr { name: "T3" type: "type" default_value { type: DT_UINT8 } }
  )pb");
  const NodeDef node = ToNodeDef(R"pb(
    name: "tl" op: "TypeList"
    attr { key: "T1" value { list { type: DT_BOOL type: DT_FLOAT } } }
  )pb");
  DataTypeVector inputs, outputs;
  OPKIT_ASSERT_OK(InOutTypesForNode(node, op, &inputs, &outputs));
  EXPECT_THAT(inputs, ElementsAre(DT_BOOL, DT_FLOAT));
  EXPECT_THAT(outputs, ElementsAre(DT_HALF, DT_UINT8));

  // A list(type) attr holding something else, or an invalid type.
  NodeDef bad = node;
  AddNodeAttr("T1", {1, 2}, &bad);
  inputs.clear();
  EXPECT_THAT(InputTypesForNode(bad, op, &inputs),
              StatusIs(error::INVALID_ARGUMENT,
                       AllOf(HasSubstr("'list(int)' when 'list(type)' expected"),
                             HasSubstr("{{node tl}}"))));
  bad = node;
  (*bad.mutable_attr())["T1"].mutable_list()->add_type(static_cast<DataType>(-4));
  EXPECT_THAT(InputTypesForNode(bad, op, &inputs),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("-4")));
}

TEST(OutputTypesForNodeTest, AttrSliceOverload) {
  const OpDef op = ToOpDef(kNRepeatsOp);
  AttrValueMap attrs;
  AddAttr("N", ToAttrValue("i: 1"), &attrs);
  AddAttr("M", ToAttrValue("i: 0"), &attrs);
  AddAttr("T", ToAttrValue("type: DT_FLOAT"), &attrs);
  DataTypeVector outputs;
  OPKIT_ASSERT_OK(OutputTypesForNode(AttrSlice(&attrs), op, &outputs));
  EXPECT_THAT(outputs, ElementsAre(DT_FLOAT, DT_STRING));
  attrs.erase("T");
  outputs.clear();
  EXPECT_THAT(OutputTypesForNode(AttrSlice(&attrs), op, &outputs),
              StatusIs(error::NOT_FOUND,
                       AllOf(HasSubstr("No attr named 'T'"),
                             HasSubstr("for output 'c' of op NRepeats"))));
}

// ---------------------------------------------------------------------------
// NameRangesForNode

TEST(NameRangesForNodeTest, Simple) {
  const OpDef op = ToOpDef(kSimpleOp);
  const NodeDef node = ToNodeDef(R"pb(name: "simple" op: "Simple" input: "a" input: "b")pb");
  NameRangeMap inputs, outputs;
  OPKIT_ASSERT_OK(NameRangesForNode(node, op, &inputs, &outputs));
  EXPECT_EQ(inputs, NameRangeMap({{"a", {0, 1}}, {"b", {1, 2}}}));
  EXPECT_EQ(outputs, NameRangeMap({{"c", {0, 1}}, {"d", {1, 2}}}));
  // Lookup by string_view without building a std::string.
  auto it = inputs.find(std::string_view("b"));
  ASSERT_NE(it, inputs.end());
  EXPECT_EQ(it->second, std::make_pair(1, 2));
  EXPECT_EQ(SummarizeNodeDef(node), "{{node simple}} = Simple[](a, b)");

  OpDef bad_op = op;
  bad_op.mutable_input_arg(0)->clear_type();
  EXPECT_THAT(NameRangesForNode(node, bad_op, &inputs, &outputs),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Argument 'a' incorrectly specified in op definition: "
                                 "Op<name=Simple;")));
}

TEST(NameRangesForNodeTest, NullMapsAreSkippedAndMapsAreCleared) {
  const OpDef op = ToOpDef(kSimpleOp);
  const NodeDef node = ToNodeDef(R"pb(name: "simple" op: "Simple")pb");
  NameRangeMap outputs = {{"stale", {7, 8}}};
  OPKIT_ASSERT_OK(NameRangesForNode(node, op, nullptr, &outputs));
  EXPECT_EQ(outputs, NameRangeMap({{"c", {0, 1}}, {"d", {1, 2}}}));
  NameRangeMap inputs;
  OPKIT_ASSERT_OK(NameRangesForNode(node, op, &inputs, nullptr));
  EXPECT_EQ(inputs.size(), 2u);
  OPKIT_ASSERT_OK(NameRangesForNode(node, op, nullptr, nullptr));
}

TEST(NameRangesForNodeTest, NRepeats) {
  const OpDef op = ToOpDef(kNRepeatsOp);
  const NodeDef node = ToNodeDef(R"pb(
    name: "nr" op: "NRepeats"
    input: "a" input: "a:1" input: "a:2" input: "a:3"
    input: "b" input: "b:1" input: "b:2" input: "b:3"
    attr { key: "N" value { i: 4 } }
    attr { key: "M" value { i: 3 } }
    attr { key: "T" value { type: DT_FLOAT } }
  )pb");
  NameRangeMap inputs, outputs;
  OPKIT_ASSERT_OK(NameRangesForNode(node, op, &inputs, &outputs));
  EXPECT_EQ(inputs, NameRangeMap({{"a", {0, 4}}, {"b", {4, 8}}}));
  EXPECT_EQ(outputs, NameRangeMap({{"c", {0, 1}}, {"d", {1, 5}}, {"e", {5, 8}}}));
  EXPECT_EQ(SummarizeNodeDef(node),
            "{{node nr}} = NRepeats[M=3, N=4, T=DT_FLOAT](a, a:1, a:2, a:3, b, b:1, "
            "b:2, b:3)");
  ExpectValid(node, op);

  NodeDef bad = node;
  bad.clear_attr();
  EXPECT_THAT(NameRangesForNode(bad, op, &inputs, &outputs),
              StatusIs(error::NOT_FOUND,
                       AllOf(HasSubstr("No attr named 'N'"), HasSubstr("{{node nr}}"))));
  bad = node;
  AddNodeAttr("N", -2, &bad);
  EXPECT_THAT(NameRangesForNode(bad, op, &inputs, &outputs),
              StatusIs(error::INVALID_ARGUMENT,
                       AllOf(HasSubstr("Value for number_attr() -2 < 0"),
                             HasSubstr("for input 'a' of op NRepeats"))));
  AddNodeAttr("N", "two", &bad);
  EXPECT_THAT(NameRangesForNode(bad, op, &inputs, &outputs),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("'string' when 'int'")));
}

TEST(NameRangesForNodeTest, TypeListAndDefaults) {
  const OpDef op = ToOpDef(R"pb(
    name: "TypeList"
    input_arg { name: "a" type_list_attr: "T1" }
    input_arg { name: "b" type_list_attr: "T2" }
    output_arg { name: "c" type_list_attr: "T2" }
    output_arg { name: "d" type_list_attr: "T3" }
    output_arg { name: "e" type_list_attr: "T1" }
    attr { name: "T1" type: "list(type)" }
    attr { name: "T2" type: "list(type)" }
    attr { name: "T3" type: "list(type)" default_value { list { type: DT_INT32 type: DT_INT32 } } }
  )pb");
  const NodeDef node = ToNodeDef(R"pb(
    name: "tl" op: "TypeList"
    attr { key: "T1" value { list { type: DT_BOOL type: DT_FLOAT } } }
    attr { key: "T2" value { list { type: [ DT_FLOAT, DT_FLOAT, DT_FLOAT, DT_FLOAT ] } } }
  )pb");
  NameRangeMap inputs, outputs;
  OPKIT_ASSERT_OK(NameRangesForNode(node, op, &inputs, &outputs));
  EXPECT_EQ(inputs, NameRangeMap({{"a", {0, 2}}, {"b", {2, 6}}}));
  EXPECT_EQ(outputs, NameRangeMap({{"c", {0, 4}}, {"d", {4, 6}}, {"e", {6, 8}}}));

  NodeDef bad = node;
  bad.clear_attr();
  EXPECT_THAT(NameRangesForNode(bad, op, &inputs, &outputs),
              StatusIs(error::NOT_FOUND, HasSubstr("No attr named 'T1'")));
}

// ---------------------------------------------------------------------------
// ValidateNodeDef's signature (Note [Validate once])

// The types and ranges ValidateNodeDef gives are InOutTypesForNode's and
// NameRangesForNode's for the same node.
void ExpectSignatureMatches(const NodeDef& node, const OpDef& op) {
  NodeSignature sig;
  ASSERT_THAT(ValidateNodeDef(node, op, &sig), IsOk()) << SummarizeNodeDef(node);
  DataTypeVector inputs, outputs;
  ASSERT_THAT(InOutTypesForNode(node, op, &inputs, &outputs), IsOk());
  NameRangeMap input_ranges, output_ranges;
  ASSERT_THAT(NameRangesForNode(node, op, &input_ranges, &output_ranges), IsOk());
  EXPECT_EQ(sig.input_types, inputs) << SummarizeNodeDef(node);
  EXPECT_EQ(sig.output_types, outputs) << SummarizeNodeDef(node);
  EXPECT_EQ(sig.input_ranges, input_ranges) << SummarizeNodeDef(node);
  EXPECT_EQ(sig.output_ranges, output_ranges) << SummarizeNodeDef(node);
}

TEST(ValidateNodeDefSignatureTest, IsWhatTheTypeAndRangeFunctionsGive) {
  const OpDef nrepeats = ToOpDef(kNRepeatsOp);
  const NodeDef nr = ToNodeDef(R"pb(
    name: "nr" op: "NRepeats" input: [ "a", "a:1", "b", "b:1", "^ctl" ]
    attr { key: "N" value { i: 2 } }
    attr { key: "M" value { i: 3 } }
    attr { key: "T" value { type: DT_FLOAT } }
  )pb");
  ExpectSignatureMatches(nr, nrepeats);
  NodeSignature sig;
  ASSERT_THAT(ValidateNodeDef(nr, nrepeats, &sig), IsOk());
  EXPECT_THAT(sig.input_types, ElementsAre(DT_INT32, DT_INT32, DT_FLOAT, DT_FLOAT));
  EXPECT_EQ(sig.input_ranges, NameRangeMap({{"a", {0, 2}}, {"b", {2, 4}}}));
  EXPECT_EQ(sig.output_ranges, NameRangeMap({{"c", {0, 1}}, {"d", {1, 3}}, {"e", {3, 6}}}));

  // N == 0: empty ranges, still present.
  NodeDef none = ToNodeDef(R"pb(
    name: "nr0" op: "NRepeats"
    attr { key: "N" value { i: 0 } }
    attr { key: "M" value { i: 0 } }
    attr { key: "T" value { type: DT_FLOAT } }
  )pb");
  ExpectSignatureMatches(none, nrepeats);

  // list(type) arguments, one attr from its default.
  const OpDef type_list = ToOpDef(R"pb(
    name: "TypeList"
    input_arg { name: "a" type_list_attr: "T1" }
    output_arg { name: "b" type_list_attr: "T2" }
    attr { name: "T1" type: "list(type)" }
    attr { name: "T2" type: "list(type)" default_value { list { type: [ DT_INT32, DT_BOOL ] } } }
  )pb");
  ExpectSignatureMatches(ToNodeDef(R"pb(
                           name: "tl" op: "TypeList" input: [ "x", "y", "z" ]
                           attr { key: "T1" value { list { type: [ DT_BOOL, DT_FLOAT, DT_HALF ] } } }
                         )pb"),
                         type_list);

  // Ref arguments.
  ExpectSignatureMatches(ToNodeDef(R"pb(
                           name: "assign" op: "Assign" input: [ "v", "x" ]
                           attr { key: "T" value { type: DT_FLOAT } }
                         )pb"),
                         ToOpDef(kRefOp));
}

TEST(ValidateNodeDefSignatureTest, ErrorsAreValidateNodeDefs) {
  const OpDef op = ToOpDef(kNRepeatsOp);
  for (const char* text : {
           // N missing.
           R"pb(name: "nr" op: "NRepeats" input: [ "a" ]
                attr { key: "M" value { i: 1 } }
                attr { key: "T" value { type: DT_FLOAT } })pb",
           // One input too few for N = 1.
           R"pb(name: "nr" op: "NRepeats" input: [ "a" ]
                attr { key: "N" value { i: 1 } }
                attr { key: "M" value { i: 1 } }
                attr { key: "T" value { type: DT_FLOAT } })pb",
           // A negative count.
           R"pb(name: "nr" op: "NRepeats"
                attr { key: "N" value { i: -1 } }
                attr { key: "M" value { i: 1 } }
                attr { key: "T" value { type: DT_FLOAT } })pb"}) {
    const NodeDef node = ToNodeDef(text);
    const Status plain = ValidateNodeDef(node, op);
    NodeSignature sig;
    EXPECT_FALSE(plain.ok()) << text;
    EXPECT_EQ(ValidateNodeDef(node, op, &sig), plain) << text;
  }
}

}  // namespace
}  // namespace opkit
