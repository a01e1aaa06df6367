// TensorFlow compatibility: OpKernel, AsyncOpKernel, OpKernelConstruction,
// OpKernelContext, REGISTER_KERNEL_BUILDER and the OP_REQUIRES macros
// (opkit/kernel/op_kernel.h), plus what TensorFlow's op_kernel.h brings
// with it: REGISTER_OP, Tensor, the types, Status and errors::, logging,
// mutex and DeviceBase, and the kernel lookups it declares (FindKernelDef,
// SupportedDeviceTypesForNode, KernelsRegisteredForOp, ...;
// opkit/kernel/kernel_selection.h), and the registration internals code
// reaches into: kernel_factory::OpKernelRegistrar with TensorFlow's
// constructors, OpKernelFactory, and GlobalKernelRegistry(), which here is
// opkit's KernelRegistry (static_cast it to KernelRegistry*;
// opkit/kernel/kernel_registry.h).
//
//   #include "tensorflow/core/framework/op_kernel.h"
//   using namespace tensorflow;
//   typedef Eigen::ThreadPoolDevice CPUDevice;
//
//   class ZeroOutOp : public OpKernel {
//    public:
//     explicit ZeroOutOp(OpKernelConstruction* context) : OpKernel(context) {}
//     void Compute(OpKernelContext* context) override {
//       const Tensor& input_tensor = context->input(0);
//       ...
//     }
//   };
//   REGISTER_KERNEL_BUILDER(Name("ZeroOut").Device(DEVICE_CPU), ZeroOutOp);
//
// REGISTER_KERNEL_BUILDER is redefined here to end with its own semicolon,
// as TensorFlow's does: the guide's
//   #define REGISTER_KERNEL(type) REGISTER_KERNEL_BUILDER(..., ZeroOutOp<type>)
//   TF_CALL_REAL_NUMBER_TYPES(REGISTER_KERNEL);
// expands to registrations with nothing between them. (A trailing `;` after
// the macro is then an empty declaration, which C++11 allows.) As
// TensorFlow's, it drops the kernel when selective registration drops its op
// (Note [Kernel registration macro] in opkit/kernel/op_kernel.h), and works
// in any namespace, in a function and twice on one line.
//
// Eigen's tensor module comes with EIGEN_USE_THREADS, so
// context->eigen_device<Eigen::ThreadPoolDevice>() is usable;
// Eigen::GpuDevice is declared (not defined) so that GPU typedefs compile
// without CUDA.
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_FRAMEWORK_OP_KERNEL_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_FRAMEWORK_OP_KERNEL_H_

// The standard headers TensorFlow's op_kernel.h brings in, directly or
// through its own includes: op sources use std::priority_queue, maps and
// sets after including only this header.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <queue>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "opkit/kernel/kernel_registry.h"
#include "opkit/kernel/kernel_selection.h"
#include "opkit/kernel/op_kernel.h"
#include "tensorflow/core/framework/allocator.h"
#include "tensorflow/core/framework/device_base.h"
#include "tensorflow/core/framework/kernel_def_builder.h"
#include "tensorflow/core/framework/node_def_util.h"
#include "tensorflow/core/framework/op.h"
#include "tensorflow/core/framework/selective_registration.h"
#include "tensorflow/core/framework/tensor.h"
#include "tensorflow/core/framework/tensor_shape.h"
#include "tensorflow/core/framework/types.h"
#include "tensorflow/core/platform/errors.h"
#include "tensorflow/core/platform/logging.h"
#include "tensorflow/core/platform/macros.h"
#include "tensorflow/core/platform/mutex.h"
#include "tensorflow/core/platform/status.h"
#include "tensorflow/core/platform/statusor.h"
#include "tensorflow/core/platform/thread_annotations.h"
#include "tensorflow/core/platform/types.h"

#undef REGISTER_KERNEL_BUILDER
#define REGISTER_KERNEL_BUILDER(kernel_builder, ...)                      \
  OPKIT_REGISTER_KERNEL_BUILDER_IMPL(__COUNTER__, kernel_builder,         \
                                     __VA_ARGS__);

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_FRAMEWORK_OP_KERNEL_H_
