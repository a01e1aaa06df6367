// Tests for AttrSlice (node_def_util.h): one or two layers of attrs over a
// NodeDef or a map, lookups, iteration, equality.
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
using ::testing::UnorderedElementsAre;
using op_test::ToAttrValue;
using op_test::ToNodeDef;

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

}  // namespace
}  // namespace opkit
