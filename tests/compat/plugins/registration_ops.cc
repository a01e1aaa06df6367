// An op library that registers the ways real TensorFlow op libraries do
// beyond the guide (compat_registration_test.cc loads it and runs each op):
// REGISTER_KERNEL_BUILDER inside nested namespaces, through function-like
// macros over TF_CALL_*, twice on one line through one macro, from inside a
// function run at load time; REGISTER_OP twice on one line; TypeConstraint,
// HostMemory, Label and Priority; and the registration internals that code
// reaches into: kernel_factory::OpKernelRegistrar with a factory function and
// with an OpKernelFactory, and register_op::OpDefBuilderWrapper /
// OpDefBuilderReceiver.
#include <memory>

#include "tensorflow/core/framework/op.h"
#include "tensorflow/core/framework/op_kernel.h"
#include "tensorflow/core/framework/register_types.h"
#include "tensorflow/core/framework/shape_inference.h"

namespace tensorflow {
namespace compat_registration {

REGISTER_OP("CompatRegAddOne")
    .Input("x: T")
    .Output("y: T")
    .Attr("T: {half, float, double, int32, int64}")
    .SetShapeFn(shape_inference::UnchangedShape);

// Two ops from one macro expansion, on one line.
#define REGISTER_CONSTANT_OP(name) \
  REGISTER_OP(name).Output("y: int32").SetShapeFn(shape_inference::ScalarShape)
#define REGISTER_TWO_CONSTANT_OPS(a, b) REGISTER_CONSTANT_OP(a); REGISTER_CONSTANT_OP(b)
REGISTER_TWO_CONSTANT_OPS("CompatRegSeven", "CompatRegEight");

REGISTER_OP("CompatRegLabeled")
    .Output("y: int32")
    .SetShapeFn(shape_inference::ScalarShape);

REGISTER_OP("CompatRegPriority")
    .Output("y: int32")
    .SetShapeFn(shape_inference::ScalarShape);

REGISTER_OP("CompatRegHostShape")
    .Input("shape: int32")
    .Output("n: int32")
    .SetShapeFn(shape_inference::ScalarShape);

// y = x + 1, for each type of TF_CALL_* below.
template <typename Device, typename T>
class AddOneOp : public OpKernel {
 public:
  explicit AddOneOp(OpKernelConstruction* context) : OpKernel(context) {}
  void Compute(OpKernelContext* context) override {
    const Tensor& x = context->input(0);
    Tensor* y = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(0, x.shape(), &y));
    y->flat<T>() = x.flat<T>() + static_cast<T>(1);
  }
};

typedef Eigen::ThreadPoolDevice CPUDevice;

// A function-like macro over a template, as most libraries register their
// kernels: float and double here; int32 and int64 two on one line below.
#define REGISTER_CPU(T)                                              \
  REGISTER_KERNEL_BUILDER(                                           \
      Name("CompatRegAddOne").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      AddOneOp<CPUDevice, T>)
TF_CALL_float(REGISTER_CPU);
TF_CALL_double(REGISTER_CPU);
#undef REGISTER_CPU

#define REGISTER_TWO_ON_ONE_LINE(A, B)                                   \
  REGISTER_KERNEL_BUILDER(                                               \
      Name("CompatRegAddOne").Device(DEVICE_CPU).TypeConstraint<A>("T"), \
      AddOneOp<CPUDevice, A>)                                            \
  REGISTER_KERNEL_BUILDER(                                               \
      Name("CompatRegAddOne").Device(DEVICE_CPU).TypeConstraint<B>("T"), \
      AddOneOp<CPUDevice, B>)
REGISTER_TWO_ON_ONE_LINE(int32, int64);
#undef REGISTER_TWO_ON_ONE_LINE

// Returns the constant it is built with.
template <int kValue>
class ConstantOp : public OpKernel {
 public:
  explicit ConstantOp(OpKernelConstruction* context) : OpKernel(context) {}
  void Compute(OpKernelContext* context) override {
    Tensor* y = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(0, TensorShape({}), &y));
    y->scalar<int32>()() = kValue;
  }
};

// Nodes with _kernel="fast" get 2, others 1.
REGISTER_KERNEL_BUILDER(Name("CompatRegLabeled").Device(DEVICE_CPU),
                        ConstantOp<1>);
REGISTER_KERNEL_BUILDER(Name("CompatRegLabeled").Device(DEVICE_CPU).Label("fast"),
                        ConstantOp<2>);

// The priority-5 kernel wins over the default one.
REGISTER_KERNEL_BUILDER(Name("CompatRegPriority").Device(DEVICE_CPU),
                        ConstantOp<10>);
REGISTER_KERNEL_BUILDER(Name("CompatRegPriority").Device(DEVICE_CPU).Priority(5),
                        ConstantOp<50>);

// n = number of elements of a shape given in host memory.
class HostShapeOp : public OpKernel {
 public:
  explicit HostShapeOp(OpKernelConstruction* context) : OpKernel(context) {}
  void Compute(OpKernelContext* context) override {
    const Tensor& shape = context->input(0);
    OP_REQUIRES(context, TensorShapeUtils::IsVector(shape.shape()),
                errors::InvalidArgument("shape must be a vector"));
    int32 n = 1;
    for (int64 i = 0; i < shape.NumElements(); ++i) n *= shape.vec<int32>()(i);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(0, TensorShape({}), &out));
    out->scalar<int32>()() = n;
  }
};
REGISTER_KERNEL_BUILDER(
    Name("CompatRegHostShape").Device(DEVICE_CPU).HostMemory("shape").HostMemory("n"),
    HostShapeOp);

}  // namespace compat_registration
}  // namespace tensorflow

// --- Registration internals, as code that registers by hand writes them ----

namespace {

using namespace tensorflow;

// REGISTER_KERNEL_BUILDER for CompatRegSeven runs inside a function, called
// once while the library loads (the shape of code that registers a kernel
// only if none is registered yet).
const int kRegisterSeven = [] {
  REGISTER_KERNEL_BUILDER(Name("CompatRegSeven").Device(DEVICE_CPU),
                          compat_registration::ConstantOp<7>);
  return 0;
}();

// An op registered without REGISTER_OP, through the objects it expands to.
static ::tensorflow::register_op::OpDefBuilderReceiver register_by_hand =
    ::tensorflow::register_op::OpDefBuilderWrapper("CompatRegByHand")
        .Input("x: int32")
        .Output("y: int32")
        .SetShapeFn(shape_inference::UnchangedShape);
static ::tensorflow::register_op::OpDefBuilderReceiver register_by_hand_v1 =
    ::tensorflow::register_op::OpDefBuilderWrapper<true>("CompatRegFactory")
        .Output("y: int32")
        .SetShapeFn(shape_inference::ScalarShape);

// y = x * 3.
class TimesThreeOp : public OpKernel {
 public:
  explicit TimesThreeOp(OpKernelConstruction* context) : OpKernel(context) {}
  void Compute(OpKernelContext* context) override {
    const Tensor& x = context->input(0);
    Tensor* y = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(0, x.shape(), &y));
    y->flat<int32>() = x.flat<int32>() * 3;
  }
};

// Returns the value its factory was made with.
class ValueOp : public OpKernel {
 public:
  ValueOp(OpKernelConstruction* context, int32 value)
      : OpKernel(context), value_(value) {}
  void Compute(OpKernelContext* context) override {
    Tensor* y = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(0, TensorShape({}), &y));
    y->scalar<int32>()() = value_;
  }

 private:
  const int32 value_;
};

class ValueOpFactory : public OpKernelFactory {
 public:
  explicit ValueOpFactory(int32 value) : value_(value) {}
  OpKernel* Create(OpKernelConstruction* context) override {
    return new ValueOp(context, value_);
  }

 private:
  const int32 value_;
};

// TensorFlow's registrar with a factory function (the form its macro
// expands to) and with a factory object.
static kernel_factory::OpKernelRegistrar times_three_registrar(
    KernelDefBuilder("CompatRegByHand").Device(DEVICE_CPU).Build(),
    "TimesThreeOp", [](OpKernelConstruction* context) -> OpKernel* {
      return new TimesThreeOp(context);
    });
static kernel_factory::OpKernelRegistrar factory_registrar(
    register_kernel::Name("CompatRegFactory").Device(DEVICE_CPU).Build(),
    "ValueOp", std::unique_ptr<OpKernelFactory>(new ValueOpFactory(42)));

}  // namespace
