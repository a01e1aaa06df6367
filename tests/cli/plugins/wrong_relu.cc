// An op library whose float CPU Relu kernel is wrong on purpose: it returns
// max(x, 0) + 1, at priority 1 so that it wins over the built-in kernel
// while loaded. `opkit bench --load` must report the outputs as different
// (bench_cli_test.cc).
#include <algorithm>

#include "opkit/kernel/op_kernel.h"

namespace {

class WrongReluOp : public opkit::OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(opkit::OpKernelContext* ctx) override {
    const opkit::Tensor& x = ctx->input(0);
    opkit::Tensor* y = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &y));
    auto in = x.flat<float>();
    auto out = y->flat<float>();
    for (int64_t i = 0; i < in.size(); ++i) out(i) = std::max(in(i), 0.0f) + 1.0f;
  }
};

}  // namespace

REGISTER_KERNEL_BUILDER(
    Name("Relu").Device(opkit::DEVICE_CPU).TypeConstraint<float>("T").Priority(1),
    WrongReluOp);
