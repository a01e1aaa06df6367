// ZeroOut made polymorphic, from the guide's "Polymorphism" section, in its
// three steps:
//   ZeroOutFloatInt    T: {float, int32} = DT_INT32, with one hand-written
//                      kernel class per type (ZeroOutInt32Op, ZeroOutFloatOp);
//   ZeroOutTemplated   T: {float, double, int32}, one class template and one
//                      REGISTER_KERNEL_BUILDER per type;
//   ZeroOutMacro       the same, registered through a REGISTER_KERNEL macro;
//   ZeroOutRealNumber  T: realnumbertype, registered for every real number
//                      type with TF_CALL_REAL_NUMBER_TYPES, shape function
//                      shape_inference::UnchangedShape.
// (The guide calls every one of them "ZeroOut"; distinct names let them
// share one library.)
//
// ZeroOutRealNumber(half[1.5, 2]) -> half[1.5, 0]
#include "tensorflow/core/framework/op.h"
#include "tensorflow/core/framework/op_kernel.h"
#include "tensorflow/core/framework/register_types.h"

using namespace tensorflow;

REGISTER_OP("ZeroOutFloatInt")
    .Attr("T: {float, int32} = DT_INT32")
    .Input("to_zero: T")
    .Output("zeroed: T")
    .SetShapeFn(::tensorflow::shape_inference::UnchangedShape);

REGISTER_OP("ZeroOutTemplated")
    .Attr("T: {float, double, int32}")
    .Input("to_zero: T")
    .Output("zeroed: T")
    .SetShapeFn(::tensorflow::shape_inference::UnchangedShape);

REGISTER_OP("ZeroOutMacro")
    .Attr("T: {float, double, int32}")
    .Input("to_zero: T")
    .Output("zeroed: T")
    .SetShapeFn(::tensorflow::shape_inference::UnchangedShape);

REGISTER_OP("ZeroOutRealNumber")
    .Attr("T: realnumbertype")
    .Input("to_zero: T")
    .Output("zeroed: T")
    .SetShapeFn(::tensorflow::shape_inference::UnchangedShape);

namespace {

// --- One class per type ----------------------------------------------------

class ZeroOutInt32Op : public OpKernel {
 public:
  explicit ZeroOutInt32Op(OpKernelConstruction* context) : OpKernel(context) {}

  void Compute(OpKernelContext* context) override {
    // Grab the input tensor
    const Tensor& input_tensor = context->input(0);
    auto input = input_tensor.flat<int32>();

    // Create an output tensor
    Tensor* output = NULL;
    OP_REQUIRES_OK(context,
                   context->allocate_output(0, input_tensor.shape(), &output));
    auto output_flat = output->template flat<int32>();

    // Set all the elements of the output tensor to 0
    const int N = input.size();
    for (int i = 0; i < N; i++) {
      output_flat(i) = 0;
    }

    // Preserve the first input value
    if (N > 0) output_flat(0) = input(0);
  }
};

class ZeroOutFloatOp : public OpKernel {
 public:
  explicit ZeroOutFloatOp(OpKernelConstruction* context) : OpKernel(context) {}

  void Compute(OpKernelContext* context) override {
    // Grab the input tensor
    const Tensor& input_tensor = context->input(0);
    auto input = input_tensor.flat<float>();

    // Create an output tensor
    Tensor* output = NULL;
    OP_REQUIRES_OK(context,
                   context->allocate_output(0, input_tensor.shape(), &output));
    auto output_flat = output->template flat<float>();

    // Set all the elements of the output tensor to 0
    const int N = input.size();
    for (int i = 0; i < N; i++) {
      output_flat(i) = 0;
    }

    // Preserve the first input value
    if (N > 0) output_flat(0) = input(0);
  }
};

// --- One class template ----------------------------------------------------

template <typename T>
class ZeroOutOp : public OpKernel {
 public:
  explicit ZeroOutOp(OpKernelConstruction* context) : OpKernel(context) {}

  void Compute(OpKernelContext* context) override {
    // Grab the input tensor
    const Tensor& input_tensor = context->input(0);
    auto input = input_tensor.flat<T>();

    // Create an output tensor
    Tensor* output = NULL;
    OP_REQUIRES_OK(context,
                   context->allocate_output(0, input_tensor.shape(), &output));
    auto output_flat = output->template flat<T>();

    // Set all the elements of the output tensor to 0. (T(0) where the
    // guide writes 0: Eigen's half and bfloat16, which
    // TF_CALL_REAL_NUMBER_TYPES includes, convert from int only explicitly.)
    const int N = input.size();
    for (int i = 0; i < N; i++) {
      output_flat(i) = T(0);
    }

    // Preserve the first input value
    if (N > 0) output_flat(0) = input(0);
  }
};

}  // namespace

// Note that TypeConstraint<int32>("T") means that attr "T" (defined
// in the op registration above) must be "int32" to use this template
// instantiation.
REGISTER_KERNEL_BUILDER(
    Name("ZeroOutFloatInt")
    .Device(DEVICE_CPU)
    .TypeConstraint<int32>("T"),
    ZeroOutInt32Op);
REGISTER_KERNEL_BUILDER(
    Name("ZeroOutFloatInt")
    .Device(DEVICE_CPU)
    .TypeConstraint<float>("T"),
    ZeroOutFloatOp);

REGISTER_KERNEL_BUILDER(
    Name("ZeroOutTemplated")
    .Device(DEVICE_CPU)
    .TypeConstraint<int32>("T"),
    ZeroOutOp<int32>);
REGISTER_KERNEL_BUILDER(
    Name("ZeroOutTemplated")
    .Device(DEVICE_CPU)
    .TypeConstraint<float>("T"),
    ZeroOutOp<float>);
REGISTER_KERNEL_BUILDER(
    Name("ZeroOutTemplated")
    .Device(DEVICE_CPU)
    .TypeConstraint<double>("T"),
    ZeroOutOp<double>);

#define REGISTER_KERNEL(type)                                             \
  REGISTER_KERNEL_BUILDER(                                                \
      Name("ZeroOutMacro").Device(DEVICE_CPU).TypeConstraint<type>("T"),  \
      ZeroOutOp<type>)

REGISTER_KERNEL(int32);
REGISTER_KERNEL(float);
REGISTER_KERNEL(double);

#undef REGISTER_KERNEL

#define REGISTER_KERNEL(type)                                                 \
  REGISTER_KERNEL_BUILDER(                                                    \
      Name("ZeroOutRealNumber").Device(DEVICE_CPU).TypeConstraint<type>("T"), \
      ZeroOutOp<type>)

TF_CALL_REAL_NUMBER_TYPES(REGISTER_KERNEL);

#undef REGISTER_KERNEL
