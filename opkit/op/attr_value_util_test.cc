// Tests of attr_value_util.h: ParseAttrValue (strict and shorthand syntax),
// SetAttrValue, SummarizeAttrValue, AreAttrValuesEqual, AttrValueHasType and
// placeholders.

#include "opkit/op/attr_value_util.h"

#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <google/protobuf/text_format.h>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/core/str_util.h"
#include "opkit/tensor/tensor.h"
#include "opkit/tensor/tensor_shape.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace {

using ::opkit::testing::IsOk;
using ::opkit::testing::StatusIs;
using ::testing::HasSubstr;

AttrValue FromText(const std::string& text) {
  AttrValue v;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &v)) << text;
  return v;
}

std::string ToText(const AttrValue& v) { return v.ShortDebugString(); }

// Parses and returns the value's short text form, or "error: <message>".
std::string Parse(std::string_view type, std::string_view text) {
  AttrValue v;
  Status s = ParseAttrValue(type, text, &v);
  if (!s.ok()) return "error: " + s.message();
  return ToText(v);
}

TEST(ParseAttrValueTest, Scalars) {
  EXPECT_EQ(Parse("type", "DT_INT32"), "type: DT_INT32");
  EXPECT_EQ(Parse("string", "'foo'"), "s: \"foo\"");
  EXPECT_EQ(Parse("string", "\"foo\""), "s: \"foo\"");
  EXPECT_EQ(Parse("string", "''"), "s: \"\"");
  EXPECT_EQ(Parse("string", "'a\\'b'"), "s: \"a\\'b\"");
  EXPECT_EQ(Parse("float", "1.0"), "f: 1");
  EXPECT_EQ(Parse("float", "-0.5"), "f: -0.5");
  EXPECT_EQ(Parse("float", "1e10"), "f: 1e+10");
  EXPECT_EQ(Parse("int", "-3"), "i: -3");
  EXPECT_EQ(Parse("int", "  42  "), "i: 42");
  EXPECT_EQ(Parse("bool", "true"), "b: true");
  EXPECT_EQ(Parse("bool", "false"), "b: false");
  EXPECT_EQ(Parse("placeholder", "'T'"), "placeholder: \"T\"");
}

TEST(ParseAttrValueTest, Messages) {
  EXPECT_EQ(Parse("shape", "{ dim { size: 1 } dim { size: 2 } }"),
            "shape { dim { size: 1 } dim { size: 2 } }");
  EXPECT_EQ(Parse("shape", "{ unknown_rank: true }"),
            "shape { unknown_rank: true }");
  EXPECT_EQ(Parse("shape", "{}"), "shape { }");
  EXPECT_EQ(Parse("tensor", "{ dtype: DT_INT32 int_val: 5 }"),
            "tensor { dtype: DT_INT32 int_val: 5 }");
  EXPECT_EQ(Parse("tensor", "<dtype: DT_FLOAT tensor_shape {} float_val: 1>"),
            "tensor { dtype: DT_FLOAT tensor_shape { } float_val: 1 }");
  EXPECT_EQ(Parse("func", "{ name: 'f' attr { key: 'T' value { type: DT_FLOAT } } }"),
            "func { name: \"f\" attr { key: \"T\" value { type: DT_FLOAT } } }");
}

TEST(ParseAttrValueTest, Lists) {
  EXPECT_EQ(Parse("list(int)", "[]"), "list { }");
  EXPECT_EQ(Parse("list(int)", " [ ] "), "list { }");
  EXPECT_EQ(Parse("list(int)", "[2, 3, 5, 7]"), "list { i: 2 i: 3 i: 5 i: 7 }");
  EXPECT_EQ(Parse("list(type)", "[DT_FLOAT, DT_INT32]"),
            "list { type: DT_FLOAT type: DT_INT32 }");
  EXPECT_EQ(Parse("list(string)", "['a', 'b']"), "list { s: \"a\" s: \"b\" }");
  EXPECT_EQ(Parse("list(string)", "['[', ']']"), "list { s: \"[\" s: \"]\" }");
  EXPECT_EQ(Parse("list(float)", "[1.5, -2]"), "list { f: 1.5 f: -2 }");
  EXPECT_EQ(Parse("list(bool)", "[true, false]"), "list { b: true b: false }");
  EXPECT_EQ(Parse("list(shape)", "[{dim {size: 3}}, {unknown_rank: true}]"),
            "list { shape { dim { size: 3 } } shape { unknown_rank: true } }");
  EXPECT_EQ(Parse("list(tensor)", "[{dtype: DT_BOOL bool_val: true}]"),
            "list { tensor { dtype: DT_BOOL bool_val: true } }");
  EXPECT_EQ(Parse("list(func)", "[{name: 'f'}, {name: 'g'}]"),
            "list { func { name: \"f\" } func { name: \"g\" } }");
}

TEST(ParseAttrValueTest, EmptyListClearsPreviousValue) {
  AttrValue v = FromText("i: 5");
  OPKIT_ASSERT_OK(ParseAttrValue("list(int)", "[]", &v));
  EXPECT_EQ(v.value_case(), AttrValue::kList);
  EXPECT_EQ(v.list().i_size(), 0);
}

TEST(ParseAttrValueTest, UnknownType) {
  AttrValue v;
  EXPECT_THAT(ParseAttrValue("integer", "5", &v),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("unknown attr type 'integer'")));
  EXPECT_THAT(ParseAttrValue("list(int", "[5]", &v),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("unknown attr type")));
  EXPECT_THAT(ParseAttrValue("list(placeholder)", "['a']", &v),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("unknown attr type")));
  EXPECT_THAT(ParseAttrValue("intx", "5", &v),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("unknown attr type")));
  EXPECT_THAT(ParseAttrValue("", "5", &v),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("unknown attr type")));
}

TEST(ParseAttrValueTest, BadTextNamesTypeAndText) {
  AttrValue v = FromText("i: 9");
  Status s = ParseAttrValue("int", "abc", &v);
  EXPECT_THAT(s, StatusIs(error::INVALID_ARGUMENT,
                          HasSubstr("Could not parse 'abc' as a value of attr "
                                    "type 'int'")));
  // Unchanged on failure.
  EXPECT_EQ(ToText(v), "i: 9");
}

TEST(ParseAttrValueTest, BadTextIsRejected) {
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"int", ""},
      {"int", "   "},
      {"int", "1.5"},
      {"int", "99999999999999999999999"},
      {"int", "[1]"},
      {"int", "5 f: 1.0"},       // escapes into another field
      {"int", "5 i: 6"},         // same field twice
      {"string", "foo"},         // unquoted
      {"string", "'foo"},        // unterminated
      {"string", "'a' 'b' s: 'c'"},
      {"bool", "maybe"},
      {"type", "DT_NOPE"},
      {"type", "float"},
      {"float", "x"},
      {"shape", "{ dim { size: 1 }"},
      {"shape", "{ dim { size: 1 } } }"},
      {"shape", "{ } i: 5"},
      {"shape", "{ } } i: 5 shape { "},
      {"shape", "{ bogus: 1 }"},
      {"tensor", "{ dtype: DT_INT32 int_val: 'x' }"},
      {"list(int)", "7"},        // not bracketed
      {"list(int)", "["},
      {"list(int)", "]"},
      {"list(int)", "[1, 2"},
      {"list(int)", "[1] i: [2]"},
      {"list(int)", "[1] } s: 'x' list { i: [2]"},
      {"list(int)", "[1, 'a']"},
      {"list(int)", "[1] # comment"},
      {"list(string)", "'a'"},
      {"list(type)", "[DT_FLOAT DT_INT32]"},
      {"list(shape)", "[{]}"},
  };
  for (const auto& [type, text] : bad) {
    AttrValue v;
    Status s = ParseAttrValue(type, text, &v);
    EXPECT_THAT(s, StatusIs(error::INVALID_ARGUMENT, HasSubstr("attr type '" + type + "'")))
        << type << " <- " << text << " gave " << ToText(v);
  }
}

TEST(ParseAttrValueTest, DeepNestingIsRefused) {
  std::string text;
  for (int i = 0; i < 1000; ++i) text += "{";
  for (int i = 0; i < 1000; ++i) text += "}";
  AttrValue v;
  EXPECT_THAT(ParseAttrValue("tensor", text, &v),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("nested more than")));
  EXPECT_THAT(ParseAttrValue("list(shape)", "[" + text + "]", &v),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("nested more than")));
}

TEST(ParseAttrValueTest, ParserReasonIsInMessage) {
  AttrValue v;
  Status s = ParseAttrValue("shape", "{ bogus: 1 }", &v);
  EXPECT_THAT(s, StatusIs(error::INVALID_ARGUMENT, HasSubstr("bogus")));
  // Columns count in the text as given.
  EXPECT_THAT(ParseAttrValue("int", "  abc", &v),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("(at column 3)")));
  EXPECT_THAT(ParseAttrValue("list(int)", "[1, x]", &v),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("(at column 5)")));
}

// ---------------------------------------------------------------------------
// ParseAttrValue, shorthand

// Parses shorthand and returns the value's short text form, or
// "error: <message>".
std::string Short(std::string_view type, std::string_view text) {
  AttrValue v;
  Status s = ParseAttrValue(type, text, AttrTextSyntax::kShorthand, &v);
  if (!s.ok()) return "error: " + s.message();
  return ToText(v);
}

TEST(ParseAttrValueShorthandTest, TextFormatIsTheDefault) {
  AttrValue v;
  OPKIT_EXPECT_OK(ParseAttrValue("type", "DT_HALF", AttrTextSyntax::kTextFormat, &v));
  EXPECT_EQ(ToText(v), "type: DT_HALF");
  EXPECT_THAT(ParseAttrValue("type", "float", AttrTextSyntax::kTextFormat, &v),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("attr type 'type'")));
}

TEST(ParseAttrValueShorthandTest, Types) {
  for (const char* text : {"float", "float32", "DT_FLOAT", "DT_float", "tf.float32",
                           "tf.float", " float "}) {
    EXPECT_EQ(Short("type", text), "type: DT_FLOAT") << text;
  }
  EXPECT_EQ(Short("type", "half"), "type: DT_HALF");
  EXPECT_EQ(Short("type", "float16"), "type: DT_HALF");
  EXPECT_EQ(Short("type", "float64"), "type: DT_DOUBLE");
  EXPECT_EQ(Short("type", "DT_BFLOAT16"), "type: DT_BFLOAT16");
  EXPECT_EQ(Short("type", "tf.string"), "type: DT_STRING");
  EXPECT_EQ(Short("type", "flot"),
            "error: 'flot' is not a data type; write e.g. float, int32 or DT_FLOAT");
  // Ref types and DT_INVALID are not values of a type attr.
  for (const char* text : {"float_ref", "DT_FLOAT_REF", "DT_INVALID", "Float", "", "1"}) {
    EXPECT_THAT(Short("type", text), HasSubstr("is not a data type")) << text;
  }
}

TEST(ParseAttrValueShorthandTest, Numbers) {
  EXPECT_EQ(Short("int", "3"), "i: 3");
  EXPECT_EQ(Short("int", "+42"), "i: 42");
  EXPECT_EQ(Short("int", " -7 "), "i: -7");
  EXPECT_EQ(Short("int", "010"), "i: 10");  // decimal, not octal
  EXPECT_EQ(Short("int", "-9223372036854775808"), "i: -9223372036854775808");
  EXPECT_EQ(Short("int", "three"), "error: 'three' is not an integer");
  EXPECT_EQ(Short("int", "1.5"), "error: '1.5' is not an integer");
  EXPECT_EQ(Short("int", "+-5"), "error: '+-5' is not an integer");
  EXPECT_EQ(Short("int", ""), "error: '' is not an integer");
  EXPECT_EQ(Short("int", "99999999999999999999"),
            "error: '99999999999999999999' is not an integer in int64's range");
  EXPECT_EQ(Short("float", "0.5"), "f: 0.5");
  EXPECT_EQ(Short("float", "-1e-3"), "f: -0.001");
  EXPECT_EQ(Short("float", "3"), "f: 3");
  EXPECT_EQ(Short("float", "inf"), "f: inf");
  EXPECT_EQ(Short("float", "small"), "error: 'small' is not a number in float's range");
  EXPECT_EQ(Short("float", "1e99"), "error: '1e99' is not a number in float's range");
  EXPECT_EQ(Short("float", "1.5x"), "error: '1.5x' is not a number in float's range");
}

TEST(ParseAttrValueShorthandTest, Bools) {
  for (const char* text : {"true", "True", "1"}) EXPECT_EQ(Short("bool", text), "b: true");
  for (const char* text : {"false", "False", "0"}) EXPECT_EQ(Short("bool", text), "b: false");
  EXPECT_EQ(Short("bool", "maybe"), "error: 'maybe' is not a bool; write true or false");
}

TEST(ParseAttrValueShorthandTest, Strings) {
  EXPECT_EQ(Short("string", "SAME"), "s: \"SAME\"");
  EXPECT_EQ(Short("string", "  SAME "), "s: \"SAME\"");
  EXPECT_EQ(Short("string", "'SAME'"), "s: \"SAME\"");
  EXPECT_EQ(Short("string", "\"a b\""), "s: \"a b\"");
  EXPECT_EQ(Short("string", "''"), "s: \"\"");
  EXPECT_EQ(Short("string", ""), "s: \"\"");
  EXPECT_EQ(Short("string", "'a\\n\\'b'"), "s: \"a\\n\\'b\"");
  EXPECT_EQ(Short("string", "'\\101\\x42'"), "s: \"AB\"");
  // Not one quoted string: taken as it is.
  EXPECT_EQ(Short("string", "it's"), "s: \"it\\'s\"");
  EXPECT_EQ(Short("string", "'a' 'b'"), "s: \"\\'a\\' \\'b\\'\"");
  EXPECT_EQ(Short("string", "'"), "s: \"\\'\"");
  EXPECT_EQ(Short("string", "a\\nb"), "s: \"a\\\\nb\"");
  EXPECT_THAT(Short("string", "'a\\qb'"),
              HasSubstr("'a\\qb' is not a valid quoted string"));
}

TEST(ParseAttrValueShorthandTest, Shapes) {
  EXPECT_EQ(Short("shape", "[2,3]"), "shape { dim { size: 2 } dim { size: 3 } }");
  EXPECT_EQ(Short("shape", " [ 2 , 3 ] "), "shape { dim { size: 2 } dim { size: 3 } }");
  EXPECT_EQ(Short("shape", "[1,?,3]"),
            "shape { dim { size: 1 } dim { size: -1 } dim { size: 3 } }");
  EXPECT_EQ(Short("shape", "[-1]"), "shape { dim { size: -1 } }");
  EXPECT_EQ(Short("shape", "[]"), "shape { }");
  EXPECT_EQ(Short("shape", "?"), "shape { unknown_rank: true }");
  EXPECT_EQ(Short("shape", "*"), "shape { unknown_rank: true }");
  EXPECT_EQ(Short("shape", "{ dim { size: 4 } }"), "shape { dim { size: 4 } }");
  EXPECT_EQ(Short("shape", "5"),
            "error: '5' is not a shape: it is not in brackets; write e.g. [2,3], "
            "[1,?,3], [] or ?");
  EXPECT_THAT(Short("shape", "[2,x]"),
              HasSubstr("'[2,x]' is not a shape: its dimension 'x' is not a number or ?"));
  EXPECT_THAT(Short("shape", "[2,]"), HasSubstr("its dimension '' is not a number"));
  EXPECT_THAT(Short("shape", "[-3]"), HasSubstr("it has a negative dimension -3"));
  EXPECT_THAT(Short("shape", "[99999999999999999999]"), HasSubstr("is not a shape"));
  EXPECT_THAT(Short("shape", "{ bogus: 1 }"), HasSubstr("attr type 'shape'"));
}

TEST(ParseAttrValueShorthandTest, TensorsAndFuncs) {
  EXPECT_EQ(Short("tensor", "{ dtype: DT_FLOAT float_val: 1 }"),
            "tensor { dtype: DT_FLOAT float_val: 1 }");
  EXPECT_THAT(Short("tensor", "garbage"),
              HasSubstr("Could not parse 'garbage' as a value of attr type 'tensor'"));
  EXPECT_EQ(Short("func", "my_fn"), "func { name: \"my_fn\" }");
  EXPECT_EQ(Short("func", "{ name: 'f' }"), "func { name: \"f\" }");
  EXPECT_EQ(Short("placeholder", "'T'"), "placeholder: \"T\"");
}

TEST(ParseAttrValueShorthandTest, Lists) {
  EXPECT_EQ(Short("list(type)", "[float,int32]"), "list { type: DT_FLOAT type: DT_INT32 }");
  EXPECT_EQ(Short("list(type)", "[DT_FLOAT, tf.int32]"),
            "list { type: DT_FLOAT type: DT_INT32 }");
  EXPECT_EQ(Short("list(type)", "float, int32"), "list { type: DT_FLOAT type: DT_INT32 }");
  EXPECT_EQ(Short("list(type)", "float"), "list { type: DT_FLOAT }");
  EXPECT_EQ(Short("list(int)", "[]"), "list { }");
  EXPECT_EQ(Short("list(int)", ""), "list { }");
  EXPECT_EQ(Short("list(int)", "[1, +2, -3]"), "list { i: 1 i: 2 i: -3 }");
  EXPECT_EQ(Short("list(float)", "[0.5,2]"), "list { f: 0.5 f: 2 }");
  EXPECT_EQ(Short("list(bool)", "[true, 0]"), "list { b: true b: false }");
  EXPECT_EQ(Short("list(string)", "[a, 'b,c', \"d\"]"), "list { s: \"a\" s: \"b,c\" s: \"d\" }");
  EXPECT_EQ(Short("list(shape)", "[[2,3], [?], ?]"),
            "list { shape { dim { size: 2 } dim { size: 3 } } shape { dim { size: -1 } } "
            "shape { unknown_rank: true } }");
  EXPECT_EQ(Short("list(shape)", "[2,3],[4]"),
            "list { shape { dim { size: 2 } dim { size: 3 } } shape { dim { size: 4 } } }");
  EXPECT_EQ(Short("list(tensor)", "[{dtype: DT_BOOL bool_val: true}]"),
            "list { tensor { dtype: DT_BOOL bool_val: true } }");
  EXPECT_EQ(Short("list(func)", "[f, { name: 'g' }]"),
            "list { func { name: \"f\" } func { name: \"g\" } }");
  EXPECT_EQ(Short("list(type)", "[float,"),
            "error: '[float,' is not a list (missing ']'); write e.g. [float,int32]");
  EXPECT_THAT(Short("list(int)", "[1,,2]"), HasSubstr("is not a list (an item is empty)"));
  EXPECT_THAT(Short("list(int)", "[1]]"), HasSubstr("is not a list (unbalanced ']'"));
  EXPECT_EQ(Short("list(type)", "[float,nope]"),
            "error: 'nope' is not a data type; write e.g. float, int32 or DT_FLOAT");
  std::string deep(1000, '[');
  EXPECT_THAT(Short("list(shape)", deep + std::string(1000, ']')), HasSubstr("nested more than"));
}

TEST(ParseAttrValueShorthandTest, FailureLeavesValueAndNamesUnknownTypes) {
  AttrValue v = FromText("i: 9");
  EXPECT_THAT(ParseAttrValue("int", "x", AttrTextSyntax::kShorthand, &v),
              StatusIs(error::INVALID_ARGUMENT));
  EXPECT_EQ(ToText(v), "i: 9");
  EXPECT_THAT(ParseAttrValue("list(int)", "[1, x]", AttrTextSyntax::kShorthand, &v),
              StatusIs(error::INVALID_ARGUMENT));
  EXPECT_EQ(ToText(v), "i: 9");
  EXPECT_THAT(ParseAttrValue("integer", "5", AttrTextSyntax::kShorthand, &v),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("unknown attr type 'integer'")));
  EXPECT_THAT(ParseAttrValue("list(placeholder)", "[a]", AttrTextSyntax::kShorthand, &v),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("unknown attr type")));
}

// ---------------------------------------------------------------------------
// SetAttrValue

TEST(SetAttrValueTest, Scalars) {
  AttrValue v;
  SetAttrValue(std::string("foo"), &v);
  EXPECT_EQ(ToText(v), "s: \"foo\"");
  SetAttrValue(std::string_view("bar"), &v);
  EXPECT_EQ(ToText(v), "s: \"bar\"");
  SetAttrValue("baz", &v);
  EXPECT_EQ(ToText(v), "s: \"baz\"");
  SetAttrValue(static_cast<const char*>(nullptr), &v);
  EXPECT_EQ(ToText(v), "s: \"\"");
  SetAttrValue(int64{-7}, &v);
  EXPECT_EQ(ToText(v), "i: -7");
  SetAttrValue(5, &v);
  EXPECT_EQ(ToText(v), "i: 5");
  SetAttrValue(1.5f, &v);
  EXPECT_EQ(ToText(v), "f: 1.5");
  SetAttrValue(0.25, &v);
  EXPECT_EQ(ToText(v), "f: 0.25");
  SetAttrValue(true, &v);
  EXPECT_EQ(ToText(v), "b: true");
  SetAttrValue(DT_HALF, &v);
  EXPECT_EQ(ToText(v), "type: DT_HALF");
  TensorShapeProto shape;
  shape.add_dim()->set_size(3);
  SetAttrValue(shape, &v);
  EXPECT_EQ(ToText(v), "shape { dim { size: 3 } }");
  TensorProto tensor;
  tensor.set_dtype(DT_INT32);
  tensor.add_int_val(4);
  SetAttrValue(tensor, &v);
  EXPECT_EQ(ToText(v), "tensor { dtype: DT_INT32 int_val: 4 }");
  NameAttrList func;
  func.set_name("f");
  SetAttrValue(func, &v);
  EXPECT_EQ(ToText(v), "func { name: \"f\" }");
  SetAttrValue(FromText("placeholder: 'T'"), &v);
  EXPECT_EQ(ToText(v), "placeholder: \"T\"");
}

TEST(SetAttrValueTest, Lists) {
  AttrValue v;
  SetAttrValue({1, 2, 3}, &v);
  EXPECT_EQ(ToText(v), "list { i: 1 i: 2 i: 3 }");
  SetAttrValue(std::vector<int64>{4}, &v);
  EXPECT_EQ(ToText(v), "list { i: 4 }");
  SetAttrValue({"a", "b"}, &v);
  EXPECT_EQ(ToText(v), "list { s: \"a\" s: \"b\" }");
  SetAttrValue(std::vector<std::string>{"c"}, &v);
  EXPECT_EQ(ToText(v), "list { s: \"c\" }");
  SetAttrValue(std::vector<std::string_view>{"d", "e"}, &v);
  EXPECT_EQ(ToText(v), "list { s: \"d\" s: \"e\" }");
  SetAttrValue({1.5f, 2.0f}, &v);
  EXPECT_EQ(ToText(v), "list { f: 1.5 f: 2 }");
  SetAttrValue({0.5, 1.0}, &v);
  EXPECT_EQ(ToText(v), "list { f: 0.5 f: 1 }");
  SetAttrValue({true, false}, &v);
  EXPECT_EQ(ToText(v), "list { b: true b: false }");
  SetAttrValue({DT_FLOAT, DT_INT32}, &v);
  EXPECT_EQ(ToText(v), "list { type: DT_FLOAT type: DT_INT32 }");
  TensorShapeProto shape;
  shape.set_unknown_rank(true);
  SetAttrValue(std::vector<TensorShapeProto>{shape}, &v);
  EXPECT_EQ(ToText(v), "list { shape { unknown_rank: true } }");
  TensorProto tensor;
  tensor.set_dtype(DT_BOOL);
  SetAttrValue(std::vector<TensorProto>{tensor, tensor}, &v);
  EXPECT_EQ(ToText(v), "list { tensor { dtype: DT_BOOL } tensor { dtype: DT_BOOL } }");
  NameAttrList func;
  func.set_name("g");
  SetAttrValue(std::vector<NameAttrList>{func}, &v);
  EXPECT_EQ(ToText(v), "list { func { name: \"g\" } }");
  std::vector<std::string> moved = {"x", "y"};
  MoveAttrValue(std::move(moved), &v);
  EXPECT_EQ(ToText(v), "list { s: \"x\" s: \"y\" }");
}

TEST(SetAttrValueTest, ListReplacesPreviousList) {
  AttrValue v = FromText("list { i: [1, 2] }");
  SetAttrValue(std::vector<std::string>{"a"}, &v);
  EXPECT_EQ(ToText(v), "list { s: \"a\" }");
}

TEST(SetAttrValueTest, EmptyListIsStillAList) {
  AttrValue v = FromText("i: 3");
  SetAttrValue(std::vector<int32>{}, &v);
  EXPECT_EQ(v.value_case(), AttrValue::kList);
  OPKIT_EXPECT_OK(AttrValueHasType(v, "list(int)"));
  OPKIT_EXPECT_OK(AttrValueHasType(v, "list(string)"));
}

TEST(SetAttrValueTest, ShapesAndTensors) {
  AttrValue v;
  SetAttrValue(TensorShape({2, 3}), &v);
  EXPECT_EQ(ToText(v), "shape { dim { size: 2 } dim { size: 3 } }");
  SetAttrValue(PartialTensorShape({-1, 3}), &v);
  EXPECT_EQ(ToText(v), "shape { dim { size: -1 } dim { size: 3 } }");
  SetAttrValue(PartialTensorShape(), &v);
  EXPECT_EQ(ToText(v), "shape { unknown_rank: true }");
  SetAttrValue(std::vector<TensorShape>{TensorShape({1}), TensorShape({})}, &v);
  EXPECT_EQ(ToText(v), "list { shape { dim { size: 1 } } shape { } }");
  SetAttrValue(std::vector<PartialTensorShape>{PartialTensorShape()}, &v);
  EXPECT_EQ(ToText(v), "list { shape { unknown_rank: true } }");

  // One element goes in the typed field, more as tensor_content.
  SetAttrValue(Tensor(2.5f), &v);
  EXPECT_EQ(ToText(v), "tensor { dtype: DT_FLOAT tensor_shape { } float_val: 2.5 }");
  Tensor two(DT_INT32, TensorShape({2}));
  two.flat<int32>()(0) = 1;
  two.flat<int32>()(1) = 2;
  SetAttrValue(two, &v);
  ASSERT_TRUE(v.has_tensor());
  EXPECT_EQ(v.tensor().tensor_content().size(), 8u);
  EXPECT_EQ(v.tensor().int_val_size(), 0);
  SetAttrValue(std::vector<Tensor>{Tensor(int32{7}), two}, &v);
  ASSERT_EQ(v.list().tensor_size(), 2);
  EXPECT_EQ(v.list().tensor(0).int_val_size(), 1);
  EXPECT_EQ(v.list().tensor(1).tensor_content().size(), 8u);
}

// ---------------------------------------------------------------------------
// AttrValueHasType

TEST(AttrValueHasTypeTest, MatchingTypes) {
  const std::vector<std::pair<std::string, std::string>> ok = {
      {"s: 'x'", "string"},          {"i: 1", "int"},
      {"f: 1", "float"},             {"b: true", "bool"},
      {"type: DT_FLOAT", "type"},    {"shape { }", "shape"},
      {"tensor { }", "tensor"},      {"func { name: 'f' }", "func"},
      {"list { s: 'x' }", "list(string)"}, {"list { i: 1 }", "list(int)"},
      {"list { f: 1 }", "list(float)"},    {"list { b: true }", "list(bool)"},
      {"list { type: DT_INT8 }", "list(type)"},
      {"list { shape { } }", "list(shape)"},
      {"list { tensor { } }", "list(tensor)"},
      {"list { func { } }", "list(func)"},
      {"list { }", "list(int)"},     {"", "list(float)"},
  };
  for (const auto& [text, type] : ok) {
    OPKIT_EXPECT_OK(AttrValueHasType(FromText(text), type)) << text << " as " << type;
  }
}

TEST(AttrValueHasTypeTest, Mismatches) {
  const std::vector<std::tuple<std::string, std::string, std::string>> bad = {
      {"i: 1", "string", "AttrValue had value with type 'int' when 'string' expected"},
      {"s: 'x'", "int", "AttrValue had value with type 'string' when 'int' expected"},
      {"i: 1", "list(int)", "AttrValue had value with type 'int' when 'list(int)' expected"},
      {"list { i: 1 }", "int",
       "AttrValue had value with type 'list(int)' when 'int' expected"},
      {"list { i: 1 f: 2 }", "list(int)",
       "AttrValue had value with type 'list(float)' when 'list(int)' expected"},
      {"list { }", "int", "AttrValue missing value with expected type 'int'"},
      {"", "shape", "AttrValue missing value with expected type 'shape'"},
      {"placeholder: 'T'", "int", "AttrValue had value with unexpected type 'placeholder'"},
      {"type: DT_FLOAT_REF", "type", "AttrValue must not have reference type value of float_ref"},
      {"type: DT_INVALID", "type", "AttrValue has invalid DataType"},
      {"list { type: DT_INVALID }", "list(type)", "AttrValue contains invalid DataType"},
      {"list { type: DT_INT32_REF }", "list(type)",
       "AttrValue must not have reference type value of int32_ref"},
  };
  for (const auto& [text, type, message] : bad) {
    EXPECT_THAT(AttrValueHasType(FromText(text), type),
                StatusIs(error::INVALID_ARGUMENT, message))
        << text << " as " << type;
  }
}

TEST(AttrValueHasTypeTest, OutOfRangeEnum) {
  AttrValue v;
  v.set_type(static_cast<DataType>(99));
  EXPECT_THAT(AttrValueHasType(v, "type"),
              StatusIs(error::INVALID_ARGUMENT, "AttrValue has invalid DataType enum: 99"));
  AttrValue l;
  l.mutable_list()->add_type(static_cast<DataType>(-3));
  EXPECT_THAT(AttrValueHasType(l, "list(type)"),
              StatusIs(error::INVALID_ARGUMENT, "AttrValue has invalid DataType enum: -3"));
}

// ---------------------------------------------------------------------------
// SummarizeAttrValue

std::string Summary(const std::string& text) { return SummarizeAttrValue(FromText(text)); }

TEST(SummarizeAttrValueTest, Scalars) {
  EXPECT_EQ(Summary("s: 'foo'"), "\"foo\"");
  EXPECT_EQ(Summary("s: 'a\"b\\\\c\\n\\001'"), "\"a\\\"b\\\\c\\n\\001\"");
  EXPECT_EQ(Summary("s: \"it's\""), "\"it\\'s\"");
  EXPECT_EQ(Summary("i: -42"), "-42");
  EXPECT_EQ(Summary("f: 1"), "1");
  EXPECT_EQ(Summary("f: 0.1"), "0.1");
  EXPECT_EQ(Summary("f: 1.5e-07"), "1.5e-07");
  EXPECT_EQ(Summary("f: 1e10"), "1e+10");
  EXPECT_EQ(Summary("f: 3.14159274"), "3.14159274");  // 6 digits do not round-trip
  EXPECT_EQ(Summary("f: 123456"), "123456");
  EXPECT_EQ(Summary("f: 1234567"), "1234567");
  EXPECT_EQ(Summary("f: -inf"), "-inf");
  EXPECT_EQ(Summary("f: nan"), "nan");
  EXPECT_EQ(Summary("b: false"), "false");
  EXPECT_EQ(Summary("type: DT_FLOAT"), "DT_FLOAT");
  EXPECT_EQ(Summary("type: DT_INT32_REF"), "DT_INT32_REF");
  EXPECT_EQ(Summary("shape { dim { size: 2 } dim { size: 3 } }"), "[2,3]");
  EXPECT_EQ(Summary("shape { dim { size: -1 } dim { size: 3 } }"), "[?,3]");
  EXPECT_EQ(Summary("shape { }"), "[]");
  EXPECT_EQ(Summary("shape { unknown_rank: true }"), "<unknown>");
  EXPECT_EQ(Summary("placeholder: 'T'"), "$T");
  EXPECT_EQ(Summary(""), "<Unknown AttrValue type>");
  AttrValue bad_type;
  bad_type.set_type(static_cast<DataType>(99));
  EXPECT_EQ(SummarizeAttrValue(bad_type), "<invalid DataType 99>");
}

TEST(SummarizeAttrValueTest, StringsAreCEscaped) {
  AttrValue v;
  SetAttrValue(std::string("a\nb\r\t\"'\\\x01\x7f\xff", 11), &v);
  EXPECT_EQ(SummarizeAttrValue(v), "\"a\\nb\\r\\t\\\"\\'\\\\\\001\\177\\377\"");
}

TEST(SummarizeAttrValueTest, LongStringKeepsBothEnds) {
  AttrValue v;
  SetAttrValue(std::string(79, 'a'), &v);
  EXPECT_EQ(SummarizeAttrValue(v), "\"" + std::string(79, 'a') + "\"");
  SetAttrValue("0123456789" + std::string(70, 'x') + "abcdefghij", &v);
  EXPECT_EQ(SummarizeAttrValue(v), "\"0123456789...abcdefghij\"");
}

TEST(SummarizeAttrValueTest, Lists) {
  EXPECT_EQ(Summary("list { }"), "[]");
  EXPECT_EQ(Summary("list { i: [1, 2, 3] }"), "[1, 2, 3]");
  EXPECT_EQ(Summary("list { s: ['a', 'b'] }"), "[\"a\", \"b\"]");
  EXPECT_EQ(Summary("list { f: [0.5, 2] }"), "[0.5, 2]");
  EXPECT_EQ(Summary("list { b: [true, false] }"), "[true, false]");
  EXPECT_EQ(Summary("list { type: [DT_FLOAT, DT_INT32] }"), "[DT_FLOAT, DT_INT32]");
  EXPECT_EQ(Summary("list { shape { dim { size: 1 } } shape { unknown_rank: true } }"),
            "[[1], <unknown>]");
  EXPECT_EQ(Summary("list { func { name: 'f' } func { name: 'g' } }"), "[f[], g[]]");
}

TEST(SummarizeAttrValueTest, LongListIsTruncatedWithHash) {
  std::vector<int64> values;
  for (int i = 0; i < 29; ++i) values.push_back(i);
  AttrValue v;
  SetAttrValue(values, &v);
  EXPECT_THAT(SummarizeAttrValue(v), ::testing::StartsWith("[0, 1, 2, 3, 4, 5, 6,"));
  EXPECT_THAT(SummarizeAttrValue(v), ::testing::EndsWith(", 27, 28]"));
  values.push_back(29);
  SetAttrValue(values, &v);
  const std::string summary = SummarizeAttrValue(v);
  EXPECT_THAT(summary, ::testing::MatchesRegex(
                           "\\[0, 1, 2, 3, 4, \\.\\.\\., 25, 26, 27, 28, 29\\]"
                           "\\{attr_hash=[0-9]+\\}"));
  // The hash tells apart lists that print alike.
  values[10] = 1000;
  AttrValue other;
  SetAttrValue(values, &other);
  EXPECT_NE(SummarizeAttrValue(other), summary);
}

TEST(SummarizeAttrValueTest, FuncAttrsAreSorted) {
  AttrValue v = FromText(R"pb(
    func {
      name: "MyFn"
      attr { key: "b" value { i: 2 } }
      attr { key: "a" value { type: DT_FLOAT } }
      attr { key: "c" value { list { s: "x" } } }
    }
  )pb");
  EXPECT_EQ(SummarizeAttrValue(v), "MyFn[a=DT_FLOAT, b=2, c=[\"x\"]]");
}

TEST(SummarizeAttrValueTest, Tensors) {
  EXPECT_EQ(Summary("tensor { dtype: DT_FLOAT tensor_shape { } float_val: 1 }"),
            "Tensor<type: float shape: [] values: 1>");
  EXPECT_EQ(Summary("tensor { dtype: DT_INT32 tensor_shape { dim { size: 3 } } int_val: 5 }"),
            "Tensor<type: int32 shape: [3] values: 5 5 5>");
  EXPECT_EQ(Summary("list { tensor { dtype: DT_BOOL tensor_shape { } bool_val: true } }"),
            "[Tensor<type: bool shape: [] values: 1>]");
  EXPECT_THAT(Summary("tensor { dtype: DT_FLOAT tensor_shape { dim { size: -1 } } }"),
              ::testing::StartsWith("<Invalid TensorProto: dtype: DT_FLOAT"));
  // A huge tensor is not materialized to be printed.
  EXPECT_EQ(Summary("tensor { dtype: DT_FLOAT tensor_shape { dim { size: 1000000000000 } } "
                    "float_val: 1 }"),
            "Tensor<type: float shape: [1000000000000]>");
}

// ---------------------------------------------------------------------------
// AreAttrValuesEqual / AttrValueHash

void ExpectEqualAndSameHash(const AttrValue& a, const AttrValue& b) {
  EXPECT_TRUE(AreAttrValuesEqual(a, b)) << ToText(a) << " vs " << ToText(b);
  EXPECT_TRUE(AreAttrValuesEqual(b, a)) << ToText(a) << " vs " << ToText(b);
  EXPECT_EQ(AttrValueHash(a), AttrValueHash(b)) << ToText(a) << " vs " << ToText(b);
}

void ExpectDifferent(const AttrValue& a, const AttrValue& b) {
  EXPECT_FALSE(AreAttrValuesEqual(a, b)) << ToText(a) << " vs " << ToText(b);
  EXPECT_FALSE(AreAttrValuesEqual(b, a)) << ToText(a) << " vs " << ToText(b);
  EXPECT_NE(AttrValueHash(a), AttrValueHash(b)) << ToText(a) << " vs " << ToText(b);
}

TEST(AreAttrValuesEqualTest, Plain) {
  const std::vector<std::string> distinct = {
      "",  "i: 0", "i: 1", "f: 0", "s: ''", "s: 'a'", "b: false", "b: true",
      "type: DT_FLOAT", "type: DT_INT32", "shape { }", "shape { unknown_rank: true }",
      "list { }", "list { i: 1 }", "list { i: [1, 2] }", "list { s: '1' }",
      "func { name: 'f' }", "func { name: 'g' }", "placeholder: 'T'",
  };
  for (size_t i = 0; i < distinct.size(); ++i) {
    ExpectEqualAndSameHash(FromText(distinct[i]), FromText(distinct[i]));
    for (size_t j = i + 1; j < distinct.size(); ++j) {
      ExpectDifferent(FromText(distinct[i]), FromText(distinct[j]));
    }
  }
}

TEST(AreAttrValuesEqualTest, FuncAttrOrderDoesNotMatter) {
  AttrValue a, b;
  a.mutable_func()->set_name("f");
  b.mutable_func()->set_name("f");
  for (int i = 0; i < 20; ++i) {
    (*a.mutable_func()->mutable_attr())[StrCat("k", i)].set_i(i);
    (*b.mutable_func()->mutable_attr())[StrCat("k", 19 - i)].set_i(19 - i);
  }
  ExpectEqualAndSameHash(a, b);
  (*b.mutable_func()->mutable_attr())["k3"].set_i(100);
  ExpectDifferent(a, b);
  AttrValue c = a;
  (*c.mutable_func()->mutable_attr())["extra"].set_i(0);
  ExpectDifferent(a, c);
}

TEST(AreAttrValuesEqualTest, NestedFuncTensorsCompareByContent) {
  AttrValue a = FromText(
      "func { name: 'f' attr { key: 't' value { tensor { dtype: DT_INT32 "
      "tensor_shape { dim { size: 2 } } int_val: 7 } } } }");
  AttrValue b = FromText(
      "func { name: 'f' attr { key: 't' value { tensor { dtype: DT_INT32 "
      "tensor_shape { dim { size: 2 } } int_val: [7, 7] } } } }");
  ExpectEqualAndSameHash(a, b);
}

TEST(AreAttrValuesEqualTest, TensorsCompareByContent) {
  const AttrValue padded = FromText(
      "tensor { dtype: DT_FLOAT tensor_shape { dim { size: 3 } } float_val: 1 }");
  const AttrValue spelled = FromText(
      "tensor { dtype: DT_FLOAT tensor_shape { dim { size: 3 } } float_val: [1, 1, 1] }");
  AttrValue content;
  Tensor t(DT_FLOAT, TensorShape({3}));
  t.flat<float>().setConstant(1.0f);
  SetAttrValue(t, &content);
  ASSERT_FALSE(content.tensor().tensor_content().empty());
  ExpectEqualAndSameHash(padded, spelled);
  ExpectEqualAndSameHash(padded, content);

  ExpectDifferent(padded, FromText("tensor { dtype: DT_FLOAT tensor_shape { dim { size: 3 } } "
                                   "float_val: [1, 1, 2] }"));
  ExpectDifferent(padded, FromText("tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } } "
                                   "float_val: 1 }"));
  ExpectDifferent(padded, FromText("tensor { dtype: DT_INT32 tensor_shape { dim { size: 3 } } "
                                   "int_val: 1 }"));
}

TEST(AreAttrValuesEqualTest, ListsOfTensorsAndFuncsCompareByContent) {
  const AttrValue a = FromText(
      "list { tensor { dtype: DT_INT32 tensor_shape { dim { size: 2 } } int_val: 7 } "
      "func { name: 'f' attr { key: 'x' value { i: 1 } } attr { key: 'y' value { i: 2 } } } }");
  const AttrValue b = FromText(
      "list { tensor { dtype: DT_INT32 tensor_shape { dim { size: 2 } } int_val: [7, 7] } "
      "func { name: 'f' attr { key: 'y' value { i: 2 } } attr { key: 'x' value { i: 1 } } } }");
  ExpectEqualAndSameHash(a, b);
  ExpectDifferent(a, FromText(
      "list { tensor { dtype: DT_INT32 tensor_shape { dim { size: 2 } } int_val: [7, 8] } "
      "func { name: 'f' attr { key: 'x' value { i: 1 } } attr { key: 'y' value { i: 2 } } } }"));
  ExpectDifferent(a, FromText(
      "list { tensor { dtype: DT_INT32 tensor_shape { dim { size: 2 } } int_val: 7 } }"));
  ExpectDifferent(FromText("list { tensor { dtype: DT_INT32 int_val: 1 } i: 1 }"),
                  FromText("list { tensor { dtype: DT_INT32 int_val: 1 } i: 2 }"));
}

TEST(AreAttrValuesEqualTest, MalformedTensors) {
  const AttrValue bad = FromText(
      "tensor { dtype: DT_FLOAT tensor_shape { dim { size: 1 } } float_val: [1, 2, 3] }");
  const AttrValue good = FromText(
      "tensor { dtype: DT_FLOAT tensor_shape { dim { size: 1 } } float_val: 1 }");
  ExpectEqualAndSameHash(bad, bad);
  ExpectDifferent(bad, good);
}

TEST(AreAttrValuesEqualTest, HugeTensorsAreNotMaterialized) {
  const AttrValue a = FromText(
      "tensor { dtype: DT_FLOAT tensor_shape { dim { size: 1000000000000 } } float_val: 1 }");
  const AttrValue b = FromText(
      "tensor { dtype: DT_FLOAT tensor_shape { dim { size: 1000000000000 } } float_val: 2 }");
  ExpectEqualAndSameHash(a, a);
  ExpectDifferent(a, b);
}

// ---------------------------------------------------------------------------
// Placeholders

TEST(PlaceholderTest, HasPlaceHolder) {
  EXPECT_TRUE(HasPlaceHolder(FromText("placeholder: 'T'")));
  EXPECT_FALSE(HasPlaceHolder(FromText("i: 1")));
  EXPECT_FALSE(HasPlaceHolder(FromText("")));
  EXPECT_TRUE(HasPlaceHolder(FromText(
      "func { name: 'f' attr { key: 'a' value { placeholder: 'T' } } }")));
  EXPECT_FALSE(HasPlaceHolder(FromText("func { name: 'f' attr { key: 'a' value { i: 1 } } }")));
  EXPECT_TRUE(HasPlaceHolder(FromText(
      "list { func { name: 'f' attr { key: 'a' value { func { name: 'g' "
      "attr { key: 'b' value { placeholder: 'U' } } } } } } }")));
}

TEST(PlaceholderTest, Substitute) {
  AttrValue v = FromText(
      "list { func { name: 'f' attr { key: 'a' value { placeholder: 'T' } } "
      "attr { key: 'b' value { i: 3 } } } }");
  std::vector<std::string> seen;
  EXPECT_TRUE(SubstitutePlaceholders(
      [&](const std::string& name, AttrValue* out) {
        seen.push_back(name);
        out->set_type(DT_DOUBLE);
        return true;
      },
      &v));
  EXPECT_EQ(seen, std::vector<std::string>{"T"});
  EXPECT_FALSE(HasPlaceHolder(v));
  EXPECT_EQ(v.list().func(0).attr().at("a").type(), DT_DOUBLE);

  AttrValue failing = FromText("placeholder: 'X'");
  EXPECT_FALSE(SubstitutePlaceholders(
      [](const std::string&, AttrValue*) { return false; }, &failing));
  AttrValue unset;
  EXPECT_FALSE(SubstitutePlaceholders(
      [](const std::string&, AttrValue*) { return true; }, &unset));
}

}  // namespace
}  // namespace opkit
