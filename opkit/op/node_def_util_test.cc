// Tests for reading and writing a node's attrs (node_def_util.h):
// GetNodeAttr and TryGetNodeAttr for every attr kind, HasNodeAttr,
// AddNodeAttr, with small NodeDefs written as text protos.
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
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using op_test::ToAttrValue;
using op_test::ToNodeDef;

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

}  // namespace
}  // namespace opkit
