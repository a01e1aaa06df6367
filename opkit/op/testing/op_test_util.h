// Test-only: what the op layer's tests share. Text-proto parsers for the
// small OpDefs, NodeDefs and AttrValues the tests write inline, the
// expectations of the ValidateNodeDef tests, and an op with Ref arguments.
#ifndef OPKIT_OP_TESTING_OP_TEST_UTIL_H_
#define OPKIT_OP_TESTING_OP_TEST_UTIL_H_

#include <string>

#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "opkit/attr_value.pb.h"
#include "opkit/core/errors.h"
#include "opkit/node_def.pb.h"
#include "opkit/op/node_def_util.h"
#include "opkit/op_def.pb.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace op_test {

using ::opkit::testing::IsOk;
using ::opkit::testing::StatusIs;
using ::testing::HasSubstr;

// `text` parsed as a text proto; a parse failure fails the test.
template <typename Message>
Message ParseTextProto(const std::string& text) {
  Message message;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &message)) << text;
  return message;
}

inline OpDef ToOpDef(const std::string& text) { return ParseTextProto<OpDef>(text); }
inline OpDef::AttrDef ToAttrDef(const std::string& text) {
  return ParseTextProto<OpDef::AttrDef>(text);
}
inline NodeDef ToNodeDef(const std::string& text) { return ParseTextProto<NodeDef>(text); }
inline AttrValue ToAttrValue(const std::string& text) {
  return ParseTextProto<AttrValue>(text);
}

// ValidateNodeDef accepts `node`; or rejects it with InvalidArgument
// containing `message`, naming the node.
inline void ExpectValid(const NodeDef& node, const OpDef& op) {
  EXPECT_THAT(ValidateNodeDef(node, op), IsOk()) << SummarizeNodeDef(node);
}

inline void ExpectInvalid(const NodeDef& node, const OpDef& op, const std::string& message) {
  const Status s = ValidateNodeDef(node, op);
  EXPECT_THAT(s, StatusIs(error::INVALID_ARGUMENT, HasSubstr(message)))
      << SummarizeNodeDef(node);
  // Every failure names the node.
  EXPECT_THAT(s.message(), HasSubstr("{{node " + node.name() + "}}"));
}

// TensorFlow's Assign: a Ref input and a Ref output.
inline constexpr char kRefOp[] = R"pb(
  name: "Assign"
  input_arg { name: "ref" type_attr: "T" is_ref: true }
  input_arg { name: "value" type_attr: "T" }
  output_arg { name: "output_ref" type_attr: "T" is_ref: true }
  attr { name: "T" type: "type" }
)pb";

}  // namespace op_test
}  // namespace opkit

#endif  // OPKIT_OP_TESTING_OP_TEST_UTIL_H_
