// NoOp on CPU: nothing to compute; it exists for its control edges.
#include "opkit/kernel/op_kernel.h"

namespace opkit {
namespace {

class NoOp : public OpKernel {
 public:
  explicit NoOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override { (void)ctx; }
  bool IsExpensive() override { return false; }
};

REGISTER_KERNEL_BUILDER(Name("NoOp").Device(DEVICE_CPU), NoOp);

}  // namespace
}  // namespace opkit
