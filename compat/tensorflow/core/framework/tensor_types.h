// TensorFlow compatibility: TTypes<T, NDIMS>, the Eigen TensorMap types
// that Tensor::flat<T>(), matrix<T>() and tensor<T, N>() return (declared
// with Tensor in opkit/tensor/tensor.h).
//
//   typename TTypes<float>::ConstMatrix a = t.matrix<float>();
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_FRAMEWORK_TENSOR_TYPES_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_FRAMEWORK_TENSOR_TYPES_H_

#include "third_party/eigen3/unsupported/Eigen/CXX11/Tensor"
#include "opkit/tensor/tensor.h"
#include "tensorflow/core/platform/types.h"

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_FRAMEWORK_TENSOR_TYPES_H_
