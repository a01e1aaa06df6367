// Constants and fills on CPU: Const, Placeholder, Fill, ZerosLike, OnesLike.
#include <string>
#include <vector>

#include "opkit/kernel/op_kernel.h"
#include "opkit/kernel/op_requires.h"
#include "opkit/kernel/register_types.h"
#include "opkit/kernels/array_kernel_util.h"

namespace opkit {
namespace {

// Builds its tensor once, from the `value` attr, and outputs it (sharing
// the buffer) on every call.
class ConstantOp : public OpKernel {
 public:
  explicit ConstantOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    const AttrValue* attr = nullptr;
    OP_REQUIRES_OK(ctx, AttrSlice(ctx->def()).Find("value", &attr));
    OP_REQUIRES(ctx, attr->value_case() == AttrValue::kTensor,
                errors::InvalidArgument("Attr 'value' of Const node '",
                                        ctx->def().name(), "' must be a tensor"));
    const TensorProto& proto = attr->tensor();
    DataType dtype;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dtype", &dtype));
    OP_REQUIRES(ctx, proto.dtype() == dtype,
                errors::InvalidArgument("Type mismatch between value (",
                                        DataTypeString(proto.dtype()),
                                        ") and dtype (", DataTypeString(dtype),
                                        ") of Const node '", ctx->def().name(), "'"));
    OP_REQUIRES_OK(ctx, Tensor::BuildFromProto(proto, &tensor_, ctx->allocator()));
  }

  void Compute(OpKernelContext* ctx) override { ctx->set_output(0, tensor_); }
  bool IsExpensive() override { return false; }

 private:
  Tensor tensor_;
};

REGISTER_KERNEL_BUILDER(Name("Const").Device(DEVICE_CPU), ConstantOp);

// Runs only when nothing was fed for the placeholder: the executor replaces
// a fed placeholder's output without calling the kernel.
class PlaceholderOp : public OpKernel {
 public:
  explicit PlaceholderOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("shape", &shape_));
  }

  void Compute(OpKernelContext* ctx) override {
    if (shape_.unknown_rank()) {
      ctx->CtxFailure(errors::InvalidArgument(
          "You must feed a value for placeholder tensor '", name(), "' with dtype ",
          DataTypeString(output_type(0))));
    } else {
      ctx->CtxFailure(errors::InvalidArgument(
          "You must feed a value for placeholder tensor '", name(), "' with dtype ",
          DataTypeString(output_type(0)), " and shape ", shape_.DebugString()));
    }
  }

 private:
  PartialTensorShape shape_;
};

REGISTER_KERNEL_BUILDER(Name("Placeholder").Device(DEVICE_CPU), PlaceholderOp);

// Reads a shape vector (int32/int64) into a TensorShape, rejecting negative
// sizes and overflowing element counts.
Status ShapeFromDimsTensor(const Tensor& dims, TensorShape* shape) {
  if (dims.dims() != 1) {
    return errors::InvalidArgument("dims must be a vector, got shape ",
                                   dims.shape().DebugString());
  }
  std::vector<int64_t> sizes;
  OPKIT_RETURN_IF_ERROR(internal::ReadIndexValues(dims, "dims", &sizes));
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] < 0) {
      return errors::InvalidArgument("dims[", i, "] = ", sizes[i],
                                     " must be >= 0 to fill a tensor of that shape");
    }
  }
  return TensorShape::BuildTensorShape(sizes, shape);
}

class FillOp : public OpKernel {
 public:
  explicit FillOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& dims = ctx->input(0);
    const Tensor& value = ctx->input(1);
    OP_REQUIRES(ctx, value.dims() == 0,
                errors::InvalidArgument("value must be a scalar, got shape ",
                                        value.shape().DebugString()));
    TensorShape shape;
    OP_REQUIRES_OK(ctx, ShapeFromDimsTensor(dims, &shape));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    internal::FillElements(value, 0, out, 0, out->NumElements());
  }
};

REGISTER_KERNEL_BUILDER(Name("Fill")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", internal::ArrayKernelTypes())
                            .HostMemory("dims"),
                        FillOp);

class ZerosLikeOp : public OpKernel {
 public:
  explicit ZerosLikeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output(
                            {0}, 0, ctx->input(0).shape(), &out));
    internal::SetZero(out);
  }
};

REGISTER_KERNEL_BUILDER(Name("ZerosLike")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", internal::ArrayKernelTypes()),
                        ZerosLikeOp);

template <typename T>
class OnesLikeOp : public OpKernel {
 public:
  explicit OnesLikeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output(
                            {0}, 0, ctx->input(0).shape(), &out));
    T* data = static_cast<T*>(out->data());
    const T one = static_cast<T>(1);
    for (int64_t i = 0; i < out->NumElements(); ++i) data[i] = one;
  }
};

#define OPKIT_REGISTER_ONES_LIKE(T)                                       \
  REGISTER_KERNEL_BUILDER(                                                \
      Name("OnesLike").Device(DEVICE_CPU).TypeConstraint<T>("T"), OnesLikeOp<T>);
// The types OnesLike's OpDef allows.
TF_CALL_bfloat16(OPKIT_REGISTER_ONES_LIKE) TF_CALL_half(OPKIT_REGISTER_ONES_LIKE)
TF_CALL_float(OPKIT_REGISTER_ONES_LIKE) TF_CALL_double(OPKIT_REGISTER_ONES_LIKE)
TF_CALL_int8(OPKIT_REGISTER_ONES_LIKE) TF_CALL_uint8(OPKIT_REGISTER_ONES_LIKE)
TF_CALL_int16(OPKIT_REGISTER_ONES_LIKE) TF_CALL_uint16(OPKIT_REGISTER_ONES_LIKE)
TF_CALL_int32(OPKIT_REGISTER_ONES_LIKE) TF_CALL_int64(OPKIT_REGISTER_ONES_LIKE)
TF_CALL_complex64(OPKIT_REGISTER_ONES_LIKE) TF_CALL_complex128(OPKIT_REGISTER_ONES_LIKE)
TF_CALL_bool(OPKIT_REGISTER_ONES_LIKE)
#undef OPKIT_REGISTER_ONES_LIKE

}  // namespace
}  // namespace opkit
