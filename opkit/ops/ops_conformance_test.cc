// Every built-in op has TensorFlow's OpDef for its name.
#include <map>
#include <string>

#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "opkit/core/env.h"
#include "opkit/op/op_registry.h"
#include "opkit/testing/status_matchers.h"
#include "opkit/testing/test_data.h"

namespace opkit {
namespace {

using ::opkit::testing::IsOk;

TEST(BuiltinOpsTest, MatchTensorFlowOpDefs) {
  std::string text;
  ASSERT_THAT(ReadFileToString(
                  testing::TestDataDir() + "/tensorflow/ops.pbtxt", &text),
              IsOk());
  OpList reference;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &reference));
  std::map<std::string, const OpDef*> by_name;
  for (const OpDef& op : reference.op()) by_name[op.name()] = &op;

  OpList ours;
  OpRegistry::Global()->Export(/*include_internal=*/false, &ours);
  ASSERT_GE(ours.op_size(), 3);
  for (OpDef op : ours.op()) {
    SCOPED_TRACE(op.name());
    auto it = by_name.find(op.name());
    ASSERT_NE(it, by_name.end()) << "not a TensorFlow op";
    op.clear_summary();
    op.clear_description();
    std::string diff;
    google::protobuf::util::MessageDifferencer d;
    d.ReportDifferencesToString(&diff);
    EXPECT_TRUE(d.Compare(*it->second, op)) << diff;
  }
}

TEST(BuiltinOpsTest, IncludesTheKernelIssueOps) {
  for (const char* name : {"MatMul", "AddV2", "Identity"}) {
    const OpDef* def = nullptr;
    EXPECT_THAT(OpRegistry::Global()->LookUpOpDef(name, &def), IsOk()) << name;
  }
}

}  // namespace
}  // namespace opkit
