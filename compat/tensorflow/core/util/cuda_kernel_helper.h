// TensorFlow compatibility: the CUDA helpers under their older name; see
// tensorflow/core/util/gpu_kernel_helper.h. CUDA sources only.
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_UTIL_CUDA_KERNEL_HELPER_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_UTIL_CUDA_KERNEL_HELPER_H_

#include "tensorflow/core/util/gpu_kernel_helper.h"

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_UTIL_CUDA_KERNEL_HELPER_H_
