// TensorFlow compatibility: ResourceOpKernel<T> and ContainerInfo
// (opkit/kernel/resource_op_kernel.h): a kernel that creates its resource
// on first use, under its node's container / shared_name, and outputs a
// handle to it.
//
//   class MyTableOp : public ResourceOpKernel<MyTable> {
//    public:
//     explicit MyTableOp(OpKernelConstruction* c) : ResourceOpKernel(c) {}
//    private:
//     Status CreateResource(MyTable** t) override { ... }
//   };
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_FRAMEWORK_RESOURCE_OP_KERNEL_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_FRAMEWORK_RESOURCE_OP_KERNEL_H_

#include "opkit/kernel/resource_op_kernel.h"
#include "tensorflow/core/framework/op_kernel.h"
#include "tensorflow/core/framework/resource_mgr.h"

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_FRAMEWORK_RESOURCE_OP_KERNEL_H_
