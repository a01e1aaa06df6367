// Tests of op_def_util's checks: ValidateAttrValue, FindAttr/FindInputArg,
// ValidateOpDef, CheckOpDeprecation and SummarizeOpDef.
#include "opkit/op/op_def_util.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/core/str_util.h"
#include "opkit/op/attr_value_util.h"
#include "opkit/op/testing/op_test_util.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace {

using ::opkit::testing::StatusIs;
using ::testing::EndsWith;
using ::testing::HasSubstr;
using ::testing::StartsWith;
using op_test::ToAttrDef;
using op_test::ToAttrValue;
using op_test::ToOpDef;

Status Validate(const std::string& op_text) { return ValidateOpDef(ToOpDef(op_text)); }

// ---------------------------------------------------------------------------
// ValidateAttrValue

TEST(ValidateAttrValueTest, AcceptsValuesOfTheType) {
  OPKIT_EXPECT_OK(ValidateAttrValue(ToAttrValue("i: 3"),
                                    ToAttrDef("name: 'a' type: 'int'")));
  OPKIT_EXPECT_OK(ValidateAttrValue(ToAttrValue("list { }"),
                                    ToAttrDef("name: 'a' type: 'list(int)'")));
  OPKIT_EXPECT_OK(ValidateAttrValue(ToAttrValue(""),
                                    ToAttrDef("name: 'a' type: 'list(float)'")));
  OPKIT_EXPECT_OK(ValidateAttrValue(ToAttrValue("shape { dim { size: 2 } }"),
                                    ToAttrDef("name: 'a' type: 'shape'")));
}

TEST(ValidateAttrValueTest, WrongTypeNamesTheAttr) {
  EXPECT_THAT(ValidateAttrValue(ToAttrValue("s: 'x'"),
                                ToAttrDef("name: 'a' type: 'int'")),
              StatusIs(error::INVALID_ARGUMENT,
                       "AttrValue had value with type 'string' when 'int' "
                       "expected\n\t for attr 'a'"));
  EXPECT_THAT(ValidateAttrValue(ToAttrValue(""), ToAttrDef("name: 'a' type: 'type'")),
              StatusIs(error::INVALID_ARGUMENT,
                       "AttrValue missing value with expected type 'type'\n\t "
                       "for attr 'a'"));
}

TEST(ValidateAttrValueTest, IntMinimum) {
  const OpDef::AttrDef attr =
      ToAttrDef("name: 'N' type: 'int' has_minimum: true minimum: 1");
  OPKIT_EXPECT_OK(ValidateAttrValue(ToAttrValue("i: 1"), attr));
  EXPECT_THAT(ValidateAttrValue(ToAttrValue("i: 0"), attr),
              StatusIs(error::INVALID_ARGUMENT,
                       "Value for attr 'N' of 0 must be at least minimum 1"));
  const OpDef::AttrDef negative =
      ToAttrDef("name: 'a' type: 'int' has_minimum: true minimum: -5");
  OPKIT_EXPECT_OK(ValidateAttrValue(ToAttrValue("i: -5"), negative));
  EXPECT_THAT(ValidateAttrValue(ToAttrValue("i: -6"), negative),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("of -6 must be at least minimum -5")));
}

TEST(ValidateAttrValueTest, ListMinimumLength) {
  const struct {
    const char* type;
    const char* one;
  } kinds[] = {{"list(string)", "list { s: 'a' }"},
               {"list(int)", "list { i: 1 }"},
               {"list(float)", "list { f: 1 }"},
               {"list(bool)", "list { b: true }"},
               {"list(type)", "list { type: DT_FLOAT }"},
               {"list(shape)", "list { shape { } }"},
               {"list(tensor)", "list { tensor { dtype: DT_FLOAT } }"},
               {"list(func)", "list { func { name: 'f' } }"}};
  for (const auto& kind : kinds) {
    const OpDef::AttrDef attr = ToAttrDef(
        StrCat("name: 'l' type: '", kind.type, "' has_minimum: true minimum: 2"));
    AttrValue two = ToAttrValue(kind.one);
    two.mutable_list()->MergeFrom(ToAttrValue(kind.one).list());
    OPKIT_EXPECT_OK(ValidateAttrValue(two, attr)) << kind.type;
    EXPECT_THAT(ValidateAttrValue(ToAttrValue(kind.one), attr),
                StatusIs(error::INVALID_ARGUMENT,
                         "Length for attr 'l' of 1 must be at least minimum 2"))
        << kind.type;
    EXPECT_THAT(ValidateAttrValue(ToAttrValue("list { }"), attr),
                StatusIs(error::INVALID_ARGUMENT,
                         "Length for attr 'l' of 0 must be at least minimum 2"))
        << kind.type;
  }
}

TEST(ValidateAttrValueTest, AllowedTypes) {
  const OpDef::AttrDef attr = ToAttrDef(
      "name: 'T' type: 'type' allowed_values { list { type: [DT_FLOAT, DT_INT32] } }");
  OPKIT_EXPECT_OK(ValidateAttrValue(ToAttrValue("type: DT_INT32"), attr));
  EXPECT_THAT(ValidateAttrValue(ToAttrValue("type: DT_INT64"), attr),
              StatusIs(error::INVALID_ARGUMENT,
                       "Value for attr 'T' of int64 is not in the list of allowed "
                       "values: float, int32"));
  const OpDef::AttrDef list_attr = ToAttrDef(
      "name: 'T' type: 'list(type)' allowed_values { list { type: [DT_FLOAT] } }");
  OPKIT_EXPECT_OK(ValidateAttrValue(ToAttrValue("list { type: [DT_FLOAT, DT_FLOAT] }"),
                                    list_attr));
  EXPECT_THAT(ValidateAttrValue(ToAttrValue("list { type: [DT_FLOAT, DT_BOOL] }"),
                                list_attr),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("attr 'T' of bool is not in the list of allowed "
                                 "values: float")));
}

TEST(ValidateAttrValueTest, AllowedStrings) {
  const OpDef::AttrDef attr = ToAttrDef(
      "name: 'padding' type: 'string' allowed_values { list { s: ['SAME', 'VALID'] } }");
  OPKIT_EXPECT_OK(ValidateAttrValue(ToAttrValue("s: 'VALID'"), attr));
  EXPECT_THAT(ValidateAttrValue(ToAttrValue("s: 'FULL'"), attr),
              StatusIs(error::INVALID_ARGUMENT,
                       "Value for attr 'padding' of \"FULL\" is not in the list of "
                       "allowed values: \"SAME\", \"VALID\""));
  const OpDef::AttrDef list_attr = ToAttrDef(
      "name: 'x' type: 'list(string)' allowed_values { list { s: ['foo', 'bar'] } }");
  OPKIT_EXPECT_OK(ValidateAttrValue(ToAttrValue("list { s: ['bar', 'foo'] }"), list_attr));
  EXPECT_THAT(ValidateAttrValue(ToAttrValue("list { s: ['baz'] }"), list_attr),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("attr 'x' of \"baz\" is not in the list of allowed "
                                 "values")));
}

TEST(ValidateAttrValueTest, AllowedValuesOnOtherTypesIsUnimplemented) {
  const OpDef::AttrDef attr =
      ToAttrDef("name: 'a' type: 'int' allowed_values { list { i: [1, 2] } }");
  EXPECT_THAT(ValidateAttrValue(ToAttrValue("i: 1"), attr),
              StatusIs(error::UNIMPLEMENTED,
                       "Support for allowed_values not implemented for type int"));
}

TEST(ValidateAttrValueTest, RefAndInvalidTypesRejected) {
  const OpDef::AttrDef attr = ToAttrDef("name: 'T' type: 'type'");
  EXPECT_THAT(ValidateAttrValue(ToAttrValue("type: DT_INT32_REF"), attr),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("AttrValue must not have reference type value of "
                                 "int32_ref")));
  EXPECT_THAT(ValidateAttrValue(ToAttrValue("type: DT_INVALID"), attr),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("AttrValue has invalid DataType")));
}

// ---------------------------------------------------------------------------
// Finders

TEST(FindTest, AttrsAndArgs) {
  OpDef op = ToOpDef(
      "name: 'X' input_arg { name: 'a' type: DT_FLOAT } "
      "output_arg { name: 'z' type_attr: 'T' } "
      "attr { name: 'T' type: 'type' } attr { name: 'N' type: 'int' }");
  ASSERT_NE(FindAttr("N", op), nullptr);
  EXPECT_EQ(FindAttr("N", op)->type(), "int");
  EXPECT_EQ(FindAttr("missing", op), nullptr);
  ASSERT_NE(FindAttrMutable("T", &op), nullptr);
  FindAttrMutable("T", &op)->set_description("changed");
  EXPECT_EQ(op.attr(0).description(), "changed");
  EXPECT_EQ(FindAttrMutable("nope", &op), nullptr);
  ASSERT_NE(FindInputArg("a", op), nullptr);
  EXPECT_EQ(FindInputArg("z", op), nullptr);
  ASSERT_NE(FindOutputArg("z", op), nullptr);
  EXPECT_EQ(FindOutputArg("a", op), nullptr);
}

// ---------------------------------------------------------------------------
// ValidateOpDef

TEST(ValidateOpDefTest, Valid) {
  OPKIT_EXPECT_OK(Validate("name: 'X' attr { name: 'a' type: 'int' }"));
  OPKIT_EXPECT_OK(Validate("name: 'X' input_arg { name: 'a' type: DT_INT32 }"));
  OPKIT_EXPECT_OK(Validate(
      "name: 'X' attr { name: 't' type: 'type' } input_arg { name: 'a' type_attr: 't' }"));
  OPKIT_EXPECT_OK(Validate(
      "name: 'X' attr { name: 'a' type: 'int' has_minimum: true minimum: -5 "
      "default_value { i: 3 } }"));
  OPKIT_EXPECT_OK(Validate("name: 'Uppercase'"));
  OPKIT_EXPECT_OK(Validate("name: '_lowercase_internal'"));
  OPKIT_EXPECT_OK(Validate("name: 'Namespace>Op_2'"));
  OPKIT_EXPECT_OK(Validate("name: 'X' attr { name: 'a' type: 'list(int)' default_value { } }"));
  OPKIT_EXPECT_OK(
      Validate("name: 'X' attr { name: 'a' type: 'list(int)' default_value { list { } } }"));
  OPKIT_EXPECT_OK(Validate(
      "name: 'Arg' input_arg { name: 'a' type: DT_INT32 number_attr: 'n' } "
      "attr { name: 'n' type: 'int' has_minimum: true minimum: 0 }"));
  OPKIT_EXPECT_OK(Validate(
      "name: 'Arg' input_arg { name: 'a' type_list_attr: 'x' } "
      "attr { name: 'x' type: 'list(type)' }"));
  OPKIT_EXPECT_OK(Validate("name: 'X' input_arg { name: 'r' type: DT_FLOAT is_ref: true }"));
}

TEST(ValidateOpDefTest, InvalidName) {
  for (const char* name : {"lower", "BadSuffix 7%", "", "A>", ">A", "A>>B", "A>b", "9A"}) {
    EXPECT_THAT(ValidateOpDef(ToOpDef(StrCat("name: '", name, "'"))),
                StatusIs(error::INVALID_ARGUMENT,
                         StartsWith(StrCat("Invalid name: ", name,
                                           " (Did you use CamelCase?); in OpDef: "))))
        << name;
  }
}

TEST(ValidateOpDefTest, IsValidOpName) {
  EXPECT_TRUE(IsValidOpName("A"));
  EXPECT_TRUE(IsValidOpName("MatMul"));
  EXPECT_TRUE(IsValidOpName("Foo_Bar9>Baz"));
  EXPECT_FALSE(IsValidOpName("_Internal"));  // ValidateOpDef allows it separately.
  EXPECT_FALSE(IsValidOpName("Foo-Bar"));
}

TEST(ValidateOpDefTest, DuplicateNames) {
  const char* cases[] = {
      "input_arg { name: 'a' type: DT_INT32 } input_arg { name: 'a' type: DT_FLOAT }",
      "input_arg { name: 'a' type: DT_INT32 } output_arg { name: 'a' type: DT_FLOAT }",
      "output_arg { name: 'a' type: DT_INT32 } output_arg { name: 'a' type: DT_FLOAT }",
      "input_arg { name: 'a' type: DT_INT32 } attr { name: 'a' type: 'float' }",
      "output_arg { name: 'a' type: DT_INT32 } attr { name: 'a' type: 'float' }",
      "attr { name: 'a' type: 'int' } attr { name: 'a' type: 'float' }",
  };
  for (const char* body : cases) {
    EXPECT_THAT(Validate(StrCat("name: 'DupeName' ", body)),
                StatusIs(error::INVALID_ARGUMENT, StartsWith("Duplicate name: a; in OpDef: ")))
        << body;
  }
}

TEST(ValidateOpDefTest, ErrorEndsWithTheOpDef) {
  const OpDef op = ToOpDef("name: 'lower'");
  EXPECT_THAT(ValidateOpDef(op),
              StatusIs(error::INVALID_ARGUMENT, EndsWith("; in OpDef: name: \"lower\"")));
}

TEST(ValidateOpDefTest, AttrNamedLikeADataType) {
  EXPECT_THAT(Validate("name: 'X' attr { name: 'int32' type: 'int' }"),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Attr can't have name int32 that matches a data type")));
  EXPECT_THAT(Validate("name: 'X' attr { name: 'float' type: 'string' }"),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Attr can't have name float that matches a data type")));
}

TEST(ValidateOpDefTest, BadAttrType) {
  EXPECT_THAT(Validate("name: 'B' attr { name: 'a' type: 'illegal' }"),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Unrecognized type 'illegal' in attr 'a'")));
  EXPECT_THAT(Validate("name: 'B' attr { name: 'a' type: 'list(illegal)' }"),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Unrecognized type")));
  EXPECT_THAT(Validate("name: 'B' attr { name: 'a' type: '' }"),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Unrecognized type '' in attr 'a'")));
  EXPECT_THAT(Validate("name: 'B' attr { name: 'a' type: 'int extra' }"),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Extra ' extra' at the end of attr a's type int extra")));
  EXPECT_THAT(Validate("name: 'B' attr { name: 'a' type: 'list(int extra)' }"),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("'list(' is missing ')' in attr a's type list(int extra)")));
  EXPECT_THAT(Validate("name: 'B' attr { name: 'a' type: 'list(int) extra' }"),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Extra ' extra' at the end")));
}

TEST(ValidateOpDefTest, BadAttrDefault) {
  EXPECT_THAT(
      Validate("name: 'BadAttrDef' attr { name: 'a' type: 'int' default_value { s: 'x' } }"),
      StatusIs(error::INVALID_ARGUMENT,
               "AttrValue had value with type 'string' when 'int' expected\n\t for "
               "attr 'a'\n\t in Op 'BadAttrDef'"));
  EXPECT_THAT(
      Validate("name: 'BadAttrDef' attr { name: 'a' type: 'int' "
               "default_value { list { i: [2] } } }"),
      StatusIs(error::INVALID_ARGUMENT,
               HasSubstr("AttrValue had value with type 'list(int)' when 'int' expected")));
  EXPECT_THAT(
      Validate("name: 'BadAttrDef' attr { name: 'a' type: 'list(int)' "
               "default_value { f: 0.5 } }"),
      StatusIs(error::INVALID_ARGUMENT,
               HasSubstr("AttrValue had value with type 'float' when 'list(int)' expected")));
  EXPECT_THAT(
      Validate("name: 'BadAttrDef' attr { name: 'a' type: 'list(int)' "
               "default_value { list { i: [5] f: [0.5] } } }"),
      StatusIs(error::INVALID_ARGUMENT,
               HasSubstr("AttrValue had value with type 'list(float)' when 'list(int)' "
                         "expected\n\t for attr 'a'\n\t in Op 'BadAttrDef'")));
  for (const char* type : {"type", "shape", "tensor", "string", "func"}) {
    EXPECT_THAT(Validate(StrCat("name: 'BadAttrDef' attr { name: 'a' type: '", type,
                                "' default_value { } }")),
                StatusIs(error::INVALID_ARGUMENT,
                         StrCat("AttrValue missing value with expected type '", type,
                                "'\n\t for attr 'a'\n\t in Op 'BadAttrDef'")));
  }
  EXPECT_THAT(Validate("name: 'BadAttrDef' attr { name: 'a' type: 'list(int)' "
                       "has_minimum: true minimum: 2 default_value { list { } } }"),
              StatusIs(error::INVALID_ARGUMENT,
                       "Length for attr 'a' of 0 must be at least minimum 2\n\t in Op "
                       "'BadAttrDef'"));
  EXPECT_THAT(Validate("name: 'BadAttrDef' attr { name: 'a' type: 'placeholder' }"),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Unrecognized type")));
}

TEST(ValidateOpDefTest, RefTypes) {
  EXPECT_THAT(Validate("name: 'B' input_arg { name: 'i' type: DT_FLOAT_REF }"),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Illegal use of ref type 'float_ref'. Use 'Ref(type)' "
                                 "instead for input 'i'")));
  EXPECT_THAT(Validate("name: 'B' attr { name: 'T' type: 'type' "
                       "default_value { type: DT_INT32_REF } }"),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("AttrValue must not have reference type value of int32_ref")));
  EXPECT_THAT(Validate("name: 'B' attr { name: 'T' type: 'list(type)' "
                       "default_value { list { type: DT_STRING_REF } } }"),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("AttrValue must not have reference type value of "
                                 "string_ref")));
}

TEST(ValidateOpDefTest, OutOfRangeDataTypes) {
  OpDef op = ToOpDef("name: 'B' input_arg { name: 'i' type: DT_FLOAT }");
  op.mutable_input_arg(0)->set_type(static_cast<DataType>(77));
  EXPECT_THAT(ValidateOpDef(op), StatusIs(error::INVALID_ARGUMENT,
                                          HasSubstr("Invalid DataType enum 77 for input 'i'")));
  OpDef attr_op = ToOpDef("name: 'B' attr { name: 'T' type: 'type' default_value { type: DT_FLOAT } }");
  attr_op.mutable_attr(0)->mutable_default_value()->set_type(static_cast<DataType>(77));
  EXPECT_THAT(ValidateOpDef(attr_op),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("AttrValue has invalid DataType enum: 77")));
}

TEST(ValidateOpDefTest, BadMinimum) {
  EXPECT_THAT(Validate("name: 'BadAttrMin' attr { name: 'a' type: 'string' "
                       "has_minimum: true minimum: 0 }"),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Attr 'a' has minimum for unsupported type string")));
  EXPECT_THAT(Validate("name: 'BadAttrMin' attr { name: 'a' type: 'int' "
                       "default_value { i: 2 } has_minimum: true minimum: 7 }"),
              StatusIs(error::INVALID_ARGUMENT,
                       "Value for attr 'a' of 2 must be at least minimum 7\n\t in Op "
                       "'BadAttrMin'"));
  EXPECT_THAT(Validate("name: 'BadAttrMin' attr { name: 'a' type: 'list(string)' "
                       "has_minimum: true minimum: -5 }"),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("list type must have a non-negative minimum, not -5")));
  OPKIT_EXPECT_OK(Validate("name: 'GoodAttrMin' attr { name: 'a' type: 'list(string)' "
                           "has_minimum: true minimum: 1 }"));
  EXPECT_THAT(Validate("name: 'NoHasMin' attr { name: 'a' type: 'list(string)' minimum: 3 }"),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Attr 'a' with has_minimum = false but minimum 3 not "
                                 "equal to default of 0")));
}

TEST(ValidateOpDefTest, BadAllowedValues) {
  OPKIT_EXPECT_OK(Validate("name: 'Good' attr { name: 'x' type: 'string' "
                           "allowed_values { list { s: ['foo', 'bar'] } } "
                           "default_value { s: 'bar' } }"));
  EXPECT_THAT(Validate("name: 'Bad' attr { name: 'x' type: 'string' "
                       "allowed_values { list { s: ['foo', 'bar'] } } "
                       "default_value { s: 'baz' } }"),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("attr 'x' of \"baz\" is not in the list of allowed values")));
  EXPECT_THAT(Validate("name: 'Bad' attr { name: 'a' type: 'string' "
                       "allowed_values { s: 'not list' } }"),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("with type 'string' when 'list(string)' expected\n\t for "
                                 "attr 'a' in Op 'Bad'")));
  EXPECT_THAT(Validate("name: 'Bad' attr { name: 'a' type: 'string' "
                       "allowed_values { list { i: [6] } } }"),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("with type 'list(int)' when 'list(string)' expected")));
}

TEST(ValidateOpDefTest, BadArgTypes) {
  const struct {
    const char* op;
    const char* message;
  } cases[] = {
      {"input_arg { name: 'a' type: DT_INT32 } input_arg { name: 'b' }",
       "Missing type for input 'b'"},
      {"input_arg { name: 'a' type: DT_INT32 } output_arg { name: 'b' }",
       "Missing type for output 'b'"},
      {"input_arg { name: 'a' type: DT_INT32 type_attr: 'x' } attr { name: 'x' type: 'type' }",
       "Exactly one of type, type_attr, type_list_attr must be set for input 'a'"},
      {"input_arg { name: 'a' type_attr: 'x' } attr { name: 'x' type: 'int' }",
       "Attr 'x' used as type_attr for input 'a' has type int != type"},
      {"input_arg { name: 'a' type_attr: 'x' } attr { name: 'x' type: 'list(type)' }",
       "Attr 'x' used as type_attr for input 'a' has type list(type)"},
      {"input_arg { name: 'a' type_list_attr: 'x' } attr { name: 'x' type: 'int' }",
       "Attr 'x' used as type_list_attr for input 'a' has type int != list(type)"},
      {"output_arg { name: 'a' type_list_attr: 'x' } attr { name: 'x' type: 'type' }",
       "Attr 'x' used as type_list_attr for output 'a' has type type"},
      {"input_arg { name: 'a' type_attr: 'x' }", "No attr with name 'x' for input 'a'"},
      {"input_arg { name: 'a' type_list_attr: 'x' }", "No attr with name 'x' for input 'a'"},
      {"input_arg { name: 'a' number_attr: 'n' type_attr: 'x' } "
       "attr { name: 'x' type: 'list(type)' } "
       "attr { name: 'n' type: 'int' has_minimum: true minimum: 1 }",
       "Attr 'x' used as type_attr for input 'a' has type list(type)"},
      {"input_arg { name: 'a' type: DT_INT32 number_attr: 'n' }", "No attr with name 'n'"},
      {"input_arg { name: 'a' type: DT_INT32 number_attr: 'n' } "
       "attr { name: 'n' type: 'string' }",
       "Attr 'n' used as length for input 'a' has type string != int"},
      {"input_arg { name: 'a' type: DT_INT32 number_attr: 'n' } "
       "attr { name: 'n' type: 'int' }",
       "Attr 'n' used as length for input 'a' must have minimum;"},
      {"input_arg { name: 'a' type: DT_INT32 number_attr: 'n' } "
       "attr { name: 'n' type: 'int' has_minimum: true minimum: -5 }",
       "Attr 'n' used as length for input 'a' must have minimum >= 0;"},
      {"input_arg { name: 'a' number_attr: 'n' } "
       "attr { name: 'n' type: 'int' has_minimum: true minimum: 2 }",
       "Missing type for input 'a'; in OpDef:"},
      {"input_arg { name: 'a' number_attr: 'n' type_list_attr: 'x' } "
       "attr { name: 'n' type: 'int' has_minimum: true minimum: 1 } "
       "attr { name: 'x' type: 'list(type)' }",
       "Can't have both number_attr and type_list_attr for input 'a'"},
      {"input_arg { name: 'a' number_attr: 'n' type: DT_INT32 type_attr: 'x' } "
       "attr { name: 'n' type: 'int' has_minimum: true minimum: 1 } "
       "attr { name: 'x' type: 'type' }",
       "Exactly one of type, type_attr must be set for input 'a'"},
  };
  for (const auto& c : cases) {
    EXPECT_THAT(Validate(StrCat("name: 'BadArg' ", c.op)),
                StatusIs(error::INVALID_ARGUMENT, HasSubstr(c.message)))
        << c.op;
  }
}

// ---------------------------------------------------------------------------
// CheckOpDeprecation

TEST(CheckOpDeprecationTest, RemovedAtVersion) {
  const OpDef op =
      ToOpDef("name: 'Old' deprecation { version: 8 explanation: 'Use New' }");
  OPKIT_EXPECT_OK(CheckOpDeprecation(op, 7));
  OPKIT_EXPECT_OK(CheckOpDeprecation(op, 7));  // Warns once; still OK.
  EXPECT_THAT(CheckOpDeprecation(op, 8),
              StatusIs(error::UNIMPLEMENTED,
                       "Op Old is not available in GraphDef version 8. It has been "
                       "removed in version 8. Use New."));
  OPKIT_EXPECT_OK(CheckOpDeprecation(ToOpDef("name: 'Fine'"), 1000));
}

// ---------------------------------------------------------------------------
// SummarizeOpDef

TEST(SummarizeOpDefTest, MatMul) {
  const OpDef op = ToOpDef(R"pb(
    name: "MatMul"
    input_arg { name: "a" type_attr: "T" }
    input_arg { name: "b" type_attr: "T" }
    output_arg { name: "product" type_attr: "T" }
    attr { name: "transpose_a" type: "bool" default_value { b: false } }
    attr {
      name: "T"
      type: "type"
      allowed_values { list { type: [ DT_HALF, DT_FLOAT ] } }
    }
  )pb");
  EXPECT_EQ(SummarizeOpDef(op),
            "Op<name=MatMul; signature=a:T, b:T -> product:T; "
            "attr=transpose_a:bool,default=false; "
            "attr=T:type,allowed=[DT_HALF, DT_FLOAT]>");
}

TEST(SummarizeOpDefTest, ArgKindsAndFlags) {
  const OpDef op = ToOpDef(R"pb(
    name: "Kinds"
    input_arg { name: "r" type: DT_FLOAT is_ref: true }
    input_arg { name: "n" type_attr: "T" number_attr: "N" }
    input_arg { name: "l" type_list_attr: "Tlist" }
    output_arg { name: "o" type: DT_INT32 }
    output_arg { name: "ro" type_attr: "T" is_ref: true }
    attr { name: "N" type: "int" has_minimum: true minimum: 2 }
    attr { name: "T" type: "type" }
    attr { name: "Tlist" type: "list(type)" has_minimum: true }
    attr { name: "s" type: "string" default_value { s: "x" } }
    is_commutative: true
    is_aggregate: true
    is_stateful: true
    allows_uninitialized_input: true
    is_distributed_communication: true
  )pb");
  EXPECT_EQ(SummarizeOpDef(op),
            "Op<name=Kinds; signature=r:Ref(float), n:N*T, l:Tlist -> o:int32, "
            "ro:Ref(T); attr=N:int,min=2; attr=T:type; attr=Tlist:list(type),min=0; "
            "attr=s:string,default=\"x\"; is_commutative=true; is_aggregate=true; "
            "is_stateful=true; allows_uninitialized_input=true; "
            "is_distributed_communication=true>");
}

TEST(SummarizeOpDefTest, Empty) {
  EXPECT_EQ(SummarizeOpDef(ToOpDef("name: 'NoOp'")), "Op<name=NoOp; signature= -> >");
}

}  // namespace
}  // namespace opkit
