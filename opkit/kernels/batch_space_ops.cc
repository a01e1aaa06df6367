// SpaceToBatchND and BatchToSpaceND on CPU, for every array type, with
// int32 or int64 block_shape and paddings/crops.
//
// Both relate a "space" tensor [B, S_1..S_M, R...] and a "batch" tensor
// [P*B, Y_1..Y_M, R...] (P the product of block_shape): batch element
// (o*B + b, y, r), o the row-major index of a block offset (o_1..o_M),
// holds space element (b, y_i * block_i + o_i - start_i, r), where start_i
// is the padding (SpaceToBatchND) or crop (BatchToSpaceND) before dimension
// i. Positions that fall outside the space tensor are SpaceToBatchND's
// zero padding, or BatchToSpaceND's cropped values. For each block offset
// the valid positions form a box, copied with one strided copy.
#include <cstdint>
#include <vector>

#include "opkit/kernel/op_kernel.h"
#include "opkit/kernel/op_requires.h"
#include "opkit/kernels/array_kernel_util.h"

namespace opkit {
namespace {

// Reads block_shape ([M], values >= 1) and paddings/crops ([M, 2], values
// >= 0), and checks the input has rank >= M + 1.
Status ReadBlockArgs(const char* op, const char* amounts_name,
                     const Tensor& input, const Tensor& block_t,
                     const Tensor& amounts_t, std::vector<int64_t>* block,
                     std::vector<int64_t>* amounts) {
  if (block_t.dims() != 1) {
    return errors::InvalidArgument(op, ": block_shape rank should be 1 instead of ",
                                   block_t.dims());
  }
  const int64_t m = block_t.dim_size(0);
  if (amounts_t.dims() != 2 || amounts_t.dim_size(0) != m ||
      amounts_t.dim_size(1) != 2) {
    return errors::InvalidArgument(op, ": ", amounts_name, " should have shape [",
                                   m, ", 2] instead of ",
                                   amounts_t.shape().DebugString());
  }
  if (input.dims() < m + 1) {
    return errors::InvalidArgument(op, ": input rank should be >= ", m + 1,
                                   " (1 + the length of block_shape) instead of ",
                                   input.dims());
  }
  OPKIT_RETURN_IF_ERROR(internal::ReadIndexValues(block_t, "block_shape", block));
  OPKIT_RETURN_IF_ERROR(internal::ReadIndexValues(amounts_t, amounts_name, amounts));
  for (int64_t b : *block) {
    if (b < 1) {
      return errors::InvalidArgument(
          op, ": all values in block_shape must be positive, got ", b);
    }
  }
  for (int64_t a : *amounts) {
    if (a < 0) {
      return errors::InvalidArgument(op, ": all values in ", amounts_name,
                                     " must be non-negative, got ", a);
    }
  }
  return OkStatus();
}

// Copies between `space` and `batch` as described in the file comment, in
// the direction `space_to_batch`. `start` holds start_i. Positions of the
// destination that no source element maps to are left as they are.
void CopyBlocks(OpKernelContext* ctx, const std::vector<int64_t>& block,
                const std::vector<int64_t>& start, const Tensor& space_const,
                Tensor* space_mut, const Tensor& batch_const, Tensor* batch_mut,
                bool space_to_batch) {
  const TensorShape& space_shape = space_const.shape();
  const TensorShape& batch_shape = batch_const.shape();
  const int m = static_cast<int>(block.size());
  const int rank = space_shape.dims();
  const std::vector<int64_t> space_strides = internal::RowMajorStrides(space_shape);
  const std::vector<int64_t> batch_strides = internal::RowMajorStrides(batch_shape);
  const int64_t b_size = space_shape.dim_size(0);
  int64_t block_count = 1;
  for (int64_t b : block) block_count *= b;
  // Box: [B, count_1..count_M, rest...].
  std::vector<int64_t> dims(rank), s_strides(rank), b_strides(rank);
  dims[0] = b_size;
  s_strides[0] = space_strides[0];
  b_strides[0] = batch_strides[0];
  for (int k = m + 1; k < rank; ++k) {
    dims[k] = space_shape.dim_size(k);
    s_strides[k] = space_strides[k];
    b_strides[k] = batch_strides[k];
  }
  std::vector<int64_t> offset(m, 0);
  for (int64_t o = 0; o < block_count; ++o) {
    // offset = the row-major block offset with index o.
    int64_t rem = o;
    for (int i = m - 1; i >= 0; --i) {
      offset[i] = rem % block[i];
      rem /= block[i];
    }
    int64_t space_origin = 0;
    int64_t batch_origin = o * b_size * batch_strides[0];
    bool empty = b_size == 0;
    for (int i = 0; i < m; ++i) {
      const int64_t s_size = space_shape.dim_size(i + 1);
      const int64_t y_size = batch_shape.dim_size(i + 1);
      // y with 0 <= y*block + offset - start < s_size, and y < y_size.
      const int64_t lo = start[i] - offset[i];
      const int64_t y0 = lo <= 0 ? 0 : (lo + block[i] - 1) / block[i];
      const int64_t hi = s_size + start[i] - offset[i];  // y*block < hi
      int64_t y1 = hi <= 0 ? 0 : (hi + block[i] - 1) / block[i];
      if (y1 > y_size) y1 = y_size;
      if (y1 <= y0) {
        empty = true;
        break;
      }
      dims[i + 1] = y1 - y0;
      s_strides[i + 1] = block[i] * space_strides[i + 1];
      b_strides[i + 1] = batch_strides[i + 1];
      space_origin += (y0 * block[i] + offset[i] - start[i]) * space_strides[i + 1];
      batch_origin += y0 * batch_strides[i + 1];
    }
    if (empty) continue;
    for (int k = m + 1; k < rank; ++k) {
      if (dims[k] == 0) empty = true;
    }
    if (empty) continue;
    if (space_to_batch) {
      internal::StridedCopy(space_const.dtype(),
                            internal::ElementAddress(space_const, space_origin),
                            s_strides.data(),
                            internal::MutableElementAddress(batch_mut, batch_origin),
                            b_strides.data(), dims.data(), rank, ctx);
    } else {
      internal::StridedCopy(batch_const.dtype(),
                            internal::ElementAddress(batch_const, batch_origin),
                            b_strides.data(),
                            internal::MutableElementAddress(space_mut, space_origin),
                            s_strides.data(), dims.data(), rank, ctx);
    }
  }
}

class SpaceToBatchNDOp : public OpKernel {
 public:
  explicit SpaceToBatchNDOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    constexpr const char* kOp = "SpaceToBatchND";
    const Tensor& input = ctx->input(0);
    std::vector<int64_t> block, pads;
    OP_REQUIRES_OK(ctx, ReadBlockArgs(kOp, "paddings", input, ctx->input(1),
                                      ctx->input(2), &block, &pads));
    const int m = static_cast<int>(block.size());
    std::vector<int64_t> out_dims(input.shape().dim_sizes().begin(),
                                  input.shape().dim_sizes().end());
    int64_t product = 1;
    for (int i = 0; i < m; ++i) {
      OP_REQUIRES(ctx, internal::MultiplyWithoutOverflow(product, block[i], &product),
                  errors::InvalidArgument(kOp, ": the product of block_shape overflows"));
      int64_t padded = input.dim_size(i + 1);
      OP_REQUIRES(ctx,
                  !__builtin_add_overflow(padded, pads[2 * i], &padded) &&
                      !__builtin_add_overflow(padded, pads[2 * i + 1], &padded),
                  errors::InvalidArgument(kOp, ": padded size of dimension ",
                                          i + 1, " overflows int64"));
      OP_REQUIRES(ctx, padded % block[i] == 0,
                  errors::InvalidArgument(
                      kOp, ": padded_shape[", i, "]=", padded,
                      " is not divisible by block_shape[", i, "]=", block[i]));
      out_dims[i + 1] = padded / block[i];
    }
    OP_REQUIRES(ctx, internal::MultiplyWithoutOverflow(out_dims[0], product, &out_dims[0]),
                errors::InvalidArgument(kOp, ": output batch size overflows int64"));
    TensorShape out_shape;
    OP_REQUIRES_OK(ctx, TensorShape::BuildTensorShape(out_dims, &out_shape));
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &output));
    if (output->NumElements() == 0) return;
    internal::SetZero(output);
    std::vector<int64_t> start(m);
    for (int i = 0; i < m; ++i) start[i] = pads[2 * i];
    CopyBlocks(ctx, block, start, input, nullptr, *output, output,
               /*space_to_batch=*/true);
  }
};

class BatchToSpaceNDOp : public OpKernel {
 public:
  explicit BatchToSpaceNDOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    constexpr const char* kOp = "BatchToSpaceND";
    const Tensor& input = ctx->input(0);
    std::vector<int64_t> block, crops;
    OP_REQUIRES_OK(ctx, ReadBlockArgs(kOp, "crops", input, ctx->input(1),
                                      ctx->input(2), &block, &crops));
    const int m = static_cast<int>(block.size());
    std::vector<int64_t> out_dims(input.shape().dim_sizes().begin(),
                                  input.shape().dim_sizes().end());
    int64_t product = 1;
    for (int i = 0; i < m; ++i) {
      OP_REQUIRES(ctx, internal::MultiplyWithoutOverflow(product, block[i], &product),
                  errors::InvalidArgument(kOp, ": the product of block_shape overflows"));
    }
    OP_REQUIRES(ctx, input.dim_size(0) % product == 0,
                errors::InvalidArgument(kOp, ": input batch dimension (",
                                        input.dim_size(0),
                                        ") is not divisible by product of block "
                                        "sizes (", product, ")"));
    out_dims[0] = input.dim_size(0) / product;
    for (int i = 0; i < m; ++i) {
      int64_t full;
      OP_REQUIRES(ctx,
                  internal::MultiplyWithoutOverflow(input.dim_size(i + 1), block[i], &full),
                  errors::InvalidArgument(kOp, ": size of dimension ", i + 1,
                                          " times its block overflows int64"));
      const int64_t cropped = full - crops[2 * i] - crops[2 * i + 1];
      OP_REQUIRES(ctx, crops[2 * i] <= full && crops[2 * i + 1] <= full && cropped >= 0,
                  errors::InvalidArgument(
                      kOp, ": crops ", crops[2 * i], " and ", crops[2 * i + 1],
                      " are larger than dimension ", i + 1, " of the result (",
                      input.dim_size(i + 1), " * block ", block[i], " = ", full,
                      ")"));
      out_dims[i + 1] = cropped;
    }
    TensorShape out_shape;
    OP_REQUIRES_OK(ctx, TensorShape::BuildTensorShape(out_dims, &out_shape));
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &output));
    if (output->NumElements() == 0) return;
    std::vector<int64_t> start(m);
    for (int i = 0; i < m; ++i) start[i] = crops[2 * i];
    CopyBlocks(ctx, block, start, *output, output, input, nullptr,
               /*space_to_batch=*/false);
  }
};

REGISTER_KERNEL_BUILDER(Name("SpaceToBatchND")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", internal::ArrayKernelTypes())
                            .HostMemory("block_shape")
                            .HostMemory("paddings"),
                        SpaceToBatchNDOp);
REGISTER_KERNEL_BUILDER(Name("BatchToSpaceND")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", internal::ArrayKernelTypes())
                            .HostMemory("block_shape")
                            .HostMemory("crops"),
                        BatchToSpaceNDOp);

}  // namespace
}  // namespace opkit
