// Depthwise 2-D convolution on CPU, the computation behind the
// DepthwiseConv2dNative kernel, exposed so that fused kernels (bias and
// activation applied to the output while it is in cache, as TensorFlow's
// _FusedDepthwiseConv2dNative) can reuse it without a second pass.
//
//   DepthwiseConvParams params;
//   OP_REQUIRES_OK(ctx, DepthwiseConvParams::FromAttrs(ctx, &params));
//   ...
//   DepthwiseArgs args;
//   OP_REQUIRES_OK(ctx, params.ComputeArgs(input.shape(), filter.shape(), &args));
//   // allocate an NHWC output [batch, out_rows, out_cols, out_depth], then
//   DepthwiseConv2DNHWC(ctx, args, in, filter, out,
//                       [&](float* block, int64_t pixels) {
//                         for (int64_t p = 0; p < pixels; ++p)
//                           for (int64_t c = 0; c < args.out_depth; ++c)
//                             block[p * args.out_depth + c] += bias[c];
//                       });
//
// Layouts: input NHWC [batch, in_rows, in_cols, in_depth]; filter
// [filter_rows, filter_cols, in_depth, depth_multiplier]; output NHWC
// [batch, out_rows, out_cols, out_depth] with out_depth = in_depth *
// depth_multiplier, output channel c * depth_multiplier + m reading input
// channel c with filter column m.
#ifndef OPKIT_KERNELS_DEPTHWISE_CONV_OP_H_
#define OPKIT_KERNELS_DEPTHWISE_CONV_OP_H_

#include <cstdint>
#include <functional>
#include <vector>

#include "opkit/core/export.h"
#include "opkit/core/status.h"
#include "opkit/kernel/op_kernel_construction.h"
#include "opkit/kernel/op_kernel_context.h"
#include "opkit/shape/common_shape_fns.h"
#include "opkit/tensor/tensor_format.h"
#include "opkit/tensor/tensor_shape.h"

namespace opkit {

// The geometry of one depthwise convolution, all sizes in elements. Built
// by DepthwiseConvParams::ComputeArgs, which validates it; a caller that
// fills it by hand must keep every size >= 0, strides and dilations >= 1,
// out_depth == in_depth * depth_multiplier, and out_rows/out_cols the
// windowed output sizes of the padded input (so no window starts beyond
// the padded image).
struct DepthwiseArgs {
  int64_t batch = 0;
  int64_t in_rows = 0;
  int64_t in_cols = 0;
  int64_t in_depth = 0;
  int64_t filter_rows = 0;
  int64_t filter_cols = 0;
  int64_t depth_multiplier = 0;
  int64_t stride_rows = 1;
  int64_t stride_cols = 1;
  int64_t dilation_rows = 1;
  int64_t dilation_cols = 1;
  int64_t pad_top = 0;
  int64_t pad_left = 0;
  int64_t out_rows = 0;
  int64_t out_cols = 0;
  int64_t out_depth = 0;
};

// Called on each finished block of output: `pixels` consecutive output
// positions of one output row (out_cols of them), `pixels * out_depth`
// values starting at channel 0, still in cache. It may rewrite them in
// place. Calls for different blocks may run concurrently on the intra-op
// pool, so the callback must be thread-safe; each block is passed once.
using DepthwiseEpilogue = std::function<void(float* block, int64_t pixels)>;

// The validated attrs of a DepthwiseConv2dNative-like kernel (strides,
// dilations, padding, explicit_paddings, data_format), read once at
// construction.
struct DepthwiseConvParams {
  std::vector<int32> strides;
  std::vector<int32> dilations;
  shape_inference::Padding padding = shape_inference::Padding::VALID;
  std::vector<int64_t> explicit_paddings;
  TensorFormat format = TensorFormat::kNHWC;

  // Reads and checks the attrs: 4 strides and dilations, 1 in the batch and
  // depth dimensions and >= 1 elsewhere; a valid padding; a known
  // data_format. dilations and explicit_paddings may be absent (1s, none).
  OPKIT_EXPORT static Status FromAttrs(OpKernelConstruction* ctx,
                                       DepthwiseConvParams* params);

  // The geometry for an input and filter of these shapes (input in
  // `format`, filter [rows, cols, in_depth, multiplier]); InvalidArgument
  // for a wrong rank, mismatched depths, a window larger than the padded
  // input, or sizes that overflow.
  OPKIT_EXPORT Status ComputeArgs(const TensorShape& input,
                                  const TensorShape& filter,
                                  DepthwiseArgs* args) const;
};

// Computes the NHWC float output of `args` from NHWC `input` and `filter`,
// sharded over output rows on the intra-op pool of `ctx`'s device (inline
// when ctx is null), vectorised over channels. If `epilogue` is set it is
// applied to every output row right after the row is computed. `output`
// must not alias the inputs.
OPKIT_EXPORT void DepthwiseConv2DNHWC(OpKernelContext* ctx,
                                      const DepthwiseArgs& args,
                                      const float* input, const float* filter,
                                      float* output,
                                      const DepthwiseEpilogue& epilogue = nullptr);

// The same computation in double precision (no epilogue).
OPKIT_EXPORT void DepthwiseConv2DNHWC(OpKernelContext* ctx,
                                      const DepthwiseArgs& args,
                                      const double* input, const double* filter,
                                      double* output);

}  // namespace opkit

#endif  // OPKIT_KERNELS_DEPTHWISE_CONV_OP_H_
