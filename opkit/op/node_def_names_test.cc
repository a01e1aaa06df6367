// Tests for node names and input strings (ValidateExternalNodeDefSyntax,
// the name predicates, ParseTensorName in node_def_util.h).
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
using ::testing::HasSubstr;

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
