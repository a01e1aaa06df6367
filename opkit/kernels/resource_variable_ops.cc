// CPU kernels of TensorFlow's resource variables: VarHandleOp,
// ReadVariableOp, AssignVariableOp, AssignAddVariableOp,
// AssignSubVariableOp, VarIsInitializedOp, DestroyResourceOp.
//
// Note [Resource variables]
// A variable is a Var in the ResourceMgr of the device the kernels run on
// (an eager context's, a session's), named by the (container, shared_name)
// of its VarHandleOp; the handle is plain data, so any op holding it reaches
// the same Var. AssignVariableOp creates the Var on first use. As with the
// ref variables (Note [Ref variables] in variable_ops.cc), a write never
// changes a buffer a reader may hold: AssignVariableOp stores a copy of the
// value; the updates (AssignAddVariableOp, AssignSubVariableOp) compute in
// place when no other Tensor shares the Var's buffer (Tensor::RefCountIsOne:
// no read's result is alive, as after a training step has used its reads),
// else into a fresh buffer that they swap in (TensorFlow's copy-on-write),
// each under the Var's mutex; ReadVariableOp hands out the current buffer,
// taking its reference under the mutex, so no reader appears during an
// in-place update.
#include <cstdint>
#include <string>
#include <vector>

#include "opkit/core/errors.h"
#include "opkit/core/mutex.h"
#include "opkit/kernel/op_kernel.h"
#include "opkit/kernel/register_types.h"
#include "opkit/kernel/resource_handle_op.h"
#include "opkit/kernels/kernel_shard.h"
#include "opkit/resource/resource_var.h"
#include "opkit/tensor/tensor_shape.h"

namespace opkit {
namespace {

// The handle of the variable, with its dtype and shape as handle data.
class VarHandleOp : public OpKernel {
 public:
  explicit VarHandleOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("container", &container_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("shared_name", &name_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dtype", &dtype_and_shape_.dtype));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("shape", &dtype_and_shape_.shape));
  }

  void Compute(OpKernelContext* ctx) override {
    // An anonymous variable gets a new name every call (see ResourceHandleOp).
    if (name_ == ResourceHandle::ANONYMOUS_NAME) {
      Tensor handle;
      OP_REQUIRES_OK(ctx, MakeHandle(ctx, &handle));
      ctx->set_output(0, handle);
      return;
    }
    mutex_lock l(mu_);
    if (!made_) {
      OP_REQUIRES_OK(ctx, MakeHandle(ctx, &handle_));
      made_ = true;
    }
    ctx->set_output(0, handle_);
  }
  bool IsExpensive() override { return false; }

 private:
  Status MakeHandle(OpKernelContext* ctx, Tensor* out) {
    OPKIT_RETURN_IF_ERROR(ctx->allocate_temp(DT_RESOURCE, TensorShape({}), out));
    out->scalar<ResourceHandle>()() = MakeResourceHandle<Var>(
        ctx, container_, name_,
        std::vector<DtypeAndPartialTensorShape>{dtype_and_shape_});
    return OkStatus();
  }

  std::string container_;
  std::string name_;
  DtypeAndPartialTensorShape dtype_and_shape_;
  mutex mu_;
  bool made_ OPKIT_GUARDED_BY(mu_) = false;
  Tensor handle_ OPKIT_GUARDED_BY(mu_);
};

// TensorFlow's message for a variable that cannot be read.
Status ReadError(const ResourceHandle& handle, const Status& cause) {
  return errors::FailedPrecondition(
      "Error while reading resource variable ", handle.name(),
      " from Container: ", handle.container(),
      ". This could mean that the variable was uninitialized. ",
      cause.ToString());
}

class ReadVariableOp : public OpKernel {
 public:
  explicit ReadVariableOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dtype", &dtype_));
  }

  void Compute(OpKernelContext* ctx) override {
    const ResourceHandle& handle = HandleFromInput(ctx, 0);
    core::RefCountPtr<Var> variable;
    const Status s = LookupResource(ctx, handle, &variable);
    OP_REQUIRES(ctx, s.ok(), ReadError(handle, s));
    Tensor value;
    {
      shared_lock l(*variable->mu());
      OP_REQUIRES(ctx, variable->is_initialized,
                  ReadError(handle, errors::FailedPrecondition(
                                        "the variable has no value yet")));
      value = *variable->tensor();
    }
    OP_REQUIRES(ctx, value.dtype() == dtype_,
                errors::InvalidArgument(
                    "Trying to read variable with wrong dtype. Expected ",
                    DataTypeString(dtype_), " got ",
                    DataTypeString(value.dtype())));
    ctx->set_output(0, value);
  }
  bool IsExpensive() override { return false; }

 private:
  DataType dtype_;
};

// InvalidArgument unless the variable holds `dtype` values.
Status CheckVariableDtype(Var* variable, DataType dtype) {
  if (variable->tensor()->dtype() != dtype) {
    return errors::InvalidArgument(
        "Trying to assign variable with wrong dtype. Expected ",
        DataTypeString(variable->tensor()->dtype()), " got ",
        DataTypeString(dtype));
  }
  return OkStatus();
}

// Creates the variable on first use; its shape may change with each
// assignment (TensorFlow's AssignVariableOp has no validate_shape attr).
class AssignVariableOp : public OpKernel {
 public:
  explicit AssignVariableOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dtype", &dtype_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& value = ctx->input(1);
    OP_REQUIRES(ctx, value.dtype() == dtype_,
                errors::InvalidArgument(
                    "Variable and value dtypes don't match; respectively, ",
                    DataTypeString(dtype_), " and ",
                    DataTypeString(value.dtype())));
    core::RefCountPtr<Var> variable;
    const DataType dtype = dtype_;
    OP_REQUIRES_OK(ctx, LookupOrCreateResource<Var>(
                            ctx, HandleFromInput(ctx, 0), &variable,
                            [dtype](Var** v) {
                              *v = new Var(dtype);
                              return OkStatus();
                            }));
    // The caller may still own the value's buffer (a numpy array): copy.
    Tensor copy;
    OP_REQUIRES_OK(ctx, DeepCopy(value, &copy, ctx->allocator()));
    mutex_lock l(*variable->mu());
    OP_REQUIRES_OK(ctx, CheckVariableDtype(variable.get(), dtype_));
    *variable->tensor() = std::move(copy);
    variable->is_initialized = true;
  }
  bool IsExpensive() override { return false; }

 private:
  DataType dtype_;
};

struct AddFn {
  template <typename A, typename B>
  auto operator()(const A& a, const B& b) const {
    return a + b;
  }
};
struct SubFn {
  template <typename A, typename B>
  auto operator()(const A& a, const B& b) const {
    return a - b;
  }
};

// variable = Fn(variable, value), computed into a fresh buffer.
template <typename T, typename Fn>
class AssignUpdateVariableOp : public OpKernel {
 public:
  explicit AssignUpdateVariableOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    core::RefCountPtr<Var> variable;
    OP_REQUIRES_OK(ctx,
                   LookupResource(ctx, HandleFromInput(ctx, 0), &variable));
    const Tensor& value = ctx->input(1);
    mutex_lock l(*variable->mu());
    OP_REQUIRES_OK(ctx, CheckVariableDtype(variable.get(),
                                           DataTypeToEnum<T>::value));
    const Tensor& old = *variable->tensor();
    OP_REQUIRES(ctx, variable->is_initialized && old.IsInitialized(),
                errors::FailedPrecondition(
                    "Attempting to update uninitialized variable ",
                    HandleFromInput(ctx, 0).name()));
    OP_REQUIRES(ctx, old.shape() == value.shape(),
                errors::InvalidArgument(
                    "Cannot update variable with shape ",
                    old.shape().DebugString(), " using a Tensor with shape ",
                    value.shape().DebugString(), ", shapes must be equal."));
    // In place when nothing else holds the buffer (Note [Resource
    // variables]); `value` sharing it counts as a holder.
    Tensor updated;
    if (old.RefCountIsOne()) {
      updated = old;
    } else {
      OP_REQUIRES_OK(ctx,
                     ctx->allocate_temp(old.dtype(), old.shape(), &updated));
    }
    const T* a = old.flat<T>().data();
    const T* b = value.flat<T>().data();
    T* out = updated.flat<T>().data();
    // Element i reads only element i of each input, so in place is safe.
    Shard(ctx, old.NumElements(), 1.0, [=](int64_t first, int64_t last) {
      const int64_t n = last - first;
      ConstVec av(a + first, n), bv(b + first, n);
      Vec(out + first, n) = Fn()(av, bv);
    });
    *variable->tensor() = std::move(updated);
  }
  bool IsExpensive() override { return false; }

 private:
  using Vec = Eigen::TensorMap<Eigen::Tensor<T, 1, Eigen::RowMajor>,
                               Eigen::Unaligned>;
  using ConstVec = Eigen::TensorMap<Eigen::Tensor<const T, 1, Eigen::RowMajor>,
                                    Eigen::Unaligned>;
};

class VarIsInitializedOp : public OpKernel {
 public:
  explicit VarIsInitializedOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({}), &out));
    core::RefCountPtr<Var> variable;
    bool initialized = false;
    if (LookupResource(ctx, HandleFromInput(ctx, 0), &variable).ok()) {
      shared_lock l(*variable->mu());
      initialized = variable->is_initialized;
    }
    out->scalar<bool>()() = initialized;
  }
  bool IsExpensive() override { return false; }
};

class DestroyResourceOp : public OpKernel {
 public:
  explicit DestroyResourceOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx,
                   ctx->GetAttr("ignore_lookup_error", &ignore_lookup_error_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Status s = DeleteResource(ctx, HandleFromInput(ctx, 0));
    if (ignore_lookup_error_ && s.code() == error::NOT_FOUND) return;
    OP_REQUIRES_OK(ctx, s);
  }

 private:
  bool ignore_lookup_error_ = true;
};

REGISTER_KERNEL_BUILDER(Name("VarHandleOp").Device(DEVICE_CPU), VarHandleOp);
REGISTER_KERNEL_BUILDER(Name("ReadVariableOp").Device(DEVICE_CPU),
                        ReadVariableOp);
REGISTER_KERNEL_BUILDER(Name("AssignVariableOp").Device(DEVICE_CPU),
                        AssignVariableOp);
REGISTER_KERNEL_BUILDER(Name("VarIsInitializedOp").Device(DEVICE_CPU),
                        VarIsInitializedOp);
REGISTER_KERNEL_BUILDER(Name("DestroyResourceOp").Device(DEVICE_CPU),
                        DestroyResourceOp);

#define OPKIT_REGISTER_ASSIGN_UPDATE(T)                                     \
  REGISTER_KERNEL_BUILDER(Name("AssignAddVariableOp")                       \
                              .Device(DEVICE_CPU)                           \
                              .TypeConstraint<T>("dtype"),                  \
                          AssignUpdateVariableOp<T, AddFn>);                \
  REGISTER_KERNEL_BUILDER(Name("AssignSubVariableOp")                       \
                              .Device(DEVICE_CPU)                           \
                              .TypeConstraint<T>("dtype"),                  \
                          AssignUpdateVariableOp<T, SubFn>);
TF_CALL_NUMBER_TYPES(OPKIT_REGISTER_ASSIGN_UPDATE)
#undef OPKIT_REGISTER_ASSIGN_UPDATE

}  // namespace
}  // namespace opkit
