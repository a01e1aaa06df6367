// CPU kernels of TensorFlow's v1 variables: VariableV2, Assign, AssignAdd,
// AssignSub.
//
// Note [Ref variables]
// A VariableV2 node's value lives in a LegacyVar resource of the ResourceMgr
// the kernel runs with (a Session's device's, so it persists across Run calls
// of one session and is private to it), under (container, shared_name),
// defaulting to (the manager's default container, the node name). The node's
// Ref output is a pointer to the LegacyVar's tensor plus its mutex; the
// kernel keeps a reference to the LegacyVar so that the pointer stays valid
// while the kernel lives.
// Updates never write into the variable's buffer: Assign makes the variable
// share the value's buffer, AssignAdd/AssignSub compute into a fresh buffer
// and swap it in, each under the variable's mutex. So a tensor read from a
// variable earlier (a fetched value, a snapshot fed to another op) never
// changes under its reader, and Assign need not copy.
#include <string>

#include "opkit/core/errors.h"
#include "opkit/core/mutex.h"
#include "opkit/kernel/op_kernel.h"
#include "opkit/kernel/register_types.h"
#include "opkit/resource/resource_mgr.h"
#include "opkit/tensor/tensor_shape.h"

namespace opkit {
namespace {

// The storage of one VariableV2.
class LegacyVar : public ResourceBase {
 public:
  explicit LegacyVar(DataType dtype) : tensor_(dtype) {}
  mutex* mu() { return &mu_; }
  Tensor* tensor() { return &tensor_; }
  std::string DebugString() const override {
    mutex_lock l(mu_);
    return StrCat(DataTypeString(tensor_.dtype()), "/",
                  tensor_.shape().DebugString());
  }

 private:
  mutable mutex mu_;
  // Guarded by mu_ (not annotated: the executor and kernels reach it through
  // the Ref's mutex pointer).
  Tensor tensor_;
};

class VariableOp : public OpKernel {
 public:
  explicit VariableOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dtype", &dtype_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("container", &container_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("shared_name", &shared_name_));
    if (shared_name_.empty()) shared_name_ = name();
  }

  ~VariableOp() override {
    if (var_ != nullptr) var_->Unref();
  }

  void Compute(OpKernelContext* ctx) override {
    ResourceMgr* rm = ctx->resource_manager();
    OP_REQUIRES(ctx, rm != nullptr,
                errors::FailedPrecondition(
                    "VariableV2 ", name(),
                    " has no resource manager to keep its value in; run it "
                    "in a Session or give the call a ResourceMgr"));
    LegacyVar* var = nullptr;
    {
      mutex_lock l(mu_);
      if (var_ == nullptr || rm != rm_) {
        const std::string& container =
            container_.empty() ? rm->default_container() : container_;
        LegacyVar* found = nullptr;
        const DataType dtype = dtype_;
        OP_REQUIRES_OK(ctx, rm->LookupOrCreate<LegacyVar>(
                                container, shared_name_, &found,
                                [dtype](LegacyVar** out) {
                                  *out = new LegacyVar(dtype);
                                  return OkStatus();
                                }));
        if (found->tensor()->dtype() != dtype_ &&
            found->tensor()->IsInitialized()) {
          const DataType other = found->tensor()->dtype();
          found->Unref();
          ctx->CtxFailure(errors::InvalidArgument(
              "Variable ", container, "/", shared_name_, " holds a ",
              DataTypeString(other), " value, but node ", name(),
              " declares dtype ", DataTypeString(dtype_),
              "; give the nodes different shared_names"));
          return;
        }
        if (var_ != nullptr) var_->Unref();
        var_ = found;
        rm_ = rm;
      }
      var = var_;
    }
    ctx->set_output_ref(0, var->mu(), var->tensor());
  }
  bool IsExpensive() override { return false; }

 private:
  DataType dtype_ = DT_INVALID;
  std::string container_;
  std::string shared_name_;
  mutex mu_;
  LegacyVar* var_ OPKIT_GUARDED_BY(mu_) = nullptr;
  ResourceMgr* rm_ OPKIT_GUARDED_BY(mu_) = nullptr;
};

// Assign: the variable takes the value (sharing its buffer; see Note [Ref
// variables]).
class AssignOp : public OpKernel {
 public:
  explicit AssignOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("validate_shape", &validate_shape_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& value = ctx->input(1);
    // Assign allows an uninitialized input (its ref), so the executor lets
    // an uninitialized value through as well (TensorFlow's TFSA-2022-037).
    OP_REQUIRES(ctx, value.IsInitialized(),
                errors::Internal(
                    "Right hand side of Assign ('", def().input(1),
                    "') is not initialized; initialize the variable it "
                    "reads before running the Assign"));
    mutex* mu = ctx->input_ref_mutex(0);
    if (mu == nullptr) return;
    {
      mutex_lock l(*mu);
      Tensor old = ctx->mutable_input(0, /*lock_held=*/true);
      if (validate_shape_ && old.IsInitialized()) {
        OP_REQUIRES(ctx, old.shape() == value.shape(),
                    errors::InvalidArgument(
                        "Assign requires shapes of both tensors to match. "
                        "lhs shape= ",
                        old.shape().DebugString(),
                        " rhs shape= ", value.shape().DebugString()));
      }
      ctx->replace_ref_input(0, value, /*lock_held=*/true);
    }
    ctx->forward_ref_input_to_ref_output(0, 0);
  }
  bool IsExpensive() override { return false; }

 private:
  bool validate_shape_ = true;
};

enum class UpdateOp { kAdd, kSub };

// AssignAdd / AssignSub: variable = variable +/- value, into a fresh buffer.
template <typename T, UpdateOp kOp>
class DenseUpdateOp : public OpKernel {
 public:
  explicit DenseUpdateOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& value = ctx->input(1);
    mutex* mu = ctx->input_ref_mutex(0);
    if (mu == nullptr) return;
    {
      mutex_lock l(*mu);
      Tensor old = ctx->mutable_input(0, /*lock_held=*/true);
      OP_REQUIRES(ctx, old.IsInitialized(),
                  errors::FailedPrecondition(
                      "Attempting to use uninitialized value ",
                      def().input_size() > 0 ? def().input(0) : name()));
      OP_REQUIRES(ctx, old.shape() == value.shape(),
                  errors::InvalidArgument(
                      "Cannot update variable with shape ",
                      old.shape().DebugString(), " using a Tensor with shape ",
                      value.shape().DebugString(), ", shapes must be equal."));
      Tensor updated;
      OP_REQUIRES_OK(ctx, ctx->allocate_temp(old.dtype(), old.shape(), &updated));
      auto out = updated.flat<T>();
      if (kOp == UpdateOp::kAdd) {
        out = old.flat<T>() + value.flat<T>();
      } else {
        out = old.flat<T>() - value.flat<T>();
      }
      ctx->replace_ref_input(0, updated, /*lock_held=*/true);
    }
    ctx->forward_ref_input_to_ref_output(0, 0);
  }
  bool IsExpensive() override { return false; }
};

REGISTER_KERNEL_BUILDER(Name("VariableV2").Device(DEVICE_CPU), VariableOp);
REGISTER_KERNEL_BUILDER(Name("Assign").Device(DEVICE_CPU), AssignOp);

#define OPKIT_REGISTER_DENSE_UPDATE(T)                                        \
  REGISTER_KERNEL_BUILDER(                                                    \
      Name("AssignAdd").Device(DEVICE_CPU).TypeConstraint<T>("T"),            \
      DenseUpdateOp<T, UpdateOp::kAdd>);                                      \
  REGISTER_KERNEL_BUILDER(                                                    \
      Name("AssignSub").Device(DEVICE_CPU).TypeConstraint<T>("T"),            \
      DenseUpdateOp<T, UpdateOp::kSub>);
TF_CALL_NUMBER_TYPES(OPKIT_REGISTER_DENSE_UPDATE)
#undef OPKIT_REGISTER_DENSE_UPDATE

}  // namespace
}  // namespace opkit
