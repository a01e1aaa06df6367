// Tests for AddDefaultsToNodeDef and ValidateNodeDef (node_def_util.h),
// with small OpDefs and NodeDefs written as text protos.
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

using ::opkit::testing::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;
using op_test::ExpectInvalid;
using op_test::ExpectValid;
using op_test::kRefOp;
using op_test::ToNodeDef;
using op_test::ToOpDef;

// ---------------------------------------------------------------------------
// Defaults

const char kDefaultsOp[] = R"pb(
  name: "Defaults"
  input_arg { name: "x" type_attr: "T" }
  output_arg { name: "y" type_attr: "T" }
  attr { name: "T" type: "type" default_value { type: DT_FLOAT } }
  attr { name: "a" type: "int" default_value { i: 3 } }
  attr { name: "b" type: "bool" }
  attr { name: "l" type: "list(int)" default_value { list {} } }
)pb";

TEST(AddDefaultsToNodeDefTest, AddsOnlyMissingDefaults) {
  const OpDef op = ToOpDef(kDefaultsOp);
  NodeDef node = ToNodeDef(R"pb(
    name: "n" op: "Defaults" input: "x"
    attr { key: "a" value { i: 10 } }
  )pb");
  AddDefaultsToNodeDef(op, &node);
  EXPECT_EQ(node.attr().at("T").type(), DT_FLOAT);
  EXPECT_EQ(node.attr().at("a").i(), 10);  // Kept.
  EXPECT_FALSE(HasNodeAttr(node, "b"));    // No default.
  ASSERT_TRUE(HasNodeAttr(node, "l"));
  EXPECT_EQ(node.attr().at("l").value_case(), AttrValue::kList);
  EXPECT_EQ(node.attr_size(), 3);
  // Applying twice changes nothing.
  const NodeDef once = node;
  AddDefaultsToNodeDef(op, &node);
  EXPECT_EQ(SummarizeNodeDef(once), SummarizeNodeDef(node));
  EXPECT_EQ(SummarizeNodeDef(node), "{{node n}} = Defaults[T=DT_FLOAT, a=10, l=[]](x)");
}

// ---------------------------------------------------------------------------
// ValidateNodeDef

const char kInOp[] = R"pb(
  name: "In"
  input_arg { name: "i" type_attr: "T" }
  attr { name: "T" type: "type" }
)pb";

TEST(ValidateNodeDefTest, In) {
  const OpDef op = ToOpDef(kInOp);
  const NodeDef node = ToNodeDef(R"pb(
    name: "n" op: "In" input: "a" attr { key: "T" value { type: DT_FLOAT } }
  )pb");
  ExpectValid(node, op);
  EXPECT_EQ(SummarizeNodeDef(node), "{{node n}} = In[T=DT_FLOAT](a)");

  NodeDef bad = node;
  bad.set_op("Wrong");
  ExpectInvalid(bad, op, "NodeDef op 'Wrong' does not match Op<name=In;");

  bad = node;
  bad.clear_attr();
  ExpectInvalid(bad, op, "NodeDef missing attr 'T' from Op<name=In;");

  bad = node;
  bad.clear_attr();
  AddNodeAttr("T", 17, &bad);
  ExpectInvalid(bad, op,
                "AttrValue had value with type 'int' when 'type' expected\n\t for attr "
                "'T'\n\t; NodeDef: {{node n}}; Op<name=In;");

  bad = node;
  bad.add_input("b");
  ExpectInvalid(bad, op, "NodeDef expected inputs 'float' do not match 2 inputs specified;");

  bad = node;
  bad.clear_input();
  ExpectInvalid(bad, op, "NodeDef expected inputs 'float' do not match 0 inputs specified;");

  NodeDef good = node;
  good.add_input("^b");
  ExpectValid(good, op);

  bad = node;
  bad.clear_input();
  bad.add_input("^b");
  bad.add_input("a");
  ExpectInvalid(bad, op, "Non-control input 'a' after control input in NodeDef: {{node n}}");

  bad = node;
  bad.add_input("^b:0");
  ExpectInvalid(bad, op, "Control input '^b:0' must not have ':' in NodeDef: {{node n}}");
}

TEST(ValidateNodeDefTest, UnknownAttrIsRejectedButInternalAttrsAreAllowed) {
  const OpDef op = ToOpDef(kInOp);
  NodeDef node = ToNodeDef(R"pb(
    name: "n" op: "In" input: "a" attr { key: "T" value { type: DT_FLOAT } }
  )pb");
  AddNodeAttr("_class", {"loc:@x"}, &node);
  AddNodeAttr("_kernel", "eigen", &node);
  ExpectValid(node, op);
  AddNodeAttr("EXTRA", 17, &node);
  ExpectInvalid(node, op,
                "NodeDef mentions attr 'EXTRA' not in Op<name=In; signature=i:T -> ; "
                "attr=T:type>; NodeDef: {{node n}}. (Check whether your "
                "GraphDef-interpreting binary is up to date with your "
                "GraphDef-generating binary.).");
}

TEST(ValidateNodeDefTest, SeveralBadAttrsReportTheFirstByName) {
  const OpDef op = ToOpDef(kInOp);
  NodeDef node = ToNodeDef(R"pb(
    name: "n" op: "In" input: "a" attr { key: "T" value { type: DT_FLOAT } }
  )pb");
  for (const char* name : {"zz", "mm", "bb", "yy", "cc"}) AddNodeAttr(name, 1, &node);
  ExpectInvalid(node, op, "NodeDef mentions attr 'bb'");
}

TEST(ValidateNodeDefTest, OutWithAllowedTypes) {
  const OpDef op = ToOpDef(R"pb(
    name: "Out"
    output_arg { name: "o" type_attr: "T" }
    attr {
      name: "T" type: "type"
      allowed_values { list { type: DT_FLOAT type: DT_INT32 } }
    }
  )pb");
  const NodeDef node = ToNodeDef(R"pb(
    name: "n" op: "Out" attr { key: "T" value { type: DT_INT32 } }
  )pb");
  ExpectValid(node, op);
  EXPECT_EQ(SummarizeNodeDef(node), "{{node n}} = Out[T=DT_INT32]()");
  NodeDef bad = node;
  AddNodeAttr("T", DT_STRING, &bad);
  ExpectInvalid(bad, op,
                "Value for attr 'T' of string is not in the list of allowed values: "
                "float, int32");
  // A type attr holding a number outside the DataType enum.
  bad = node;
  (*bad.mutable_attr())["T"].set_type(static_cast<DataType>(12345));
  ExpectInvalid(bad, op, "12345");
  bad = node;
  (*bad.mutable_attr())["T"].set_type(DT_INVALID);
  ExpectInvalid(bad, op, "for attr 'T'");
}

TEST(ValidateNodeDefTest, Enum) {
  const OpDef op = ToOpDef(R"pb(
    name: "Enum"
    attr {
      name: "e" type: "string"
      allowed_values { list { s: "apple" s: "orange" } }
    }
  )pb");
  const NodeDef node = ToNodeDef(R"pb(
    name: "n" op: "Enum" attr { key: "e" value { s: "apple" } }
  )pb");
  ExpectValid(node, op);
  EXPECT_EQ(SummarizeNodeDef(node), "{{node n}} = Enum[e=\"apple\"]()");
  NodeDef bad = node;
  AddNodeAttr("e", "foo", &bad);
  ExpectInvalid(bad, op,
                "Value for attr 'e' of \"foo\" is not in the list of allowed values: "
                "\"apple\", \"orange\"");
}

const char kSameInOp[] = R"pb(
  name: "SameIn"
  input_arg { name: "i" type_attr: "T" number_attr: "N" }
  attr { name: "N" type: "int" has_minimum: true minimum: 2 }
  attr {
    name: "T" type: "type"
    allowed_values { list { type: DT_FLOAT type: DT_DOUBLE } }
  }
)pb";

TEST(ValidateNodeDefTest, NTimesT) {
  const OpDef op = ToOpDef(kSameInOp);
  const NodeDef node = ToNodeDef(R"pb(
    name: "n" op: "SameIn" input: "a" input: "b"
    attr { key: "N" value { i: 2 } }
    attr { key: "T" value { type: DT_DOUBLE } }
  )pb");
  ExpectValid(node, op);
  EXPECT_EQ(SummarizeNodeDef(node), "{{node n}} = SameIn[N=2, T=DT_DOUBLE](a, b)");

  NodeDef bad = node;
  AddNodeAttr("T", DT_STRING, &bad);
  ExpectInvalid(bad, op,
                "Value for attr 'T' of string is not in the list of allowed values: "
                "float, double");

  bad = node;
  AddNodeAttr("N", 1, &bad);
  ExpectInvalid(bad, op, "Value for attr 'N' of 1 must be at least minimum 2");

  // Too few inputs.
  bad = node;
  AddNodeAttr("N", 3, &bad);
  ExpectInvalid(bad, op,
                "NodeDef expected inputs 'double, double, double' do not match 2 inputs "
                "specified");
  // Too many inputs.
  bad = node;
  bad.add_input("c");
  ExpectInvalid(bad, op,
                "NodeDef expected inputs 'double, double' do not match 3 inputs "
                "specified");
  // Control inputs do not count.
  NodeDef good = node;
  good.add_input("^c");
  ExpectValid(good, op);
}

TEST(ValidateNodeDefTest, HugeAndNegativeN) {
  const OpDef op = ToOpDef(kSameInOp);
  NodeDef node = ToNodeDef(R"pb(
    name: "n" op: "SameIn" input: "a" input: "b"
    attr { key: "T" value { type: DT_FLOAT } }
  )pb");
  AddNodeAttr("N", int64{1000000000000}, &node);
  ExpectInvalid(node, op, "Number of inputs is too big: 1000000000000");
  AddNodeAttr("N", int64{kMaxArgsPerNode} + 1, &node);
  ExpectInvalid(node, op, "Number of inputs is too big");
  AddNodeAttr("N", int64{INT32_MAX}, &node);
  ExpectInvalid(node, op, "Number of inputs is too big");

  // Without a minimum, a negative N reaches the signature computation.
  OpDef no_min = op;
  no_min.mutable_attr(0)->clear_has_minimum();
  no_min.mutable_attr(0)->clear_minimum();
  AddNodeAttr("N", int64{-1}, &node);
  ExpectInvalid(node, no_min, "Value for number_attr() -1 < 0");
  AddNodeAttr("N", int64{INT64_MIN}, &node);
  ExpectInvalid(node, no_min, "< 0");
}

TEST(ValidateNodeDefTest, TypeList) {
  const OpDef op = ToOpDef(R"pb(
    name: "AnyIn"
    input_arg { name: "i" type_list_attr: "T" }
    attr { name: "T" type: "list(type)" has_minimum: true minimum: 1 }
  )pb");
  const NodeDef node = ToNodeDef(R"pb(
    name: "n" op: "AnyIn" input: "a" input: "b"
    attr { key: "T" value { list { type: [ DT_INT32, DT_STRING ] } } }
  )pb");
  ExpectValid(node, op);
  EXPECT_EQ(SummarizeNodeDef(node), "{{node n}} = AnyIn[T=[DT_INT32, DT_STRING]](a, b)");

  ExpectInvalid(ToNodeDef(R"pb(
                  name: "n" op: "AnyIn" input: "a"
                  attr { key: "T" value { list {} } }
                )pb"),
                op, "Length for attr 'T' of 0 must be at least minimum 1");
  ExpectInvalid(ToNodeDef(R"pb(
                  name: "n" op: "AnyIn" input: "a"
                  attr { key: "T" value {} }
                )pb"),
                op, "Length for attr 'T' of 0 must be at least minimum 1");
  ExpectInvalid(ToNodeDef(R"pb(
                  name: "n" op: "AnyIn" input: "a" input: "b" input: "c"
                  attr { key: "T" value { list { type: DT_FLOAT } } }
                )pb"),
                op, "NodeDef expected inputs 'float' do not match 3 inputs specified");
  // The list(type) attr is missing altogether.
  ExpectInvalid(ToNodeDef(R"pb(name: "n" op: "AnyIn" input: "a")pb"), op,
                "NodeDef missing attr 'T'");
}

TEST(ValidateNodeDefTest, MissingAttrsWithDefaultsAreAllowed) {
  const OpDef op = ToOpDef(kDefaultsOp);
  // T and a have defaults; b does not.
  const NodeDef node = ToNodeDef(R"pb(
    name: "n" op: "Defaults" input: "x" attr { key: "b" value { b: false } }
  )pb");
  ExpectValid(node, op);
  NodeDef bad = node;
  bad.clear_attr();
  ExpectInvalid(bad, op, "NodeDef missing attr 'b' from Op<name=Defaults;");
  // Input counts use the default of T.
  bad = node;
  bad.add_input("y");
  ExpectInvalid(bad, op, "NodeDef expected inputs 'float' do not match 2 inputs");
}

TEST(ValidateNodeDefTest, MissingSeveralAttrs) {
  const OpDef op = ToOpDef(R"pb(
    name: "Two"
    attr { name: "a" type: "int" }
    attr { name: "b" type: "string" }
  )pb");
  ExpectInvalid(ToNodeDef(R"pb(name: "n" op: "Two")pb"), op,
                "NodeDef missing attrs 'a', 'b' from Op<name=Two;");
}

TEST(ValidateNodeDefTest, DuplicateAttrInOpDef) {
  const OpDef op = ToOpDef(R"pb(
    name: "Dup"
    attr { name: "a" type: "int" }
    attr { name: "a" type: "int" }
  )pb");
  const Status s = ValidateNodeDef(ToNodeDef(R"pb(name: "n" op: "Dup")pb"), op);
  EXPECT_THAT(s, StatusIs(error::INVALID_ARGUMENT,
                          HasSubstr("OpDef has duplicate attr name 'a': Op<name=Dup")));
}

TEST(ValidateNodeDefTest, PlaceholderValuesAreNotChecked) {
  const OpDef op = ToOpDef(kInOp);
  const NodeDef node = ToNodeDef(R"pb(
    name: "n" op: "In" input: "a" attr { key: "T" value { placeholder: "dtype" } }
  )pb");
  // The value is not checked, but the input types cannot be computed.
  const Status s = ValidateNodeDef(node, op);
  EXPECT_THAT(s, StatusIs(error::INVALID_ARGUMENT,
                          AllOf(HasSubstr("placeholder"), HasSubstr("{{node n}}"))));
  EXPECT_THAT(s.message(), Not(HasSubstr("; NodeDef: ")));

  const OpDef no_inputs = ToOpDef(R"pb(
    name: "P" attr { name: "T" type: "type" }
  )pb");
  ExpectValid(ToNodeDef(R"pb(
                name: "n" op: "P" attr { key: "T" value { placeholder: "dtype" } }
              )pb"),
              no_inputs);
}

TEST(ValidateNodeDefTest, RefArgs) {
  const OpDef op = ToOpDef(kRefOp);
  const NodeDef node = ToNodeDef(R"pb(
    name: "n" op: "Assign" input: "v" input: "x"
    attr { key: "T" value { type: DT_FLOAT } }
  )pb");
  ExpectValid(node, op);
  NodeDef bad = node;
  bad.mutable_input()->RemoveLast();
  ExpectInvalid(bad, op,
                "NodeDef expected inputs 'float_ref, float' do not match 1 inputs "
                "specified");
}

TEST(ValidateNodeDefTest, DebugInfoNamesTheOriginalNode) {
  const OpDef op = ToOpDef(kInOp);
  NodeDef node = ToNodeDef(R"pb(
    name: "n" op: "In" input: "a"
    experimental_debug_info { original_node_names: "orig" }
  )pb");
  EXPECT_THAT(ValidateNodeDef(node, op),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("NodeDef missing attr 'T' from Op<name=In; signature=i:T "
                                 "-> ; attr=T:type>; NodeDef: {{node orig}}")));
}

}  // namespace
}  // namespace opkit
