// The messages in proto/opkit/ load files TensorFlow writes, unchanged.
#include <string>

#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "opkit/core/env.h"
#include "opkit/graph.pb.h"
#include "opkit/kernel_def.pb.h"
#include "opkit/op_def.pb.h"
#include "opkit/testing/status_matchers.h"
#include "opkit/testing/test_data.h"

namespace opkit {
namespace {

using ::google::protobuf::TextFormat;
using ::google::protobuf::util::MessageDifferencer;
using ::opkit::testing::IsOk;

class OpsPbtxtTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string path = testing::TestDataDir() + "/tensorflow/ops.pbtxt";
    ASSERT_THAT(ReadFileToString(path, &text_), IsOk());
  }
  std::string text_;
};

TEST_F(OpsPbtxtTest, ParsesCompletely) {
  OpList ops;
  ASSERT_TRUE(TextFormat::ParseFromString(text_, &ops));
  EXPECT_EQ(ops.op_size(), 1430);
  EXPECT_EQ(ops.op(0).name(), "Abort");
  int deprecated = 0, full_type = 0;
  for (const OpDef& op : ops.op()) {
    if (op.has_deprecation()) ++deprecated;
    for (const auto& arg : op.output_arg()) {
      if (arg.has_experimental_full_type()) ++full_type;
    }
  }
  // Counts the conformance README gives.
  EXPECT_EQ(deprecated, 62);
  EXPECT_EQ(full_type, 12);
}

TEST_F(OpsPbtxtTest, PrintsBackByteForByte) {
  // Same field names and numbers as TensorFlow's: printing in field-number
  // order reproduces the file TensorFlow wrote.
  OpList ops;
  ASSERT_TRUE(TextFormat::ParseFromString(text_, &ops));
  std::string printed;
  ASSERT_TRUE(TextFormat::PrintToString(ops, &printed));
  EXPECT_TRUE(printed == text_) << "printed text differs from ops.pbtxt";
}

TEST_F(OpsPbtxtTest, BinaryRoundTrip) {
  OpList ops;
  ASSERT_TRUE(TextFormat::ParseFromString(text_, &ops));
  std::string wire;
  ASSERT_TRUE(ops.SerializeToString(&wire));
  OpList back;
  ASSERT_TRUE(back.ParseFromString(wire));
  EXPECT_TRUE(MessageDifferencer::Equals(ops, back));
}

TEST(ProtoTest, FieldNumbersMatchTensorFlowWireFormat) {
  // OpDef.name is field 1 (tag 0x0a); OpDef.is_stateful is field 17 (varint,
  // tag 0x88 0x01). Bytes as TensorFlow serializes them.
  OpDef op;
  op.set_name("A");
  op.set_is_stateful(true);
  std::string wire;
  ASSERT_TRUE(op.SerializeToString(&wire));
  EXPECT_EQ(wire, std::string("\x0a\x01" "A" "\x88\x01\x01", 6));

  // AttrValue.list is field 1, ListValue.i field 3 (packed).
  AttrValue v;
  v.mutable_list()->add_i(2);
  ASSERT_TRUE(v.SerializeToString(&wire));
  EXPECT_EQ(wire, std::string("\x0a\x03\x1a\x01\x02", 5));

  // DataType values and _REF variants.
  EXPECT_EQ(DT_HALF, 19);
  EXPECT_EQ(DT_UINT64, 23);
  EXPECT_EQ(DT_FLOAT_REF, 101);
  EXPECT_EQ(DT_UINT64_REF, 123);
  EXPECT_EQ(TFT_ARRAY, 1001);
}

TEST(ProtoTest, GraphDefTextAsTensorFlowWritesIt) {
  const char* text = R"pb(
    node {
      name: "x"
      op: "Placeholder"
      attr { key: "dtype" value { type: DT_FLOAT } }
      attr {
        key: "shape"
        value { shape { dim { size: -1 } dim { size: 3 } } }
      }
    }
    node {
      name: "c"
      op: "Const"
      attr {
        key: "value"
        value {
          tensor {
            dtype: DT_FLOAT
            tensor_shape { dim { size: 3 } }
            float_val: 1.0
          }
        }
      }
      attr { key: "dtype" value { type: DT_FLOAT } }
    }
    node {
      name: "y"
      op: "AddV2"
      input: "x"
      input: "c:0"
      input: "^x"
      device: "/device:CPU:0"
      attr { key: "T" value { type: DT_FLOAT } }
      experimental_debug_info { original_node_names: "add" }
    }
    versions { producer: 808 min_consumer: 12 }
    library {
      function {
        signature { name: "f" input_arg { name: "a" type: DT_FLOAT } }
        ret { key: "out" value: "a" }
      }
      gradient { function_name: "f" gradient_func: "g" }
    }
  )pb";
  GraphDef g;
  ASSERT_TRUE(TextFormat::ParseFromString(text, &g));
  ASSERT_EQ(g.node_size(), 3);
  EXPECT_EQ(g.node(2).input(1), "c:0");
  EXPECT_EQ(g.node(0).attr().at("shape").shape().dim(0).size(), -1);
  EXPECT_EQ(g.node(1).attr().at("value").tensor().float_val(0), 1.0f);
  EXPECT_EQ(g.versions().producer(), 808);
  EXPECT_EQ(g.library().function(0).ret().at("out"), "a");
}

TEST(ProtoTest, KernelDefText) {
  KernelList kl;
  ASSERT_TRUE(TextFormat::ParseFromString(R"pb(
    kernel {
      op: "MatMul"
      device_type: "CPU"
      constraint { name: "T" allowed_values { list { type: DT_FLOAT } } }
      host_memory_arg: "a"
      label: "eigen"
      priority: 1
    })pb", &kl));
  EXPECT_EQ(kl.kernel(0).constraint(0).allowed_values().list().type(0), DT_FLOAT);
  EXPECT_EQ(kl.kernel(0).priority(), 1);
}

TEST(ProtoTest, Proto3PresenceAndDefaults) {
  // Zero values are not serialized; oneof members keep presence.
  AttrValue v;
  v.set_i(0);
  EXPECT_EQ(v.value_case(), AttrValue::kI);
  OpDef::AttrDef a;
  a.set_has_minimum(true);
  std::string text;
  ASSERT_TRUE(TextFormat::PrintToString(a, &text));
  EXPECT_EQ(text, "has_minimum: true\n");
}

}  // namespace
}  // namespace opkit
