// Identity on CPU: the output is the input, sharing its buffer.
#include "opkit/framework/op_kernel.h"

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

// No type constraint: Identity passes any type through unchanged.
REGISTER_KERNEL_BUILDER(Name("Identity").Device(DEVICE_CPU), IdentityOp);

}  // namespace
}  // namespace opkit
