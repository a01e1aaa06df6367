// Test helpers for kernel tests: make tensors from values, run an op
// eagerly.
#ifndef OPKIT_KERNELS_KERNEL_TEST_UTIL_H_
#define OPKIT_KERNELS_KERNEL_TEST_UTIL_H_

#include <initializer_list>
#include <vector>

#include "opkit/framework/tensor.h"
#include "opkit/framework/types.h"

namespace opkit {
namespace test {

// A tensor of `shape` holding `values` in row-major order.
template <typename T>
Tensor AsTensor(std::initializer_list<T> values, const TensorShape& shape) {
  Tensor t(DataTypeToEnum<T>::value, shape);
  auto flat = t.flat<T>();
  int64_t i = 0;
  for (const T& v : values) flat(i++) = v;
  return t;
}

template <typename T>
std::vector<T> Values(const Tensor& t) {
  std::vector<T> out;
  auto flat = t.flat<T>();
  for (int64_t i = 0; i < flat.size(); ++i) out.push_back(flat(i));
  return out;
}

}  // namespace test
}  // namespace opkit

#endif  // OPKIT_KERNELS_KERNEL_TEST_UTIL_H_
