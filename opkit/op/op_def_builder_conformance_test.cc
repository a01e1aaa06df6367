// Conformance of OpDefBuilder with TensorFlow 2.6.3: the spec strings of
// TensorFlow's 1430 public core ops must produce the OpDefs of its ops.pbtxt,
// its internal registrations must build, and the bad specs of its own
// op_def_builder_test.cc must fail with its exact texts. The data and its
// provenance: tests/testdata/tensorflow/README.md.
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <google/protobuf/text_format.h>
#include <google/protobuf/util/message_differencer.h>
#include <nlohmann/json.hpp>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/op/full_type_util.h"
#include "opkit/op/op_def_builder.h"
#include "opkit/testing/status_matchers.h"
#include "opkit/testing/test_data.h"

namespace opkit {
namespace {

using ::opkit::testing::IsOk;
using ::opkit::testing::StatusIs;
using ::testing::HasSubstr;

std::string DataPath(const std::string& file) {
  return testing::TestDataDir() + "/tensorflow/" + file;
}

bool ReadFile(const std::string& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  *out = ss.str();
  return true;
}

// One JSON object per non-empty line.
std::vector<nlohmann::json> ReadJsonLines(const std::string& path) {
  std::vector<nlohmann::json> records;
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << "cannot open " << path;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    nlohmann::json record = nlohmann::json::parse(line, nullptr,
                                                  /*allow_exceptions=*/false);
    EXPECT_FALSE(record.is_discarded()) << "bad JSON line in " << path << ": "
                                        << line.substr(0, 200);
    if (!record.is_discarded()) records.push_back(std::move(record));
  }
  return records;
}

std::vector<std::string> Strings(const nlohmann::json& record,
                                 const char* key) {
  std::vector<std::string> out;
  if (record.contains(key)) {
    for (const auto& s : record.at(key)) out.push_back(s.get<std::string>());
  }
  return out;
}

// Builds the op of one record: specs, flags, deprecation, type constructor.
Status BuildFromRecord(const nlohmann::json& record, OpRegistrationData* out) {
  OpDefBuilder b(record.at("op").get<std::string>());
  for (const auto& s : Strings(record, "attrs")) b.Attr(s);
  for (const auto& s : Strings(record, "inputs")) b.Input(s);
  for (const auto& s : Strings(record, "outputs")) b.Output(s);
  for (const auto& flag : Strings(record, "flags")) {
    if (flag == "SetIsCommutative") {
      b.SetIsCommutative();
    } else if (flag == "SetIsAggregate") {
      b.SetIsAggregate();
    } else if (flag == "SetIsStateful") {
      b.SetIsStateful();
    } else if (flag == "SetDoNotOptimize") {
      b.SetDoNotOptimize();
    } else if (flag == "SetAllowsUninitializedInput") {
      b.SetAllowsUninitializedInput();
    } else if (flag == "SetIsDistributedCommunication") {
      b.SetIsDistributedCommunication();
    } else {
      ADD_FAILURE() << "unknown flag " << flag;
    }
  }
  if (record.contains("deprecation")) {
    const auto& d = record.at("deprecation");
    b.Deprecated(d.at("version").get<int>(),
                 d.at("explanation").get<std::string>());
  }
  if (record.contains("type_constructor")) {
    const auto& tc = record.at("type_constructor");
    FullTypeId id = TFT_UNSET;
    EXPECT_TRUE(FullTypeId_Parse(tc.at("type_id").get<std::string>(), &id))
        << tc.dump();
    EXPECT_EQ(tc.at("kind").get<std::string>(), "Unary") << tc.dump();
    b.SetTypeConstructor(full_type::Unary(id, tc.at("var").get<std::string>()));
  }
  return b.Finalize(out);
}

void ClearDocs(OpDef* op) {
  op->clear_summary();
  op->clear_description();
  for (auto& a : *op->mutable_input_arg()) a.clear_description();
  for (auto& a : *op->mutable_output_arg()) a.clear_description();
  for (auto& a : *op->mutable_attr()) a.clear_description();
}

// Ops whose OpDef is known to differ from ops.pbtxt, with the reason. Empty:
// every registration reproduces TensorFlow's OpDef.
const std::map<std::string, std::string>& KnownDifferences() {
  static const auto* known = new std::map<std::string, std::string>{};
  return *known;
}

TEST(OpDefBuilderConformanceTest, RegistrationsReproduceOpsPbtxt) {
  std::string text;
  ASSERT_TRUE(ReadFile(DataPath("ops.pbtxt"), &text));
  OpList expected_ops;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &expected_ops));
  ASSERT_EQ(expected_ops.op_size(), 1430);
  std::map<std::string, const OpDef*> expected;
  for (const OpDef& op : expected_ops.op()) expected[op.name()] = &op;

  const auto records = ReadJsonLines(DataPath("registrations.jsonl"));
  ASSERT_EQ(records.size(), 1430u);

  int equal = 0;
  std::set<std::string> seen;
  for (const auto& record : records) {
    const std::string name = record.at("op").get<std::string>();
    seen.insert(name);
    SCOPED_TRACE(name + " (" + record.value("source", std::string()) + ":" +
                 std::to_string(record.value("line", 0)) + ")");
    auto it = expected.find(name);
    ASSERT_NE(it, expected.end()) << "no op " << name << " in ops.pbtxt";

    OpRegistrationData data;
    Status s = BuildFromRecord(record, &data);
    const bool known = KnownDifferences().count(name) > 0;
    if (!s.ok()) {
      EXPECT_TRUE(known) << s;
      continue;
    }
    ClearDocs(&data.op_def);
    std::string diff;
    google::protobuf::util::MessageDifferencer differ;
    differ.ReportDifferencesToString(&diff);
    if (differ.Compare(*it->second, data.op_def)) {
      ++equal;
      EXPECT_FALSE(known) << "listed as a known difference but now equal";
    } else {
      EXPECT_TRUE(known) << "differs from ops.pbtxt (expected -> built):\n"
                         << diff;
    }
  }
  EXPECT_EQ(seen.size(), expected.size()) << "ops without a registration";
  EXPECT_EQ(equal, 1430 - static_cast<int>(KnownDifferences().size()));
  std::cout << "[ conformance ] " << equal << "/" << records.size()
            << " registrations equal to ops.pbtxt\n";
}

TEST(OpDefBuilderConformanceTest, InternalRegistrationsBuild) {
  const auto records = ReadJsonLines(DataPath("registrations_internal.jsonl"));
  ASSERT_EQ(records.size(), 173u);
  int built = 0;
  for (const auto& record : records) {
    SCOPED_TRACE(record.at("op").get<std::string>());
    OpRegistrationData data;
    Status s = BuildFromRecord(record, &data);
    EXPECT_THAT(s, IsOk());
    if (s.ok()) ++built;
  }
  EXPECT_EQ(built, 173);
}

TEST(OpDefBuilderConformanceTest, ErrorCasesGiveTensorFlowsText) {
  const auto records = ReadJsonLines(DataPath("opdefbuilder_error_cases.jsonl"));
  ASSERT_EQ(records.size(), 44u);
  for (const auto& record : records) {
    const std::string error = record.at("error").get<std::string>();
    SCOPED_TRACE(error);
    OpRegistrationData data;
    EXPECT_THAT(BuildFromRecord(record, &data),
                StatusIs(error::INVALID_ARGUMENT, HasSubstr(error)));
  }
}

}  // namespace
}  // namespace opkit
