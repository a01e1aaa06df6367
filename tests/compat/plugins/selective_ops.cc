// An op library built with -DSELECTIVE_REGISTRATION and the ops_to_register.h
// in selective/ (compat_registration_test.cc loads it): two ops with a
// kernel each, written as any TensorFlow op library; the header keeps
// CompatSelectiveKept and drops CompatSelectiveDropped, whose op and kernel
// must then register nothing, so that the library loads.
#include "tensorflow/core/framework/op.h"
#include "tensorflow/core/framework/op_kernel.h"
#include "tensorflow/core/framework/shape_inference.h"

#ifndef SELECTIVE_REGISTRATION
#error "selective_ops.cc is built with -DSELECTIVE_REGISTRATION"
#endif

using namespace tensorflow;

REGISTER_OP("CompatSelectiveKept")
    .Input("x: int32")
    .Output("y: int32")
    .SetShapeFn(shape_inference::UnchangedShape);

REGISTER_OP("CompatSelectiveDropped")
    .Input("x: int32")
    .Output("y: int32")
    .SetShapeFn(shape_inference::UnchangedShape);

// y = x + 1.
class SelectiveKeptOp : public OpKernel {
 public:
  explicit SelectiveKeptOp(OpKernelConstruction* context) : OpKernel(context) {}
  void Compute(OpKernelContext* context) override {
    const Tensor& x = context->input(0);
    Tensor* y = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(0, x.shape(), &y));
    y->flat<int32>() = x.flat<int32>() + 1;
  }
};

// y = -x.
class SelectiveDroppedOp : public OpKernel {
 public:
  explicit SelectiveDroppedOp(OpKernelConstruction* context) : OpKernel(context) {}
  void Compute(OpKernelContext* context) override {
    const Tensor& x = context->input(0);
    Tensor* y = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(0, x.shape(), &y));
    y->flat<int32>() = -x.flat<int32>();
  }
};

REGISTER_KERNEL_BUILDER(Name("CompatSelectiveKept").Device(DEVICE_CPU),
                        SelectiveKeptOp);
REGISTER_KERNEL_BUILDER(Name("CompatSelectiveDropped").Device(DEVICE_CPU),
                        SelectiveDroppedOp);
