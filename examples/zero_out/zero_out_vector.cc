// ZeroOut for vectors only, from the guide's "Conditional checks and
// validation" and "Shape functions" sections: the kernel rejects anything
// but a 1-D input with OP_REQUIRES(TensorShapeUtils::IsVector(...)), and the
// shape function asserts rank 1 with WithRank.
//
// ZeroOutVector([7, 8, 9]) -> [7, 0, 0];  ZeroOutVector([[1, 2]]) -> error
#include "tensorflow/core/framework/op.h"
#include "tensorflow/core/framework/op_kernel.h"
#include "tensorflow/core/framework/shape_inference.h"

using namespace tensorflow;

REGISTER_OP("ZeroOutVector")
    .Input("to_zero: int32")
    .Output("zeroed: int32")
    .SetShapeFn([](::tensorflow::shape_inference::InferenceContext* c) {
      ::tensorflow::shape_inference::ShapeHandle input;
      TF_RETURN_IF_ERROR(c->WithRank(c->input(0), 1, &input));
      c->set_output(0, input);
      return Status::OK();
    });

namespace {

class ZeroOutOp : public OpKernel {
 public:
  explicit ZeroOutOp(OpKernelConstruction* context) : OpKernel(context) {}

  void Compute(OpKernelContext* context) override {
    // Grab the input tensor
    const Tensor& input_tensor = context->input(0);

    OP_REQUIRES(context, TensorShapeUtils::IsVector(input_tensor.shape()),
                errors::InvalidArgument("ZeroOut expects a 1-D vector."));

    auto input = input_tensor.flat<int32>();
    Tensor* output_tensor = NULL;
    OP_REQUIRES_OK(context, context->allocate_output(0, input_tensor.shape(),
                                                     &output_tensor));
    auto output_flat = output_tensor->flat<int32>();
    const int N = input.size();
    for (int i = 1; i < N; i++) {
      output_flat(i) = 0;
    }
    if (N > 0) output_flat(0) = input(0);
  }
};

}  // namespace

REGISTER_KERNEL_BUILDER(Name("ZeroOutVector").Device(DEVICE_CPU), ZeroOutOp);
