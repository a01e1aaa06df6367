// Shape queries and reshapes on CPU: Shape, Size, Rank, Reshape, ExpandDims,
// Squeeze. None of them copies elements: the reshapes share the input's
// buffer under a new shape.
#include <set>
#include <vector>

#include "opkit/kernel/op_kernel.h"
#include "opkit/kernel/op_requires.h"
#include "opkit/kernels/array_kernel_util.h"

namespace opkit {
namespace {

// Writes `values` into output 0 as an int32 or int64 vector/scalar of
// `shape`; InvalidArgument when a value does not fit int32.
void WriteIndexOutput(OpKernelContext* ctx, const TensorShape& shape,
                      const std::vector<int64_t>& values, const char* what) {
  Tensor* out = nullptr;
  OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
  if (out->dtype() == DT_INT32) {
    auto flat = out->flat<int32>();
    for (size_t i = 0; i < values.size(); ++i) {
      OP_REQUIRES(ctx, values[i] <= INT32_MAX,
                  errors::InvalidArgument(
                      what, " ", values[i],
                      " does not fit int32; use out_type=int64 for this tensor"));
      flat(i) = static_cast<int32>(values[i]);
    }
  } else {
    auto flat = out->flat<int64>();
    for (size_t i = 0; i < values.size(); ++i) flat(i) = values[i];
  }
}

class ShapeOp : public OpKernel {
 public:
  explicit ShapeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const TensorShape& shape = ctx->input(0).shape();
    std::vector<int64_t> dims(shape.dim_sizes().begin(), shape.dim_sizes().end());
    WriteIndexOutput(ctx, TensorShape({static_cast<int64_t>(dims.size())}), dims,
                     "Dimension size");
  }
  bool IsExpensive() override { return false; }
};

class SizeOp : public OpKernel {
 public:
  explicit SizeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    WriteIndexOutput(ctx, TensorShape({}), {ctx->input(0).NumElements()},
                     "Number of elements");
  }
  bool IsExpensive() override { return false; }
};

class RankOp : public OpKernel {
 public:
  explicit RankOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    WriteIndexOutput(ctx, TensorShape({}), {ctx->input(0).dims()}, "Rank");
  }
  bool IsExpensive() override { return false; }
};

// Shape, Size and Rank never read the elements, so any dtype will do.
REGISTER_KERNEL_BUILDER(Name("Shape").Device(DEVICE_CPU).HostMemory("output"),
                        ShapeOp);
REGISTER_KERNEL_BUILDER(Name("Size").Device(DEVICE_CPU).HostMemory("output"), SizeOp);
REGISTER_KERNEL_BUILDER(Name("Rank").Device(DEVICE_CPU).HostMemory("output"), RankOp);

// Makes output 0 input 0's buffer under `shape` (same element count).
void ForwardWithShape(OpKernelContext* ctx, const TensorShape& shape) {
  Tensor out;
  OP_REQUIRES(ctx, out.CopyFrom(ctx->input(0), shape),
              errors::Internal("reshape to ", shape.DebugString(),
                               " changed the element count of ",
                               ctx->input(0).shape().DebugString()));
  ctx->set_output(0, std::move(out));
}

class ReshapeOp : public OpKernel {
 public:
  explicit ReshapeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& sizes = ctx->input(1);
    // Old graphs give a scalar for a one-dimensional shape; TensorFlow still
    // accepts it, so opkit does too.
    OP_REQUIRES(ctx, sizes.dims() <= 1,
                errors::InvalidArgument("sizes input must be 1-D, not ",
                                        sizes.shape().DebugString()));
    std::vector<int64_t> dims;
    OP_REQUIRES_OK(ctx, internal::ReadIndexValues(sizes, "shape", &dims));
    OP_REQUIRES(ctx, static_cast<int64_t>(dims.size()) <= TensorShape::MaxDimensions(),
                errors::InvalidArgument("Reshape to ", dims.size(),
                                        " dimensions; at most ",
                                        TensorShape::MaxDimensions(), " are supported"));
    int unknown = -1;
    int64_t product = 1;
    for (size_t i = 0; i < dims.size(); ++i) {
      if (dims[i] == -1) {
        OP_REQUIRES(ctx, unknown == -1,
                    errors::InvalidArgument("Only one input size may be -1, not both ",
                                            unknown, " and ", i));
        unknown = static_cast<int>(i);
      } else {
        OP_REQUIRES(ctx, dims[i] >= 0,
                    errors::InvalidArgument("Size ", i, " must be non-negative, not ",
                                            dims[i]));
        OP_REQUIRES(ctx, internal::MultiplyWithoutOverflow(product, dims[i], &product),
                    errors::InvalidArgument("Reshape to shape [",
                                            StrJoin(dims, ","),
                                            "] has more elements than int64 holds"));
      }
    }
    const int64_t n = input.NumElements();
    if (unknown != -1) {
      OP_REQUIRES(ctx, product > 0,
                  errors::InvalidArgument(
                      "Reshape cannot infer the missing input size for an empty "
                      "tensor unless all specified input sizes are non-zero"));
      OP_REQUIRES(ctx, n % product == 0,
                  errors::InvalidArgument(
                      "Input to reshape is a tensor with ", n,
                      " values, but the requested shape requires a multiple of ",
                      product));
      dims[unknown] = n / product;
      product = n;
    }
    OP_REQUIRES(ctx, product == n,
                errors::InvalidArgument("Input to reshape is a tensor with ", n,
                                        " values, but the requested shape has ",
                                        product));
    TensorShape shape;
    OP_REQUIRES_OK(ctx, TensorShape::BuildTensorShape(dims, &shape));
    ForwardWithShape(ctx, shape);
  }
  bool IsExpensive() override { return false; }
};

REGISTER_KERNEL_BUILDER(Name("Reshape").Device(DEVICE_CPU).HostMemory("shape"),
                        ReshapeOp);

class ExpandDimsOp : public OpKernel {
 public:
  explicit ExpandDimsOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& dim_t = ctx->input(1);
    OP_REQUIRES(ctx, dim_t.NumElements() == 1,
                errors::InvalidArgument(
                    "'dim' must be a tensor with a single value, got shape ",
                    dim_t.shape().DebugString()));
    int64_t dim = 0;
    OP_REQUIRES_OK(ctx, internal::ReadIndexScalar(dim_t, "dim",
                                                  /*allow_one_element=*/true, &dim));
    const int64_t rank = input.dims();
    OP_REQUIRES(ctx, dim >= -1 - rank && dim <= rank,
                errors::InvalidArgument("Tried to expand dim index ", dim,
                                        " for tensor with ", rank,
                                        " dimensions; expected a value in [",
                                        -1 - rank, ", ", rank, "]"));
    if (dim < 0) dim += rank + 1;
    TensorShape shape = input.shape();
    OP_REQUIRES_OK(ctx, shape.InsertDimWithStatus(static_cast<int>(dim), 1));
    ForwardWithShape(ctx, shape);
  }
  bool IsExpensive() override { return false; }
};

REGISTER_KERNEL_BUILDER(Name("ExpandDims").Device(DEVICE_CPU).HostMemory("dim"),
                        ExpandDimsOp);

class SqueezeOp : public OpKernel {
 public:
  explicit SqueezeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::vector<int64_t> dims;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("squeeze_dims", &dims));
    squeeze_dims_.insert(dims.begin(), dims.end());
  }

  void Compute(OpKernelContext* ctx) override {
    const TensorShape& in = ctx->input(0).shape();
    const int64_t rank = in.dims();
    std::set<int64_t> wanted;
    for (int64_t d : squeeze_dims_) {
      OP_REQUIRES(ctx, d >= -rank && d < rank,
                  errors::InvalidArgument("Tried to squeeze dim index ", d,
                                          " for tensor with ", rank, " dimensions."));
      wanted.insert(d < 0 ? d + rank : d);
    }
    std::vector<int64_t> out_dims;
    for (int64_t i = 0; i < rank; ++i) {
      const int64_t size = in.dim_size(static_cast<int>(i));
      if (wanted.empty()) {
        if (size != 1) out_dims.push_back(size);
      } else if (wanted.count(i)) {
        OP_REQUIRES(ctx, size == 1,
                    errors::InvalidArgument("Can not squeeze dim[", i,
                                            "], expected a dimension of 1, got ",
                                            size));
      } else {
        out_dims.push_back(size);
      }
    }
    TensorShape shape;
    OP_REQUIRES_OK(ctx, TensorShape::BuildTensorShape(out_dims, &shape));
    ForwardWithShape(ctx, shape);
  }
  bool IsExpensive() override { return false; }

 private:
  std::set<int64_t> squeeze_dims_;
};

REGISTER_KERNEL_BUILDER(Name("Squeeze").Device(DEVICE_CPU), SqueezeOp);

}  // namespace
}  // namespace opkit
