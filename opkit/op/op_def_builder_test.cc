// Unit tests of OpDefBuilder: every grammar form, every error class, flags,
// Doc parsing, type constructors and the registration origin.
#include "opkit/op/op_def_builder.h"

#include <string>

#include <google/protobuf/text_format.h>
#include <google/protobuf/util/message_differencer.h>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/op/full_type_util.h"
#include "opkit/core/registration_origin.h"
#include "opkit/tensor/types.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace {

using ::opkit::testing::IsOk;
using ::opkit::testing::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

// Finalizes `b` and compares the OpDef with `expected` (text format, without
// the name, which comes from the builder).
void ExpectOpDef(const OpDefBuilder& b, const std::string& expected) {
  OpRegistrationData data;
  Status s = b.Finalize(&data);
  ASSERT_THAT(s, IsOk());
  OpDef want;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(expected, &want))
      << expected;
  want.set_name(b.op_name());
  std::string diff;
  google::protobuf::util::MessageDifferencer differ;
  differ.ReportDifferencesToString(&diff);
  EXPECT_TRUE(differ.Compare(want, data.op_def))
      << diff << "\ngot:\n" << data.op_def.DebugString();
}

Status FinalizeStatus(const OpDefBuilder& b) {
  OpRegistrationData data;
  return b.Finalize(&data);
}

void ExpectFailure(const OpDefBuilder& b, const std::string& message) {
  EXPECT_THAT(FinalizeStatus(b),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr(message)));
}

OpDefBuilder B() { return OpDefBuilder("Test"); }

// --- Attr types ------------------------------------------------------------

TEST(OpDefBuilderTest, ScalarAttrTypes) {
  ExpectOpDef(B().Attr("a: string").Attr("b: int").Attr("c: float")
                  .Attr("d: bool").Attr("e: type").Attr("f: shape")
                  .Attr("g: tensor").Attr("h: func"),
              "attr { name: 'a' type: 'string' }"
              "attr { name: 'b' type: 'int' }"
              "attr { name: 'c' type: 'float' }"
              "attr { name: 'd' type: 'bool' }"
              "attr { name: 'e' type: 'type' }"
              "attr { name: 'f' type: 'shape' }"
              "attr { name: 'g' type: 'tensor' }"
              "attr { name: 'h' type: 'func' }");
}

TEST(OpDefBuilderTest, ListAttrTypes) {
  ExpectOpDef(B().Attr("a: list(string)").Attr("b: list(int)")
                  .Attr("c: list(float)").Attr("d: list(bool)")
                  .Attr("e: list(type)").Attr("f: list(shape)")
                  .Attr("g: list(tensor)").Attr("h: list( func )"),
              "attr { name: 'a' type: 'list(string)' }"
              "attr { name: 'b' type: 'list(int)' }"
              "attr { name: 'c' type: 'list(float)' }"
              "attr { name: 'd' type: 'list(bool)' }"
              "attr { name: 'e' type: 'list(type)' }"
              "attr { name: 'f' type: 'list(shape)' }"
              "attr { name: 'g' type: 'list(tensor)' }"
              "attr { name: 'h' type: 'list(func)' }");
}

TEST(OpDefBuilderTest, AttrNamesAndSpacing) {
  ExpectOpDef(B().Attr("a:int").Attr("B2_c :  int").Attr("x\t:\tint\t"),
              "attr { name: 'a' type: 'int' }"
              "attr { name: 'B2_c' type: 'int' }"
              "attr { name: 'x' type: 'int' }");
  // As in TensorFlow, a spec may not start with blanks.
  ExpectFailure(B().Attr(" x: int"), "Trouble parsing '<name>:'");
  ExpectFailure(B().Input(" x: int32"), "Trouble parsing 'name:'");
}

TEST(OpDefBuilderTest, TypeSets) {
  ExpectOpDef(B().Attr("a: {float, int32}").Attr("b: { bool , string, }")
                  .Attr("c: list({int32, float}) >= 3"),
              "attr { name: 'a' type: 'type' allowed_values { list {"
              "  type: [DT_FLOAT, DT_INT32] } } }"
              "attr { name: 'b' type: 'type' allowed_values { list {"
              "  type: [DT_BOOL, DT_STRING] } } }"
              "attr { name: 'c' type: 'list(type)' has_minimum: true"
              "  minimum: 3 allowed_values { list {"
              "  type: [DT_INT32, DT_FLOAT] } } }");
}

std::string TypesText(const DataTypeVector& types) {
  std::string out = "[";
  for (size_t i = 0; i < types.size(); ++i) {
    if (i > 0) out += ", ";
    out += DataType_Name(types[i]);
  }
  return out + "]";
}

TEST(OpDefBuilderTest, NamedTypeSets) {
  ExpectOpDef(B().Attr("a: numbertype").Attr("b: numerictype")
                  .Attr("c: realnumbertype").Attr("d: realnumerictype")
                  .Attr("e: quantizedtype"),
              "attr { name: 'a' type: 'type' allowed_values { list { type: " +
                  TypesText(NumberTypes()) + " } } }" +
                  "attr { name: 'b' type: 'type' allowed_values { list { "
                  "type: " + TypesText(NumberTypes()) + " } } }" +
                  "attr { name: 'c' type: 'type' allowed_values { list { "
                  "type: " + TypesText(RealNumberTypes()) + " } } }" +
                  "attr { name: 'd' type: 'type' allowed_values { list { "
                  "type: " + TypesText(RealNumberTypes()) + " } } }" +
                  "attr { name: 'e' type: 'type' allowed_values { list { "
                  "type: " + TypesText(QuantizedTypes()) + " } } }");
}

TEST(OpDefBuilderTest, NamedTypeSetsMixedInBraces) {
  DataTypeVector expected = NumberTypes();
  expected.push_back(DT_BOOL);
  ExpectOpDef(B().Attr("T: {numbertype, bool}").Attr("L: list(quantizedtype)"),
              "attr { name: 'T' type: 'type' allowed_values { list { type: " +
                  TypesText(expected) + " } } }" +
                  "attr { name: 'L' type: 'list(type)' allowed_values { list {"
                  " type: " + TypesText(QuantizedTypes()) + " } } }");
}

TEST(OpDefBuilderTest, StringSets) {
  ExpectOpDef(B().Attr("a: {'apple', 'orange'}")
                  .Attr("b: {\"x\", 'y', }")
                  .Attr("c: list({'p'})")
                  .Attr("d: {'tab\\there', 'q\\'uote', \"\\x41\\101\"}"),
              "attr { name: 'a' type: 'string' allowed_values { list {"
              "  s: ['apple', 'orange'] } } }"
              "attr { name: 'b' type: 'string' allowed_values { list {"
              "  s: ['x', 'y'] } } }"
              "attr { name: 'c' type: 'list(string)' allowed_values { list {"
              "  s: ['p'] } } }"
              "attr { name: 'd' type: 'string' allowed_values { list {"
              "  s: ['tab\\there', \"q'uote\", 'AA'] } } }");
}

TEST(OpDefBuilderTest, Minimums) {
  ExpectOpDef(B().Attr("a: int >= 2").Attr("b: int>=-5").Attr("c: list(int) >= 0")
                  .Attr("d: list(type) >= 3"),
              "attr { name: 'a' type: 'int' has_minimum: true minimum: 2 }"
              "attr { name: 'b' type: 'int' has_minimum: true minimum: -5 }"
              "attr { name: 'c' type: 'list(int)' has_minimum: true }"
              "attr { name: 'd' type: 'list(type)' has_minimum: true"
              "  minimum: 3 }");
}

TEST(OpDefBuilderTest, MinimumExtremes) {
  ExpectOpDef(B().Attr("a: int >= 9223372036854775807")
                  .Attr("b: int >= -9223372036854775808"),
              "attr { name: 'a' type: 'int' has_minimum: true"
              "  minimum: 9223372036854775807 }"
              "attr { name: 'b' type: 'int' has_minimum: true"
              "  minimum: -9223372036854775808 }");
}

TEST(OpDefBuilderTest, Defaults) {
  ExpectOpDef(
      B().Attr("a: string = 'foo'").Attr("b: int = -3").Attr("c: float = 1.5")
          .Attr("d: bool = true").Attr("T: {float, int32} = DT_INT32")
          .Attr("f: shape = { dim { size: 1 } dim { size: 2 } }")
          .Attr("g: list(int) = [2, 3]").Attr("h: list(type) = []")
          .Attr("i: int >= 2 = 5")
          .Attr("j: {'SAME', 'VALID'} = 'VALID'  "),
      "attr { name: 'a' type: 'string' default_value { s: 'foo' } }"
      "attr { name: 'b' type: 'int' default_value { i: -3 } }"
      "attr { name: 'c' type: 'float' default_value { f: 1.5 } }"
      "attr { name: 'd' type: 'bool' default_value { b: true } }"
      "attr { name: 'T' type: 'type' default_value { type: DT_INT32 }"
      "  allowed_values { list { type: [DT_FLOAT, DT_INT32] } } }"
      "attr { name: 'f' type: 'shape' default_value { shape {"
      "  dim { size: 1 } dim { size: 2 } } } }"
      "attr { name: 'g' type: 'list(int)' default_value { list { i: [2, 3] } } }"
      "attr { name: 'h' type: 'list(type)' default_value { list { } } }"
      "attr { name: 'i' type: 'int' has_minimum: true minimum: 2"
      "  default_value { i: 5 } }"
      "attr { name: 'j' type: 'string' default_value { s: 'VALID' }"
      "  allowed_values { list { s: ['SAME', 'VALID'] } } }");
}

TEST(OpDefBuilderTest, TensorDefault) {
  ExpectOpDef(B().Attr("t: tensor = { dtype: DT_INT32 int_val: 5 }"),
              "attr { name: 't' type: 'tensor' default_value { tensor {"
              "  dtype: DT_INT32 int_val: 5 } } }");
}

TEST(OpDefBuilderTest, StringDefaultWithRawNewline) {
  // TensorFlow's PrintV2 writes "end: string = '\n'" in C++ source, so the
  // default text holds a real newline.
  ExpectOpDef(B().Attr("end: string = '\n'"),
              "attr { name: 'end' type: 'string' default_value { s: '\\n' } }");
}

TEST(OpDefBuilderTest, AttrOrderIsCallOrder) {
  ExpectOpDef(B().Attr("z: int").Attr("a: int").Attr("m: int"),
              "attr { name: 'z' type: 'int' } attr { name: 'a' type: 'int' }"
              "attr { name: 'm' type: 'int' }");
}

// --- Attr errors -----------------------------------------------------------

TEST(OpDefBuilderTest, AttrNameErrors) {
  ExpectFailure(B().Attr("_:string"),
                "Trouble parsing '<name>:' from Attr(\"_:string\") for Op Test");
  ExpectFailure(B().Attr("9:string"), "Trouble parsing '<name>:'");
  ExpectFailure(B().Attr("a string"), "Trouble parsing '<name>:'");
  ExpectFailure(B().Attr(""), "Trouble parsing '<name>:' from Attr(\"\")");
}

TEST(OpDefBuilderTest, AttrTypeErrors) {
  ExpectFailure(B().Attr("a:invalid"),
                "Trouble parsing type string at 'invalid' from "
                "Attr(\"a:invalid\") for Op Test");
  ExpectFailure(B().Attr("a: int32"),
                "Extra '32' unparsed at the end from Attr(\"a: int32\")");
  ExpectFailure(B().Attr("a:{}"), "Trouble parsing type string at '}'");
  ExpectFailure(B().Attr("a:{invalid}"), "Unrecognized type string 'invalid'");
  ExpectFailure(B().Attr("a:{DT_FLOAT}"),
                "Trouble parsing type string at 'DT_FLOAT}'");
  ExpectFailure(B().Attr("a:{float int32}"),
                "Expected , or } after types in list, not: 'int32}'");
  ExpectFailure(B().Attr("a:{float"),
                "Expected , or } after types in list, not: ''");
  ExpectFailure(B().Attr("a:{'x' 'y'}"),
                "Expected , or } after strings in list, not: ''y'}'");
  ExpectFailure(B().Attr("a:{'x\"}"),
                "Trouble parsing allowed string at ''x\"}'");
  ExpectFailure(B().Attr("a:{\"str\", float}"),
                "Trouble parsing allowed string at 'float}'");
  ExpectFailure(B().Attr("a:{'bad\\q'}"),
                "Trouble unescaping \"bad\\q\", got error: ");
  ExpectFailure(B().Attr("a:{'\\x'}"), "Trouble unescaping \"\\x\"");
  ExpectFailure(B().Attr("a:{'\\777'}"), "Trouble unescaping \"\\777\"");
  ExpectFailure(B().Attr("a:list(int"),
                "Expected ) to close 'list(', not: ''");
  ExpectFailure(B().Attr("a:list(int] = []"),
                "Expected ) to close 'list(', not: '] = []'");
  ExpectFailure(B().Attr("a: string >= 2"),
                "Extra '>= 2' unparsed at the end");
  ExpectFailure(B().Attr("a: int extra"), "Extra 'extra' unparsed at the end");
}

TEST(OpDefBuilderTest, MinimumErrors) {
  ExpectFailure(B().Attr("i: int >= a"),
                "Could not parse integer lower limit after '>=', found ' a' "
                "instead from Attr(\"i: int >= a\") for Op Test");
  ExpectFailure(B().Attr("i: int >= 9223372036854775808"),
                "found ' 9223372036854775808' instead");
  ExpectFailure(B().Attr("i: int >= -9223372036854775809"),
                "found ' -9223372036854775809' instead");
  ExpectFailure(B().Attr("i: int >= 99999999999999999999999999"),
                "Could not parse integer lower limit");
}

TEST(OpDefBuilderTest, DefaultParseErrors) {
  ExpectFailure(B().Attr("a:int=\"foo\""),
                "Could not parse default value '\"foo\"' from "
                "Attr(\"a:int=\"foo\"\") for Op Test");
  ExpectFailure(B().Attr("a:list(float) = "),
                "Could not parse default value ''");
  ExpectFailure(B().Attr("a:list(string)='foo'"),
                "Could not parse default value ''foo''");
  // The reader's explanation follows TensorFlow's text.
  ExpectFailure(B().Attr("a:int=\"foo\""), "for Op Test (");
}

TEST(OpDefBuilderTest, DefaultOutsideConstraint) {
  ExpectFailure(B().Attr("T: {float, int32} = DT_BOOL"),
                "Default value 'DT_BOOL' is not allowed: ");
  ExpectFailure(B().Attr("T: {float, int32} = DT_BOOL"),
                "from Attr(\"T: {float, int32} = DT_BOOL\") for Op Test");
  ExpectFailure(B().Attr("p: {'SAME', 'VALID'} = 'FULL'"),
                "Default value ''FULL'' is not allowed: ");
  ExpectFailure(B().Attr("n: int >= 2 = 1"),
                "Default value '1' is not allowed: ");
  ExpectFailure(B().Attr("l: list(int) >= 2 = [1]"),
                "Default value '[1]' is not allowed: ");
  ExpectFailure(B().Attr("l: list({float}) = [DT_INT32]"),
                "Default value '[DT_INT32]' is not allowed: ");
  ExpectFailure(B().Attr("l: list({'a'}) = ['b']"),
                "Default value '['b']' is not allowed: ");
  EXPECT_THAT(FinalizeStatus(B().Attr("T: numbertype = DT_FLOAT")), IsOk());
  EXPECT_THAT(FinalizeStatus(B().Attr("l: list(int) >= 2 = [1, 2]")), IsOk());
}

// --- Inputs and outputs ----------------------------------------------------

TEST(OpDefBuilderTest, ConcreteArgTypes) {
  ExpectOpDef(B().Input("a: int32").Input("b:float").Output("c : string")
                  .Output("d: bfloat16"),
              "input_arg { name: 'a' type: DT_INT32 }"
              "input_arg { name: 'b' type: DT_FLOAT }"
              "output_arg { name: 'c' type: DT_STRING }"
              "output_arg { name: 'd' type: DT_BFLOAT16 }");
}

TEST(OpDefBuilderTest, AttrTypedArgs) {
  ExpectOpDef(B().Attr("T: type").Input("a: T").Output("b: T"),
              "attr { name: 'T' type: 'type' }"
              "input_arg { name: 'a' type_attr: 'T' }"
              "output_arg { name: 'b' type_attr: 'T' }");
}

TEST(OpDefBuilderTest, ListTypeArgGetsMinimumOne) {
  ExpectOpDef(B().Attr("L: list(type)").Attr("M: list(type) >= 0")
                  .Input("a: L").Output("b: M"),
              "attr { name: 'L' type: 'list(type)' has_minimum: true"
              "  minimum: 1 }"
              "attr { name: 'M' type: 'list(type)' has_minimum: true }"
              "input_arg { name: 'a' type_list_attr: 'L' }"
              "output_arg { name: 'b' type_list_attr: 'M' }");
}

TEST(OpDefBuilderTest, NumberAttrGetsMinimumOne) {
  ExpectOpDef(B().Attr("N: int").Attr("T: type").Attr("K: int >= 0")
                  .Input("a: N * T").Input("b: N*int32").Output("c: K * float"),
              "attr { name: 'N' type: 'int' has_minimum: true minimum: 1 }"
              "attr { name: 'T' type: 'type' }"
              "attr { name: 'K' type: 'int' has_minimum: true }"
              "input_arg { name: 'a' number_attr: 'N' type_attr: 'T' }"
              "input_arg { name: 'b' number_attr: 'N' type: DT_INT32 }"
              "output_arg { name: 'c' number_attr: 'K' type: DT_FLOAT }");
}

TEST(OpDefBuilderTest, AttrsDeclaredAfterArgsStillResolve) {
  // Finalize processes all attrs first, whatever the call order.
  ExpectOpDef(B().Input("a: T").Attr("T: type"),
              "attr { name: 'T' type: 'type' }"
              "input_arg { name: 'a' type_attr: 'T' }");
}

TEST(OpDefBuilderTest, RefArgs) {
  ExpectOpDef(B().Attr("T: type").Attr("N: int").Input("a: Ref(T)")
                  .Input("b: Ref( int32 )").Output("c: Ref(N * T)"),
              "attr { name: 'T' type: 'type' }"
              "attr { name: 'N' type: 'int' has_minimum: true minimum: 1 }"
              "input_arg { name: 'a' type_attr: 'T' is_ref: true }"
              "input_arg { name: 'b' type: DT_INT32 is_ref: true }"
              "output_arg { name: 'c' number_attr: 'N' type_attr: 'T'"
              "  is_ref: true }");
}

TEST(OpDefBuilderTest, ResourceArgMakesOpStateful) {
  ExpectOpDef(B().Input("h: resource"),
              "input_arg { name: 'h' type: DT_RESOURCE } is_stateful: true");
  ExpectOpDef(B().Output("h: resource"),
              "output_arg { name: 'h' type: DT_RESOURCE } is_stateful: true");
  // Only a literal resource type counts.
  ExpectOpDef(B().Attr("T: type").Input("h: T"),
              "attr { name: 'T' type: 'type' }"
              "input_arg { name: 'h' type_attr: 'T' }");
}

TEST(OpDefBuilderTest, ArgNameErrors) {
  ExpectFailure(B().Input("9: int32"),
                "Trouble parsing 'name:' from Input(\"9: int32\") for Op Test");
  ExpectFailure(B().Output("_: int32"),
                "Trouble parsing 'name:' from Output(\"_: int32\") for Op Test");
  ExpectFailure(B().Input("CAPS: int32"), "Trouble parsing 'name:'");
  ExpectFailure(B().Output("int32"), "Trouble parsing 'name:'");
}

TEST(OpDefBuilderTest, ArgTypeErrors) {
  ExpectFailure(B().Input("a: _"),
                "Trouble parsing either a type or an attr name at '_' from "
                "Input(\"a: _\") for Op Test");
  ExpectFailure(B().Input("a: 9 * int32"),
                "Trouble parsing either a type or an attr name at '9 * int32'");
  ExpectFailure(B().Attr("x: type").Input("a: x * _"),
                "Extra '* _' unparsed at the end from Input(\"a: x * _\")");
  ExpectFailure(B().Input("a: Ref(int32"),
                "Did not find closing ')' for 'Ref(', instead found: ''");
  ExpectFailure(B().Attr("x: type").Input("a: Ref(x y"),
                "Did not find closing ')' for 'Ref(', instead found: 'y'");
  ExpectFailure(B().Input("a: Ref"), "Reference to unknown attr 'Ref'");
}

TEST(OpDefBuilderTest, ArgAttrReferenceErrors) {
  ExpectFailure(B().Input("a: x"),
                "Reference to unknown attr 'x' from Input(\"a: x\") for Op "
                "Test");
  ExpectFailure(B().Attr("x: int").Input("a: x * y"),
                "Reference to unknown attr 'y'");
  ExpectFailure(B().Attr("x: int").Output("a: x"),
                "Reference to attr 'x' with type int that isn't type or "
                "list(type) from Output(\"a: x\") for Op Test");
  ExpectFailure(B().Attr("T: type").Input("a: N * T"),
                "Reference to unknown attr 'N' from Input(\"a: N * T\")");
  ExpectFailure(B().Attr("T: type").Attr("N: float").Input("a: N * T"),
                "Reference to attr 'N' with type float as the length of a "
                "list; it must be int");
}

// --- Control outputs -------------------------------------------------------

TEST(OpDefBuilderTest, ControlOutputs) {
  ExpectOpDef(B().ControlOutput("first").ControlOutput("Second_2"),
              "control_output: ['first', 'Second_2']");
  ExpectFailure(B().ControlOutput("9bad"),
                "Trouble parsing 'name:' from ControlOutput(\"9bad\") for Op "
                "Test");
  ExpectFailure(B().ControlOutput("a b"), "from ControlOutput(\"a b\")");
  ExpectFailure(B().ControlOutput(""), "from ControlOutput(\"\")");
}

// --- Flags, deprecation, shape fn -----------------------------------------

TEST(OpDefBuilderTest, Flags) {
  ExpectOpDef(B().SetIsCommutative(), "is_commutative: true");
  ExpectOpDef(B().SetIsAggregate(), "is_aggregate: true");
  ExpectOpDef(B().SetIsStateful(), "is_stateful: true");
  ExpectOpDef(B().SetDoNotOptimize(), "is_stateful: true");
  ExpectOpDef(B().SetAllowsUninitializedInput(),
              "allows_uninitialized_input: true");
  ExpectOpDef(B().SetIsDistributedCommunication(),
              "is_distributed_communication: true");
}

TEST(OpDefBuilderTest, Deprecated) {
  ExpectOpDef(B().Deprecated(7, "Use Better"),
              "deprecation { version: 7 explanation: 'Use Better' }");
  ExpectFailure(B().Deprecated(7, "x").Deprecated(8, "y"),
                "Deprecated called twice for Op Test");
}

TEST(OpDefBuilderTest, ShapeFnIsKept) {
  int calls = 0;
  OpRegistrationData data;
  ASSERT_THAT(B().SetShapeFn([&calls](shape_inference::InferenceContext*) {
                   ++calls;
                   return OkStatus();
                 })
                  .Finalize(&data),
              IsOk());
  ASSERT_TRUE(data.shape_inference_fn != nullptr);
  EXPECT_THAT(data.shape_inference_fn(nullptr), IsOk());
  EXPECT_EQ(calls, 1);
}

TEST(OpDefBuilderTest, ShapeFnTwiceIsAnError) {
  auto fn = [](shape_inference::InferenceContext*) { return OkStatus(); };
  ExpectFailure(B().SetShapeFn(fn).SetShapeFn(fn),
                "SetShapeFn called twice for Op Test");
}

// --- Doc -------------------------------------------------------------------

TEST(OpDefBuilderTest, DocSummaryAndDescription) {
  OpRegistrationData data;
  ASSERT_THAT(B().Doc("\n  \nSummary line.   \n\nMore text.\nAnd more.\n\n")
                  .Finalize(&data),
              IsOk());
  EXPECT_EQ(data.op_def.summary(), "Summary line.");
  EXPECT_EQ(data.op_def.description(), "More text.\nAnd more.");
}

TEST(OpDefBuilderTest, DocArgsAndAttrs) {
  ExpectOpDef(B().Attr("T: type").Input("x: T").Output("y: T")
                  .Doc(R"doc(Does things.

Longer text.

x: The input.
  continued here
    and indented more.

y: The output.
T: The type.
)doc"),
              "summary: 'Does things.' description: 'Longer text.'"
              "attr { name: 'T' type: 'type' description: 'The type.' }"
              "input_arg { name: 'x' type_attr: 'T' description: "
              "  'The input.\\ncontinued here\\n  and indented more.' }"
              "output_arg { name: 'y' type_attr: 'T' description: "
              "  'The output.' }");
}

TEST(OpDefBuilderTest, DocUnknownName) {
  ExpectFailure(B().Input("x: int32").Doc("Sum.\n\nx: in\nNote: careful"),
                "No matching input/output/attr for name 'Note' from Doc() for "
                "Op Test");
}

TEST(OpDefBuilderTest, DocTwice) {
  ExpectFailure(B().Doc("one").Doc("two"), "Extra call to Doc() for Op Test");
}

// --- Errors are collected --------------------------------------------------

TEST(OpDefBuilderTest, AllErrorsAreReported) {
  Status s = FinalizeStatus(
      B().Attr("9: int").Attr("b: nope").Input("c: Missing").Output("D: int32"));
  EXPECT_THAT(s, StatusIs(error::INVALID_ARGUMENT,
                          AllOf(HasSubstr("from Attr(\"9: int\")"),
                                HasSubstr("from Attr(\"b: nope\")"),
                                HasSubstr("Reference to unknown attr 'Missing'"),
                                HasSubstr("from Output(\"D: int32\")"))));
  // One error per line, in processing order.
  EXPECT_EQ(std::count(s.message().begin(), s.message().end(), '\n'), 3);
}

TEST(OpDefBuilderTest, FinalizeIsRepeatable) {
  OpDefBuilder b = B();
  b.Attr("T: type").Input("x: T");
  OpRegistrationData first, second;
  ASSERT_THAT(b.Finalize(&first), IsOk());
  ASSERT_THAT(b.Finalize(&second), IsOk());
  EXPECT_EQ(first.op_def.SerializeAsString(),
            second.op_def.SerializeAsString());
}

TEST(OpDefBuilderTest, NullOutputIsAnError) {
  EXPECT_THAT(B().Finalize(nullptr),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("non-null")));
}

TEST(OpDefBuilderTest, HostileStringsDoNotCrash) {
  std::string nul("a: int\0 = 3", 11);
  EXPECT_THAT(FinalizeStatus(B().Attr(nul)), Not(IsOk()));
  const std::string long_spec = "a: {" + std::string(100000, '{');
  EXPECT_THAT(FinalizeStatus(B().Attr(long_spec)), Not(IsOk()));
  EXPECT_THAT(FinalizeStatus(B().Attr("a: shape = " + std::string(5000, '{'))),
              Not(IsOk()));
  EXPECT_THAT(FinalizeStatus(B().Attr("a: {'\\")), Not(IsOk()));
  EXPECT_THAT(FinalizeStatus(B().Attr("a: {'\\u12")), Not(IsOk()));
  EXPECT_THAT(FinalizeStatus(B().Input("a: Ref(")), Not(IsOk()));
  EXPECT_THAT(FinalizeStatus(B().Input("a: N *")), Not(IsOk()));
  EXPECT_THAT(FinalizeStatus(B().Doc("S" + std::string(1000, '\n') + "x:")),
              Not(IsOk()));
}

// --- Type constructors and origin -----------------------------------------

TEST(OpDefBuilderTest, TypeConstructorUnary) {
  ExpectOpDef(B().Attr("element_dtype: type").Output("handle: variant")
                  .SetTypeConstructor(
                      full_type::Unary(TFT_ARRAY, "element_dtype")),
              "attr { name: 'element_dtype' type: 'type' }"
              "output_arg { name: 'handle' type: DT_VARIANT"
              "  experimental_full_type { type_id: TFT_ARRAY"
              "    args { type_id: TFT_VAR s: 'element_dtype' } } }");
}

TEST(OpDefBuilderTest, OtherTypeConstructors) {
  ExpectOpDef(B().Output("o: variant")
                  .SetTypeConstructor(full_type::Nullary(TFT_DATASET)),
              "output_arg { name: 'o' type: DT_VARIANT"
              "  experimental_full_type { type_id: TFT_DATASET } }");
  ExpectOpDef(B().Output("o: variant")
                  .SetTypeConstructor(full_type::UnaryGeneric(TFT_OPTIONAL)),
              "output_arg { name: 'o' type: DT_VARIANT"
              "  experimental_full_type { type_id: TFT_OPTIONAL"
              "    args { type_id: TFT_ANY } } }");
  ExpectOpDef(B().Output("o: variant")
                  .SetTypeConstructor(
                      full_type::UnaryTensorContainer(TFT_ARRAY, TFT_INT32)),
              "output_arg { name: 'o' type: DT_VARIANT"
              "  experimental_full_type { type_id: TFT_ARRAY"
              "    args { type_id: TFT_TENSOR args { type_id: TFT_INT32 } } } }");
  ExpectOpDef(B().Output("o: variant")
                  .SetTypeConstructor(
                      full_type::VariadicTensorContainer(TFT_DATASET, "T")),
              "output_arg { name: 'o' type: DT_VARIANT"
              "  experimental_full_type { type_id: TFT_DATASET"
              "    args { type_id: TFT_FOR_EACH args { type_id: TFT_PRODUCT }"
              "      args { type_id: TFT_TENSOR args { type_id: TFT_VAR s: 'T' } }"
              "      args { type_id: TFT_VAR s: 'T' } } } }");
}

TEST(OpDefBuilderTest, TypeConstructorWithoutOutputs) {
  ExpectFailure(B().SetTypeConstructor(full_type::Unary(TFT_ARRAY, "T")),
                "Type constructor failed for Op Test");
}

TEST(OpDefBuilderTest, OriginIsKept) {
  OpRegistrationData data;
  ASSERT_THAT(B().SetOrigin({"my_ops.cc", 12, "libmy_ops.so"}).Finalize(&data),
              IsOk());
  EXPECT_EQ(data.origin.file, "my_ops.cc");
  EXPECT_EQ(data.origin.line, 12);
  EXPECT_EQ(data.origin.library, "libmy_ops.so");
  EXPECT_EQ(data.origin.ToString(), "my_ops.cc:12 in libmy_ops.so");
}

TEST(RegistrationOriginTest, ToString) {
  EXPECT_EQ(RegistrationOrigin{}.ToString(), "<unknown>");
  EXPECT_TRUE(RegistrationOrigin{}.empty());
  EXPECT_EQ((RegistrationOrigin{"a.cc", 3, ""}).ToString(), "a.cc:3");
  EXPECT_EQ((RegistrationOrigin{"a.cc", 0, ""}).ToString(), "a.cc");
  EXPECT_EQ((RegistrationOrigin{"", 0, "lib.so"}).ToString(), "lib.so");
  EXPECT_EQ((RegistrationOrigin{"a.cc", 3, ""}),
            (RegistrationOrigin{"a.cc", 3, ""}));
  EXPECT_NE((RegistrationOrigin{"a.cc", 3, ""}),
            (RegistrationOrigin{"a.cc", 4, ""}));
}

TEST(OpRegistrationDataTest, Constructors) {
  OpDef def;
  def.set_name("X");
  OpRegistrationData a(def);
  EXPECT_EQ(a.op_def.name(), "X");
  EXPECT_FALSE(a.is_function_op);
  OpRegistrationData b(
      def, [](shape_inference::InferenceContext*) { return OkStatus(); }, true);
  EXPECT_TRUE(b.is_function_op);
  EXPECT_TRUE(b.shape_inference_fn != nullptr);
}

}  // namespace
}  // namespace opkit
