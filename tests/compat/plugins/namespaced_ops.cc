// An op library with namespaced op names, written as TensorFlow Addons and
// TensorFlow's custom-op examples write them ("Addons>Gelu",
// "Examples>MinMax"): one single-output op and one multi-output op, so that
// Python's generated names (addons_gelu, examples_min_max, the result type
// Examples_MinMax) and C++ (eager, graphs) are tested on both shapes.
//
//   Addons>Gelu(features, approximate=true): 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
//     (approximate=false: 0.5 x (1 + erf(x / sqrt(2))))
//   Examples>MinMax(input) -> (min, max) over all elements
#include <algorithm>
#include <cmath>

#include "tensorflow/core/framework/op.h"
#include "tensorflow/core/framework/op_kernel.h"
#include "tensorflow/core/framework/shape_inference.h"

using namespace tensorflow;

REGISTER_OP("Addons>Gelu")
    .Input("features: T")
    .Output("activations: T")
    .Attr("T: {float, double}")
    .Attr("approximate: bool = true")
    .SetShapeFn([](shape_inference::InferenceContext* c) {
      c->set_output(0, c->input(0));
      return Status::OK();
    });

REGISTER_OP("Examples>MinMax")
    .Input("input: T")
    .Output("min: T")
    .Output("max: T")
    .Attr("T: {int32, float}")
    .SetShapeFn([](shape_inference::InferenceContext* c) {
      c->set_output(0, c->Scalar());
      c->set_output(1, c->Scalar());
      return Status::OK();
    });

namespace tensorflow {
namespace addons {

template <typename T>
class GeluOp : public OpKernel {
 public:
  explicit GeluOp(OpKernelConstruction* context) : OpKernel(context) {
    OP_REQUIRES_OK(context, context->GetAttr("approximate", &approximate_));
  }

  void Compute(OpKernelContext* context) override {
    const Tensor& input = context->input(0);
    Tensor* output = nullptr;
    OP_REQUIRES_OK(context,
                   context->allocate_output(0, input.shape(), &output));
    auto x = input.flat<T>();
    auto y = output->flat<T>();
    for (int64 i = 0; i < x.size(); ++i) {
      const T v = x(i);
      if (approximate_) {
        const T k = static_cast<T>(std::sqrt(2.0 / M_PI));
        y(i) = T(0.5) * v * (T(1) + std::tanh(k * (v + T(0.044715) * v * v * v)));
      } else {
        y(i) = T(0.5) * v * (T(1) + std::erf(v / static_cast<T>(std::sqrt(2.0))));
      }
    }
  }

 private:
  bool approximate_;
};

template <typename T>
class MinMaxOp : public OpKernel {
 public:
  explicit MinMaxOp(OpKernelConstruction* context) : OpKernel(context) {}

  void Compute(OpKernelContext* context) override {
    const Tensor& input = context->input(0);
    OP_REQUIRES(context, input.NumElements() > 0,
                errors::InvalidArgument("Examples>MinMax needs a non-empty input"));
    auto x = input.flat<T>();
    Tensor* min = nullptr;
    Tensor* max = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(0, TensorShape({}), &min));
    OP_REQUIRES_OK(context, context->allocate_output(1, TensorShape({}), &max));
    min->scalar<T>()() = *std::min_element(x.data(), x.data() + x.size());
    max->scalar<T>()() = *std::max_element(x.data(), x.data() + x.size());
  }
};

#define REGISTER_KERNELS(T)                                            \
  REGISTER_KERNEL_BUILDER(                                             \
      Name("Addons>Gelu").Device(DEVICE_CPU).TypeConstraint<T>("T"),   \
      GeluOp<T>);
REGISTER_KERNELS(float);
REGISTER_KERNELS(double);
#undef REGISTER_KERNELS

REGISTER_KERNEL_BUILDER(
    Name("Examples>MinMax").Device(DEVICE_CPU).TypeConstraint<int32>("T"),
    MinMaxOp<int32>);
REGISTER_KERNEL_BUILDER(
    Name("Examples>MinMax").Device(DEVICE_CPU).TypeConstraint<float>("T"),
    MinMaxOp<float>);

}  // namespace addons
}  // namespace tensorflow
