// VariableV2, Assign, AssignAdd, AssignSub kernels, through OpKernelContext
// with a ResourceMgr (Session-level behaviour is in
// opkit/runtime/session_test.cc).
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/op/node_def_util.h"
#include "opkit/kernel/op_kernel.h"
#include "opkit/resource/resource_mgr.h"
#include "opkit/testing/kernel_test_util.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace {

using ::opkit::testing::IsOk;
using ::opkit::testing::StatusIs;
using ::testing::HasSubstr;

NodeDef Variable(const std::string& name, DataType dtype,
                 const std::string& shared_name = "") {
  NodeDef def;
  def.set_name(name);
  def.set_op("VariableV2");
  AddNodeAttr("dtype", dtype, &def);
  AddNodeAttr("shape", TensorShape({2}), &def);
  if (!shared_name.empty()) AddNodeAttr("shared_name", shared_name, &def);
  return def;
}

NodeDef Update(const std::string& op, DataType t) {
  NodeDef def;
  def.set_name(op);
  def.set_op(op);
  def.add_input("v");
  def.add_input("value");
  AddNodeAttr("T", t, &def);
  return def;
}

struct ResourceCall {
  std::vector<TensorValue> inputs;
  OpKernelContext::Params params;
  std::unique_ptr<OpKernelContext> ctx;
  ResourceCall(OpKernel* k, std::vector<TensorValue> in, ResourceMgr* rm)
      : inputs(std::move(in)) {
    params.op_kernel = k;
    params.inputs = &inputs;
    params.resource_manager = rm;
    ctx = std::make_unique<OpKernelContext>(&params);
    if (ctx->status().ok()) k->Compute(ctx.get());
  }
};

class VariableOpsTest : public ::testing::Test {
 protected:
  // Runs the variable kernel and returns its ref.
  TensorValue VarRef(OpKernel* var) {
    ResourceCall call(var, {}, &rm_);
    EXPECT_THAT(call.ctx->status(), IsOk());
    EXPECT_TRUE(call.ctx->output_is_ref(0));
    return call.ctx->output_ref(0);
  }
  ResourceMgr rm_;
};

TEST_F(VariableOpsTest, AssignThenAddAndSub) {
  auto var = test::CreateKernel(Variable("v", DT_FLOAT));
  TensorValue ref = VarRef(var.get());
  ASSERT_NE(ref.tensor, nullptr);
  EXPECT_FALSE(ref.tensor->IsInitialized());

  auto assign = test::CreateKernel(Update("Assign", DT_FLOAT));
  Tensor init = test::AsTensor<float>({1.f, 2.f}, TensorShape({2}));
  {
    ResourceCall call(assign.get(), {ref, TensorValue(&init)}, &rm_);
    OPKIT_ASSERT_OK(call.ctx->status());
    EXPECT_EQ(call.ctx->output_ref(0).tensor, ref.tensor);
  }
  EXPECT_EQ(test::Values<float>(*ref.tensor), (std::vector<float>{1.f, 2.f}));

  const Tensor snapshot = *ref.tensor;
  auto add = test::CreateKernel(Update("AssignAdd", DT_FLOAT));
  Tensor delta = test::AsTensor<float>({10.f, 20.f}, TensorShape({2}));
  {
    ResourceCall call(add.get(), {ref, TensorValue(&delta)}, &rm_);
    OPKIT_ASSERT_OK(call.ctx->status());
  }
  EXPECT_EQ(test::Values<float>(*ref.tensor), (std::vector<float>{11.f, 22.f}));
  // Neither the snapshot nor the assigned value changed.
  EXPECT_EQ(test::Values<float>(snapshot), (std::vector<float>{1.f, 2.f}));
  EXPECT_EQ(test::Values<float>(init), (std::vector<float>{1.f, 2.f}));

  auto sub = test::CreateKernel(Update("AssignSub", DT_FLOAT));
  {
    ResourceCall call(sub.get(), {ref, TensorValue(&delta)}, &rm_);
    OPKIT_ASSERT_OK(call.ctx->status());
  }
  EXPECT_EQ(test::Values<float>(*ref.tensor), (std::vector<float>{1.f, 2.f}));
}

TEST_F(VariableOpsTest, SharedNameSharesStorage) {
  auto a = test::CreateKernel(Variable("a", DT_INT32, "shared"));
  auto b = test::CreateKernel(Variable("b", DT_INT32, "shared"));
  auto c = test::CreateKernel(Variable("c", DT_INT32));
  EXPECT_EQ(VarRef(a.get()).tensor, VarRef(b.get()).tensor);
  EXPECT_NE(VarRef(a.get()).tensor, VarRef(c.get()).tensor);
  // The same kernel returns the same storage every call.
  EXPECT_EQ(VarRef(c.get()).tensor, VarRef(c.get()).tensor);
}

TEST_F(VariableOpsTest, DtypeConflictWithAnInitializedVariable) {
  auto a = test::CreateKernel(Variable("a", DT_INT32, "x"));
  TensorValue ref = VarRef(a.get());
  auto assign = test::CreateKernel(Update("Assign", DT_INT32));
  Tensor v = test::AsTensor<int32>({1, 2}, TensorShape({2}));
  ResourceCall init(assign.get(), {ref, TensorValue(&v)}, &rm_);
  OPKIT_ASSERT_OK(init.ctx->status());
  auto b = test::CreateKernel(Variable("b", DT_FLOAT, "x"));
  ResourceCall call(b.get(), {}, &rm_);
  EXPECT_THAT(call.ctx->status(),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("holds a int32")));
}

TEST_F(VariableOpsTest, NoResourceManager) {
  auto var = test::CreateKernel(Variable("v", DT_FLOAT));
  ResourceCall call(var.get(), {}, nullptr);
  EXPECT_THAT(call.ctx->status(),
              StatusIs(error::FAILED_PRECONDITION, HasSubstr("resource manager")));
}

TEST_F(VariableOpsTest, UpdateErrors) {
  auto var = test::CreateKernel(Variable("v", DT_FLOAT));
  TensorValue ref = VarRef(var.get());
  auto add = test::CreateKernel(Update("AssignAdd", DT_FLOAT));
  Tensor delta = test::AsTensor<float>({1.f, 2.f}, TensorShape({2}));
  {
    ResourceCall call(add.get(), {ref, TensorValue(&delta)}, &rm_);
    EXPECT_THAT(call.ctx->status(),
                StatusIs(error::FAILED_PRECONDITION,
                         HasSubstr("Attempting to use uninitialized value v")));
  }
  auto assign = test::CreateKernel(Update("Assign", DT_FLOAT));
  {
    // An uninitialized right-hand side (TensorFlow's TFSA-2022-037).
    Tensor nothing(DT_FLOAT);
    ResourceCall call(assign.get(), {ref, TensorValue(&nothing)}, &rm_);
    EXPECT_THAT(call.ctx->status(),
                StatusIs(error::INTERNAL,
                         HasSubstr("Right hand side of Assign ('value') is not "
                                   "initialized")));
  }
  {
    ResourceCall call(assign.get(), {ref, TensorValue(&delta)}, &rm_);
    OPKIT_ASSERT_OK(call.ctx->status());
  }
  Tensor three = test::AsTensor<float>({1.f, 2.f, 3.f}, TensorShape({3}));
  {
    ResourceCall call(add.get(), {ref, TensorValue(&three)}, &rm_);
    EXPECT_THAT(call.ctx->status(),
                StatusIs(error::INVALID_ARGUMENT,
                         HasSubstr("Cannot update variable with shape [2] using "
                                   "a Tensor with shape [3]")));
  }
  {
    ResourceCall call(assign.get(), {ref, TensorValue(&three)}, &rm_);
    EXPECT_THAT(call.ctx->status(),
                StatusIs(error::INVALID_ARGUMENT,
                         HasSubstr("lhs shape= [2] rhs shape= [3]")));
  }
  // validate_shape=false lets the variable take a new shape.
  NodeDef loose = Update("Assign", DT_FLOAT);
  AddNodeAttr("validate_shape", false, &loose);
  auto loose_assign = test::CreateKernel(loose);
  {
    ResourceCall call(loose_assign.get(), {ref, TensorValue(&three)}, &rm_);
    OPKIT_ASSERT_OK(call.ctx->status());
  }
  EXPECT_EQ(ref.tensor->NumElements(), 3);
  // A non-ref tensor where the ref belongs is rejected by the context.
  Tensor plain = delta;
  ResourceCall call(add.get(), {TensorValue(&plain), TensorValue(&delta)}, &rm_);
  EXPECT_FALSE(call.ctx->status().ok());
}

TEST_F(VariableOpsTest, ReadingAnUninitializedRefOutputIsFailedPrecondition) {
  // What eager execution does with VariableV2's output.
  auto var = test::CreateKernel(Variable("v", DT_FLOAT));
  ResourceCall call(var.get(), {}, &rm_);
  OPKIT_ASSERT_OK(call.ctx->status());
  Tensor out;
  EXPECT_THAT(call.ctx->release_output(0, &out),
              StatusIs(error::FAILED_PRECONDITION,
                       HasSubstr("Attempting to use uninitialized value v")));
}

TEST_F(VariableOpsTest, IntegerUpdates) {
  auto var = test::CreateKernel(Variable("i", DT_INT64));
  TensorValue ref = VarRef(var.get());
  auto assign = test::CreateKernel(Update("Assign", DT_INT64));
  auto sub = test::CreateKernel(Update("AssignSub", DT_INT64));
  Tensor v = test::AsTensor<int64>({5, 7}, TensorShape({2}));
  ResourceCall(assign.get(), {ref, TensorValue(&v)}, &rm_);
  ResourceCall call(sub.get(), {ref, TensorValue(&v)}, &rm_);
  OPKIT_ASSERT_OK(call.ctx->status());
  EXPECT_EQ(test::Values<int64>(*ref.tensor), (std::vector<int64>{0, 0}));
}

}  // namespace
}  // namespace opkit
