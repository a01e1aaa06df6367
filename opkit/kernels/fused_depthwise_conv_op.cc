// _FusedDepthwiseConv2dNative on CPU: DepthwiseConv2dNative
// (depthwise_conv_op.h, NHWC) followed by the epilogue of fused_epilogue.h --
// a bias add (or an inference batch norm), then an optional Relu, Relu6, Elu
// or LeakyRelu -- applied to each output row right after the convolution
// wrote it, while it is in cache. Float, NHWC: what graph optimisers and
// the TF.js converter write into MobileNet-like models.
#include <cstdint>

#include "opkit/kernel/op_kernel.h"
#include "opkit/kernel/op_requires.h"
#include "opkit/kernels/depthwise_conv_op.h"
#include "opkit/kernels/fused_epilogue.h"

namespace opkit {
namespace {

class FusedDepthwiseConv2dNativeOp : public OpKernel {
 public:
  explicit FusedDepthwiseConv2dNativeOp(OpKernelConstruction* ctx)
      : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, DepthwiseConvParams::FromAttrs(ctx, &params_));
    OP_REQUIRES_OK(ctx, ParseFusedOps(ctx, "_FusedDepthwiseConv2dNative",
                                      /*allow_batch_norm=*/true, &spec_));
  }

  void Compute(OpKernelContext* ctx) override {
    OP_REQUIRES(ctx, params_.format == TensorFormat::kNHWC,
                errors::Unimplemented(
                    "_FusedDepthwiseConv2dNative supports only the NHWC data "
                    "format on the CPU; the node asks for ",
                    ToString(params_.format)));
    const Tensor& input = ctx->input(0);
    const Tensor& filter = ctx->input(1);
    DepthwiseArgs a;
    OP_REQUIRES_OK(ctx, params_.ComputeArgs(input.shape(), filter.shape(), &a));
    FusedEpilogue<float> epilogue;
    OP_REQUIRES_OK(ctx, FusedEpilogue<float>::Create(spec_, ctx, /*first_arg=*/2,
                                                     a.out_depth, &epilogue));
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(
                            0, TensorShape({a.batch, a.out_rows, a.out_cols,
                                            a.out_depth}),
                            &output));
    if (output->NumElements() == 0) return;
    const int64_t channels = a.out_depth;
    DepthwiseConv2DNHWC(ctx, a, input.flat<float>().data(),
                        filter.flat<float>().data(),
                        output->flat<float>().data(),
                        [&epilogue, channels](float* block, int64_t pixels) {
                          epilogue.Apply(block, pixels, channels);
                        });
  }

 private:
  DepthwiseConvParams params_;
  FusedOpSpec spec_;
};

REGISTER_KERNEL_BUILDER(Name("_FusedDepthwiseConv2dNative")
                            .Device(DEVICE_CPU)
                            .TypeConstraint<float>("T"),
                        FusedDepthwiseConv2dNativeOp);

}  // namespace
}  // namespace opkit
