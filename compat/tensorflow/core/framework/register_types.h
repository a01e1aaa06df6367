// TensorFlow compatibility: the TF_CALL_* type-list macros
// (opkit/kernel/register_types.h).
//
//   #define REGISTER_KERNEL(type) REGISTER_KERNEL_BUILDER(
//       Name("ZeroOut").Device(DEVICE_CPU).TypeConstraint<type>("T"),
//       ZeroOutOp<type>)
//   TF_CALL_REAL_NUMBER_TYPES(REGISTER_KERNEL);
//
// (The macro is one line in real code; REGISTER_KERNEL_BUILDER ends with
// its own semicolon in compat/, as in TensorFlow, so that a list expands to
// one registration after another.)
//   #undef REGISTER_KERNEL
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_FRAMEWORK_REGISTER_TYPES_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_FRAMEWORK_REGISTER_TYPES_H_

#include "opkit/kernel/register_types.h"
#include "tensorflow/core/framework/numeric_types.h"
#include "tensorflow/core/framework/types.h"

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_FRAMEWORK_REGISTER_TYPES_H_
