// Tests for printing nodes and naming them in messages (SummarizeNodeDef,
// FormatNodeDefForError, AttachDef in node_def_util.h).
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

using op_test::ToNodeDef;

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

}  // namespace
}  // namespace opkit
