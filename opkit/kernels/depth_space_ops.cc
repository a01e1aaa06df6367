// SpaceToDepth and DepthToSpace on CPU, for every array type, NHWC and
// NCHW. Both are a single strided copy (array_kernel_util.h): the output
// walked in row-major order reads the input through a 6-D view that splits
// the spatial dimensions into (position, offset in block).
//
// Channel order, as TensorFlow's: SpaceToDepth puts the value at block
// offset (bh, bw) of input channel c into output channel (bh * block + bw) *
// C + c; DepthToSpace does the reverse. NCHW means the same mapping with
// channels before rows and columns. NCHW_VECT_C is refused (TensorFlow runs
// it on GPUs only).
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "opkit/kernel/op_kernel.h"
#include "opkit/kernel/op_requires.h"
#include "opkit/kernels/array_kernel_util.h"

namespace opkit {
namespace {

template <bool kToDepth>
class BlockRearrangeOp : public OpKernel {
 public:
  explicit BlockRearrangeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    int64 block = 0;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("block_size", &block));
    OP_REQUIRES(ctx, block >= 2,
                errors::InvalidArgument("Block size should be > 1, but was: ",
                                        block));
    OP_REQUIRES(ctx, block <= (int64_t{1} << 31),
                errors::InvalidArgument("Block size ", block,
                                        " is too large; the limit is 2^31"));
    block_ = block;
    std::string format;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("data_format", &format));
    OP_REQUIRES(ctx, format == "NHWC" || format == "NCHW",
                errors::Unimplemented(
                    kToDepth ? "SpaceToDepth" : "DepthToSpace",
                    " on CPU supports data_format NHWC and NCHW, not ", format));
    nchw_ = format == "NCHW";
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    OP_REQUIRES(ctx, input.dims() == 4,
                errors::InvalidArgument("Input rank should be: 4 instead of: ",
                                        input.dims()));
    const int64_t b = block_;
    const int64_t n = input.dim_size(0);
    const int64_t c = input.dim_size(nchw_ ? 1 : 3);
    const int64_t h = input.dim_size(nchw_ ? 2 : 1);
    const int64_t w = input.dim_size(nchw_ ? 3 : 2);
    int64_t out_h, out_w, out_c;
    if (kToDepth) {
      OP_REQUIRES(ctx, h % b == 0 && w % b == 0,
                  errors::InvalidArgument("Image width ", w, " and height ", h,
                                          " should be divisible by block_size: ",
                                          b));
      out_h = h / b;
      out_w = w / b;
      OP_REQUIRES(ctx, internal::MultiplyWithoutOverflow(c, b * b, &out_c),
                  errors::InvalidArgument("Output depth ", c, " * ", b * b,
                                          " overflows int64"));
    } else {
      OP_REQUIRES(ctx, c % (b * b) == 0,
                  errors::InvalidArgument(
                      "Input depth dimension ", c,
                      " should be divisible by: ", b * b));
      out_c = c / (b * b);
      OP_REQUIRES(ctx,
                  internal::MultiplyWithoutOverflow(h, b, &out_h) &&
                      internal::MultiplyWithoutOverflow(w, b, &out_w),
                  errors::InvalidArgument("Output size of ", h, "x", w,
                                          " times block ", b,
                                          " overflows int64"));
    }
    TensorShape out_shape;
    OP_REQUIRES_OK(ctx, TensorShape::BuildTensorShape(
                            nchw_ ? std::vector<int64_t>{n, out_c, out_h, out_w}
                                  : std::vector<int64_t>{n, out_h, out_w, out_c},
                            &out_shape));
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &output));
    if (output->NumElements() == 0) return;

    // The copy box in the output's row-major order, with the input's
    // strides for each of its dimensions. "Space" is the side with the big
    // image (the input of SpaceToDepth, the output of DepthToSpace); y, x
    // index block positions, bh, bw offsets in a block, d the small depth.
    const int64_t y_size = kToDepth ? out_h : h, x_size = kToDepth ? out_w : w;
    const int64_t d = kToDepth ? c : out_c;
    // Strides of the space side, per (n, y, bh, x, bw, d).
    int64_t sp[6];
    // Strides of the depth side, per (n, y, bh, x, bw, d).
    int64_t dp[6];
    if (!nchw_) {
      // Space: [n, y*b + bh, x*b + bw, d]; depth: [n, y, x, (bh*b + bw)*D + d].
      const int64_t row = x_size * b * d;
      sp[0] = y_size * b * row, sp[1] = b * row, sp[2] = row, sp[3] = b * d,
      sp[4] = d, sp[5] = 1;
      const int64_t depth = b * b * d;
      dp[0] = y_size * x_size * depth, dp[1] = x_size * depth, dp[2] = b * d,
      dp[3] = depth, dp[4] = d, dp[5] = 1;
    } else {
      // Space: [n, d, y*b + bh, x*b + bw]; depth: [n, (bh*b + bw)*D + d, y, x].
      const int64_t row = x_size * b;
      const int64_t plane = y_size * b * row;
      sp[0] = d * plane, sp[1] = b * row, sp[2] = row, sp[3] = b, sp[4] = 1,
      sp[5] = plane;
      const int64_t dplane = y_size * x_size;
      dp[0] = b * b * d * dplane, dp[1] = x_size, dp[2] = b * d * dplane,
      dp[3] = 1, dp[4] = d * dplane, dp[5] = dplane;
    }
    const int64_t sizes[6] = {n, y_size, b, x_size, b, d};
    // Order the box as the destination's row-major order so that its writes
    // are sequential: NHWC depth side (n, y, x, bh, bw, d); NHWC space side
    // (n, y, bh, x, bw, d); NCHW depth side (n, bh, bw, d, y, x); NCHW space
    // side (n, d, y, bh, x, bw).
    int order[6];
    const bool dst_is_depth = kToDepth;
    if (!nchw_) {
      const int depth_order[6] = {0, 1, 3, 2, 4, 5};
      const int space_order[6] = {0, 1, 2, 3, 4, 5};
      std::copy(dst_is_depth ? depth_order : space_order,
                (dst_is_depth ? depth_order : space_order) + 6, order);
    } else {
      const int depth_order[6] = {0, 2, 4, 5, 1, 3};
      const int space_order[6] = {0, 5, 1, 2, 3, 4};
      std::copy(dst_is_depth ? depth_order : space_order,
                (dst_is_depth ? depth_order : space_order) + 6, order);
    }
    int64_t dims[6], src_strides[6], dst_strides[6];
    for (int i = 0; i < 6; ++i) {
      dims[i] = sizes[order[i]];
      src_strides[i] = kToDepth ? sp[order[i]] : dp[order[i]];
      dst_strides[i] = kToDepth ? dp[order[i]] : sp[order[i]];
    }
    internal::StridedCopy(input.dtype(), input.data(), src_strides,
                          output->data(), dst_strides, dims, 6, ctx);
  }

 private:
  int64_t block_ = 2;
  bool nchw_ = false;
};

REGISTER_KERNEL_BUILDER(Name("SpaceToDepth")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", internal::ArrayKernelTypes()),
                        BlockRearrangeOp<true>);
REGISTER_KERNEL_BUILDER(Name("DepthToSpace")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", internal::ArrayKernelTypes()),
                        BlockRearrangeOp<false>);

}  // namespace
}  // namespace opkit
