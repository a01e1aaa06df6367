// Tests of OpKernelContext: inputs, outputs, lists, Ref arguments,
// forwarding, missing inputs; and CancellationManager. Each test builds its
// own op and kernel registries (the fixture in
// testing/op_kernel_test_fixture.h).
#include "opkit/kernel/op_kernel_context.h"

#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/kernel/op_kernel.h"
#include "opkit/kernel/testing/op_kernel_test_fixture.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace {

using ::opkit::testing::IsOk;
using ::opkit::testing::StatusIs;
using ::testing::HasSubstr;
using kernel_test::AddFloatKernel;
using kernel_test::OpKernelTest;

// ---------------------------------------------------------------------------
// The context.

class ContextTest : public OpKernelTest {
 protected:
  void SetUp() override {
    OpKernelTest::SetUp();
    ASSERT_THAT(Create(FnNode(2, DT_INT32, {DT_FLOAT}), &kernel_), IsOk());
    inputs_ = {Tensor(static_cast<int32>(1)), Tensor(static_cast<int32>(2)),
               Tensor(3.0f), Tensor(4.0f)};
  }
  std::unique_ptr<OpKernel> kernel_;
  std::vector<Tensor> inputs_;
};

TEST_F(ContextTest, InputsByIndexAndName) {
  auto call = MakeCall(kernel_.get(), &inputs_);
  OpKernelContext& ctx = *call->ctx;
  ASSERT_THAT(ctx.status(), IsOk());
  EXPECT_EQ(ctx.num_inputs(), 4);
  EXPECT_EQ(ctx.num_outputs(), 3);
  EXPECT_EQ(ctx.step_id(), 17);
  EXPECT_EQ(ctx.device(), device_.get());
  EXPECT_EQ(ctx.resource_manager(), device_->resource_manager());
  EXPECT_EQ(&ctx.op_kernel(), kernel_.get());
  EXPECT_EQ(ctx.input(1).scalar<int32>()(), 2);
  EXPECT_EQ(ctx.input_dtype(2), DT_FLOAT);
  EXPECT_FALSE(ctx.input_is_ref(0));
  EXPECT_TRUE(ctx.has_input(3));
  EXPECT_FALSE(ctx.has_input(4));

  const Tensor* c = nullptr;
  ASSERT_THAT(ctx.input("c", &c), IsOk());
  EXPECT_EQ(c->scalar<float>()(), 4.0f);
  DataType dt = DT_INVALID;
  ASSERT_THAT(ctx.input_dtype("c", &dt), IsOk());
  EXPECT_EQ(dt, DT_FLOAT);
  // A list of one element may be read as a single input (TensorFlow's rule).
  const Tensor* b = nullptr;
  ASSERT_THAT(ctx.input("b", &b), IsOk());
  EXPECT_EQ(b->scalar<float>()(), 3.0f);

  OpInputList a;
  ASSERT_THAT(ctx.input_list("a", &a), IsOk());
  ASSERT_EQ(a.size(), 2);
  EXPECT_EQ(a[0].scalar<int32>()(), 1);
  EXPECT_EQ(a[1].scalar<int32>()(), 2);
  int sum = 0;
  for (const Tensor& t : a) sum += t.scalar<int32>()();
  EXPECT_EQ(sum, 3);
  OpInputList l;
  ASSERT_THAT(ctx.input_list("b", &l), IsOk());
  EXPECT_EQ(l.size(), 1);
  EXPECT_THAT(ctx.status(), IsOk());
}

TEST_F(ContextTest, InputIndexOutOfRangeIsAnError) {
  auto call = MakeCall(kernel_.get(), &inputs_);
  OpKernelContext& ctx = *call->ctx;
  const Tensor& t = ctx.input(4);
  EXPECT_FALSE(t.IsInitialized());
  EXPECT_THAT(ctx.status(),
              StatusIs(error::INTERNAL, HasSubstr("input(4) is out of range")));
  // The first error stays.
  EXPECT_EQ(ctx.input_dtype(-1), DT_INVALID);
  EXPECT_THAT(ctx.status(), StatusIs(error::INTERNAL, HasSubstr("input(4)")));
}

TEST_F(ContextTest, NegativeInputIndexAndListElementAreErrors) {
  auto call = MakeCall(kernel_.get(), &inputs_);
  EXPECT_FALSE(call->ctx->input(-1).IsInitialized());
  EXPECT_THAT(call->ctx->status(),
              StatusIs(error::INTERNAL, HasSubstr("input(-1)")));

  auto call2 = MakeCall(kernel_.get(), &inputs_);
  OpInputList a;
  ASSERT_THAT(call2->ctx->input_list("a", &a), IsOk());
  EXPECT_FALSE(a[2].IsInitialized());
  EXPECT_THAT(call2->ctx->status(),
              StatusIs(error::INTERNAL, HasSubstr("OpInputList index 2")));
}

TEST_F(ContextTest, InputNameErrors) {
  {
    auto call = MakeCall(kernel_.get(), &inputs_);
    const Tensor* t = nullptr;
    EXPECT_THAT(call->ctx->input("nope", &t),
                StatusIs(error::INVALID_ARGUMENT,
                         HasSubstr("Unknown input name: nope")));
    EXPECT_EQ(t, nullptr);
    EXPECT_FALSE(call->ctx->status().ok());
  }
  {
    auto call = MakeCall(kernel_.get(), &inputs_);
    const Tensor* t = nullptr;
    EXPECT_THAT(call->ctx->input("a", &t),
                StatusIs(error::INVALID_ARGUMENT,
                         HasSubstr("OpKernel used list-valued input name 'a' "
                                   "when single-valued input was expected")));
  }
  {
    auto call = MakeCall(kernel_.get(), &inputs_);
    OpInputList list;
    EXPECT_THAT(call->ctx->input_list("c", &list),
                StatusIs(error::INVALID_ARGUMENT,
                         HasSubstr("single-valued input name 'c'")));
    EXPECT_THAT(call->ctx->status(),
                StatusIs(error::INVALID_ARGUMENT, HasSubstr("'c'")));
  }
  {
    auto call = MakeCall(kernel_.get(), &inputs_);
    OpInputList list;
    EXPECT_THAT(call->ctx->input_list("zz", &list),
                StatusIs(error::INVALID_ARGUMENT,
                         HasSubstr("Unknown input name: zz")));
  }
}

TEST_F(ContextTest, InputsThatDoNotMatchTheKernelAreReported) {
  std::vector<Tensor> too_few = {Tensor(static_cast<int32>(1))};
  auto call = MakeCall(kernel_.get(), &too_few);
  EXPECT_THAT(call->ctx->status(),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("expects 4 inputs, but 1 input was given")));
  // Still no undefined behaviour.
  EXPECT_FALSE(call->ctx->input(3).IsInitialized());

  std::vector<Tensor> wrong_type = inputs_;
  wrong_type[0] = Tensor(1.0f);
  auto call2 = MakeCall(kernel_.get(), &wrong_type);
  EXPECT_THAT(call2->ctx->status(),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Input 0 of {{node fn_node}} (op Fn) must be "
                                 "int32, but a float tensor was given")));

  OpKernelContext::Params params;  // No kernel.
  OpKernelContext no_kernel(&params);
  EXPECT_THAT(no_kernel.status(),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("op_kernel is null")));
  EXPECT_FALSE(no_kernel.input(0).IsInitialized());
  EXPECT_EQ(no_kernel.mutable_output(0), nullptr);
}

TEST_F(ContextTest, AllocateAndSetOutputs) {
  auto call = MakeCall(kernel_.get(), &inputs_);
  OpKernelContext& ctx = *call->ctx;
  EXPECT_EQ(ctx.expected_output_dtype(0), DT_INT32);
  EXPECT_EQ(ctx.expected_output_dtype(2), DT_FLOAT);
  Tensor* out = nullptr;
  ASSERT_THAT(ctx.allocate_output(0, TensorShape({2}), &out), IsOk());
  ASSERT_NE(out, nullptr);
  EXPECT_EQ(out->dtype(), DT_INT32);
  EXPECT_EQ(ctx.mutable_output(0), out);
  ctx.set_output(1, Tensor(static_cast<int32>(5)));
  Tensor* single = nullptr;
  ASSERT_THAT(ctx.allocate_output("single", TensorShape({}), &single), IsOk());
  single->scalar<float>()() = 1.5f;
  EXPECT_THAT(ctx.status(), IsOk());
  EXPECT_THAT(ctx.CheckAllOutputsSet(), IsOk());

  Tensor released;
  ASSERT_THAT(ctx.release_output(2, &released), IsOk());
  EXPECT_EQ(released.scalar<float>()(), 1.5f);
  EXPECT_FALSE(ctx.output_is_set(2));
  EXPECT_THAT(ctx.release_output(2, &released),
              StatusIs(error::INTERNAL, HasSubstr("never set")));
  EXPECT_THAT(ctx.CheckAllOutputsSet(),
              StatusIs(error::INTERNAL,
                       HasSubstr("Missing 2-th output from {{node fn_node}}")));
  EXPECT_THAT(ctx.release_output(7, &released),
              StatusIs(error::INTERNAL, HasSubstr("out of range")));
}

TEST_F(ContextTest, OutputListAllocatesAndSets) {
  auto call = MakeCall(kernel_.get(), &inputs_);
  OpKernelContext& ctx = *call->ctx;
  OpOutputList out;
  ASSERT_THAT(ctx.output_list("out", &out), IsOk());
  ASSERT_EQ(out.size(), 2);
  EXPECT_EQ(out.expected_output_dtype(1), DT_INT32);
  Tensor* t = nullptr;
  ASSERT_THAT(out.allocate(0, TensorShape({3}), &t), IsOk());
  out.set(1, Tensor(static_cast<int32>(8)));
  EXPECT_EQ(out[0], t);
  EXPECT_EQ(out[1]->scalar<int32>()(), 8);
  int count = 0;
  for (Tensor* o : out) count += o != nullptr;
  EXPECT_EQ(count, 2);
  EXPECT_THAT(ctx.status(), IsOk());

  EXPECT_THAT(out.allocate(2, TensorShape({}), &t),
              StatusIs(error::INTERNAL, HasSubstr("OpOutputList index 2")));
  EXPECT_EQ(t, nullptr);

  auto call2 = MakeCall(kernel_.get(), &inputs_);
  EXPECT_THAT(call2->ctx->output_list("single", &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("single-valued output name 'single'")));
}

TEST_F(ContextTest, OutputIndexOutOfRangeIsAnError) {
  auto call = MakeCall(kernel_.get(), &inputs_);
  Tensor* out = reinterpret_cast<Tensor*>(0x1);
  EXPECT_THAT(call->ctx->allocate_output(3, TensorShape({}), &out),
              StatusIs(error::INTERNAL,
                       HasSubstr("allocate_output with bad index=3 "
                                 "num_outputs=3 kernel=fn_node")));
  EXPECT_EQ(out, nullptr);
  EXPECT_THAT(call->ctx->status(),
              StatusIs(error::INTERNAL, HasSubstr("bad index=3")));

  auto call2 = MakeCall(kernel_.get(), &inputs_);
  EXPECT_THAT(call2->ctx->allocate_output(-1, TensorShape({}), &out),
              StatusIs(error::INTERNAL, HasSubstr("bad index=-1")));

  auto call3 = MakeCall(kernel_.get(), &inputs_);
  call3->ctx->set_output(9, Tensor(1.0f));
  EXPECT_THAT(call3->ctx->status(),
              StatusIs(error::INTERNAL, HasSubstr("set_output with bad index=9")));

  auto call4 = MakeCall(kernel_.get(), &inputs_);
  EXPECT_EQ(call4->ctx->mutable_output(3), nullptr);
  EXPECT_EQ(call4->ctx->expected_output_dtype(3), DT_INVALID);
  EXPECT_FALSE(call4->ctx->status().ok());

  auto call5 = MakeCall(kernel_.get(), &inputs_);
  EXPECT_THAT(call5->ctx->allocate_output("nope", TensorShape({}), &out),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Unknown output name")));
  EXPECT_THAT(call5->ctx->allocate_output("out", TensorShape({}), &out),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("list-valued output")));
}

TEST_F(ContextTest, OutputAllocatedTwiceIsAnError) {
  auto call = MakeCall(kernel_.get(), &inputs_);
  Tensor* out = nullptr;
  ASSERT_THAT(call->ctx->allocate_output(2, TensorShape({}), &out), IsOk());
  Tensor* again = nullptr;
  EXPECT_THAT(call->ctx->allocate_output(2, TensorShape({}), &again),
              StatusIs(error::INTERNAL, HasSubstr("output 2 of kernel fn_node "
                                                  "is already set")));
  EXPECT_EQ(again, nullptr);
  EXPECT_FALSE(call->ctx->status().ok());

  auto call2 = MakeCall(kernel_.get(), &inputs_);
  call2->ctx->set_output(2, Tensor(1.0f));
  call2->ctx->set_output(2, Tensor(2.0f));
  EXPECT_THAT(call2->ctx->status(),
              StatusIs(error::INTERNAL, HasSubstr("already set")));
  // The first value stays.
  EXPECT_EQ(call2->ctx->mutable_output(2)->scalar<float>()(), 1.0f);
}

TEST_F(ContextTest, SetOutputWithWrongDtypeIsAnError) {
  auto call = MakeCall(kernel_.get(), &inputs_);
  call->ctx->set_output(0, Tensor(1.0f));
  EXPECT_THAT(call->ctx->status(),
              StatusIs(error::INTERNAL,
                       HasSubstr("output 0 of kernel fn_node (op Fn) must be "
                                 "int32, but a float tensor was given")));
  EXPECT_FALSE(call->ctx->output_is_set(0));

  auto call2 = MakeCall(kernel_.get(), &inputs_);
  EXPECT_THAT(call2->ctx->set_output("single", Tensor(static_cast<int32>(1))),
              StatusIs(error::INTERNAL, HasSubstr("must be float")));
}

TEST_F(ContextTest, AllocateTempAndTracking) {
  auto call = MakeCall(kernel_.get(), &inputs_);
  call->params.track_allocations = true;
  Tensor temp;
  ASSERT_THAT(call->ctx->allocate_temp(DT_DOUBLE, TensorShape({4}), &temp),
              IsOk());
  EXPECT_EQ(temp.NumElements(), 4);
  EXPECT_GE(call->ctx->temp_memory_allocated(), 32);
  Tensor* out = nullptr;
  ASSERT_THAT(call->ctx->allocate_output(2, TensorShape({8}), &out), IsOk());
  EXPECT_GE(call->ctx->output_memory_allocated(), 32);
  // A dtype without storage is the allocator's error, returned.
  EXPECT_THAT(call->ctx->allocate_temp(DT_INVALID, TensorShape({1}), &temp),
              StatusIs(error::INVALID_ARGUMENT, ::testing::_));
}

TEST_F(OpKernelTest, RefInputs) {
  NodeDef node;
  node.set_name("ref");
  node.set_op("RefOp");
  node.add_input("r");
  node.add_input("v");
  std::unique_ptr<OpKernel> kernel;
  ASSERT_THAT(Create(node, &kernel), IsOk());
  EXPECT_EQ(kernel->input_type(0), DT_FLOAT_REF);

  mutex mu;
  Tensor var = Floats({1, 2});
  Tensor v = Floats({5});
  std::vector<TensorValue> values = {TensorValue(&mu, &var), TensorValue(&v)};
  OpKernelContext::Params params;
  params.op_kernel = kernel.get();
  params.inputs = &values;
  {
    OpKernelContext ctx(&params);
    ASSERT_THAT(ctx.status(), IsOk());
    EXPECT_TRUE(ctx.input_is_ref(0));
    EXPECT_EQ(ctx.input_dtype(0), DT_FLOAT_REF);
    Tensor t = ctx.mutable_input(0, /*lock_held=*/false);
    t.flat<float>()(0) = 9.0f;  // Updates the variable in place.
    EXPECT_EQ(var.flat<float>()(0), 9.0f);
    Tensor by_name;
    ASSERT_THAT(ctx.mutable_input("r", &by_name, /*lock_held=*/true), IsOk());
    EXPECT_TRUE(by_name.SharesBufferWith(var));
    EXPECT_THAT(ctx.status(), IsOk());
    // Forwarding never takes a Ref input's buffer.
    Tensor* out = nullptr;
    int forwarded = 0;
    ASSERT_THAT(ctx.forward_input_or_allocate_output({0}, 0, TensorShape({2}),
                                                     &out, &forwarded),
                IsOk());
    EXPECT_EQ(forwarded, -1);
    EXPECT_FALSE(out->SharesBufferWith(var));
  }
  {
    OpKernelContext ctx(&params);
    const Tensor* t = nullptr;
    EXPECT_THAT(ctx.input("r", &t),
                StatusIs(error::INVALID_ARGUMENT,
                         HasSubstr("OpKernel used ref input name 'r' when "
                                   "non-ref input was expected")));
  }
  {
    OpKernelContext ctx(&params);
    EXPECT_FALSE(ctx.mutable_input(1, false).IsInitialized());
    EXPECT_THAT(ctx.status(),
                StatusIs(error::INTERNAL, HasSubstr("is not a Ref input")));
    Tensor t;
    EXPECT_THAT(ctx.mutable_input("v", &t, false),
                StatusIs(error::INVALID_ARGUMENT, HasSubstr("non-ref input")));
  }
  // A plain tensor where a Ref is expected is rejected up front.
  std::vector<TensorValue> plain = {TensorValue(&var), TensorValue(&v)};
  params.inputs = &plain;
  OpKernelContext ctx(&params);
  EXPECT_THAT(ctx.status(),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("must be float_ref, but a float tensor")));
}

// ---------------------------------------------------------------------------
// Forwarding.

TEST_F(OpKernelTest, ForwardsAnUnsharedInputAndAllocatesOtherwise) {
  std::unique_ptr<OpKernel> kernel;
  ASSERT_THAT(Create(AddNode(), &kernel), IsOk());
  auto* add = static_cast<AddFloatKernel*>(kernel.get());

  // The caller keeps copies: the buffers are shared, so nothing is forwarded.
  Tensor x = Floats({1, 2, 3});
  Tensor y = Floats({10, 20, 30});
  {
    std::vector<Tensor> inputs = {x, y};
    auto call = MakeCall(kernel.get(), &inputs);
    kernel->Compute(call->ctx.get());
    ASSERT_THAT(call->ctx->status(), IsOk());
    EXPECT_EQ(add->forwarded, -1);
    Tensor z;
    ASSERT_THAT(call->ctx->release_output(0, &z), IsOk());
    EXPECT_FALSE(z.SharesBufferWith(x));
    EXPECT_FALSE(z.SharesBufferWith(y));
    EXPECT_EQ(z.flat<float>()(2), 33.0f);
    EXPECT_EQ(x.flat<float>()(2), 3.0f);  // Untouched.
  }
  // The inputs hold the only reference to y's buffer: it is reused.
  {
    std::vector<Tensor> inputs = {x, Floats({10, 20, 30})};
    auto call = MakeCall(kernel.get(), &inputs);
    kernel->Compute(call->ctx.get());
    ASSERT_THAT(call->ctx->status(), IsOk());
    EXPECT_EQ(add->forwarded, 1);
    Tensor z;
    ASSERT_THAT(call->ctx->release_output(0, &z), IsOk());
    EXPECT_TRUE(z.SharesBufferWith(inputs[1]));
    EXPECT_EQ(z.flat<float>()(0), 11.0f);
  }
}

TEST_F(ContextTest, ForwardInputOrAllocateOutputChecksItsArguments) {
  // Fresh tensors: `inputs` holds the only reference to each buffer.
  std::vector<Tensor> inputs = {Tensor(static_cast<int32>(1)),
                                Tensor(static_cast<int32>(2)), Tensor(3.0f),
                                Tensor(4.0f)};
  auto call = MakeCall(kernel_.get(), &inputs);
  Tensor* out = nullptr;
  int forwarded = 0;
  // Candidate out of range.
  EXPECT_THAT(call->ctx->forward_input_or_allocate_output(
                  {7}, 2, TensorShape({}), &out, &forwarded),
              StatusIs(error::INTERNAL, HasSubstr("out of range")));
  EXPECT_EQ(forwarded, -1);

  // Input 3 is float with one element, held only by `inputs`... but input
  // 0 is int32, so only 3 can be forwarded to the float output 2.
  auto call2 = MakeCall(kernel_.get(), &inputs);
  ASSERT_THAT(call2->ctx->forward_input_or_allocate_output(
                  {0, 3}, 2, TensorShape({}), &out, &forwarded),
              IsOk());
  EXPECT_EQ(forwarded, 3);
  EXPECT_TRUE(out->SharesBufferWith(inputs[3]));

  // Different element count: allocates.
  auto call3 = MakeCall(kernel_.get(), &inputs);
  ASSERT_THAT(call3->ctx->forward_input_or_allocate_output(
                  {2}, 2, TensorShape({2}), &out, &forwarded),
              IsOk());
  EXPECT_EQ(forwarded, -1);
  EXPECT_EQ(out->NumElements(), 2);
}

TEST_F(ContextTest, MatchSignatureComparesTheCallsTypes) {
  auto call = MakeCall(kernel_.get(), &inputs_);
  OpKernelContext& ctx = *call->ctx;
  EXPECT_THAT(ctx.MatchSignature({DT_INT32, DT_INT32, DT_FLOAT, DT_FLOAT},
                                 {DT_INT32, DT_INT32, DT_FLOAT}),
              IsOk());
  EXPECT_THAT(ctx.MatchSignature({DT_FLOAT}, {DT_FLOAT}),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Signature mismatch, have: int32, int32, "
                                 "float, float->int32, int32, float expected: "
                                 "float->float")));
  // Returned, not recorded.
  EXPECT_THAT(ctx.status(), IsOk());
}

TEST_F(ContextTest, AllocateWithAllocatorAttributes) {
  auto call = MakeCall(kernel_.get(), &inputs_);
  AllocatorAttributes attr;
  attr.set_on_host(true);
  attr.set_gpu_compatible(true);
  EXPECT_TRUE(attr.on_host());
  EXPECT_TRUE(attr.gpu_compatible());
  EXPECT_FALSE(attr.nic_compatible());
  EXPECT_EQ(attr.DebugString(),
            "AllocatorAttributes(on_host=1 nic_compatible=0 gpu_compatible=1)");
  Tensor* out = nullptr;
  ASSERT_THAT(call->ctx->allocate_output(2, TensorShape({3}), &out, attr),
              IsOk());
  EXPECT_EQ(out->NumElements(), 3);
  Tensor temp;
  ASSERT_THAT(call->ctx->allocate_temp(DT_DOUBLE, TensorShape({2}), &temp,
                                       attr),
              IsOk());
  EXPECT_EQ(temp.dtype(), DT_DOUBLE);
  Tensor* named = nullptr;
  EXPECT_THAT(call->ctx->allocate_output("single", TensorShape({}), &named,
                                         attr),
              StatusIs(error::INTERNAL));  // Output 2 is "single": taken.
}

TEST_F(ContextTest, ForwardInputTakesOnlyAnUnsharedBuffer) {
  auto call = MakeCall(kernel_.get(), &inputs_);
  OpKernelContext& ctx = *call->ctx;
  const AllocatorAttributes attr;
  // Input 3 (float, one element) is held by inputs_ alone.
  std::unique_ptr<Tensor> t = ctx.forward_input(
      3, 2, DT_FLOAT, TensorShape({1}), DEVICE_MEMORY, attr);
  ASSERT_NE(t, nullptr);
  EXPECT_TRUE(t->SharesBufferWith(inputs_[3]));
  EXPECT_EQ(t->shape(), TensorShape({1}));
  // Now `t` shares it too.
  EXPECT_EQ(ctx.forward_input(3, OpKernelContext::Params::kNoReservation,
                              DT_FLOAT, TensorShape({}), HOST_MEMORY, attr),
            nullptr);
  t.reset();
  // Wrong dtype for the input, wrong dtype for the output, wrong size.
  EXPECT_EQ(ctx.forward_input(0, OpKernelContext::Params::kNoReservation,
                              DT_FLOAT, TensorShape({}), DEVICE_MEMORY, attr),
            nullptr);
  EXPECT_EQ(ctx.forward_input(3, 0, DT_FLOAT, TensorShape({}), DEVICE_MEMORY,
                              attr),
            nullptr);
  EXPECT_EQ(ctx.forward_input(3, 2, DT_FLOAT, TensorShape({2}), DEVICE_MEMORY,
                              attr),
            nullptr);
  EXPECT_THAT(ctx.status(), IsOk());
  // Out of range is a misuse.
  EXPECT_EQ(ctx.forward_input(9, 2, DT_FLOAT, TensorShape({}), DEVICE_MEMORY,
                              attr),
            nullptr);
  EXPECT_THAT(ctx.status(), StatusIs(error::INTERNAL));
}

TEST_F(ContextTest, ForwardInputOrAllocateTemp) {
  auto call = MakeCall(kernel_.get(), &inputs_);
  Tensor temp;
  ASSERT_THAT(call->ctx->forward_input_or_allocate_temp(
                  {0, 3}, DT_FLOAT, TensorShape({}), &temp),
              IsOk());
  EXPECT_TRUE(temp.SharesBufferWith(inputs_[3]));
  Tensor other;
  ASSERT_THAT(call->ctx->forward_input_or_allocate_temp(
                  std::vector<int>{2}, DT_FLOAT, TensorShape({2}),
                  AllocatorAttributes(), &other),
              IsOk());
  EXPECT_FALSE(other.SharesBufferWith(inputs_[2]));
  EXPECT_EQ(other.NumElements(), 2);
  EXPECT_THAT(call->ctx->forward_input_or_allocate_temp(
                  {7}, DT_FLOAT, TensorShape({}), &other),
              StatusIs(error::INTERNAL, HasSubstr("out of range")));
}

TEST_F(OpKernelTest, ForwardInputOrAllocateOutputByNameAndVector) {
  std::unique_ptr<OpKernel> kernel;
  ASSERT_THAT(Create(AddNode(), &kernel), IsOk());
  std::vector<Tensor> inputs = {Floats({1, 2}), Floats({3, 4})};
  {
    auto call = MakeCall(kernel.get(), &inputs);
    Tensor* out = nullptr;
    ASSERT_THAT(call->ctx->forward_input_or_allocate_output(
                    {"y", "x"}, "z", TensorShape({2}), &out),
                IsOk());
    EXPECT_TRUE(out->SharesBufferWith(inputs[1]));
    EXPECT_THAT(call->ctx->forward_input_or_allocate_output(
                    {"w"}, "z", TensorShape({2}), &out),
                StatusIs(error::INVALID_ARGUMENT,
                         HasSubstr("Unknown input name: w")));
  }
  {
    auto call = MakeCall(kernel.get(), &inputs);
    Tensor* out = nullptr;
    int forwarded = -3;
    ASSERT_THAT(call->ctx->forward_input_or_allocate_output(
                    std::vector<int>{0, 1}, 0, TensorShape({2}), &out,
                    &forwarded),
                IsOk());
    EXPECT_EQ(forwarded, 0);
  }
}

TEST_F(ContextTest, ForwardInputToOutputWithShape) {
  std::vector<Tensor> inputs = inputs_;
  Tensor keep = inputs[2];  // Shared: forwarding with shape ignores sharing.
  auto call = MakeCall(kernel_.get(), &inputs);
  Tensor* out = nullptr;
  EXPECT_TRUE(call->ctx->forward_input_to_output_with_shape(
      2, 2, TensorShape({1, 1}), &out));
  ASSERT_NE(out, nullptr);
  EXPECT_TRUE(out->SharesBufferWith(keep));
  EXPECT_EQ(out->dims(), 2);

  // Element counts differ: false, nothing recorded.
  auto call2 = MakeCall(kernel_.get(), &inputs);
  EXPECT_FALSE(call2->ctx->forward_input_to_output_with_shape(
      2, 2, TensorShape({2}), &out));
  EXPECT_THAT(call2->ctx->status(), IsOk());
  EXPECT_THAT(call2->ctx->forward_input_to_output_with_shape(
                  "c", "single", TensorShape({3}), &out),
              StatusIs(error::FAILED_PRECONDITION,
                       HasSubstr("could not forward input 'c' to output "
                                 "'single'")));
  // Wrong dtype: recorded.
  EXPECT_FALSE(call2->ctx->forward_input_to_output_with_shape(
      0, 2, TensorShape({}), &out));
  EXPECT_THAT(call2->ctx->status(),
              StatusIs(error::INTERNAL, HasSubstr("input 0 is int32")));
  ASSERT_THAT(call2->ctx->forward_input_to_output_with_shape(
                  "c", "single", TensorShape({}), &out),
              IsOk());
}

// --- Graph-execution additions: ref outputs, missing inputs, frames,
// cancellation, inline kernel types ---------------------------------------

TEST_F(OpKernelTest, RefOutputs) {
  NodeDef node;
  node.set_name("ref_out");
  node.set_op("RefOut");
  node.add_input("r");
  node.add_input("v");
  std::unique_ptr<OpKernel> kernel;
  ASSERT_THAT(Create(node, &kernel), IsOk());
  EXPECT_EQ(kernel->output_type(0), DT_FLOAT_REF);

  mutex mu;
  Tensor var = Floats({1, 2});
  Tensor v = Floats({5});
  std::vector<TensorValue> values = {TensorValue(&mu, &var), TensorValue(&v)};
  OpKernelContext::Params params;
  params.op_kernel = kernel.get();
  params.inputs = &values;
  {
    OpKernelContext ctx(&params);
    ASSERT_THAT(ctx.status(), IsOk());
    EXPECT_EQ(ctx.input_ref_mutex(0), &mu);
    ctx.forward_ref_input_to_ref_output(0, 0);
    ASSERT_THAT(ctx.status(), IsOk());
    EXPECT_TRUE(ctx.output_is_ref(0));
    EXPECT_EQ(ctx.output_ref(0).tensor, &var);
    EXPECT_EQ(ctx.output_ref(0).mutex_if_ref, &mu);
    EXPECT_FALSE(ctx.output_is_ref(1));
    EXPECT_EQ(ctx.output_ref(1).tensor, nullptr);
    // replace_ref_input changes what the ref points at.
    ctx.replace_ref_input(0, v, /*lock_held=*/false);
    EXPECT_TRUE(var.SharesBufferWith(v));
    // Reading the ref output as a value copies the current tensor.
    Tensor read;
    ASSERT_THAT(ctx.release_output(0, &read), IsOk());
    EXPECT_TRUE(read.SharesBufferWith(v));
    EXPECT_FALSE(ctx.output_is_ref(0));
  }
  {
    OpKernelContext ctx(&params);
    ctx.set_output_ref(1, &mu, &var);  // Not a Ref output.
    EXPECT_THAT(ctx.status(),
                StatusIs(error::INTERNAL, HasSubstr("is not a Ref output")));
  }
  {
    OpKernelContext ctx(&params);
    ctx.set_output_ref(0, nullptr, &var);
    EXPECT_THAT(ctx.status(), StatusIs(error::INTERNAL, HasSubstr("null")));
  }
  {
    OpKernelContext ctx(&params);
    Tensor ints(DT_INT32, TensorShape({1}));
    ctx.set_output_ref(0, &mu, &ints);
    EXPECT_THAT(ctx.status(), StatusIs(error::INTERNAL, HasSubstr("int32")));
  }
  {
    OpKernelContext ctx(&params);
    ctx.set_output_ref(0, &mu, &var);
    ctx.set_output_ref(0, &mu, &var);
    EXPECT_THAT(ctx.status(), StatusIs(error::INTERNAL, HasSubstr("already set")));
    ctx.set_output_ref(5, &mu, &var);
  }
  {
    OpKernelContext ctx(&params);
    // A Ref output cannot be allocated or set as a value.
    ctx.set_output(0, v);
    EXPECT_FALSE(ctx.status().ok());
  }
  {
    OpKernelContext ctx(&params);
    EXPECT_EQ(ctx.input_ref_mutex(1), nullptr);
    EXPECT_THAT(ctx.status(), StatusIs(error::INTERNAL, HasSubstr("not a Ref")));
    ctx.replace_ref_input(7, v, false);
    ctx.forward_ref_input_to_ref_output(1, 0);
    EXPECT_FALSE(ctx.output_is_ref(0));
  }
}

TEST_F(OpKernelTest, MissingInputsOnlyWhenTheRuntimeAllowsThem) {
  std::unique_ptr<OpKernel> kernel;
  ASSERT_THAT(Create(AddNode(), &kernel), IsOk());
  Tensor x = Floats({1});
  std::vector<TensorValue> values = {TensorValue(), TensorValue(&x)};
  OpKernelContext::Params params;
  params.op_kernel = kernel.get();
  params.inputs = &values;
  {
    OpKernelContext ctx(&params);
    EXPECT_THAT(ctx.status(),
                StatusIs(error::INVALID_ARGUMENT, HasSubstr("has no tensor")));
  }
  params.allow_missing_inputs = true;
  params.is_input_dead = true;
  params.frame_iter = FrameAndIter{2, 9};
  OpKernelContext ctx(&params);
  EXPECT_THAT(ctx.status(), IsOk());
  EXPECT_FALSE(ctx.has_input(0));
  EXPECT_TRUE(ctx.has_input(1));
  EXPECT_TRUE(ctx.is_input_dead());
  EXPECT_EQ(ctx.frame_iter().frame_id, 2);
  EXPECT_EQ(ctx.frame_iter().iter_id, 9);
  EXPECT_EQ(ctx.cancellation_manager(), nullptr);
  // Reading the missing input is a recorded misuse, not a crash.
  EXPECT_FALSE(ctx.input(0).IsInitialized());
  EXPECT_FALSE(ctx.status().ok());
}

TEST(CancellationManagerTest, RunsCallbacksOnceAndRefusesLateOnes) {
  CancellationManager cm;
  int ran = 0;
  const CancellationToken a = cm.get_cancellation_token();
  const CancellationToken b = cm.get_cancellation_token();
  EXPECT_NE(a, b);
  EXPECT_TRUE(cm.RegisterCallback(a, [&] { ++ran; }));
  EXPECT_TRUE(cm.RegisterCallback(b, [&] { ran += 10; }));
  EXPECT_TRUE(cm.DeregisterCallback(b));
  EXPECT_FALSE(cm.DeregisterCallback(b));
  EXPECT_FALSE(cm.IsCancelled());
  cm.StartCancel();
  cm.StartCancel();
  EXPECT_TRUE(cm.IsCancelled());
  EXPECT_EQ(ran, 1);
  EXPECT_FALSE(cm.RegisterCallback(cm.get_cancellation_token(), [&] { ++ran; }));
  EXPECT_FALSE(cm.DeregisterCallback(a));
  EXPECT_EQ(ran, 1);
}

}  // namespace
}  // namespace opkit
