// A tiny op library for the loader tests: op LibTestValue returns the int32
// scalar LIBTEST_RESULT (a compile definition), so two builds of this one source
// tell which build ran. The op name can be changed with OP_NAME. With
// LIBTEST_RESULT_FROM_RUNTIME the value comes from runtime_helper.cc, a
// plain shared library this one links.
#include "opkit/op/op.h"
#include "opkit/kernel/op_kernel.h"
#include "opkit/shape/common_shape_fns.h"

#ifdef LIBTEST_RESULT_FROM_RUNTIME
extern "C" int libtest_runtime_value();
#define LIBTEST_RESULT libtest_runtime_value()
#endif
#ifndef LIBTEST_RESULT
#define LIBTEST_RESULT 1
#endif
#ifndef OP_NAME
#define OP_NAME "LibTestValue"
#endif

namespace {

class ValueOp : public opkit::OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(opkit::OpKernelContext* ctx) override {
    opkit::Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, opkit::TensorShape({}), &out));
    out->scalar<opkit::int32>()() = LIBTEST_RESULT;
  }
};

}  // namespace

REGISTER_OP(OP_NAME)
    .Output("value: int32")
    .SetShapeFn(opkit::shape_inference::ScalarShape);
REGISTER_KERNEL_BUILDER(Name(OP_NAME).Device(opkit::DEVICE_CPU), ValueOp);
