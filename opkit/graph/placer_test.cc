// Placement: requested devices in their spellings, the first device with a
// kernel, errors and soft placement, HostMemory recording.
#include "opkit/graph/placer.h"

#include <memory>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/device/device.h"
#include "opkit/op/op.h"
#include "opkit/kernel/op_kernel.h"
#include "opkit/op/op_registry.h"
#include "opkit/graph/graph.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {

// An op with a kernel only on the test device type, with a HostMemory input,
// and an op with no kernel at all.
REGISTER_OP("PlacerTestOp").Input("x: int32").Input("y: float").Output("z: float");
REGISTER_OP("PlacerTestNoKernel").Output("z: float");

namespace {

class PlacerTestKernel : public OpKernel {
 public:
  explicit PlacerTestKernel(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override { (void)ctx; }
};
REGISTER_KERNEL_BUILDER(Name("PlacerTestOp").Device("PLACERTEST").HostMemory("x"),
                        PlacerTestKernel);

using ::opkit::testing::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;

class FakeDevice : public Device {
 public:
  FakeDevice(std::string name, ParsedDeviceName parsed)
      : Device(std::move(name), std::move(parsed), DeviceType("PLACERTEST")) {}
};

std::unique_ptr<Device> MakeFake() {
  ParsedDeviceName p;
  EXPECT_TRUE(DeviceNameUtils::ParseFullName(
      "/job:localhost/replica:0/task:0/device:PLACERTEST:0", &p));
  return std::make_unique<FakeDevice>(
      "/job:localhost/replica:0/task:0/device:PLACERTEST:0", p);
}

std::unique_ptr<Graph> BuildGraph(const std::string& text) {
  GraphDef def;
  EXPECT_TRUE(ParseGraphDefText(text, &def).ok());
  auto g = Graph::Create(def, OpRegistry::Global());
  EXPECT_TRUE(g.ok()) << g.status();
  return g.ok() ? std::move(g).value() : nullptr;
}

std::string ConstOn(const std::string& name, const std::string& device) {
  return "node { name: '" + name + "' op: 'Const' device: '" + device +
         "' attr { key: 'dtype' value { type: DT_FLOAT } } attr { key: 'value' "
         "value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 1 } } } }\n";
}

class PlacerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto cpu = CpuDevice::Create("/job:localhost/replica:0/task:0/device:CPU:0", 1);
    ASSERT_TRUE(cpu.ok());
    cpu_ = std::move(cpu).value();
    fake_ = MakeFake();
  }
  std::unique_ptr<Device> cpu_;
  std::unique_ptr<Device> fake_;
};

TEST_F(PlacerTest, RequestedDeviceSpellings) {
  for (const char* spelling :
       {"", "/device:CPU:0", "/cpu:0", "/job:localhost/replica:0/task:0/device:CPU:0",
        "/device:CPU:*"}) {
    SCOPED_TRACE(spelling);
    auto g = BuildGraph(ConstOn("a", spelling));
    ASSERT_NE(g, nullptr);
    OPKIT_ASSERT_OK(PlaceGraph(g.get(), {fake_.get(), cpu_.get()}));
    EXPECT_EQ(g->node(0).assigned_device_name(), cpu_->name());
    EXPECT_EQ(g->node(0).assigned_device_index(), 1);
  }
}

TEST_F(PlacerTest, FirstDeviceWithAKernelAndHostMemory) {
  auto g = BuildGraph(
      "node { name: 'x' op: 'Const' attr { key: 'dtype' value { type: DT_INT32 } } "
      "attr { key: 'value' value { tensor { dtype: DT_INT32 tensor_shape {} "
      "int_val: 1 } } } }\n" +
      ConstOn("y", "") + "node { name: 'p' op: 'PlacerTestOp' input: 'x' input: 'y' }");
  ASSERT_NE(g, nullptr);
  OPKIT_ASSERT_OK(PlaceGraph(g.get(), {cpu_.get(), fake_.get()}));
  const Node* p = g->FindNode("p");
  EXPECT_EQ(p->assigned_device_name(), fake_->name());
  ASSERT_EQ(p->input_in_host_memory().size(), 2u);
  EXPECT_TRUE(p->input_in_host_memory()[0]);
  EXPECT_FALSE(p->input_in_host_memory()[1]);
  EXPECT_FALSE(p->output_in_host_memory()[0]);
  EXPECT_EQ(g->FindNode("x")->assigned_device_name(), cpu_->name());
}

TEST_F(PlacerTest, PinnedToDeviceWithoutKernel) {
  auto g = BuildGraph(ConstOn("a", "/device:PLACERTEST:0"));
  EXPECT_THAT(PlaceGraph(g.get(), {cpu_.get(), fake_.get()}),
              StatusIs(error::INVALID_ARGUMENT,
                       AllOf(HasSubstr("no supported kernel for PLACERTEST"),
                             HasSubstr("{{node a}}"))));
  PlacerOptions soft;
  soft.allow_soft_placement = true;
  OPKIT_ASSERT_OK(PlaceGraph(g.get(), {cpu_.get(), fake_.get()}, soft));
  EXPECT_EQ(g->node(0).assigned_device_name(), cpu_->name());
}

TEST_F(PlacerTest, PinnedToMissingDevice) {
  auto g = BuildGraph(ConstOn("a", "/device:GPU:0"));
  EXPECT_THAT(PlaceGraph(g.get(), {cpu_.get()}),
              StatusIs(error::INVALID_ARGUMENT,
                       AllOf(HasSubstr("no devices matching"),
                             HasSubstr("{{node a}}"))));
  PlacerOptions soft;
  soft.allow_soft_placement = true;
  OPKIT_ASSERT_OK(PlaceGraph(g.get(), {cpu_.get()}, soft));
  EXPECT_EQ(g->node(0).assigned_device_name(), cpu_->name());
  auto g2 = BuildGraph(ConstOn("b", "/device:CPU:3"));
  EXPECT_THAT(PlaceGraph(g2.get(), {cpu_.get()}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("no devices matching")));
}

TEST_F(PlacerTest, NoKernelAnywhere) {
  auto g = BuildGraph("node { name: 'k' op: 'PlacerTestNoKernel' }");
  EXPECT_THAT(PlaceGraph(g.get(), {cpu_.get()}),
              StatusIs(error::INVALID_ARGUMENT,
                       AllOf(HasSubstr("No OpKernel"), HasSubstr("{{node k}}"))));
}

TEST_F(PlacerTest, BadDeviceNameAndNoDevices) {
  auto g = BuildGraph(ConstOn("a", "not a device"));
  EXPECT_THAT(PlaceGraph(g.get(), {cpu_.get()}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("{{node a}}")));
  EXPECT_THAT(PlaceGraph(g.get(), {}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("no devices")));
}

}  // namespace
}  // namespace opkit
