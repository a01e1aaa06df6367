// TensorArray kernels on CPU (TensorFlow's v3 TensorArray ops, what v1 while
// loops in converted models collect their per-iteration values with):
// TensorArrayV3, TensorArrayWriteV3, TensorArrayReadV3, TensorArrayGatherV3,
// TensorArrayScatterV3, TensorArrayConcatV3, TensorArraySplitV3,
// TensorArraySizeV3, TensorArrayCloseV3.
//
// A TensorArray is a resource in the step's container ("__per_step_<id>",
// MakePerStepResourceHandle): it lives for one graph run and the executor
// removes it when the run ends. The float "flow" tensors only order the ops
// in the graph; their values carry nothing.
#include <atomic>
#include <cstring>
#include <string>
#include <vector>

#include "opkit/core/errors.h"
#include "opkit/core/mutex.h"
#include "opkit/core/str_util.h"
#include "opkit/kernel/op_kernel.h"
#include "opkit/kernel/op_requires.h"
#include "opkit/kernels/array_kernel_util.h"
#include "opkit/kernel/resource_handle_op.h"
#include "opkit/resource/resource_mgr.h"
#include "opkit/tensor/allocation_limit.h"

namespace opkit {
namespace {

using internal::CopyElements;
using internal::ReadIndexScalar;
using internal::SetZero;

class TensorArray : public ResourceBase {
 public:
  TensorArray(std::string name, DataType dtype, PartialTensorShape shape,
              int32 size, bool dynamic_size, bool clear_after_read,
              bool identical_element_shapes)
      : name_(std::move(name)),
        dtype_(dtype),
        element_shape_(std::move(shape)),
        dynamic_size_(dynamic_size),
        clear_after_read_(clear_after_read),
        identical_element_shapes_(identical_element_shapes),
        values_(static_cast<size_t>(size)) {}

  std::string DebugString() const override {
    return StrCat("TensorArray ", name_, " of ", DataTypeString(dtype_));
  }

  DataType dtype() const { return dtype_; }

  Status Size(int64_t* size) {
    mutex_lock l(mu_);
    OPKIT_RETURN_IF_ERROR(CheckOpen());
    *size = static_cast<int64_t>(values_.size());
    return OkStatus();
  }

  Status Write(int64_t index, const Tensor& value) {
    mutex_lock l(mu_);
    OPKIT_RETURN_IF_ERROR(CheckOpen());
    if (value.dtype() != dtype_) {
      return errors::InvalidArgument(
          "TensorArray ", name_, ": Could not write to TensorArray index ",
          index, " because the value dtype is ", DataTypeString(value.dtype()),
          " but TensorArray dtype is ", DataTypeString(dtype_), ".");
    }
    if (index < 0) {
      return errors::InvalidArgument("TensorArray ", name_,
                                     ": Tried to write to index ", index,
                                     " but it is negative.");
    }
    if (static_cast<size_t>(index) >= values_.size()) {
      if (!dynamic_size_) {
        return errors::InvalidArgument(
            "TensorArray ", name_, ": Tried to write to index ", index,
            " but array is not resizeable and size is: ", values_.size());
      }
      OPKIT_RETURN_IF_ERROR(CheckElementCount(index + 1, sizeof(Tensor),
                                              StrCat("TensorArray ", name_)));
      values_.resize(static_cast<size_t>(index) + 1);
    }
    if (!element_shape_.IsCompatibleWith(PartialTensorShape(value.shape()))) {
      return errors::InvalidArgument(
          "TensorArray ", name_, ": Could not write to TensorArray index ",
          index, " because the value shape is ", value.shape().DebugString(),
          " which is incompatible with the TensorArray's inferred element "
          "shape: ", element_shape_.DebugString(),
          " (consider setting infer_shape=False).");
    }
    Slot& slot = values_[static_cast<size_t>(index)];
    if (slot.written) {
      return errors::InvalidArgument(
          "TensorArray ", name_, ": Could not write to TensorArray index ",
          index, " because it has already been written to.");
    }
    if (identical_element_shapes_ || !element_shape_.IsFullyDefined()) {
      PartialTensorShape merged;
      if (element_shape_.MergeWith(PartialTensorShape(value.shape()), &merged)
              .ok() &&
          identical_element_shapes_) {
        element_shape_ = merged;
      }
    }
    slot.value = value;
    slot.written = true;
    return OkStatus();
  }

  Status Read(int64_t index, Tensor* out) {
    mutex_lock l(mu_);
    OPKIT_RETURN_IF_ERROR(CheckOpen());
    if (index < 0 || static_cast<size_t>(index) >= values_.size()) {
      return errors::InvalidArgument("TensorArray ", name_,
                                     ": Tried to read from index ", index,
                                     " but array size is: ", values_.size());
    }
    Slot& slot = values_[static_cast<size_t>(index)];
    if (slot.cleared) {
      return errors::InvalidArgument(
          "TensorArray ", name_, ": Could not read index ", index,
          " twice because it was cleared after a previous read (perhaps try "
          "setting clear_after_read = false?).");
    }
    if (!slot.written) {
      TensorShape shape;
      if (!element_shape_.AsTensorShape(&shape)) {
        return errors::InvalidArgument(
            "TensorArray ", name_, ": Could not read from TensorArray index ",
            index, ": it was never written and the element shape is not "
            "fully defined: ", element_shape_.DebugString());
      }
      return Zeros(shape, out);
    }
    *out = slot.value;
    if (clear_after_read_) {
      slot.value = Tensor();
      slot.cleared = true;
    }
    return OkStatus();
  }

  Status Close() {
    mutex_lock l(mu_);
    OPKIT_RETURN_IF_ERROR(CheckOpen());
    closed_ = true;
    values_.clear();
    return OkStatus();
  }

  PartialTensorShape element_shape() {
    mutex_lock l(mu_);
    return element_shape_;
  }

  Status Zeros(const TensorShape& shape, Tensor* out) const {
    OPKIT_RETURN_IF_ERROR(Tensor::Allocate(dtype_, shape, out));
    // Strings start empty; other objects (variants) have no zero.
    if (DataTypeCanUseMemcpy(dtype_)) SetZero(out);
    return OkStatus();
  }

 private:
  struct Slot {
    Tensor value;
    bool written = false;
    bool cleared = false;
  };

  Status CheckOpen() const OPKIT_REQUIRES(mu_) {
    if (closed_) {
      return errors::InvalidArgument("TensorArray ", name_,
                                     " has already been closed.");
    }
    return OkStatus();
  }

  const std::string name_;
  const DataType dtype_;
  mutex mu_;
  PartialTensorShape element_shape_ OPKIT_GUARDED_BY(mu_);
  const bool dynamic_size_;
  const bool clear_after_read_;
  const bool identical_element_shapes_;
  bool closed_ OPKIT_GUARDED_BY(mu_) = false;
  std::vector<Slot> values_ OPKIT_GUARDED_BY(mu_);
};

// The TensorArray input 0 names, with a reference for the caller.
Status GetTensorArray(OpKernelContext* ctx, core::RefCountPtr<TensorArray>* ta) {
  ResourceHandle handle;
  OPKIT_RETURN_IF_ERROR(HandleFromInput(ctx, 0, &handle));
  Status s = LookupResource(ctx, handle, ta);
  if (!s.ok()) {
    return errors::NotFound(
        "Container ", handle.container(), " does not have a TensorArray ",
        handle.name(), " (it lives for one run of the graph that made it): ",
        s.message());
  }
  return OkStatus();
}

Status CheckDtype(const TensorArray& ta, DataType dtype, const char* op) {
  if (ta.dtype() != dtype) {
    return errors::InvalidArgument(op, " TensorArray dtype is ",
                                   DataTypeString(ta.dtype()),
                                   " but Op requested dtype ",
                                   DataTypeString(dtype), ".");
  }
  return OkStatus();
}

Status CheckCopyable(DataType dtype) {
  if (!DataTypeCanUseMemcpy(dtype) && dtype != DT_STRING) {
    return errors::Unimplemented("TensorArray of ", DataTypeString(dtype),
                                 " elements cannot be gathered or split");
  }
  return OkStatus();
}

void SetFlowOut(OpKernelContext* ctx, int index) {
  Tensor* flow = nullptr;
  OP_REQUIRES_OK(ctx, ctx->allocate_output(index, TensorShape({}), &flow));
  flow->scalar<float>()() = 0.0f;
}

class TensorArrayOp : public OpKernel {
 public:
  explicit TensorArrayOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dtype", &dtype_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("element_shape", &element_shape_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dynamic_size", &dynamic_size_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("clear_after_read", &clear_after_read_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("identical_element_shapes",
                                     &identical_element_shapes_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("tensor_array_name", &name_));
  }
  void Compute(OpKernelContext* ctx) override {
    int64_t size = 0;
    OP_REQUIRES_OK(ctx, ReadIndexScalar(ctx->input(0), "size", /*allow_one_element=*/true, &size));
    OP_REQUIRES(ctx, size >= 0,
                errors::InvalidArgument("Size should be >= 0."));
    // Note [Allocation limit]: the slots are allocated now.
    OP_REQUIRES_OK(ctx, CheckElementCount(size, sizeof(Tensor), "TensorArray"));
    static std::atomic<int64_t> counter{0};
    const std::string name =
        StrCat(name_.empty() ? "_tensor_array" : name_, "_",
               counter.fetch_add(1, std::memory_order_relaxed));
    ResourceHandle handle = MakePerStepResourceHandle<TensorArray>(ctx, name);
    auto* ta = new TensorArray(name, dtype_, element_shape_,
                               static_cast<int32>(size),
                               dynamic_size_, clear_after_read_,
                               identical_element_shapes_);
    OP_REQUIRES_OK(ctx, CreateResource(ctx, handle, ta));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({}), &out));
    out->scalar<ResourceHandle>()() = handle;
    SetFlowOut(ctx, 1);
  }

 private:
  DataType dtype_;
  PartialTensorShape element_shape_;
  bool dynamic_size_;
  bool clear_after_read_;
  bool identical_element_shapes_;
  std::string name_;
};

class TensorArrayWriteOp : public OpKernel {
 public:
  explicit TensorArrayWriteOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    core::RefCountPtr<TensorArray> ta;
    OP_REQUIRES_OK(ctx, GetTensorArray(ctx, &ta));
    int64_t index = 0;
    OP_REQUIRES_OK(ctx, ReadIndexScalar(ctx->input(1), "index", /*allow_one_element=*/true, &index));
    OP_REQUIRES_OK(ctx, ta->Write(index, ctx->input(2)));
    SetFlowOut(ctx, 0);
  }
};

class TensorArrayReadOp : public OpKernel {
 public:
  explicit TensorArrayReadOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dtype", &dtype_));
  }
  void Compute(OpKernelContext* ctx) override {
    core::RefCountPtr<TensorArray> ta;
    OP_REQUIRES_OK(ctx, GetTensorArray(ctx, &ta));
    OP_REQUIRES_OK(ctx, CheckDtype(*ta, dtype_, "TensorArrayRead"));
    int64_t index = 0;
    OP_REQUIRES_OK(ctx, ReadIndexScalar(ctx->input(1), "index", /*allow_one_element=*/true, &index));
    Tensor value;
    OP_REQUIRES_OK(ctx, ta->Read(index, &value));
    ctx->set_output(0, std::move(value));
  }

 private:
  DataType dtype_;
};

class TensorArrayGatherOp : public OpKernel {
 public:
  explicit TensorArrayGatherOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dtype", &dtype_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("element_shape", &element_shape_));
  }
  void Compute(OpKernelContext* ctx) override {
    core::RefCountPtr<TensorArray> ta;
    OP_REQUIRES_OK(ctx, GetTensorArray(ctx, &ta));
    OP_REQUIRES_OK(ctx, CheckDtype(*ta, dtype_, "TensorArrayGather"));
    OP_REQUIRES_OK(ctx, CheckCopyable(dtype_));
    const Tensor& indices = ctx->input(1);
    OP_REQUIRES(ctx, indices.dtype() == DT_INT32 && indices.dims() == 1,
                errors::InvalidArgument("indices must be an int32 vector, got ",
                                        indices.shape().DebugString()));
    const int64_t n = indices.NumElements();
    std::vector<Tensor> values(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      OP_REQUIRES_OK(ctx, ta->Read(indices.flat<int32>()(i), &values[i]));
    }
    PartialTensorShape partial = element_shape_;
    PartialTensorShape from_array = ta->element_shape();
    OP_REQUIRES_OK(ctx, partial.MergeWith(from_array, &partial));
    TensorShape element;
    if (n > 0) {
      element = values[0].shape();
      for (int64_t i = 1; i < n; ++i) {
        OP_REQUIRES(ctx, values[i].shape() == element,
                    errors::InvalidArgument(
                        "TensorArray has inconsistent shapes.  Index 0 has "
                        "shape: ", element.DebugString(), " but index ", i,
                        " has shape: ", values[i].shape().DebugString()));
      }
    } else {
      OP_REQUIRES(ctx, partial.AsTensorShape(&element),
                  errors::InvalidArgument(
                      "TensorArray: gathering no elements needs a fully "
                      "defined element_shape, got ", partial.DebugString()));
    }
    TensorShape shape({n});
    OP_REQUIRES_OK(ctx, shape.AppendShapeWithStatus(element));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    const int64_t per = element.num_elements();
    for (int64_t i = 0; i < n; ++i) {
      CopyElements(values[i], 0, out, i * per, values[i].NumElements());
    }
  }

 private:
  DataType dtype_;
  PartialTensorShape element_shape_;
};

class TensorArrayScatterOp : public OpKernel {
 public:
  explicit TensorArrayScatterOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    core::RefCountPtr<TensorArray> ta;
    OP_REQUIRES_OK(ctx, GetTensorArray(ctx, &ta));
    const Tensor& indices = ctx->input(1);
    const Tensor& value = ctx->input(2);
    OP_REQUIRES(ctx, indices.dtype() == DT_INT32 && indices.dims() == 1,
                errors::InvalidArgument("indices must be an int32 vector, got ",
                                        indices.shape().DebugString()));
    OP_REQUIRES(ctx, value.dims() >= 1 &&
                         value.dim_size(0) == indices.NumElements(),
                errors::InvalidArgument(
                    "Expected len(indices) == values.shape[0], but saw: ",
                    indices.NumElements(), " vs. ",
                    value.dims() >= 1 ? value.dim_size(0) : 0));
    for (int64_t i = 0; i < indices.NumElements(); ++i) {
      Tensor row;
      OP_REQUIRES_OK(ctx, value.SliceWithStatus(i, i + 1, &row));
      Tensor copy;
      OP_REQUIRES_OK(ctx, DeepCopy(row, &copy));
      TensorShape element = value.shape();
      element.RemoveDim(0);
      Tensor item;
      OP_REQUIRES(ctx, item.CopyFrom(copy, element),
                  errors::Internal("cannot view a row as ",
                                   element.DebugString()));
      OP_REQUIRES_OK(ctx, ta->Write(indices.flat<int32>()(i), item));
    }
    SetFlowOut(ctx, 0);
  }
};

class TensorArrayConcatOp : public OpKernel {
 public:
  explicit TensorArrayConcatOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dtype", &dtype_));
  }
  void Compute(OpKernelContext* ctx) override {
    core::RefCountPtr<TensorArray> ta;
    OP_REQUIRES_OK(ctx, GetTensorArray(ctx, &ta));
    OP_REQUIRES_OK(ctx, CheckDtype(*ta, dtype_, "TensorArrayConcat"));
    OP_REQUIRES_OK(ctx, CheckCopyable(dtype_));
    int64_t size = 0;
    OP_REQUIRES_OK(ctx, ta->Size(&size));
    std::vector<Tensor> values(static_cast<size_t>(size));
    Tensor* lengths = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape({size}), &lengths));
    int64_t rows = 0;
    TensorShape rest;
    for (int32 i = 0; i < size; ++i) {
      OP_REQUIRES_OK(ctx, ta->Read(i, &values[i]));
      OP_REQUIRES(ctx, values[i].dims() >= 1,
                  errors::InvalidArgument(
                      "Concat saw a scalar shape at index ", i,
                      " but requires at least vectors."));
      TensorShape r = values[i].shape();
      r.RemoveDim(0);
      if (i == 0) rest = r;
      OP_REQUIRES(ctx, r == rest,
                  errors::InvalidArgument(
                      "TensorArray has inconsistent shapes.  Index 0 has "
                      "(excepting dimension 0) shape: ", rest.DebugString(),
                      " but index ", i, " has (excepting dimension 0) shape: ",
                      r.DebugString()));
      lengths->flat<int64>()(i) = values[i].dim_size(0);
      rows += values[i].dim_size(0);
    }
    TensorShape shape({rows});
    OP_REQUIRES_OK(ctx, shape.AppendShapeWithStatus(rest));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    int64_t at = 0;
    for (const Tensor& v : values) {
      CopyElements(v, 0, out, at, v.NumElements());
      at += v.NumElements();
    }
  }

 private:
  DataType dtype_;
};

class TensorArraySplitOp : public OpKernel {
 public:
  explicit TensorArraySplitOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    core::RefCountPtr<TensorArray> ta;
    OP_REQUIRES_OK(ctx, GetTensorArray(ctx, &ta));
    const Tensor& value = ctx->input(1);
    const Tensor& lengths = ctx->input(2);
    OP_REQUIRES_OK(ctx, CheckCopyable(value.dtype()));
    OP_REQUIRES(ctx, value.dims() >= 1,
                errors::InvalidArgument(
                    "Expected value to be at least a vector, but received "
                    "shape: ", value.shape().DebugString()));
    OP_REQUIRES(ctx, lengths.dtype() == DT_INT64 && lengths.dims() == 1,
                errors::InvalidArgument(
                    "Expected lengths to be a vector, received shape: ",
                    lengths.shape().DebugString()));
    int64_t total = 0;
    for (int64_t i = 0; i < lengths.NumElements(); ++i) {
      const int64_t len = lengths.flat<int64>()(i);
      OP_REQUIRES(ctx, len >= 0 && len <= value.dim_size(0) - total,
                  errors::InvalidArgument(
                      "Expected sum of lengths to be equal to values.shape[0], "
                      "but sum of lengths is larger than values.shape[0] (",
                      value.dim_size(0), ") or a length is negative"));
      total += len;
    }
    OP_REQUIRES(ctx, total == value.dim_size(0),
                errors::InvalidArgument(
                    "Expected sum of lengths to be equal to values.shape[0], "
                    "but sum of lengths is ", total,
                    " and value's shape is: ", value.shape().DebugString()));
    int64_t row = 0;
    for (int64_t i = 0; i < lengths.NumElements(); ++i) {
      const int64_t len = lengths.flat<int64>()(i);
      Tensor piece;
      OP_REQUIRES_OK(ctx, value.SliceWithStatus(row, row + len, &piece));
      Tensor copy;
      OP_REQUIRES_OK(ctx, DeepCopy(piece, &copy));
      OP_REQUIRES_OK(ctx, ta->Write(static_cast<int32>(i), copy));
      row += len;
    }
    SetFlowOut(ctx, 0);
  }
};

class TensorArraySizeOp : public OpKernel {
 public:
  explicit TensorArraySizeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    core::RefCountPtr<TensorArray> ta;
    OP_REQUIRES_OK(ctx, GetTensorArray(ctx, &ta));
    int64_t size = 0;
    OP_REQUIRES_OK(ctx, ta->Size(&size));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({}), &out));
    out->scalar<int32>()() = static_cast<int32>(size);
  }
};

class TensorArrayCloseOp : public OpKernel {
 public:
  explicit TensorArrayCloseOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    core::RefCountPtr<TensorArray> ta;
    OP_REQUIRES_OK(ctx, GetTensorArray(ctx, &ta));
    OP_REQUIRES_OK(ctx, ta->Close());
  }
};

REGISTER_KERNEL_BUILDER(Name("TensorArrayV3").Device(DEVICE_CPU),
                        TensorArrayOp);
REGISTER_KERNEL_BUILDER(Name("TensorArrayWriteV3").Device(DEVICE_CPU),
                        TensorArrayWriteOp);
REGISTER_KERNEL_BUILDER(Name("TensorArrayReadV3").Device(DEVICE_CPU),
                        TensorArrayReadOp);
REGISTER_KERNEL_BUILDER(Name("TensorArrayGatherV3").Device(DEVICE_CPU),
                        TensorArrayGatherOp);
REGISTER_KERNEL_BUILDER(Name("TensorArrayScatterV3").Device(DEVICE_CPU),
                        TensorArrayScatterOp);
REGISTER_KERNEL_BUILDER(Name("TensorArrayConcatV3").Device(DEVICE_CPU),
                        TensorArrayConcatOp);
REGISTER_KERNEL_BUILDER(Name("TensorArraySplitV3").Device(DEVICE_CPU),
                        TensorArraySplitOp);
REGISTER_KERNEL_BUILDER(Name("TensorArraySizeV3").Device(DEVICE_CPU),
                        TensorArraySizeOp);
REGISTER_KERNEL_BUILDER(Name("TensorArrayCloseV3").Device(DEVICE_CPU),
                        TensorArrayCloseOp);

}  // namespace
}  // namespace opkit
