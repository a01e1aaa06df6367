// Every built-in op has TensorFlow's OpDef for its name: public ops as in
// TensorFlow's ops.pbtxt, internal ones (names starting with "_") as
// TensorFlow's REGISTER_OP chains build them (registrations_internal.jsonl).
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "opkit/core/env.h"
#include "opkit/op/op_def_builder.h"
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

TEST(BuiltinOpsTest, InternalOpsMatchTensorFlowRegistrations) {
  std::ifstream in(testing::TestDataDir() +
                   "/tensorflow/registrations_internal.jsonl");
  ASSERT_TRUE(in.good());
  int compared = 0;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    const nlohmann::json record =
        nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    ASSERT_FALSE(record.is_discarded()) << line.substr(0, 200);
    const std::string name = record.at("op").get<std::string>();
    const OpDef* ours = nullptr;
    if (!OpRegistry::Global()->LookUpOpDef(name, &ours).ok()) continue;
    SCOPED_TRACE(name);
    // TensorFlow's chain, replayed through OpDefBuilder.
    OpDefBuilder b(name);
    for (const auto& s : record.at("attrs")) b.Attr(s.get<std::string>());
    for (const auto& s : record.at("inputs")) b.Input(s.get<std::string>());
    for (const auto& s : record.at("outputs")) b.Output(s.get<std::string>());
    EXPECT_TRUE(record.at("flags").empty()) << "flags not replayed";
    OpRegistrationData reference;
    ASSERT_THAT(b.Finalize(&reference), IsOk());
    OpDef mine = *ours;
    mine.clear_summary();
    mine.clear_description();
    std::string diff;
    google::protobuf::util::MessageDifferencer d;
    d.ReportDifferencesToString(&diff);
    EXPECT_TRUE(d.Compare(reference.op_def, mine)) << diff;
    ++compared;
  }
  // _FusedConv2D, _FusedDepthwiseConv2dNative, _FusedMatMul at least.
  EXPECT_GE(compared, 3);
}

TEST(BuiltinOpsTest, IncludesTheKernelIssueOps) {
  for (const char* name : {"MatMul", "AddV2", "Identity"}) {
    const OpDef* def = nullptr;
    EXPECT_THAT(OpRegistry::Global()->LookUpOpDef(name, &def), IsOk()) << name;
  }
}

}  // namespace
}  // namespace opkit
