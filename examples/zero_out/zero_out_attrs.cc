// ZeroOut with an attr, from the guide's "Attrs" section: the index to
// preserve is the int attr `preserve_index`, validated in the kernel's
// constructor (>= 0) and again in Compute (< number of elements), both with
// OP_REQUIRES and an InvalidArgument status.
//
// ZeroOutPreserveIndex([5, 4, 3], preserve_index=1) -> [0, 4, 0]
//
// The guide names this op "ZeroOut"; here it is ZeroOutPreserveIndex so
// that every variant of the guide can live in one library. Its classes sit
// in an anonymous namespace for the same reason: the guide reuses the name
// ZeroOutOp in every variant.
#include "tensorflow/core/framework/op.h"
#include "tensorflow/core/framework/op_kernel.h"
#include "tensorflow/core/framework/shape_inference.h"

using namespace tensorflow;

REGISTER_OP("ZeroOutPreserveIndex")
    .Attr("preserve_index: int")
    .Input("to_zero: int32")
    .Output("zeroed: int32")
    .SetShapeFn(::tensorflow::shape_inference::UnchangedShape);

namespace {

class ZeroOutOp : public OpKernel {
 public:
  explicit ZeroOutOp(OpKernelConstruction* context) : OpKernel(context) {
    // Get the index of the value to preserve
    OP_REQUIRES_OK(context,
                   context->GetAttr("preserve_index", &preserve_index_));
    // Check that preserve_index is positive
    OP_REQUIRES(context, preserve_index_ >= 0,
                errors::InvalidArgument("Need preserve_index >= 0, got ",
                                        preserve_index_));
  }

  void Compute(OpKernelContext* context) override {
    // Grab the input tensor
    const Tensor& input_tensor = context->input(0);
    auto input = input_tensor.flat<int32>();

    // We're using saved attr to validate potentially dynamic input
    // So we check that preserve_index is in range
    OP_REQUIRES(context, preserve_index_ < input.dimension(0),
                errors::InvalidArgument("preserve_index out of range"));

    // Create an output tensor
    Tensor* output_tensor = NULL;
    OP_REQUIRES_OK(context, context->allocate_output(0, input_tensor.shape(),
                                                     &output_tensor));
    auto output_flat = output_tensor->flat<int32>();

    // Set all the elements of the output tensor to 0
    const int N = input.size();
    for (int i = 0; i < N; i++) {
      output_flat(i) = 0;
    }

    // Preserve the requested input value
    output_flat(preserve_index_) = input(preserve_index_);
  }

 private:
  int preserve_index_;
};

}  // namespace

REGISTER_KERNEL_BUILDER(Name("ZeroOutPreserveIndex").Device(DEVICE_CPU),
                        ZeroOutOp);
