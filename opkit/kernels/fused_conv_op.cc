// _FusedConv2D on CPU: Conv2D (conv_ops.h's LaunchConv2D, NHWC) followed by
// the epilogue of fused_epilogue.h -- a bias add or an inference batch norm,
// then an optional Relu, Relu6, Elu or LeakyRelu -- applied to each block
// of output rows as soon as the convolution has written it, on the thread
// that wrote it. Float and double, the types of TensorFlow's CPU kernel.
#include <cstdint>

#include "opkit/kernel/op_kernel.h"
#include "opkit/kernel/op_requires.h"
#include "opkit/kernels/conv_ops.h"
#include "opkit/kernels/fused_epilogue.h"

namespace opkit {
namespace {

template <typename T>
class FusedConv2DOp : public OpKernel {
 public:
  // Bad attrs and args are the caller's error: OP_REQUIRES, which does not
  // log them as warnings (as Conv2D).
  explicit FusedConv2DOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    Status s = InitConv2DParams(ctx, &params_);
    OP_REQUIRES(ctx, s.ok(), s);
    s = ParseFusedOps(ctx, "_FusedConv2D", /*allow_batch_norm=*/true, &spec_,
                      /*allow_add=*/true);
    OP_REQUIRES(ctx, s.ok(), s);
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& filter = ctx->input(1);
    Conv2DDims d;
    OP_REQUIRES_OK(ctx, ComputeConv2DDims(params_, input, filter, &d));
    FusedEpilogue<T> epilogue;
    const Status s = FusedEpilogue<T>::Create(spec_, ctx, /*first_arg=*/2,
                                              d.out_depth, &epilogue);
    OP_REQUIRES(ctx, s.ok(), s);
    TensorShape out_shape;
    OP_REQUIRES_OK(ctx, ShapeFromFormat(params_.format, d.batch, d.out_rows,
                                        d.out_cols, d.out_depth, &out_shape));
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &output));
    OP_REQUIRES_OK(ctx, epilogue.BindOutput(*output));
    if (output->NumElements() == 0) return;
    OP_REQUIRES(ctx, params_.format == TensorFormat::kNHWC,
                errors::Unimplemented(
                    "The _FusedConv2D op currently only supports the NHWC "
                    "tensor format on the CPU. The op was given the format: ",
                    ToString(params_.format)));
    T* out = output->flat<T>().data();
    const int64_t channels = d.out_depth;
    // Each block arrives on the thread that computed it (float and double
    // are split across the pool by LaunchConv2D itself): the epilogue runs
    // there, on rows still in that core's cache.
    LaunchConv2D<T>(ctx, d, input, filter, output,
                    [&](int64_t first_row, int64_t num_rows) {
                      epilogue.Apply(out + first_row * channels, num_rows,
                                     channels);
                    });
  }

 private:
  Conv2DParams params_;
  FusedOpSpec spec_;
};

#define OPKIT_REGISTER_FUSED_CONV2D(T)                                    \
  REGISTER_KERNEL_BUILDER(                                                \
      Name("_FusedConv2D").Device(DEVICE_CPU).TypeConstraint<T>("T"),     \
      FusedConv2DOp<T>);
OPKIT_REGISTER_FUSED_CONV2D(float)
OPKIT_REGISTER_FUSED_CONV2D(double)
#undef OPKIT_REGISTER_FUSED_CONV2D

}  // namespace
}  // namespace opkit
