// The Conv2D computation of conv_ops.cc, for kernels that run a 2-D
// convolution and then more work on its output (_FusedConv2D):
//
//   Conv2DParams params;
//   OP_REQUIRES_OK(construction, InitConv2DParams(construction, &params));
//   ...
//   Conv2DDims d;
//   OP_REQUIRES_OK(ctx, ComputeConv2DDims(params, input, filter, &d));
//   // allocate `output` [N, out_rows, out_cols, out_depth] (NHWC) ...
//   LaunchConv2D<float>(ctx, d, input, filter, output,
//                       [&](int64_t first_row, int64_t num_rows) {
//                         // rows [first_row, first_row + num_rows) of the
//                         // output seen as [positions, out_depth] are done
//                         // (called on several threads at once)
//                       });
//
// Method and arithmetic types are described at the top of conv_ops.cc.
#ifndef OPKIT_KERNELS_CONV_OPS_H_
#define OPKIT_KERNELS_CONV_OPS_H_

#include <cstdint>
#include <functional>
#include <vector>

#include "opkit/core/status.h"
#include "opkit/kernel/op_kernel.h"
#include "opkit/kernels/ops_util.h"
#include "opkit/tensor/tensor.h"
#include "opkit/tensor/tensor_format.h"

namespace opkit {

// The attrs of Conv2D (strides, dilations, padding, explicit_paddings,
// data_format), checked.
struct Conv2DParams {
  std::vector<int32> strides;
  std::vector<int32> dilations;
  Padding padding = Padding::VALID;
  std::vector<int64_t> explicit_paddings;
  TensorFormat format = TensorFormat::kNHWC;
};

// Reads and checks the Conv2D attrs of the kernel being built: four strides
// and dilations, 1 in the batch and depth dimensions and positive in the
// others, a known padding and data_format, explicit paddings that fit.
// InvalidArgument naming the attr otherwise.
Status InitConv2DParams(OpKernelConstruction* ctx, Conv2DParams* params);

// Everything a convolution needs to know about one call.
struct Conv2DDims {
  int64_t batch = 0, in_rows = 0, in_cols = 0, in_depth = 0;
  int64_t filter_rows = 0, filter_cols = 0, patch_depth = 0, out_depth = 0;
  int64_t stride_rows = 0, stride_cols = 0;
  int64_t dilation_rows = 0, dilation_cols = 0;
  int64_t out_rows = 0, out_cols = 0;
  int64_t pad_top = 0, pad_left = 0;
  int64_t groups = 0;
};

// Checks a 4-D input and an HWIO filter against `params` (ranks, depths
// that divide into groups, window sizes) and computes the output geometry.
// InvalidArgument saying what does not fit.
Status ComputeConv2DDims(const Conv2DParams& params, const Tensor& input,
                         const Tensor& filter, Conv2DDims* d);

// Called with each block of output rows as soon as it is computed: rows
// [first_row, first_row + num_rows) of the output seen as a
// [batch * out_rows * out_cols, out_depth] matrix. Blocks are disjoint and
// together cover the output. They may come from several threads of the
// intra-op pool at once, in no particular order (float and double: each on
// the thread that computed it, Note [Conv2D on GEMM blocks] in
// conv_ops.cc), so the function must be safe to call concurrently for
// different blocks and should do its work on the calling thread.
using ConvOutputBlockFn =
    std::function<void(int64_t first_row, int64_t num_rows)>;

// Convolves `input` (NHWC) with `filter` (HWIO) into `output`, which must be
// allocated with the NHWC shape of `d` and not be empty; `d` must come from
// ComputeConv2DDims. Calls `on_block` (when set) for each finished block of
// output rows. Instantiated for half, bfloat16, float, double and int32.
template <typename T>
void LaunchConv2D(OpKernelContext* ctx, const Conv2DDims& d,
                  const Tensor& input, const Tensor& filter, Tensor* output,
                  const ConvOutputBlockFn& on_block = nullptr);

extern template void LaunchConv2D<half>(OpKernelContext*,
                                               const Conv2DDims&,
                                               const Tensor&, const Tensor&,
                                               Tensor*,
                                               const ConvOutputBlockFn&);
extern template void LaunchConv2D<bfloat16>(OpKernelContext*,
                                            const Conv2DDims&, const Tensor&,
                                            const Tensor&, Tensor*,
                                            const ConvOutputBlockFn&);
extern template void LaunchConv2D<float>(OpKernelContext*, const Conv2DDims&,
                                         const Tensor&, const Tensor&,
                                         Tensor*, const ConvOutputBlockFn&);
extern template void LaunchConv2D<double>(OpKernelContext*,
                                          const Conv2DDims&, const Tensor&,
                                          const Tensor&, Tensor*,
                                          const ConvOutputBlockFn&);
extern template void LaunchConv2D<int32>(OpKernelContext*, const Conv2DDims&,
                                         const Tensor&, const Tensor&,
                                         Tensor*, const ConvOutputBlockFn&);

}  // namespace opkit

#endif  // OPKIT_KERNELS_CONV_OPS_H_
