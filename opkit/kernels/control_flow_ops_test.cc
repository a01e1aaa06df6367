// Kernels of Switch, RefSwitch, Merge, Enter, Exit, NextIteration, LoopCond,
// run directly through OpKernelContext (the executor's part — deadness,
// frames — is tested in opkit/runtime/executor_test.cc).
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/device/device.h"
#include "opkit/op/node_def_util.h"
#include "opkit/kernel/op_kernel.h"
#include "opkit/testing/kernel_test_util.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace {

using ::opkit::testing::IsOk;
using ::opkit::testing::StatusIs;
using ::testing::HasSubstr;

NodeDef MakeNode(const std::string& op, int num_inputs, DataType t = DT_INT32) {
  NodeDef def;
  def.set_name("n");
  def.set_op(op);
  for (int i = 0; i < num_inputs; ++i) def.add_input("in" + std::to_string(i));
  if (op != "LoopCond") AddNodeAttr("T", t, &def);
  if (op == "Merge") AddNodeAttr("N", num_inputs, &def);
  if (op == "Enter") AddNodeAttr("frame_name", "f", &def);
  return def;
}

struct Call {
  std::vector<TensorValue> inputs;
  OpKernelContext::Params params;
  std::unique_ptr<OpKernelContext> ctx;

  Call(OpKernel* kernel, std::vector<TensorValue> in, bool allow_missing = false)
      : inputs(std::move(in)) {
    params.op_kernel = kernel;
    params.inputs = &inputs;
    params.allow_missing_inputs = allow_missing;
    params.frame_iter = FrameAndIter{3, 4};
    ctx = std::make_unique<OpKernelContext>(&params);
    if (ctx->status().ok()) kernel->Compute(ctx.get());
  }
};

TEST(SwitchOpTest, ForwardsToTheTakenOutput) {
  auto k = test::CreateKernel(MakeNode("Switch", 2));
  Tensor data(int32{7});
  for (bool pred : {false, true}) {
    Tensor p(pred);
    Call call(k.get(), {TensorValue(&data), TensorValue(&p)});
    OPKIT_ASSERT_OK(call.ctx->status());
    EXPECT_EQ(call.ctx->output_is_set(pred ? 1 : 0), true);
    EXPECT_EQ(call.ctx->output_is_set(pred ? 0 : 1), false);
    EXPECT_EQ(call.ctx->mutable_output(pred ? 1 : 0)->scalar<int32>()(), 7);
  }
}

TEST(SwitchOpTest, PredicateMustBeAScalar) {
  auto k = test::CreateKernel(MakeNode("Switch", 2));
  Tensor data(int32{7});
  Tensor p = test::AsTensor<bool>({true, false}, TensorShape({2}));
  Call call(k.get(), {TensorValue(&data), TensorValue(&p)});
  EXPECT_THAT(call.ctx->status(),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("must be a scalar")));
}

TEST(SwitchOpTest, RefSwitchForwardsTheRef) {
  NodeDef def = MakeNode("Switch", 2, DT_FLOAT);
  def.set_op("RefSwitch");
  auto k = test::CreateKernel(def);
  mutex mu;
  Tensor var(2.f);
  Tensor p(true);
  Call call(k.get(), {TensorValue(&mu, &var), TensorValue(&p)});
  OPKIT_ASSERT_OK(call.ctx->status());
  ASSERT_TRUE(call.ctx->output_is_ref(1));
  EXPECT_EQ(call.ctx->output_ref(1).tensor, &var);
  EXPECT_EQ(call.ctx->output_ref(1).mutex_if_ref, &mu);
  EXPECT_FALSE(call.ctx->output_is_set(0));
}

TEST(MergeOpTest, OutputsTheLiveInputAndItsIndex) {
  auto k = test::CreateKernel(MakeNode("Merge", 3));
  Tensor v(int32{42});
  Call call(k.get(), {TensorValue(), TensorValue(&v), TensorValue()},
            /*allow_missing=*/true);
  OPKIT_ASSERT_OK(call.ctx->status());
  EXPECT_EQ(call.ctx->mutable_output(0)->scalar<int32>()(), 42);
  EXPECT_EQ(call.ctx->mutable_output(1)->scalar<int32>()(), 1);
}

TEST(MergeOpTest, NoLiveInputIsAnError) {
  auto k = test::CreateKernel(MakeNode("Merge", 2));
  Call call(k.get(), {TensorValue(), TensorValue()}, /*allow_missing=*/true);
  EXPECT_THAT(call.ctx->status(),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("without a live input")));
}

TEST(MergeOpTest, MissingInputsNeedTheRuntimesPermission) {
  auto k = test::CreateKernel(MakeNode("Merge", 2));
  Tensor v(int32{1});
  Call call(k.get(), {TensorValue(), TensorValue(&v)}, /*allow_missing=*/false);
  EXPECT_THAT(call.ctx->status(), StatusIs(error::INVALID_ARGUMENT));
}

TEST(ForwardingOpsTest, EnterExitNextIterationLoopCond) {
  Tensor v(int32{5});
  for (const char* op : {"Enter", "Exit", "NextIteration"}) {
    SCOPED_TRACE(op);
    auto k = test::CreateKernel(MakeNode(op, 1));
    Call call(k.get(), {TensorValue(&v)});
    OPKIT_ASSERT_OK(call.ctx->status());
    EXPECT_EQ(call.ctx->mutable_output(0)->scalar<int32>()(), 5);
    EXPECT_EQ(call.ctx->frame_iter().frame_id, 3);
    EXPECT_EQ(call.ctx->frame_iter().iter_id, 4);
  }
  auto k = test::CreateKernel(MakeNode("LoopCond", 1));
  Tensor b(true);
  Call call(k.get(), {TensorValue(&b)});
  OPKIT_ASSERT_OK(call.ctx->status());
  EXPECT_TRUE(call.ctx->mutable_output(0)->scalar<bool>()());
}

TEST(ForwardingOpsTest, WrongInputDtypeIsRejectedByTheContext) {
  auto k = test::CreateKernel(MakeNode("Exit", 1));
  Tensor f(1.f);
  Call call(k.get(), {TensorValue(&f)});
  EXPECT_THAT(call.ctx->status(), StatusIs(error::INVALID_ARGUMENT));
}

}  // namespace
}  // namespace opkit
