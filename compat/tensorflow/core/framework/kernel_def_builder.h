// TensorFlow compatibility: KernelDefBuilder and the Name(...) builder of
// REGISTER_KERNEL_BUILDER (opkit/kernel/kernel_def_builder.h), with
// Device, TypeConstraint, HostMemory, Label and Priority.
//
//   KernelDef def = KernelDefBuilder("MatMul").Device(DEVICE_CPU)
//                       .TypeConstraint<float>("T").Label("eigen").BuildDef();
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_FRAMEWORK_KERNEL_DEF_BUILDER_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_FRAMEWORK_KERNEL_DEF_BUILDER_H_

#include "opkit/kernel/kernel_def_builder.h"
#include "opkit/kernel_def.pb.h"
#include "tensorflow/core/framework/types.h"

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_FRAMEWORK_KERNEL_DEF_BUILDER_H_
