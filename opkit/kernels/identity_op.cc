// Identity-like kernels on CPU: Identity, IdentityN, StopGradient and
// PlaceholderWithDefault. Each output is its input, sharing the buffer.
#include "opkit/kernel/op_kernel.h"
#include "opkit/kernel/op_requires.h"

namespace opkit {
namespace {

class IdentityOp : public OpKernel {
 public:
  explicit IdentityOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    ctx->set_output(0, ctx->input(0));
  }
  bool IsExpensive() override { return false; }
};

// No type constraint: these pass any type through unchanged.
REGISTER_KERNEL_BUILDER(Name("Identity").Device(DEVICE_CPU), IdentityOp);
REGISTER_KERNEL_BUILDER(Name("StopGradient").Device(DEVICE_CPU), IdentityOp);
// The executor replaces the output of a fed PlaceholderWithDefault; when
// nothing is fed, the default flows through.
REGISTER_KERNEL_BUILDER(Name("PlaceholderWithDefault").Device(DEVICE_CPU),
                        IdentityOp);

class IdentityNOp : public OpKernel {
 public:
  explicit IdentityNOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    OpInputList inputs;
    OP_REQUIRES_OK(ctx, ctx->input_list("input", &inputs));
    OpOutputList outputs;
    OP_REQUIRES_OK(ctx, ctx->output_list("output", &outputs));
    OP_REQUIRES(ctx, inputs.size() == outputs.size(),
                errors::InvalidArgument("IdentityN has ", inputs.size(),
                                        " inputs but ", outputs.size(), " outputs"));
    for (int i = 0; i < inputs.size(); ++i) outputs.set(i, inputs[i]);
  }
  bool IsExpensive() override { return false; }
};

REGISTER_KERNEL_BUILDER(Name("IdentityN").Device(DEVICE_CPU), IdentityNOp);

}  // namespace
}  // namespace opkit
