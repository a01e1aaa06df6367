// TensorFlow compatibility: SHOULD_REGISTER_OP, SHOULD_REGISTER_OP_KERNEL
// and SHOULD_REGISTER_OP_GRADIENT (opkit/op/selective_registration.h). Build
// with -DSELECTIVE_REGISTRATION and the ops_to_register.h that TensorFlow's
// print_selective_registration_header writes; an op the filter drops
// registers nothing, its kernels included, and the library loads with the
// rest.
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_FRAMEWORK_SELECTIVE_REGISTRATION_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_FRAMEWORK_SELECTIVE_REGISTRATION_H_

#include "opkit/op/selective_registration.h"
#include "tensorflow/core/platform/types.h"

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_FRAMEWORK_SELECTIVE_REGISTRATION_H_
