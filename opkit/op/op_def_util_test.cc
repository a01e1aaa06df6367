#include "opkit/op/op_def_util.h"

#include <string>

#include <google/protobuf/text_format.h>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/core/str_util.h"
#include "opkit/op/attr_value_util.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace {

using ::opkit::testing::IsOk;
using ::opkit::testing::StatusIs;
using ::testing::EndsWith;
using ::testing::HasSubstr;
using ::testing::StartsWith;

OpDef OpFromText(const std::string& text) {
  OpDef op_def;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &op_def)) << text;
  return op_def;
}

OpDef::AttrDef AttrFromText(const std::string& text) {
  OpDef::AttrDef attr;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &attr)) << text;
  return attr;
}

AttrValue ValueFromText(const std::string& text) {
  AttrValue v;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &v)) << text;
  return v;
}

Status Validate(const std::string& op_text) { return ValidateOpDef(OpFromText(op_text)); }

// ---------------------------------------------------------------------------
// ValidateAttrValue

TEST(ValidateAttrValueTest, AcceptsValuesOfTheType) {
  OPKIT_EXPECT_OK(ValidateAttrValue(ValueFromText("i: 3"),
                                    AttrFromText("name: 'a' type: 'int'")));
  OPKIT_EXPECT_OK(ValidateAttrValue(ValueFromText("list { }"),
                                    AttrFromText("name: 'a' type: 'list(int)'")));
  OPKIT_EXPECT_OK(ValidateAttrValue(ValueFromText(""),
                                    AttrFromText("name: 'a' type: 'list(float)'")));
  OPKIT_EXPECT_OK(ValidateAttrValue(ValueFromText("shape { dim { size: 2 } }"),
                                    AttrFromText("name: 'a' type: 'shape'")));
}

TEST(ValidateAttrValueTest, WrongTypeNamesTheAttr) {
  EXPECT_THAT(ValidateAttrValue(ValueFromText("s: 'x'"),
                                AttrFromText("name: 'a' type: 'int'")),
              StatusIs(error::INVALID_ARGUMENT,
                       "AttrValue had value with type 'string' when 'int' "
                       "expected\n\t for attr 'a'"));
  EXPECT_THAT(ValidateAttrValue(ValueFromText(""), AttrFromText("name: 'a' type: 'type'")),
              StatusIs(error::INVALID_ARGUMENT,
                       "AttrValue missing value with expected type 'type'\n\t "
                       "for attr 'a'"));
}

TEST(ValidateAttrValueTest, IntMinimum) {
  const OpDef::AttrDef attr =
      AttrFromText("name: 'N' type: 'int' has_minimum: true minimum: 1");
  OPKIT_EXPECT_OK(ValidateAttrValue(ValueFromText("i: 1"), attr));
  EXPECT_THAT(ValidateAttrValue(ValueFromText("i: 0"), attr),
              StatusIs(error::INVALID_ARGUMENT,
                       "Value for attr 'N' of 0 must be at least minimum 1"));
  const OpDef::AttrDef negative =
      AttrFromText("name: 'a' type: 'int' has_minimum: true minimum: -5");
  OPKIT_EXPECT_OK(ValidateAttrValue(ValueFromText("i: -5"), negative));
  EXPECT_THAT(ValidateAttrValue(ValueFromText("i: -6"), negative),
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
    const OpDef::AttrDef attr = AttrFromText(
        StrCat("name: 'l' type: '", kind.type, "' has_minimum: true minimum: 2"));
    AttrValue two = ValueFromText(kind.one);
    two.mutable_list()->MergeFrom(ValueFromText(kind.one).list());
    OPKIT_EXPECT_OK(ValidateAttrValue(two, attr)) << kind.type;
    EXPECT_THAT(ValidateAttrValue(ValueFromText(kind.one), attr),
                StatusIs(error::INVALID_ARGUMENT,
                         "Length for attr 'l' of 1 must be at least minimum 2"))
        << kind.type;
    EXPECT_THAT(ValidateAttrValue(ValueFromText("list { }"), attr),
                StatusIs(error::INVALID_ARGUMENT,
                         "Length for attr 'l' of 0 must be at least minimum 2"))
        << kind.type;
  }
}

TEST(ValidateAttrValueTest, AllowedTypes) {
  const OpDef::AttrDef attr = AttrFromText(
      "name: 'T' type: 'type' allowed_values { list { type: [DT_FLOAT, DT_INT32] } }");
  OPKIT_EXPECT_OK(ValidateAttrValue(ValueFromText("type: DT_INT32"), attr));
  EXPECT_THAT(ValidateAttrValue(ValueFromText("type: DT_INT64"), attr),
              StatusIs(error::INVALID_ARGUMENT,
                       "Value for attr 'T' of int64 is not in the list of allowed "
                       "values: float, int32"));
  const OpDef::AttrDef list_attr = AttrFromText(
      "name: 'T' type: 'list(type)' allowed_values { list { type: [DT_FLOAT] } }");
  OPKIT_EXPECT_OK(ValidateAttrValue(ValueFromText("list { type: [DT_FLOAT, DT_FLOAT] }"),
                                    list_attr));
  EXPECT_THAT(ValidateAttrValue(ValueFromText("list { type: [DT_FLOAT, DT_BOOL] }"),
                                list_attr),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("attr 'T' of bool is not in the list of allowed "
                                 "values: float")));
}

TEST(ValidateAttrValueTest, AllowedStrings) {
  const OpDef::AttrDef attr = AttrFromText(
      "name: 'padding' type: 'string' allowed_values { list { s: ['SAME', 'VALID'] } }");
  OPKIT_EXPECT_OK(ValidateAttrValue(ValueFromText("s: 'VALID'"), attr));
  EXPECT_THAT(ValidateAttrValue(ValueFromText("s: 'FULL'"), attr),
              StatusIs(error::INVALID_ARGUMENT,
                       "Value for attr 'padding' of \"FULL\" is not in the list of "
                       "allowed values: \"SAME\", \"VALID\""));
  const OpDef::AttrDef list_attr = AttrFromText(
      "name: 'x' type: 'list(string)' allowed_values { list { s: ['foo', 'bar'] } }");
  OPKIT_EXPECT_OK(ValidateAttrValue(ValueFromText("list { s: ['bar', 'foo'] }"), list_attr));
  EXPECT_THAT(ValidateAttrValue(ValueFromText("list { s: ['baz'] }"), list_attr),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("attr 'x' of \"baz\" is not in the list of allowed "
                                 "values")));
}

TEST(ValidateAttrValueTest, AllowedValuesOnOtherTypesIsUnimplemented) {
  const OpDef::AttrDef attr =
      AttrFromText("name: 'a' type: 'int' allowed_values { list { i: [1, 2] } }");
  EXPECT_THAT(ValidateAttrValue(ValueFromText("i: 1"), attr),
              StatusIs(error::UNIMPLEMENTED,
                       "Support for allowed_values not implemented for type int"));
}

TEST(ValidateAttrValueTest, RefAndInvalidTypesRejected) {
  const OpDef::AttrDef attr = AttrFromText("name: 'T' type: 'type'");
  EXPECT_THAT(ValidateAttrValue(ValueFromText("type: DT_INT32_REF"), attr),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("AttrValue must not have reference type value of "
                                 "int32_ref")));
  EXPECT_THAT(ValidateAttrValue(ValueFromText("type: DT_INVALID"), attr),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("AttrValue has invalid DataType")));
}

// ---------------------------------------------------------------------------
// Finders

TEST(FindTest, AttrsAndArgs) {
  OpDef op = OpFromText(
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
    EXPECT_THAT(ValidateOpDef(OpFromText(StrCat("name: '", name, "'"))),
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
  const OpDef op = OpFromText("name: 'lower'");
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
  OpDef op = OpFromText("name: 'B' input_arg { name: 'i' type: DT_FLOAT }");
  op.mutable_input_arg(0)->set_type(static_cast<DataType>(77));
  EXPECT_THAT(ValidateOpDef(op), StatusIs(error::INVALID_ARGUMENT,
                                          HasSubstr("Invalid DataType enum 77 for input 'i'")));
  OpDef attr_op = OpFromText("name: 'B' attr { name: 'T' type: 'type' default_value { type: DT_FLOAT } }");
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
      OpFromText("name: 'Old' deprecation { version: 8 explanation: 'Use New' }");
  OPKIT_EXPECT_OK(CheckOpDeprecation(op, 7));
  OPKIT_EXPECT_OK(CheckOpDeprecation(op, 7));  // Warns once; still OK.
  EXPECT_THAT(CheckOpDeprecation(op, 8),
              StatusIs(error::UNIMPLEMENTED,
                       "Op Old is not available in GraphDef version 8. It has been "
                       "removed in version 8. Use New."));
  OPKIT_EXPECT_OK(CheckOpDeprecation(OpFromText("name: 'Fine'"), 1000));
}

// ---------------------------------------------------------------------------
// SummarizeOpDef

TEST(SummarizeOpDefTest, MatMul) {
  const OpDef op = OpFromText(R"pb(
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
  const OpDef op = OpFromText(R"pb(
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
  EXPECT_EQ(SummarizeOpDef(OpFromText("name: 'NoOp'")), "Op<name=NoOp; signature= -> >");
}

// ---------------------------------------------------------------------------
// OpDefCompatible

class OpDefCompatibleTest : public ::testing::Test {
 protected:
  Status Compatible(const std::string& old_text, const std::string& new_text) {
    const OpDef old_op = OpFromText(old_text);
    const OpDef new_op = OpFromText(new_text);
    // Every pair a test uses is itself well-formed.
    EXPECT_THAT(ValidateOpDef(old_op), IsOk());
    EXPECT_THAT(ValidateOpDef(new_op), IsOk());
    return OpDefCompatible(old_op, new_op);
  }

  void ExpectIncompatible(const std::string& old_text, const std::string& new_text,
                          const std::string& why) {
    const Status s = Compatible(old_text, new_text);
    EXPECT_THAT(s, StatusIs(error::INVALID_ARGUMENT,
                            StartsWith(StrCat("Incompatible Op change: ", why, "; old: Op<"))))
        << old_text << "\n->\n" << new_text;
    EXPECT_THAT(s.message(), HasSubstr("; new: Op<"));
  }
};

TEST_F(OpDefCompatibleTest, SameOpAndDocChanges) {
  const std::string op =
      "name: 'Same' input_arg { name: 'a' type_attr: 'T' } "
      "output_arg { name: 'b' type_attr: 'T' } attr { name: 'T' type: 'type' }";
  OPKIT_EXPECT_OK(Compatible(op, op));
  OPKIT_EXPECT_OK(Compatible(op, op + " summary: 'docs' description: 'more'"));
}

TEST_F(OpDefCompatibleTest, NameMismatch) {
  ExpectIncompatible("name: 'A'", "name: 'B'", "Name mismatch");
}

TEST_F(OpDefCompatibleTest, AddedAttrs) {
  OPKIT_EXPECT_OK(Compatible("name: 'A'",
                             "name: 'A' attr { name: 'a' type: 'int' default_value { i: 1 } }"));
  ExpectIncompatible("name: 'A'", "name: 'A' attr { name: 'a' type: 'int' }",
                     "Attr 'a' added without default");
}

TEST_F(OpDefCompatibleTest, RemovedOrRetypedAttrs) {
  ExpectIncompatible("name: 'A' attr { name: 'a' type: 'int' }", "name: 'A'",
                     "Attr 'a' removed");
  // A rename is a removal.
  ExpectIncompatible("name: 'A' attr { name: 'a' type: 'int' }",
                     "name: 'A' attr { name: 'b' type: 'int' default_value { i: 0 } }",
                     "Attr 'a' removed");
  ExpectIncompatible("name: 'A' attr { name: 'a' type: 'int' }",
                     "name: 'A' attr { name: 'a' type: 'float' }",
                     "Attr 'a' changed type 'int' -> 'float'");
}

TEST_F(OpDefCompatibleTest, AllowedValuesMayOnlyWiden) {
  const std::string two =
      "name: 'A' attr { name: 'T' type: 'type' "
      "allowed_values { list { type: [DT_FLOAT, DT_INT32] } } }";
  const std::string three =
      "name: 'A' attr { name: 'T' type: 'type' "
      "allowed_values { list { type: [DT_INT32, DT_FLOAT, DT_INT64] } } }";
  const std::string any = "name: 'A' attr { name: 'T' type: 'type' }";
  OPKIT_EXPECT_OK(Compatible(two, three));
  OPKIT_EXPECT_OK(Compatible(two, any));
  ExpectIncompatible(three, two,
                     "Attr 'T' has a stricter set of allowed values; from "
                     "[DT_INT32, DT_FLOAT, DT_INT64] to [DT_FLOAT, DT_INT32]");
  ExpectIncompatible(any, two,
                     "Attr 'T' has a stricter set of allowed values; from no "
                     "restriction to [DT_FLOAT, DT_INT32]");
  ExpectIncompatible(
      "name: 'A' attr { name: 's' type: 'string' allowed_values { list { s: ['a', 'b'] } } }",
      "name: 'A' attr { name: 's' type: 'string' allowed_values { list { s: ['a'] } } }",
      "Attr 's' has a stricter set of allowed values; from [\"a\", \"b\"] to [\"a\"]");
}

TEST_F(OpDefCompatibleTest, MinimumsMayOnlyDecrease) {
  const std::string min1 = "name: 'A' attr { name: 'n' type: 'int' has_minimum: true minimum: 1 }";
  const std::string min2 = "name: 'A' attr { name: 'n' type: 'int' has_minimum: true minimum: 2 }";
  const std::string none = "name: 'A' attr { name: 'n' type: 'int' }";
  OPKIT_EXPECT_OK(Compatible(min2, min1));
  OPKIT_EXPECT_OK(Compatible(min1, none));
  ExpectIncompatible(min1, min2, "Attr 'n' has a higher minimum; from 1 to 2");
  ExpectIncompatible(none, min1, "Attr 'n' has a higher minimum; from no minimum to 1");
}

TEST_F(OpDefCompatibleTest, InputSignature) {
  // A fixed-type input may become an attr-typed one whose default keeps it.
  OPKIT_EXPECT_OK(Compatible(
      "name: 'A' input_arg { name: 'a' type: DT_INT32 }",
      "name: 'A' input_arg { name: 'a' type_attr: 'T' } "
      "attr { name: 'T' type: 'type' default_value { type: DT_INT32 } }"));
  ExpectIncompatible(
      "name: 'A' input_arg { name: 'a' type: DT_INT32 }",
      "name: 'A' input_arg { name: 'a' type_attr: 'T' } "
      "attr { name: 'T' type: 'type' default_value { type: DT_FLOAT } }",
      "Input signature mismatch 'int32' vs. 'float'");
  // A single input may become a list whose default length is one.
  OPKIT_EXPECT_OK(Compatible(
      "name: 'A' input_arg { name: 'a' type: DT_INT32 }",
      "name: 'A' input_arg { name: 'a' type: DT_INT32 number_attr: 'N' } "
      "attr { name: 'N' type: 'int' has_minimum: true minimum: 1 default_value { i: 1 } }"));
  ExpectIncompatible(
      "name: 'A' input_arg { name: 'a' type: DT_INT32 }",
      "name: 'A' input_arg { name: 'a' type: DT_INT32 number_attr: 'N' } "
      "attr { name: 'N' type: 'int' has_minimum: true minimum: 1 default_value { i: 2 } }",
      "Input signature mismatch 'int32' vs. 'int32, int32'");
  // Or a list(type) input whose default lists the old types.
  OPKIT_EXPECT_OK(Compatible(
      "name: 'A' input_arg { name: 'a' type: DT_INT32 } input_arg { name: 'b' type: DT_FLOAT }",
      "name: 'A' input_arg { name: 'ab' type_list_attr: 'Ts' } "
      "attr { name: 'Ts' type: 'list(type)' "
      "default_value { list { type: [DT_INT32, DT_FLOAT] } } }"));
  // Input names do not matter; count and types do.
  OPKIT_EXPECT_OK(Compatible("name: 'A' input_arg { name: 'a' type: DT_INT32 }",
                             "name: 'A' input_arg { name: 'renamed' type: DT_INT32 }"));
  ExpectIncompatible("name: 'A' input_arg { name: 'a' type: DT_INT32 }",
                     "name: 'A' input_arg { name: 'a' type: DT_INT32 } "
                     "input_arg { name: 'b' type: DT_INT32 }",
                     "Input signature mismatch 'int32' vs. 'int32, int32'");
  ExpectIncompatible("name: 'A' input_arg { name: 'a' type: DT_INT32 }", "name: 'A'",
                     "Input signature mismatch 'int32' vs. ''");
  // Existing attrs appear by name.
  OPKIT_EXPECT_OK(Compatible(
      "name: 'A' input_arg { name: 'a' type_attr: 'T' number_attr: 'N' } "
      "attr { name: 'T' type: 'type' } attr { name: 'N' type: 'int' has_minimum: true }",
      "name: 'A' input_arg { name: 'a' type_attr: 'T' number_attr: 'N' } "
      "attr { name: 'T' type: 'type' } attr { name: 'N' type: 'int' has_minimum: true }"));
  ExpectIncompatible(
      "name: 'A' input_arg { name: 'a' type_attr: 'T' } input_arg { name: 'b' type_attr: 'U' } "
      "attr { name: 'T' type: 'type' } attr { name: 'U' type: 'type' }",
      "name: 'A' input_arg { name: 'a' type_attr: 'T' } input_arg { name: 'b' type_attr: 'T' } "
      "attr { name: 'T' type: 'type' } attr { name: 'U' type: 'type' }",
      "Input signature mismatch 'T, U' vs. 'T, T'");
}

TEST_F(OpDefCompatibleTest, OutputSignatureIncludesNames) {
  ExpectIncompatible("name: 'A' output_arg { name: 'a' type: DT_INT32 }",
                     "name: 'A' output_arg { name: 'renamed' type: DT_INT32 }",
                     "Output signature mismatch 'a:int32' vs. 'renamed:int32'");
  OPKIT_EXPECT_OK(Compatible(
      "name: 'A' output_arg { name: 'a' type: DT_INT32 }",
      "name: 'A' output_arg { name: 'a' type_attr: 'T' } "
      "attr { name: 'T' type: 'type' default_value { type: DT_INT32 } }"));
}

TEST_F(OpDefCompatibleTest, RefChanges) {
  const std::string in = "name: 'A' input_arg { name: 'a' type: DT_INT32 }";
  const std::string in_ref = "name: 'A' input_arg { name: 'a' type: DT_INT32 is_ref: true }";
  OPKIT_EXPECT_OK(Compatible(in_ref, in));
  ExpectIncompatible(in, in_ref, "Input 0 changed from non-ref to ref");

  const std::string out = "name: 'A' output_arg { name: 'a' type: DT_INT32 }";
  const std::string out_ref = "name: 'A' output_arg { name: 'a' type: DT_INT32 is_ref: true }";
  OPKIT_EXPECT_OK(Compatible(out, out_ref));
  ExpectIncompatible(out_ref, out, "Output 0 changed from ref to non-ref");
}

TEST_F(OpDefCompatibleTest, HugeDefaultLengthDoesNotHang) {
  const OpDef old_op = OpFromText("name: 'A' input_arg { name: 'a' type: DT_INT32 }");
  const OpDef new_op = OpFromText(
      "name: 'A' input_arg { name: 'a' type: DT_INT32 number_attr: 'N' } "
      "attr { name: 'N' type: 'int' has_minimum: true minimum: 1 "
      "default_value { i: 9000000000000 } }");
  EXPECT_THAT(OpDefCompatible(old_op, new_op),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Input signature mismatch")));
}

TEST_F(OpDefCompatibleTest, InvalidOpDefsDoNotCrash) {
  // Args referring to attrs that do not exist (not validated first).
  const OpDef old_op = OpFromText("name: 'A' input_arg { name: 'a' type_attr: 'T' }");
  const OpDef new_op = OpFromText(
      "name: 'A' input_arg { name: 'a' type_attr: 'U' number_attr: 'M' } "
      "output_arg { name: 'o' type_list_attr: 'L' }");
  EXPECT_THAT(OpDefCompatible(old_op, new_op),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Input signature mismatch")));
  EXPECT_THAT(OpDefCompatible(new_op, new_op), IsOk());
}

// ---------------------------------------------------------------------------
// Defaults across versions

TEST(OpDefAddedDefaultsUnchangedTest, Rules) {
  const OpDef old_op = OpFromText("name: 'A'");
  const OpDef penultimate = OpFromText(
      "name: 'A' attr { name: 'x' type: 'int' default_value { i: 3 } }");
  OPKIT_EXPECT_OK(OpDefAddedDefaultsUnchanged(old_op, penultimate, penultimate));
  EXPECT_THAT(
      OpDefAddedDefaultsUnchanged(
          old_op, penultimate,
          OpFromText("name: 'A' attr { name: 'x' type: 'int' default_value { i: 4 } }")),
      StatusIs(error::INVALID_ARGUMENT,
               StartsWith("Can't change default value for attr 'x' from 3 in op: Op<name=A")));
  EXPECT_THAT(OpDefAddedDefaultsUnchanged(old_op, penultimate, OpFromText("name: 'A'")),
              StatusIs(error::INVALID_ARGUMENT, StartsWith("Missing attr 'x' in op: Op<")));
  EXPECT_THAT(OpDefAddedDefaultsUnchanged(
                  old_op, penultimate, OpFromText("name: 'A' attr { name: 'x' type: 'int' }")),
              StatusIs(error::INVALID_ARGUMENT,
                       StartsWith("Missing default for attr 'x' in op: ")));
  // An attr the old op already had is not checked here.
  OPKIT_EXPECT_OK(OpDefAddedDefaultsUnchanged(
      penultimate, penultimate,
      OpFromText("name: 'A' attr { name: 'x' type: 'int' default_value { i: 4 } }")));
}

TEST(OpDefAttrDefaultsUnchangedTest, Rules) {
  const OpDef with3 =
      OpFromText("name: 'A' attr { name: 'x' type: 'int' default_value { i: 3 } }");
  const OpDef with4 =
      OpFromText("name: 'A' attr { name: 'x' type: 'int' default_value { i: 4 } }");
  const OpDef without = OpFromText("name: 'A' attr { name: 'x' type: 'int' }");
  OPKIT_EXPECT_OK(OpDefAttrDefaultsUnchanged(with3, with3));
  OPKIT_EXPECT_OK(OpDefAttrDefaultsUnchanged(without, with3));  // Adding is fine.
  OPKIT_EXPECT_OK(OpDefAttrDefaultsUnchanged(with3, OpFromText("name: 'A'")));
  EXPECT_THAT(OpDefAttrDefaultsUnchanged(with3, with4),
              StatusIs(error::INVALID_ARGUMENT,
                       "Attr 'x' has changed it's default value; from 3 to 4"));
  EXPECT_THAT(OpDefAttrDefaultsUnchanged(with3, without),
              StatusIs(error::INVALID_ARGUMENT,
                       "Attr 'x' has removed it's default; from 3 to no default"));
}

// ---------------------------------------------------------------------------
// Descriptions, equality, hashing

const char kDocumented[] = R"pb(
  name: "Doc"
  input_arg { name: "a" type: DT_FLOAT description: "in" }
  output_arg { name: "b" type: DT_FLOAT description: "out" }
  attr { name: "x" type: "int" description: "an attr" }
  summary: "sum"
  description: "desc"
  deprecation { version: 3 explanation: "why" }
)pb";

TEST(RemoveDescriptionsTest, NonDeprecationKeepsExplanation) {
  OpDef op = OpFromText(kDocumented);
  RemoveNonDeprecationDescriptionsFromOpDef(&op);
  EXPECT_EQ(op.ShortDebugString(),
            "name: \"Doc\" input_arg { name: \"a\" type: DT_FLOAT } "
            "output_arg { name: \"b\" type: DT_FLOAT } attr { name: \"x\" type: \"int\" } "
            "deprecation { version: 3 explanation: \"why\" }");
}

TEST(RemoveDescriptionsTest, AllDescriptions) {
  OpList list;
  *list.add_op() = OpFromText(kDocumented);
  *list.add_op() = OpFromText(kDocumented);
  RemoveDescriptionsFromOpList(&list);
  for (const OpDef& op : list.op()) {
    EXPECT_EQ(op.ShortDebugString(),
              "name: \"Doc\" input_arg { name: \"a\" type: DT_FLOAT } "
              "output_arg { name: \"b\" type: DT_FLOAT } attr { name: \"x\" type: \"int\" } "
              "deprecation { version: 3 }");
  }
}

TEST(OpDefEqualTest, AttrAndControlOutputOrderDoNotMatter) {
  const OpDef a = OpFromText(
      "name: 'A' attr { name: 'x' type: 'int' } attr { name: 'y' type: 'float' } "
      "control_output: ['c1', 'c2']");
  const OpDef b = OpFromText(
      "name: 'A' attr { name: 'y' type: 'float' } attr { name: 'x' type: 'int' } "
      "control_output: ['c2', 'c1']");
  EXPECT_TRUE(OpDefEqual(a, b));
  EXPECT_EQ(OpDefHash(a), OpDefHash(b));
}

TEST(OpDefEqualTest, Differences) {
  const OpDef base = OpFromText(
      "name: 'A' input_arg { name: 'a' type: DT_FLOAT } attr { name: 'x' type: 'int' }");
  const char* others[] = {
      "name: 'B' input_arg { name: 'a' type: DT_FLOAT } attr { name: 'x' type: 'int' }",
      "name: 'A' input_arg { name: 'a' type: DT_INT32 } attr { name: 'x' type: 'int' }",
      "name: 'A' input_arg { name: 'a' type: DT_FLOAT } attr { name: 'x' type: 'float' }",
      "name: 'A' input_arg { name: 'a' type: DT_FLOAT } attr { name: 'z' type: 'int' }",
      "name: 'A' input_arg { name: 'a' type: DT_FLOAT }",
      "name: 'A' input_arg { name: 'a' type: DT_FLOAT } attr { name: 'x' type: 'int' } "
      "attr { name: 'y' type: 'int' }",
      "name: 'A' input_arg { name: 'a' type: DT_FLOAT } attr { name: 'x' type: 'int' } "
      "summary: 'docs count'",
      "name: 'A' input_arg { name: 'a' type: DT_FLOAT } attr { name: 'x' type: 'int' } "
      "control_output: 'c'",
      "name: 'A' input_arg { name: 'a' type: DT_FLOAT } attr { name: 'x' type: 'int' "
      "has_minimum: true }",
  };
  for (const char* text : others) {
    const OpDef other = OpFromText(text);
    EXPECT_FALSE(OpDefEqual(base, other)) << text;
    EXPECT_FALSE(OpDefEqual(other, base)) << text;
    EXPECT_NE(OpDefHash(base), OpDefHash(other)) << text;
  }
}

TEST(OpDefEqualTest, DuplicateAttrNamesCompareInOrder) {
  const OpDef a = OpFromText(
      "name: 'A' attr { name: 'x' type: 'int' } attr { name: 'x' type: 'float' }");
  const OpDef b = OpFromText(
      "name: 'A' attr { name: 'x' type: 'int' } attr { name: 'x' type: 'int' }");
  EXPECT_TRUE(OpDefEqual(a, a));
  EXPECT_FALSE(OpDefEqual(a, b));
  EXPECT_FALSE(OpDefEqual(b, a));
}

TEST(AttrDefEqualTest, Fields) {
  const OpDef::AttrDef base = AttrFromText(
      "name: 'x' type: 'int' default_value { i: 1 } has_minimum: true minimum: 0");
  EXPECT_TRUE(AttrDefEqual(base, base));
  EXPECT_EQ(AttrDefHash(base), AttrDefHash(base));
  const char* others[] = {
      "name: 'y' type: 'int' default_value { i: 1 } has_minimum: true minimum: 0",
      "name: 'x' type: 'float' default_value { i: 1 } has_minimum: true minimum: 0",
      "name: 'x' type: 'int' default_value { i: 2 } has_minimum: true minimum: 0",
      "name: 'x' type: 'int' default_value { i: 1 } has_minimum: true minimum: 1",
      "name: 'x' type: 'int' default_value { i: 1 }",
      "name: 'x' type: 'int' default_value { i: 1 } has_minimum: true minimum: 0 "
      "description: 'd'",
      "name: 'x' type: 'int' default_value { i: 1 } has_minimum: true minimum: 0 "
      "allowed_values { list { i: 1 } }",
  };
  for (const char* text : others) {
    const OpDef::AttrDef other = AttrFromText(text);
    EXPECT_FALSE(AttrDefEqual(base, other)) << text;
    EXPECT_NE(AttrDefHash(base), AttrDefHash(other)) << text;
  }
}

TEST(AttrDefEqualTest, FuncDefaultsCompareByMapContent) {
  OpDef::AttrDef a = AttrFromText("name: 'f' type: 'func'");
  OpDef::AttrDef b = a;
  NameAttrList* fa = a.mutable_default_value()->mutable_func();
  NameAttrList* fb = b.mutable_default_value()->mutable_func();
  fa->set_name("g");
  fb->set_name("g");
  (*fa->mutable_attr())["p"].set_i(1);
  (*fa->mutable_attr())["q"].set_s("s");
  (*fb->mutable_attr())["q"].set_s("s");
  (*fb->mutable_attr())["p"].set_i(1);
  EXPECT_TRUE(AttrDefEqual(a, b));
  EXPECT_EQ(AttrDefHash(a), AttrDefHash(b));
}

}  // namespace
}  // namespace opkit
