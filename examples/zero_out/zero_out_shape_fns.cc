// The two remaining shape functions of the guide's "Shape functions"
// section, each on an op with a kernel that produces what it promises:
//   ZeroOutMerged  N inputs that must all be matrices of one shape (the
//                  guide's loop of WithRank(..., 2) and Merge); returns the
//                  first input zeroed out but for its first element.
//   ZeroOutRows    output shape (n, 3) for an input of shape (n, ...) (the
//                  guide's c->Matrix(c->Dim(c->input(0), 0), 3)); row i
//                  keeps the first element of input row i, the rest is 0.
//
// ZeroOutMerged([[1, 2]], [[3, 4]]) -> [[1, 0]]
// ZeroOutRows([[1, 2], [3, 4]])     -> [[1, 0, 0], [3, 0, 0]]
#include "tensorflow/core/framework/op.h"
#include "tensorflow/core/framework/op_kernel.h"
#include "tensorflow/core/framework/shape_inference.h"

using namespace tensorflow;

REGISTER_OP("ZeroOutMerged")
    .Attr("N: int >= 1")
    .Attr("T: {float, int32}")
    .Input("to_zero: N * T")
    .Output("zeroed: T")
    .SetShapeFn([](::tensorflow::shape_inference::InferenceContext* c) {
      ::tensorflow::shape_inference::ShapeHandle input;
      ::tensorflow::shape_inference::ShapeHandle output;
      for (size_t i = 0; i < c->num_inputs(); ++i) {
        TF_RETURN_IF_ERROR(c->WithRank(c->input(i), 2, &input));
        TF_RETURN_IF_ERROR(c->Merge(output, input, &output));
      }
      c->set_output(0, output);
      return Status::OK();
    });

REGISTER_OP("ZeroOutRows")
    .Input("to_zero: int32")
    .Output("zeroed: int32")
    .SetShapeFn([](::tensorflow::shape_inference::InferenceContext* c) {
      c->set_output(0, c->Matrix(c->Dim(c->input(0), 0), 3));
      return Status::OK();
    });

namespace {

template <typename T>
class ZeroOutMergedOp : public OpKernel {
 public:
  explicit ZeroOutMergedOp(OpKernelConstruction* context)
      : OpKernel(context) {}

  void Compute(OpKernelContext* context) override {
    OpInputList inputs;
    OP_REQUIRES_OK(context, context->input_list("to_zero", &inputs));
    // What the shape function asserts, checked on the actual inputs.
    for (int i = 0; i < inputs.size(); ++i) {
      OP_REQUIRES(context, TensorShapeUtils::IsMatrix(inputs[i].shape()),
                  errors::InvalidArgument(
                      "ZeroOutMerged expects matrices, input ", i,
                      " has shape ", inputs[i].shape().DebugString()));
      OP_REQUIRES(context, inputs[i].shape() == inputs[0].shape(),
                  errors::InvalidArgument(
                      "ZeroOutMerged expects inputs of one shape, input ", i,
                      " has shape ", inputs[i].shape().DebugString(),
                      " and input 0 ", inputs[0].shape().DebugString()));
    }
    const Tensor& first = inputs[0];
    Tensor* output = NULL;
    OP_REQUIRES_OK(context,
                   context->allocate_output(0, first.shape(), &output));
    auto in = first.flat<T>();
    auto out = output->flat<T>();
    out.setZero();
    if (in.size() > 0) out(0) = in(0);
  }
};

class ZeroOutRowsOp : public OpKernel {
 public:
  explicit ZeroOutRowsOp(OpKernelConstruction* context) : OpKernel(context) {}

  void Compute(OpKernelContext* context) override {
    const Tensor& input_tensor = context->input(0);
    OP_REQUIRES(context, input_tensor.dims() >= 1,
                errors::InvalidArgument(
                    "ZeroOutRows expects at least a vector, got shape ",
                    input_tensor.shape().DebugString()));
    const int64 rows = input_tensor.dim_size(0);
    Tensor* output = NULL;
    OP_REQUIRES_OK(context, context->allocate_output(
                                0, TensorShape({rows, 3}), &output));
    auto out = output->matrix<int32>();
    out.setZero();
    if (rows == 0 || input_tensor.NumElements() == 0) return;
    // The input viewed as `rows` rows of its remaining dimensions.
    auto in = input_tensor.flat_outer_dims<int32>();
    for (int64 r = 0; r < rows; ++r) out(r, 0) = in(r, 0);
  }
};

}  // namespace

REGISTER_KERNEL_BUILDER(
    Name("ZeroOutMerged").Device(DEVICE_CPU).TypeConstraint<float>("T"),
    ZeroOutMergedOp<float>);
REGISTER_KERNEL_BUILDER(
    Name("ZeroOutMerged").Device(DEVICE_CPU).TypeConstraint<int32>("T"),
    ZeroOutMergedOp<int32>);
REGISTER_KERNEL_BUILDER(Name("ZeroOutRows").Device(DEVICE_CPU),
                        ZeroOutRowsOp);
