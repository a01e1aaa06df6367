// TensorFlow compatibility: UnaryOp, BinaryOp, UnaryElementWiseOp and
// BinaryElementWiseOp (opkit/kernel/numeric_op.h), the base
// classes of element-wise kernels such as activations and their gradients.
//
//   template <typename Device, typename T>
//   class ReluOp : public UnaryElementWiseOp<T, ReluOp<Device, T>> {
//    public:
//     using UnaryElementWiseOp<T, ReluOp<Device, T>>::UnaryElementWiseOp;
//     void Operate(OpKernelContext* context, const Tensor& input,
//                  Tensor* output) { ... }
//   };
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_FRAMEWORK_NUMERIC_OP_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_FRAMEWORK_NUMERIC_OP_H_

#include "opkit/kernel/numeric_op.h"
#include "tensorflow/core/framework/op_kernel.h"
#include "tensorflow/core/framework/tensor_types.h"
#include "tensorflow/core/framework/types.h"
#include "tensorflow/core/platform/types.h"

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_FRAMEWORK_NUMERIC_OP_H_
