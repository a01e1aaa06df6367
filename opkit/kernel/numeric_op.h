// Base classes for kernels of element-wise ops with one type T (TensorFlow's
// numeric_op.h): the constructor checks the node's signature, Compute
// allocates (or takes over an input as) the output and hands the work to the
// derived class, which is passed as CHILD (CRTP, no virtual call per op).
//
//   template <typename Device, typename T>
//   class Relu6Op : public UnaryElementWiseOp<T, Relu6Op<Device, T>> {
//    public:
//     using UnaryElementWiseOp<T, Relu6Op<Device, T>>::UnaryElementWiseOp;
//     void Operate(OpKernelContext* ctx, const Tensor& in, Tensor* out) {
//       out->flat<T>().device(ctx->eigen_device<Device>()) =
//           in.flat<T>().cwiseMax(T(0)).cwiseMin(T(6));
//     }
//   };
//
//   template <typename Device, typename T>
//   class Relu6GradOp : public BinaryElementWiseOp<T, Relu6GradOp<Device, T>> {
//    public:
//     using BinaryElementWiseOp<T, Relu6GradOp<Device, T>>::BinaryElementWiseOp;
//     template <int NDIMS>
//     void Operate(OpKernelContext* ctx, const Tensor& g, const Tensor& a,
//                  Tensor* out) { ... }
//   };
#ifndef OPKIT_KERNEL_NUMERIC_OP_H_
#define OPKIT_KERNEL_NUMERIC_OP_H_

#include "opkit/core/errors.h"
#include "opkit/kernel/op_kernel.h"
#include "opkit/kernel/op_requires.h"
#include "opkit/tensor/tensor.h"
#include "opkit/tensor/types.h"

namespace opkit {

// A kernel of an op T -> T. The constructor fails (InvalidArgument
// "Signature mismatch, have: int32->int32 expected: float->float") when the
// node's types are not one T input and one T output.
template <class T>
class UnaryOp : public OpKernel {
 public:
  explicit UnaryOp(OpKernelConstruction* context) : OpKernel(context) {
    const DataType dt = DataTypeToEnum<T>::v();
    OP_REQUIRES_OK(context, context->MatchSignature({dt}, {dt}));
  }
};

// A kernel of an op (T, T) -> T, checked like UnaryOp.
template <class T>
class BinaryOp : public OpKernel {
 public:
  explicit BinaryOp(OpKernelConstruction* context) : OpKernel(context) {
    const DataType dt = DataTypeToEnum<T>::v();
    OP_REQUIRES_OK(context, context->MatchSignature({dt, dt}, {dt}));
  }
};

// Output 0 has input 0's shape and reuses input 0's buffer when nothing else
// holds it (forward_input_or_allocate_output). CHILD provides
//   void Operate(OpKernelContext*, const Tensor& input, Tensor* output);
template <class T, class CHILD>
class UnaryElementWiseOp : public UnaryOp<T> {
 public:
  using UnaryOp<T>::UnaryOp;

  void Compute(OpKernelContext* context) override {
    const Tensor& input = context->input(0);
    Tensor* output = nullptr;
    OP_REQUIRES_OK(context, context->forward_input_or_allocate_output(
                                {0}, 0, input.shape(), &output));
    static_cast<CHILD*>(this)->Operate(context, input, output);
  }
};

// Both inputs must have the same shape (InvalidArgument "Inputs to operation
// n of type Op must have the same size and shape.  Input 0: [2] != input 1:
// [3]"); output 0 has it and reuses input 0's or input 1's buffer when it
// can. CHILD provides, for the rank NDIMS of the inputs (0 to 8),
//   template <int NDIMS>
//   void Operate(OpKernelContext*, const Tensor& a, const Tensor& b,
//                Tensor* output);
// A higher rank is InvalidArgument "We only handle up to Tensor::dims() up
// to 8, not 9".
template <class T, class CHILD>
class BinaryElementWiseOp : public BinaryOp<T> {
 public:
  using BinaryOp<T>::BinaryOp;

  void Compute(OpKernelContext* context) override {
    const Tensor& a = context->input(0);
    const Tensor& b = context->input(1);
    if (!context->ValidateInputsAreSameShape(this)) return;
    Tensor* output = nullptr;
    OP_REQUIRES_OK(context, context->forward_input_or_allocate_output(
                                {0, 1}, 0, a.shape(), &output));
    CHILD* child = static_cast<CHILD*>(this);
    switch (a.dims()) {
      case 0: child->template Operate<0>(context, a, b, output); break;
      case 1: child->template Operate<1>(context, a, b, output); break;
      case 2: child->template Operate<2>(context, a, b, output); break;
      case 3: child->template Operate<3>(context, a, b, output); break;
      case 4: child->template Operate<4>(context, a, b, output); break;
      case 5: child->template Operate<5>(context, a, b, output); break;
      case 6: child->template Operate<6>(context, a, b, output); break;
      case 7: child->template Operate<7>(context, a, b, output); break;
      case 8: child->template Operate<8>(context, a, b, output); break;
      default:
        context->SetStatus(errors::InvalidArgument(
            "We only handle up to Tensor::dims() up to 8, not ", a.dims()));
        break;
    }
  }
};

}  // namespace opkit

#endif  // OPKIT_KERNEL_NUMERIC_OP_H_
