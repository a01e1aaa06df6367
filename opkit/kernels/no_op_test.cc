// NoOp's kernel: builds, runs, has no outputs.
#include <memory>

#include "gtest/gtest.h"
#include "opkit/op/node_def_util.h"
#include "opkit/kernel/op_kernel.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace {

using ::opkit::testing::StatusIs;

TEST(NoOpTest, RunsWithNothingInOrOut) {
  NodeDef def;
  def.set_name("noop");
  def.set_op("NoOp");
  def.add_input("^a");
  OpKernel* raw = nullptr;
  OPKIT_ASSERT_OK(
      CreateOpKernel(DeviceType(DEVICE_CPU), nullptr, nullptr, def, 0, &raw));
  std::unique_ptr<OpKernel> k(raw);
  EXPECT_EQ(k->num_inputs(), 0);
  EXPECT_EQ(k->num_outputs(), 0);
  EXPECT_FALSE(k->IsExpensive());
  std::vector<TensorValue> inputs;
  OpKernelContext::Params params;
  params.op_kernel = k.get();
  params.inputs = &inputs;
  OpKernelContext ctx(&params);
  k->Compute(&ctx);
  OPKIT_EXPECT_OK(ctx.status());
  OPKIT_EXPECT_OK(ctx.CheckAllOutputsSet());
}

TEST(NoOpTest, RejectsDataInputs) {
  NodeDef def;
  def.set_name("noop");
  def.set_op("NoOp");
  def.add_input("a");
  OpKernel* raw = nullptr;
  EXPECT_THAT(
      CreateOpKernel(DeviceType(DEVICE_CPU), nullptr, nullptr, def, 0, &raw),
      StatusIs(error::INVALID_ARGUMENT));
  EXPECT_EQ(raw, nullptr);
}

}  // namespace
}  // namespace opkit
