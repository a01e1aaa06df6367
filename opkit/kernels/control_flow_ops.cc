// CPU kernels of the v1 control-flow ops. Each one only moves a tensor; the
// executor (opkit/runtime/executor.h) gives them their meaning: a Switch
// output left unset is dead, Merge runs on its first live input, Enter /
// Exit / NextIteration move values between frames and iterations.
#include "opkit/core/errors.h"
#include "opkit/kernel/op_kernel.h"
#include "opkit/tensor/tensor_shape.h"

namespace opkit {
namespace {

// Forwards `data` to output_true when the predicate holds, else to
// output_false; the other output stays unset (dead).
class SwitchOp : public OpKernel {
 public:
  explicit SwitchOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& p = ctx->input(1);
    OP_REQUIRES(ctx, TensorShapeUtils::IsScalar(p.shape()),
                errors::InvalidArgument("The second input must be a scalar, "
                                        "but it has shape ",
                                        p.shape().DebugString()));
    OP_REQUIRES(ctx, p.IsInitialized(),
                errors::InvalidArgument("The predicate of ", name(),
                                        " has no value"));
    const int port = p.scalar<bool>()() ? 1 : 0;
    if (ctx->input_is_ref(0)) {
      ctx->forward_ref_input_to_ref_output(0, port);
    } else {
      ctx->set_output(port, ctx->input(0));
    }
  }
  bool IsExpensive() override { return false; }
};

// Outputs its one live input and that input's index.
class MergeOp : public OpKernel {
 public:
  explicit MergeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    for (int i = 0; i < ctx->num_inputs(); ++i) {
      if (!ctx->has_input(i)) continue;
      if (ctx->input_is_ref(i)) {
        ctx->forward_ref_input_to_ref_output(i, 0);
      } else {
        ctx->set_output(0, ctx->input(i));
      }
      Tensor* index = nullptr;
      OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape({}), &index));
      index->scalar<int32>()() = i;
      return;
    }
    ctx->CtxFailure(errors::InvalidArgument(
        "Merge ", name(), " was run without a live input; the executor "
        "should have propagated its deadness"));
  }
  bool IsExpensive() override { return false; }
};

// Enter, Exit, NextIteration, LoopCond: the value passes unchanged (the
// executor moves it to the right frame and iteration).
class ForwardOp : public OpKernel {
 public:
  explicit ForwardOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    if (ctx->input_is_ref(0)) {
      ctx->forward_ref_input_to_ref_output(0, 0);
    } else {
      ctx->set_output(0, ctx->input(0));
    }
  }
  bool IsExpensive() override { return false; }
};

// No type constraints: these ops pass any type through.
REGISTER_KERNEL_BUILDER(Name("Switch").Device(DEVICE_CPU), SwitchOp);
REGISTER_KERNEL_BUILDER(Name("RefSwitch").Device(DEVICE_CPU), SwitchOp);
REGISTER_KERNEL_BUILDER(Name("Merge").Device(DEVICE_CPU), MergeOp);
REGISTER_KERNEL_BUILDER(Name("Enter").Device(DEVICE_CPU), ForwardOp);
REGISTER_KERNEL_BUILDER(Name("Exit").Device(DEVICE_CPU), ForwardOp);
REGISTER_KERNEL_BUILDER(Name("NextIteration").Device(DEVICE_CPU), ForwardOp);
REGISTER_KERNEL_BUILDER(Name("LoopCond").Device(DEVICE_CPU), ForwardOp);

}  // namespace
}  // namespace opkit
