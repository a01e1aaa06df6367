// TensorFlow compatibility: SHOULD_REGISTER_OP and
// SHOULD_REGISTER_OP_KERNEL (opkit/op/selective_registration.h).
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_FRAMEWORK_SELECTIVE_REGISTRATION_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_FRAMEWORK_SELECTIVE_REGISTRATION_H_

#include "opkit/op/selective_registration.h"
#include "tensorflow/core/platform/types.h"

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_FRAMEWORK_SELECTIVE_REGISTRATION_H_
