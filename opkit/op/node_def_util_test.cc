// Tests for node_def_util: AttrSlice, GetNodeAttr for every attr kind,
// AddNodeAttr, defaults, ValidateNodeDef, input/output types, name ranges,
// syntax checks and the summaries, with small OpDefs and NodeDefs written as
// text protos.
#include "opkit/op/node_def_util.h"

#include <climits>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "opkit/core/errors.h"
#include "opkit/op/attr_value_util.h"
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
using ::testing::Not;
using ::testing::UnorderedElementsAre;

OpDef ToOpDef(const std::string& text) {
  OpDef op_def;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &op_def)) << text;
  return op_def;
}

NodeDef ToNodeDef(const std::string& text) {
  NodeDef node_def;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &node_def)) << text;
  return node_def;
}

AttrValue ToAttrValue(const std::string& text) {
  AttrValue value;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &value)) << text;
  return value;
}

// An attr-rich node for the GetNodeAttr tests.
NodeDef AttrNode() {
  return ToNodeDef(R"pb(
    name: "n"
    op: "Attrs"
    attr { key: "s" value { s: "hello" } }
    attr { key: "i" value { i: -7 } }
    attr { key: "big" value { i: 5000000000 } }
    attr { key: "f" value { f: 1.5 } }
    attr { key: "b" value { b: true } }
    attr { key: "t" value { type: DT_INT32 } }
    attr { key: "t_ref" value { type: DT_FLOAT_REF } }
    attr { key: "t_invalid" value { type: DT_INVALID } }
    attr { key: "shape" value { shape { dim { size: 2 } dim { size: 3 } } } }
    attr { key: "pshape" value { shape { dim { size: -1 } dim { size: 3 } } } }
    attr { key: "unknown_rank" value { shape { unknown_rank: true } } }
    attr { key: "bad_shape" value { shape { dim { size: -5 } } } }
    attr {
      key: "tensor"
      value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } } float_val: 1 float_val: 2 } }
    }
    attr {
      key: "bad_tensor"
      value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } } tensor_content: "abc" } }
    }
    attr { key: "func" value { func { name: "F" attr { key: "x" value { i: 1 } } } } }
    attr { key: "ls" value { list { s: "a" s: "b" } } }
    attr { key: "li" value { list { i: 1 i: 2 i: 3 } } }
    attr { key: "li_big" value { list { i: 1 i: -3000000000 } } }
    attr { key: "lf" value { list { f: 0.5 f: 2 } } }
    attr { key: "lb" value { list { b: true b: false } } }
    attr { key: "lt" value { list { type: DT_FLOAT type: DT_STRING } } }
    attr { key: "lt_ref" value { list { type: DT_FLOAT type: DT_INT32_REF } } }
    attr { key: "lshape" value { list { shape { dim { size: 1 } } shape { unknown_rank: true } } } }
    attr { key: "lshape_known" value { list { shape { dim { size: 1 } } shape {} } } }
    attr {
      key: "ltensor"
      value { list { tensor { dtype: DT_INT32 int_val: 4 } tensor { dtype: DT_INT32 tensor_shape { dim { size: 2 } } int_val: 5 int_val: 6 } } }
    }
    attr { key: "lfunc" value { list { func { name: "G" } func { name: "H" } } } }
    attr { key: "empty_list" value { list {} } }
    attr { key: "no_value" value {} }
    attr { key: "_internal" value { s: "x" } }
  )pb");
}

// ---------------------------------------------------------------------------
// AttrSlice

TEST(AttrSliceTest, EmptySlice) {
  AttrSlice empty;
  EXPECT_EQ(empty.size(), 0);
  EXPECT_TRUE(empty.empty());
  EXPECT_EQ(empty.Find("x"), nullptr);
  EXPECT_EQ(empty.begin(), empty.end());
  EXPECT_EQ(empty.DebugString(), "");
  EXPECT_EQ(empty.SummarizeNode(), "[]");
  AttrSlice null_map(static_cast<const AttrValueMap*>(nullptr));
  EXPECT_EQ(null_map.size(), 0);
  EXPECT_EQ(null_map.Find("x"), nullptr);
}

TEST(AttrSliceTest, OverNodeDef) {
  const NodeDef node = ToNodeDef(R"pb(
    name: "n" op: "Op" input: "a"
    attr { key: "T" value { type: DT_FLOAT } }
    attr { key: "N" value { i: 2 } }
  )pb");
  const AttrSlice attrs(node);
  EXPECT_EQ(attrs.size(), 2);
  EXPECT_EQ(attrs.node_def(), &node);
  ASSERT_NE(attrs.Find("T"), nullptr);
  EXPECT_EQ(attrs.Find("T")->type(), DT_FLOAT);
  EXPECT_EQ(attrs.Find(std::string("N"))->i(), 2);
  EXPECT_EQ(attrs.FindByString("N")->i(), 2);
  EXPECT_EQ(attrs.Find("missing"), nullptr);

  std::set<std::string> names;
  for (const auto& entry : attrs) names.insert(entry.first);
  EXPECT_THAT(names, UnorderedElementsAre("N", "T"));

  EXPECT_EQ(attrs.DebugString(), "N=2, T=DT_FLOAT");
  EXPECT_EQ(attrs.SummarizeNode(), "{{node n}} = Op[N=2, T=DT_FLOAT](a)");

  const AttrValue* value = nullptr;
  OPKIT_EXPECT_OK(attrs.Find("T", &value));
  EXPECT_EQ(value, attrs.Find("T"));
  EXPECT_THAT(attrs.Find("x", &value),
              StatusIs(error::NOT_FOUND,
                       AllOf(HasSubstr("No attr named 'x' in NodeDef:"),
                             HasSubstr("[[{{node n}}]]"))));
  EXPECT_EQ(value, nullptr);
}

TEST(AttrSliceTest, OverMap) {
  AttrValueMap map;
  AddAttr("b", true, &map);
  AddAttr("a", ToAttrValue("i: 3"), &map);
  const AttrSlice attrs(&map);
  EXPECT_EQ(attrs.size(), 2);
  EXPECT_EQ(attrs.node_def(), nullptr);
  EXPECT_TRUE(attrs.Find("b")->b());
  EXPECT_EQ(attrs.SummarizeNode(), "[a=3, b=true]");
  const AttrValue* value = nullptr;
  EXPECT_THAT(attrs.Find("zz", &value),
              StatusIs(error::NOT_FOUND,
                       AllOf(HasSubstr("No attr named 'zz' in NodeDef:"),
                             HasSubstr("[a=3, b=true]"))));
}

TEST(AttrSliceTest, OverlayWinsOverNodeDef) {
  const NodeDef node = ToNodeDef(R"pb(
    name: "n" op: "Op"
    attr { key: "T" value { type: DT_FLOAT } }
    attr { key: "keep" value { i: 1 } }
  )pb");
  AttrValueMap overlay;
  AddAttr("T", ToAttrValue("type: DT_INT32"), &overlay);
  AddAttr("extra", true, &overlay);
  const AttrSlice attrs(node, &overlay);
  EXPECT_EQ(attrs.size(), 3);
  EXPECT_EQ(attrs.Find("T")->type(), DT_INT32);
  EXPECT_EQ(attrs.Find("keep")->i(), 1);
  EXPECT_TRUE(attrs.Find("extra")->b());
  EXPECT_EQ(attrs.node_def(), &node);

  std::vector<std::string> names;
  for (const auto& entry : attrs) names.push_back(entry.first);
  EXPECT_THAT(names, UnorderedElementsAre("T", "keep", "extra"));
  EXPECT_EQ(std::distance(attrs.begin(), attrs.end()), 3);
  EXPECT_EQ(attrs.DebugString(), "T=DT_INT32, extra=true, keep=1");
  EXPECT_EQ(attrs.SummarizeNode(), "{{node n}} = Op[T=DT_INT32, extra=true, keep=1]()");

  // A null overlay is the node alone.
  const AttrSlice plain(node, nullptr);
  EXPECT_EQ(plain.size(), 2);
  EXPECT_EQ(plain.Find("T")->type(), DT_FLOAT);
}

TEST(AttrSliceTest, MapWithOverlay) {
  AttrValueMap base;
  AddAttr("a", ToAttrValue("i: 1"), &base);
  AddAttr("b", ToAttrValue("i: 2"), &base);
  AttrValueMap overlay;
  AddAttr("b", ToAttrValue("i: 20"), &overlay);
  const AttrSlice attrs(&base, &overlay);
  EXPECT_EQ(attrs.size(), 2);
  EXPECT_EQ(attrs.Find("a")->i(), 1);
  EXPECT_EQ(attrs.Find("b")->i(), 20);
  EXPECT_EQ(attrs.DebugString(), "a=1, b=20");
  const AttrSlice no_overlay(&base, nullptr);
  EXPECT_EQ(no_overlay.Find("b")->i(), 2);
  // Only an overlay.
  const AttrSlice only_overlay(nullptr, &overlay);
  EXPECT_EQ(only_overlay.size(), 1);
  EXPECT_EQ(only_overlay.Find("b")->i(), 20);
}

TEST(AttrSliceTest, WithDefaultsNodeWins) {
  const NodeDef node = ToNodeDef(R"pb(
    name: "n" op: "Op" attr { key: "T" value { type: DT_FLOAT } }
  )pb");
  AttrValueMap defaults;
  AddAttr("T", ToAttrValue("type: DT_INT32"), &defaults);
  AddAttr("transpose_a", false, &defaults);
  const AttrSlice attrs = AttrSlice::WithDefaults(node, &defaults);
  EXPECT_EQ(attrs.size(), 2);
  EXPECT_EQ(attrs.Find("T")->type(), DT_FLOAT);
  EXPECT_FALSE(attrs.Find("transpose_a")->b());
  DataType t;
  OPKIT_EXPECT_OK(GetNodeAttr(attrs, "T", &t));
  EXPECT_EQ(t, DT_FLOAT);
  bool transpose_a = true;
  OPKIT_EXPECT_OK(GetNodeAttr(attrs, "transpose_a", &transpose_a));
  EXPECT_FALSE(transpose_a);
  EXPECT_EQ(AttrSlice::WithDefaults(node, nullptr).size(), 1);
}

TEST(AttrSliceTest, IterationSkipsShadowedEntriesWhenFrontIsEmpty) {
  AttrValueMap empty;
  AttrValueMap back;
  AddAttr("x", true, &back);
  const AttrSlice attrs(&back, &empty);
  std::vector<std::string> names;
  for (const auto& entry : attrs) names.push_back(entry.first);
  EXPECT_THAT(names, ElementsAre("x"));

  AttrValueMap same;
  AddAttr("x", false, &same);
  const AttrSlice shadowed(&back, &same);
  names.clear();
  for (auto it = shadowed.begin(); it != shadowed.end(); it++) names.push_back(it->first);
  EXPECT_THAT(names, ElementsAre("x"));
  EXPECT_FALSE(shadowed.Find("x")->b());
}

TEST(AttrSliceTest, EqualAttrs) {
  AttrValueMap a;
  AddAttr("x", true, &a);
  AddAttr("y", ToAttrValue("i: 1"), &a);
  AttrValueMap b;
  AddAttr("y", ToAttrValue("i: 1"), &b);
  AddAttr("x", true, &b);
  EXPECT_TRUE(AttrSlice(&a).EqualAttrs(AttrSlice(&b)));
  AddAttr("y", ToAttrValue("i: 2"), &b);
  EXPECT_FALSE(AttrSlice(&a).EqualAttrs(AttrSlice(&b)));
  AttrValueMap c;
  AddAttr("x", true, &c);
  EXPECT_FALSE(AttrSlice(&a).EqualAttrs(AttrSlice(&c)));
  AddAttr("z", ToAttrValue("i: 1"), &c);
  EXPECT_FALSE(AttrSlice(&a).EqualAttrs(AttrSlice(&c)));
}

// ---------------------------------------------------------------------------
// GetNodeAttr, every kind.

TEST(GetNodeAttrTest, Scalars) {
  const NodeDef node = AttrNode();
  std::string s;
  OPKIT_ASSERT_OK(GetNodeAttr(node, "s", &s));
  EXPECT_EQ(s, "hello");
  int64 i64 = 0;
  OPKIT_ASSERT_OK(GetNodeAttr(node, "i", &i64));
  EXPECT_EQ(i64, -7);
  OPKIT_ASSERT_OK(GetNodeAttr(node, "big", &i64));
  EXPECT_EQ(i64, 5000000000);
  int32 i32 = 0;
  OPKIT_ASSERT_OK(GetNodeAttr(node, "i", &i32));
  EXPECT_EQ(i32, -7);
  float f = 0;
  OPKIT_ASSERT_OK(GetNodeAttr(node, "f", &f));
  EXPECT_EQ(f, 1.5f);
  bool b = false;
  OPKIT_ASSERT_OK(GetNodeAttr(node, "b", &b));
  EXPECT_TRUE(b);
  DataType t = DT_INVALID;
  OPKIT_ASSERT_OK(GetNodeAttr(node, "t", &t));
  EXPECT_EQ(t, DT_INT32);
  const std::string& str = GetNodeAttrString(node, "s");
  EXPECT_EQ(str, "hello");
  EXPECT_EQ(&str, &node.attr().at("s").s());
}

TEST(GetNodeAttrTest, Shapes) {
  const NodeDef node = AttrNode();
  TensorShapeProto proto;
  OPKIT_ASSERT_OK(GetNodeAttr(node, "pshape", &proto));
  EXPECT_EQ(proto.dim_size(), 2);
  EXPECT_EQ(proto.dim(0).size(), -1);

  TensorShape shape;
  OPKIT_ASSERT_OK(GetNodeAttr(node, "shape", &shape));
  EXPECT_EQ(shape, TensorShape({2, 3}));

  PartialTensorShape partial;
  OPKIT_ASSERT_OK(GetNodeAttr(node, "pshape", &partial));
  EXPECT_TRUE(partial.IsIdenticalTo(PartialTensorShape({-1, 3})));
  OPKIT_ASSERT_OK(GetNodeAttr(node, "unknown_rank", &partial));
  EXPECT_TRUE(partial.unknown_rank());
}

TEST(GetNodeAttrTest, ShapeErrors) {
  const NodeDef node = AttrNode();
  TensorShape shape({7});
  // Unknown dimensions and unknown rank are not a TensorShape.
  EXPECT_THAT(GetNodeAttr(node, "pshape", &shape),
              StatusIs(error::INVALID_ARGUMENT,
                       AllOf(HasSubstr("for attr 'pshape'"), HasSubstr("{{node n}}"))));
  EXPECT_THAT(GetNodeAttr(node, "unknown_rank", &shape),
              StatusIs(error::INVALID_ARGUMENT,
                       AllOf(HasSubstr("unknown rank"), HasSubstr("{{node n}}"))));
  EXPECT_EQ(shape, TensorShape({7}));
  PartialTensorShape partial({1});
  EXPECT_THAT(GetNodeAttr(node, "bad_shape", &partial),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("for attr 'bad_shape'")));
  EXPECT_TRUE(partial.IsIdenticalTo(PartialTensorShape({1})));
  TensorShapeProto proto;
  EXPECT_THAT(GetNodeAttr(node, "i", &proto),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("AttrValue had value with type 'int' when 'shape' "
                                 "expected")));
}

TEST(GetNodeAttrTest, Tensors) {
  const NodeDef node = AttrNode();
  Tensor t;
  OPKIT_ASSERT_OK(GetNodeAttr(node, "tensor", &t));
  EXPECT_EQ(t.dtype(), DT_FLOAT);
  EXPECT_EQ(t.shape(), TensorShape({2}));
  EXPECT_EQ(t.flat<float>()(0), 1.0f);
  EXPECT_EQ(t.flat<float>()(1), 2.0f);

  const TensorProto* proto = nullptr;
  OPKIT_ASSERT_OK(GetNodeAttr(node, "tensor", &proto));
  EXPECT_EQ(proto, &node.attr().at("tensor").tensor());

  Tensor untouched(5.0f);
  EXPECT_THAT(GetNodeAttr(node, "bad_tensor", &untouched),
              StatusIs(error::INVALID_ARGUMENT,
                       AllOf(HasSubstr("Attr bad_tensor has value"),
                             HasSubstr("that can't be converted to a Tensor"),
                             HasSubstr("{{node n}}"))));
  EXPECT_EQ(untouched.scalar<float>()(), 5.0f);

  std::vector<Tensor> tensors;
  OPKIT_ASSERT_OK(GetNodeAttr(node, "ltensor", &tensors));
  ASSERT_EQ(tensors.size(), 2u);
  EXPECT_EQ(tensors[0].scalar<int32>()(), 4);
  EXPECT_EQ(tensors[1].flat<int32>()(1), 6);
}

TEST(GetNodeAttrTest, Funcs) {
  const NodeDef node = AttrNode();
  NameAttrList func;
  OPKIT_ASSERT_OK(GetNodeAttr(node, "func", &func));
  EXPECT_EQ(func.name(), "F");
  EXPECT_EQ(func.attr().at("x").i(), 1);
  const NameAttrList* func_ptr = nullptr;
  OPKIT_ASSERT_OK(GetNodeAttr(node, "func", &func_ptr));
  EXPECT_EQ(func_ptr, &node.attr().at("func").func());
  std::vector<NameAttrList> funcs;
  OPKIT_ASSERT_OK(GetNodeAttr(node, "lfunc", &funcs));
  ASSERT_EQ(funcs.size(), 2u);
  EXPECT_EQ(funcs[1].name(), "H");
}

TEST(GetNodeAttrTest, Lists) {
  const NodeDef node = AttrNode();
  std::vector<std::string> ls;
  OPKIT_ASSERT_OK(GetNodeAttr(node, "ls", &ls));
  EXPECT_THAT(ls, ElementsAre("a", "b"));
  std::vector<int64> li64;
  OPKIT_ASSERT_OK(GetNodeAttr(node, "li_big", &li64));
  EXPECT_THAT(li64, ElementsAre(1, -3000000000));
  std::vector<int32> li32;
  OPKIT_ASSERT_OK(GetNodeAttr(node, "li", &li32));
  EXPECT_THAT(li32, ElementsAre(1, 2, 3));
  std::vector<float> lf;
  OPKIT_ASSERT_OK(GetNodeAttr(node, "lf", &lf));
  EXPECT_THAT(lf, ElementsAre(0.5f, 2.0f));
  std::vector<bool> lb;
  OPKIT_ASSERT_OK(GetNodeAttr(node, "lb", &lb));
  EXPECT_THAT(lb, ElementsAre(true, false));
  DataTypeVector lt;
  OPKIT_ASSERT_OK(GetNodeAttr(node, "lt", &lt));
  EXPECT_THAT(lt, ElementsAre(DT_FLOAT, DT_STRING));
  std::vector<TensorShapeProto> lsp;
  OPKIT_ASSERT_OK(GetNodeAttr(node, "lshape", &lsp));
  ASSERT_EQ(lsp.size(), 2u);
  EXPECT_TRUE(lsp[1].unknown_rank());
  std::vector<PartialTensorShape> lps;
  OPKIT_ASSERT_OK(GetNodeAttr(node, "lshape", &lps));
  ASSERT_EQ(lps.size(), 2u);
  EXPECT_TRUE(lps[1].unknown_rank());
  std::vector<TensorShape> lts;
  OPKIT_ASSERT_OK(GetNodeAttr(node, "lshape_known", &lts));
  EXPECT_THAT(lts, ElementsAre(TensorShape({1}), TensorShape({})));
  EXPECT_THAT(GetNodeAttr(node, "lshape", &lts),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("for attr 'lshape'")));
  EXPECT_EQ(lts.size(), 2u);  // Unchanged on error.
}

TEST(GetNodeAttrTest, ListReplacesContents) {
  const NodeDef node = AttrNode();
  std::vector<int64> values = {9, 9, 9, 9};
  OPKIT_ASSERT_OK(GetNodeAttr(node, "li", &values));
  EXPECT_THAT(values, ElementsAre(1, 2, 3));
  DataTypeVector types = {DT_BOOL};
  OPKIT_ASSERT_OK(GetNodeAttr(node, "lt", &types));
  EXPECT_THAT(types, ElementsAre(DT_FLOAT, DT_STRING));
}

TEST(GetNodeAttrTest, EmptyListAndNoValueReadAsEmptyLists) {
  const NodeDef node = AttrNode();
  std::vector<int64> li = {1};
  OPKIT_ASSERT_OK(GetNodeAttr(node, "empty_list", &li));
  EXPECT_TRUE(li.empty());
  DataTypeVector lt = {DT_FLOAT};
  OPKIT_ASSERT_OK(GetNodeAttr(node, "no_value", &lt));
  EXPECT_TRUE(lt.empty());
  // But a scalar kind needs a value.
  int64 i = 0;
  EXPECT_THAT(GetNodeAttr(node, "no_value", &i),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("AttrValue missing value with expected type 'int'")));
}

TEST(GetNodeAttrTest, MissingAttrIsNotFound) {
  const NodeDef node = AttrNode();
  std::string s = "unchanged";
  EXPECT_THAT(GetNodeAttr(node, "nope", &s),
              StatusIs(error::NOT_FOUND,
                       AllOf(HasSubstr("No attr named 'nope' in NodeDef:"),
                             HasSubstr("{{node n}}"))));
  EXPECT_EQ(s, "unchanged");
  std::vector<float> lf;
  EXPECT_THAT(GetNodeAttr(node, "_nope", &lf), StatusIs(error::NOT_FOUND, HasSubstr("_nope")));
}

TEST(GetNodeAttrTest, WrongKindIsInvalidArgument) {
  const NodeDef node = AttrNode();
  std::string s = "unchanged";
  EXPECT_THAT(GetNodeAttr(node, "i", &s),
              StatusIs(error::INVALID_ARGUMENT,
                       AllOf(HasSubstr("AttrValue had value with type 'int' when "
                                       "'string' expected"),
                             HasSubstr("for attr 'i'"), HasSubstr("[[{{node n}}]]"))));
  EXPECT_EQ(s, "unchanged");
  int64 i = 0;
  EXPECT_THAT(GetNodeAttr(node, "s", &i),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("type 'string' when 'int' expected")));
  float f = 0;
  EXPECT_THAT(GetNodeAttr(node, "b", &f),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("'bool' when 'float'")));
  bool b = false;
  EXPECT_THAT(GetNodeAttr(node, "f", &b),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("'float' when 'bool'")));
  DataType t = DT_BOOL;
  EXPECT_THAT(GetNodeAttr(node, "s", &t),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("'string' when 'type'")));
  EXPECT_EQ(t, DT_BOOL);
  std::vector<int64> li;
  EXPECT_THAT(GetNodeAttr(node, "i", &li),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("'int' when 'list(int)'")));
  EXPECT_THAT(GetNodeAttr(node, "ls", &li),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("'list(string)' when 'list(int)'")));
  Tensor tensor;
  EXPECT_THAT(GetNodeAttr(node, "s", &tensor),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("'string' when 'tensor'")));
  NameAttrList func;
  EXPECT_THAT(GetNodeAttr(node, "s", &func),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("'string' when 'func'")));
}

TEST(GetNodeAttrTest, MixedListsAndPlaceholdersAreRejected) {
  NodeDef node = ToNodeDef(R"pb(
    name: "n" op: "Attrs"
    attr { key: "mixed" value { list { i: 1 s: "a" } } }
    attr { key: "ph" value { placeholder: "T" } }
  )pb");
  std::vector<int64> li = {5};
  EXPECT_THAT(GetNodeAttr(node, "mixed", &li),
              StatusIs(error::INVALID_ARGUMENT,
                       AllOf(HasSubstr("for attr 'mixed'"), HasSubstr("{{node n}}"))));
  EXPECT_THAT(li, ElementsAre(5));
  std::vector<std::string> ls;
  EXPECT_FALSE(TryGetNodeAttr(node, "mixed", &ls));
  DataType t = DT_BOOL;
  EXPECT_THAT(GetNodeAttr(node, "ph", &t),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("placeholder")));
  DataTypeVector types;
  EXPECT_THAT(GetNodeAttr(node, "ph", &types),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("placeholder")));
}

TEST(GetNodeAttrTest, Int32OutOfRange) {
  const NodeDef node = AttrNode();
  int32 v = 11;
  EXPECT_THAT(GetNodeAttr(node, "big", &v),
              StatusIs(error::INVALID_ARGUMENT,
                       AllOf(HasSubstr("Attr big has value 5000000000 out of range "
                                       "for an int32"),
                             HasSubstr("{{node n}}"))));
  EXPECT_EQ(v, 11);
  std::vector<int32> list = {1};
  EXPECT_THAT(GetNodeAttr(node, "li_big", &list),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Attr li_big has value -3000000000 out of range "
                                 "for an int32")));
  EXPECT_THAT(list, ElementsAre(1));
  EXPECT_FALSE(TryGetNodeAttr(node, "big", &v));
  EXPECT_FALSE(TryGetNodeAttr(node, "li_big", &list));
}

TEST(GetNodeAttrTest, InvalidTypeValues) {
  NodeDef node = AttrNode();
  DataType t = DT_BOOL;
  EXPECT_THAT(GetNodeAttr(node, "t_ref", &t),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("reference type")));
  EXPECT_THAT(GetNodeAttr(node, "t_invalid", &t),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("invalid DataType")));
  (*node.mutable_attr())["t_enum"].set_type(static_cast<DataType>(9999));
  EXPECT_THAT(GetNodeAttr(node, "t_enum", &t),
              StatusIs(error::INVALID_ARGUMENT,
                       AllOf(HasSubstr("9999"), HasSubstr("for attr 't_enum'"))));
  EXPECT_EQ(t, DT_BOOL);
  DataTypeVector types;
  EXPECT_THAT(GetNodeAttr(node, "lt_ref", &types),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("reference type")));
  EXPECT_FALSE(TryGetNodeAttr(node, "t_enum", &t));
}

TEST(GetNodeAttrTest, OverMapHasNoNodeName) {
  AttrValueMap map;
  AddAttr("x", ToAttrValue("i: 1"), &map);
  std::string s;
  const Status status = GetNodeAttr(AttrSlice(&map), "x", &s);
  EXPECT_THAT(status, StatusIs(error::INVALID_ARGUMENT, HasSubstr("for attr 'x'")));
  EXPECT_THAT(status.message(), Not(HasSubstr("{{node")));
}

TEST(TryGetNodeAttrTest, AllKinds) {
  const NodeDef node = AttrNode();
  std::string s;
  EXPECT_TRUE(TryGetNodeAttr(node, "s", &s));
  EXPECT_EQ(s, "hello");
  EXPECT_FALSE(TryGetNodeAttr(node, "i", &s));
  EXPECT_FALSE(TryGetNodeAttr(node, "missing", &s));
  int64 i64 = 0;
  EXPECT_TRUE(TryGetNodeAttr(node, "big", &i64));
  EXPECT_EQ(i64, 5000000000);
  int32 i32 = 0;
  EXPECT_TRUE(TryGetNodeAttr(node, "i", &i32));
  EXPECT_EQ(i32, -7);
  float f = 0;
  EXPECT_TRUE(TryGetNodeAttr(node, "f", &f));
  bool b = false;
  EXPECT_TRUE(TryGetNodeAttr(node, "b", &b));
  EXPECT_TRUE(b);
  DataType t;
  EXPECT_TRUE(TryGetNodeAttr(node, "t", &t));
  EXPECT_EQ(t, DT_INT32);
  TensorShape shape;
  EXPECT_TRUE(TryGetNodeAttr(node, "shape", &shape));
  EXPECT_FALSE(TryGetNodeAttr(node, "pshape", &shape));
  PartialTensorShape partial;
  EXPECT_TRUE(TryGetNodeAttr(node, "pshape", &partial));
  const TensorProto* tensor = nullptr;
  EXPECT_TRUE(TryGetNodeAttr(node, "tensor", &tensor));
  EXPECT_FALSE(TryGetNodeAttr(node, "s", &tensor));
  const NameAttrList* func = nullptr;
  EXPECT_TRUE(TryGetNodeAttr(node, "func", &func));
  EXPECT_EQ(func->name(), "F");
  std::vector<std::string> ls;
  EXPECT_TRUE(TryGetNodeAttr(node, "ls", &ls));
  std::vector<const std::string*> ls_ptrs;
  EXPECT_TRUE(TryGetNodeAttr(node, "ls", &ls_ptrs));
  ASSERT_EQ(ls_ptrs.size(), 2u);
  EXPECT_EQ(*ls_ptrs[1], "b");
  std::vector<const TensorShapeProto*> shape_ptrs;
  EXPECT_TRUE(TryGetNodeAttr(node, "lshape", &shape_ptrs));
  EXPECT_EQ(shape_ptrs.size(), 2u);
  std::vector<int64> li64;
  EXPECT_TRUE(TryGetNodeAttr(node, "li", &li64));
  std::vector<int32> li32;
  EXPECT_TRUE(TryGetNodeAttr(node, "li", &li32));
  std::vector<float> lf;
  EXPECT_TRUE(TryGetNodeAttr(node, "lf", &lf));
  std::vector<bool> lb;
  EXPECT_TRUE(TryGetNodeAttr(node, "lb", &lb));
  DataTypeVector lt;
  EXPECT_TRUE(TryGetNodeAttr(node, "lt", &lt));
  EXPECT_FALSE(TryGetNodeAttr(node, "li", &lt));
  std::vector<TensorShape> lts;
  EXPECT_TRUE(TryGetNodeAttr(node, "lshape_known", &lts));
  EXPECT_FALSE(TryGetNodeAttr(node, "lshape", &lts));
}

TEST(HasNodeAttrTest, Basic) {
  const NodeDef node = AttrNode();
  EXPECT_TRUE(HasNodeAttr(node, "s"));
  EXPECT_TRUE(HasNodeAttr(node, "_internal"));
  EXPECT_FALSE(HasNodeAttr(node, "nope"));
  EXPECT_EQ(GetNodeAttrString(node, "i"), "");
  EXPECT_EQ(GetNodeAttrString(node, "nope"), "");
}

// ---------------------------------------------------------------------------
// AddNodeAttr

TEST(AddNodeAttrTest, EveryOverload) {
  NodeDef node;
  AddNodeAttr("sv", std::string_view("view"), &node);
  AddNodeAttr("cs", "chars", &node);
  AddNodeAttr("str", std::string("string"), &node);
  AddNodeAttr("i32", int32{-3}, &node);
  AddNodeAttr("i64", int64{1} << 40, &node);
  AddNodeAttr("f", 2.5f, &node);
  AddNodeAttr("d", 0.25, &node);
  AddNodeAttr("b", true, &node);
  AddNodeAttr("t", DT_HALF, &node);
  AddNodeAttr("shape", TensorShape({4, 5}), &node);
  AddNodeAttr("pshape", PartialTensorShape({-1, 5}), &node);
  TensorShapeProto shape_proto;
  shape_proto.set_unknown_rank(true);
  AddNodeAttr("shape_proto", shape_proto, &node);
  AddNodeAttr("tensor", Tensor(3.0f), &node);
  TensorProto tensor_proto;
  tensor_proto.set_dtype(DT_INT32);
  tensor_proto.add_int_val(8);
  AddNodeAttr("tensor_proto", tensor_proto, &node);
  NameAttrList func;
  func.set_name("Fn");
  AddNodeAttr("func", func, &node);
  AddNodeAttr("attr_value", ToAttrValue("i: 12"), &node);
  AttrValue moved = ToAttrValue("b: true");
  AddNodeAttr("moved", std::move(moved), &node);

  EXPECT_EQ(node.attr().at("sv").s(), "view");
  EXPECT_EQ(node.attr().at("cs").s(), "chars");
  EXPECT_EQ(node.attr().at("str").s(), "string");
  EXPECT_EQ(node.attr().at("i32").i(), -3);
  EXPECT_EQ(node.attr().at("i64").i(), int64{1} << 40);
  EXPECT_EQ(node.attr().at("f").f(), 2.5f);
  EXPECT_EQ(node.attr().at("d").f(), 0.25f);
  EXPECT_TRUE(node.attr().at("b").b());
  EXPECT_EQ(node.attr().at("t").type(), DT_HALF);
  EXPECT_EQ(node.attr().at("shape").shape().dim(1).size(), 5);
  EXPECT_EQ(node.attr().at("pshape").shape().dim(0).size(), -1);
  EXPECT_TRUE(node.attr().at("shape_proto").shape().unknown_rank());
  Tensor t;
  OPKIT_ASSERT_OK(GetNodeAttr(node, "tensor", &t));
  EXPECT_EQ(t.scalar<float>()(), 3.0f);
  EXPECT_EQ(node.attr().at("tensor_proto").tensor().int_val(0), 8);
  EXPECT_EQ(node.attr().at("func").func().name(), "Fn");
  EXPECT_EQ(node.attr().at("attr_value").i(), 12);
  EXPECT_TRUE(node.attr().at("moved").b());
}

TEST(AddNodeAttrTest, Lists) {
  NodeDef node;
  AddNodeAttr("ls", std::vector<std::string>{"a", "b"}, &node);
  AddNodeAttr("lsv", std::vector<std::string_view>{"c"}, &node);
  AddNodeAttr("lcs", {"d", "e"}, &node);
  AddNodeAttr("li32", {1, 2}, &node);
  AddNodeAttr("li64", std::vector<int64>{int64{1} << 33}, &node);
  AddNodeAttr("lf", {1.5f}, &node);
  AddNodeAttr("ld", std::vector<double>{0.5}, &node);
  AddNodeAttr("lb", std::vector<bool>{true, false}, &node);
  AddNodeAttr("lt", {DT_FLOAT, DT_INT64}, &node);
  AddNodeAttr("lshape", std::vector<TensorShape>{TensorShape({2})}, &node);
  AddNodeAttr("lpshape", std::vector<PartialTensorShape>{PartialTensorShape()}, &node);
  AddNodeAttr("lshape_proto", std::vector<TensorShapeProto>{TensorShapeProto()}, &node);
  AddNodeAttr("ltensor", std::vector<Tensor>{Tensor(1), Tensor(2)}, &node);
  NameAttrList f;
  f.set_name("F");
  AddNodeAttr("lfunc", std::vector<NameAttrList>{f}, &node);
  AddNodeAttr("empty", std::vector<int64>{}, &node);

  std::vector<std::string> ls;
  OPKIT_ASSERT_OK(GetNodeAttr(node, "ls", &ls));
  EXPECT_THAT(ls, ElementsAre("a", "b"));
  OPKIT_ASSERT_OK(GetNodeAttr(node, "lsv", &ls));
  EXPECT_THAT(ls, ElementsAre("c"));
  OPKIT_ASSERT_OK(GetNodeAttr(node, "lcs", &ls));
  EXPECT_THAT(ls, ElementsAre("d", "e"));
  std::vector<int64> li;
  OPKIT_ASSERT_OK(GetNodeAttr(node, "li32", &li));
  EXPECT_THAT(li, ElementsAre(1, 2));
  OPKIT_ASSERT_OK(GetNodeAttr(node, "li64", &li));
  EXPECT_THAT(li, ElementsAre(int64{1} << 33));
  std::vector<float> lf;
  OPKIT_ASSERT_OK(GetNodeAttr(node, "lf", &lf));
  EXPECT_THAT(lf, ElementsAre(1.5f));
  OPKIT_ASSERT_OK(GetNodeAttr(node, "ld", &lf));
  EXPECT_THAT(lf, ElementsAre(0.5f));
  std::vector<bool> lb;
  OPKIT_ASSERT_OK(GetNodeAttr(node, "lb", &lb));
  EXPECT_THAT(lb, ElementsAre(true, false));
  DataTypeVector lt;
  OPKIT_ASSERT_OK(GetNodeAttr(node, "lt", &lt));
  EXPECT_THAT(lt, ElementsAre(DT_FLOAT, DT_INT64));
  std::vector<TensorShape> lshape;
  OPKIT_ASSERT_OK(GetNodeAttr(node, "lshape", &lshape));
  EXPECT_THAT(lshape, ElementsAre(TensorShape({2})));
  std::vector<PartialTensorShape> lpshape;
  OPKIT_ASSERT_OK(GetNodeAttr(node, "lpshape", &lpshape));
  ASSERT_EQ(lpshape.size(), 1u);
  EXPECT_TRUE(lpshape[0].unknown_rank());
  std::vector<TensorShapeProto> lshape_proto;
  OPKIT_ASSERT_OK(GetNodeAttr(node, "lshape_proto", &lshape_proto));
  EXPECT_EQ(lshape_proto.size(), 1u);
  std::vector<Tensor> ltensor;
  OPKIT_ASSERT_OK(GetNodeAttr(node, "ltensor", &ltensor));
  ASSERT_EQ(ltensor.size(), 2u);
  EXPECT_EQ(ltensor[1].scalar<int32>()(), 2);
  std::vector<NameAttrList> lfunc;
  OPKIT_ASSERT_OK(GetNodeAttr(node, "lfunc", &lfunc));
  ASSERT_EQ(lfunc.size(), 1u);
  EXPECT_EQ(lfunc[0].name(), "F");
  // An empty list is still a list.
  EXPECT_EQ(node.attr().at("empty").value_case(), AttrValue::kList);
}

TEST(AddNodeAttrTest, ReplacesExistingValue) {
  NodeDef node;
  AddNodeAttr("x", 1, &node);
  AddNodeAttr("x", "now a string", &node);
  EXPECT_EQ(node.attr().at("x").s(), "now a string");
  AddNodeAttr("x", ToAttrValue("i: 4"), &node);
  EXPECT_EQ(node.attr().at("x").i(), 4);
  EXPECT_EQ(node.attr_size(), 1);
  AttrValueMap map;
  AddAttr("y", true, &map);
  AddAttr("y", false, &map);
  EXPECT_FALSE(map.at("y").b());
}

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

void ExpectValid(const NodeDef& node, const OpDef& op) {
  EXPECT_THAT(ValidateNodeDef(node, op), IsOk()) << SummarizeNodeDef(node);
}

void ExpectInvalid(const NodeDef& node, const OpDef& op, const std::string& message) {
  const Status s = ValidateNodeDef(node, op);
  EXPECT_THAT(s, StatusIs(error::INVALID_ARGUMENT, HasSubstr(message)))
      << SummarizeNodeDef(node);
  // Every failure names the node.
  EXPECT_THAT(s.message(), HasSubstr("{{node " + node.name() + "}}"));
}

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

const char kRefOp[] = R"pb(
  name: "Assign"
  input_arg { name: "ref" type_attr: "T" is_ref: true }
  input_arg { name: "value" type_attr: "T" }
  output_arg { name: "output_ref" type_attr: "T" is_ref: true }
  attr { name: "T" type: "type" }
)pb";

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
// Summaries and AttachDef.

TEST(SummarizeNodeDefTest, DeviceAndInputs) {
  const NodeDef node = ToNodeDef(R"pb(
    name: "m" op: "MatMul" input: "a" input: "b" input: "^c" device: "/cpu:0"
    attr { key: "transpose_b" value { b: false } }
    attr { key: "T" value { type: DT_FLOAT } }
    attr { key: "transpose_a" value { b: true } }
  )pb");
  EXPECT_EQ(SummarizeNodeDef(node),
            "{{node m}} = MatMul[T=DT_FLOAT, transpose_a=true, transpose_b=false, "
            "_device=\"/cpu:0\"](a, b, ^c)");
  EXPECT_EQ(SummarizeNodeDef(node, 2),
            "{{node m}} = MatMul[T=DT_FLOAT, transpose_a=true, transpose_b=false, "
            "_device=\"/cpu:0\"](a, b, ...)");
  EXPECT_EQ(SummarizeNodeDef(node, 0),
            "{{node m}} = MatMul[T=DT_FLOAT, transpose_a=true, transpose_b=false, "
            "_device=\"/cpu:0\"](...)");
  EXPECT_EQ(SummarizeNodeDef(node, 3), SummarizeNodeDef(node));
  EXPECT_EQ(SummarizeAttrs(node),
            "T=DT_FLOAT, transpose_a=true, transpose_b=false, _device=\"/cpu:0\"");
  EXPECT_EQ(SummarizeNodeDef(ToNodeDef(R"pb(name: "d" op: "None" device: "/cpu:17")pb")),
            "{{node d}} = None[_device=\"/cpu:17\"]()");
  EXPECT_EQ(SummarizeAttrsHelper(AttrSlice(), ""), "");
}

TEST(FormatNodeDefForErrorTest, Basic) {
  NodeDef node = ToNodeDef(R"pb(name: "enter" op: "Enter")pb");
  EXPECT_EQ(FormatNodeDefForError(node), "{{node enter}}");
  EXPECT_EQ(FormatNodeNameForError("x"), "{{node x}}");
  EXPECT_EQ(FormatFunctionForError("f"), "{{function_node f}}");
  node.mutable_experimental_debug_info()->add_original_node_names("node_name");
  node.mutable_experimental_debug_info()->add_original_func_names("func_name");
  EXPECT_EQ(FormatNodeDefForError(node), "{{function_node func_name}}{{node node_name}}");
  node.mutable_experimental_debug_info()->add_original_node_names("node_name2");
  EXPECT_EQ(FormatNodeDefForError(node),
            "{{function_node func_name}}{{node node_name}}, {{node node_name2}}");
  // Debug info without original names falls back to the node's name.
  NodeDef other = ToNodeDef(R"pb(name: "x" op: "X")pb");
  other.mutable_experimental_debug_info()->add_original_func_names("f");
  EXPECT_EQ(FormatNodeDefForError(other), "{{node x}}");
}

TEST(AttachDefTest, AllowMultipleFormattedNode) {
  NodeDef a = ToNodeDef(R"pb(name: "a")pb");
  NodeDef b = ToNodeDef(R"pb(name: "b")pb");
  const Status s(error::CANCELLED, "Error");
  const Status s2 = AttachDef(s, a, true);
  EXPECT_EQ(s2.code(), error::CANCELLED);
  EXPECT_EQ(s2.message(), "Error\n\t [[{{node a}}]]");
  EXPECT_EQ(AttachDef(s2, b, true).message(), "Error\n\t [[{{node a}}]]\n\t [[{{node b}}]]");
  EXPECT_EQ(AttachDef(s2, b, false).message(), "Error\n\t [[{{node a}}]]\n\t [[b]]");
  EXPECT_EQ(AttachDef(s2, b).message(), "Error\n\t [[{{node a}}]]\n\t [[b]]");
  OPKIT_EXPECT_OK(AttachDef(OkStatus(), a));
}

// ---------------------------------------------------------------------------
// Syntax.

void ExpectValidSyntax(const NodeDef& good) {
  EXPECT_THAT(ValidateExternalNodeDefSyntax(good), IsOk()) << SummarizeNodeDef(good);
}

void ExpectInvalidSyntax(const NodeDef& bad, const std::string& message) {
  const Status s = ValidateExternalNodeDefSyntax(bad);
  EXPECT_THAT(s, StatusIs(error::INVALID_ARGUMENT,
                          AllOf(HasSubstr(message), HasSubstr("{{node "))))
      << SummarizeNodeDef(bad);
}

NodeDef SyntaxNode(const std::string& name, const std::vector<std::string>& inputs) {
  NodeDef node;
  node.set_name(name);
  node.set_op("AnyIn");
  for (const std::string& input : inputs) node.add_input(input);
  return node;
}

TEST(ValidateExternalNodeDefSyntaxTest, ValidSyntax) {
  ExpectValidSyntax(SyntaxNode("n", {"a", "b"}));
  ExpectValidSyntax(SyntaxNode("n", {"a:0", "b:123"}));
  ExpectValidSyntax(SyntaxNode("Project>n", {"Project>a:0", "Project>b:123", "^Project>c"}));
  ExpectValidSyntax(SyntaxNode("n-", {"a", "^b"}));
  ExpectValidSyntax(SyntaxNode("scope/sub.name_1-x", {"scope/a_b:10", "^.c"}));
  ExpectValidSyntax(SyntaxNode("0", {}));
}

TEST(ValidateExternalNodeDefSyntaxTest, InvalidSyntax) {
  ExpectInvalidSyntax(SyntaxNode("n:0", {"a"}), "Illegal op name 'n:0'");
  ExpectInvalidSyntax(SyntaxNode("_n", {"a"}), "Illegal op name '_n'");
  ExpectInvalidSyntax(SyntaxNode("n\\", {"a"}), "Illegal op name 'n\\'");
  ExpectInvalidSyntax(SyntaxNode("", {}), "Illegal op name ''");
  ExpectInvalidSyntax(SyntaxNode("a>", {}), "Illegal op name 'a>'");
  ExpectInvalidSyntax(SyntaxNode(">a", {}), "Illegal op name '>a'");
  ExpectInvalidSyntax(SyntaxNode("n", {"_a", "b"}), "Illegal op input name '_a'");
  ExpectInvalidSyntax(SyntaxNode("n", {"a\\", "b"}), "Illegal op input name 'a\\'");
  ExpectInvalidSyntax(SyntaxNode("n", {"a", "^b:0"}), "Illegal op input name '^b:0'");
  ExpectInvalidSyntax(SyntaxNode("n", {"a", "^b\\"}), "Illegal op input name '^b\\'");
  ExpectInvalidSyntax(SyntaxNode("n", {"^a", "b"}),
                      "All control inputs must follow all data inputs");
  ExpectInvalidSyntax(SyntaxNode("n", {"a:b", "b"}), "Illegal op input name 'a:b'");
  ExpectInvalidSyntax(SyntaxNode("n", {"a:00", "b"}), "Illegal op input name 'a:00'");
  ExpectInvalidSyntax(SyntaxNode("n", {"a:", "b"}), "Illegal op input name 'a:'");
  ExpectInvalidSyntax(SyntaxNode("n", {"a:01"}), "Illegal op input name 'a:01'");
  ExpectInvalidSyntax(SyntaxNode("n", {"^"}), "Illegal op input name '^'");
  ExpectInvalidSyntax(SyntaxNode("n", {""}), "Illegal op input name ''");
}

TEST(NameSyntaxTest, Predicates) {
  EXPECT_TRUE(IsValidNodeName("a"));
  EXPECT_TRUE(IsValidNodeName("A>b>c"));
  EXPECT_FALSE(IsValidNodeName("a>>b"));
  EXPECT_FALSE(IsValidNodeName("a b"));
  EXPECT_TRUE(IsValidDataInputName("a:7"));
  EXPECT_TRUE(IsValidDataInputName("x>y:0"));
  EXPECT_FALSE(IsValidDataInputName("a:1>b"));
  EXPECT_FALSE(IsValidDataInputName("a:0:1"));
  EXPECT_FALSE(IsValidDataInputName("^a"));
  EXPECT_TRUE(IsValidControlInputName("^a>b"));
  EXPECT_FALSE(IsValidControlInputName("a"));
  bool is_control = true;
  OPKIT_EXPECT_OK(ValidateOpInput("a:1", &is_control));
  EXPECT_FALSE(is_control);
  OPKIT_EXPECT_OK(ValidateOpInput("^a", &is_control));
  EXPECT_TRUE(is_control);
  EXPECT_THAT(ValidateOpInput("a b", &is_control),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Illegal op input name 'a b'")));
  EXPECT_FALSE(is_control);
  OPKIT_EXPECT_OK(ValidateNodeName("ok"));
  EXPECT_THAT(ValidateNodeName("not ok"),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Illegal op name 'not ok'")));
}

TEST(ParseTensorNameTest, TensorFlowCases) {
  EXPECT_EQ(ParseTensorName("a"), TensorId("a", 0));
  EXPECT_EQ(ParseTensorName("a:0"), TensorId("a", 0));
  EXPECT_EQ(ParseTensorName("a:12"), TensorId("a", 12));
  EXPECT_EQ(ParseTensorName("^a"), TensorId("a", kControlSlot));
  EXPECT_EQ(ParseTensorName("^a:1"), TensorId("^a", 1));
  EXPECT_EQ(ParseTensorName("a:"), TensorId("a:", 0));
  EXPECT_EQ(ParseTensorName("a:b"), TensorId("a:b", 0));
  EXPECT_EQ(ParseTensorName(":1"), TensorId(":1", 0));
  EXPECT_EQ(ParseTensorName("x>y:3"), TensorId("x>y", 3));
  EXPECT_EQ(ParseTensorName(""), TensorId("", 0));
  EXPECT_EQ(ParseTensorName("7"), TensorId("7", 0));
  // A port too large for an int is not a port.
  EXPECT_EQ(ParseTensorName("a:99999999999999999999"),
            TensorId("a:99999999999999999999", 0));
  EXPECT_EQ(ParseTensorName("a:2147483647"), TensorId("a", INT_MAX));
  EXPECT_EQ(ParseTensorName("a:2147483648"), TensorId("a:2147483648", 0));

  EXPECT_EQ(TensorId("a", 0).ToString(), "a");
  EXPECT_EQ(TensorId("a", 3).ToString(), "a:3");
  EXPECT_EQ(TensorId("a", kControlSlot).ToString(), "^a");
  EXPECT_EQ(ParseTensorName("b:5").node(), "b");
  EXPECT_EQ(ParseTensorName("b:5").index(), 5);
}

TEST(ParseTensorNameTest, Checked) {
  TensorId id;
  OPKIT_ASSERT_OK(ParseTensorName("Project>a:4", &id));
  EXPECT_EQ(id, TensorId("Project>a", 4));
  OPKIT_ASSERT_OK(ParseTensorName("^c", &id));
  EXPECT_EQ(id, TensorId("c", kControlSlot));
  OPKIT_ASSERT_OK(ParseTensorName("c", &id));
  EXPECT_EQ(id, TensorId("c", 0));
  EXPECT_THAT(ParseTensorName("a:b", &id),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Illegal op input name 'a:b'")));
  EXPECT_THAT(ParseTensorName("a:99999999999", &id),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("larger than")));
  EXPECT_EQ(id, TensorId("c", 0));
}

}  // namespace
}  // namespace opkit
