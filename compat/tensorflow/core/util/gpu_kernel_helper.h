// TensorFlow compatibility: the CUDA helpers a .cu.cc kernel of an op
// library uses: ldg() and the GPU_1D_KERNEL_LOOP / CUDA_1D_KERNEL_LOOP
// grid-stride loops. Only for sources compiled by a CUDA compiler
// (opkit_add_op_library's GPU_SOURCES, which define GOOGLE_CUDA=1);
// opkit itself runs CPU kernels only.
//
//   template <typename T>
//   __global__ void TwiceKernel(const int size, const T* in, T* out) {
//     GPU_1D_KERNEL_LOOP(i, size) { out[i] = 2 * ldg(in + i); }
//   }
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_UTIL_GPU_KERNEL_HELPER_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_UTIL_GPU_KERNEL_HELPER_H_

#if !defined(__CUDACC__)
#error "tensorflow/core/util/gpu_kernel_helper.h is for CUDA sources (GPU_SOURCES) only"
#endif

#include "tensorflow/core/platform/types.h"

namespace tensorflow {

// Reads through the read-only data cache.
template <typename T>
__device__ __forceinline__ T ldg(const T* address) {
  return __ldg(address);
}

}  // namespace tensorflow

#define GPU_1D_KERNEL_LOOP(i, n)                                      \
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n);        \
       i += blockDim.x * gridDim.x)
#define CUDA_1D_KERNEL_LOOP(i, n) GPU_1D_KERNEL_LOOP(i, n)

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_UTIL_GPU_KERNEL_HELPER_H_
