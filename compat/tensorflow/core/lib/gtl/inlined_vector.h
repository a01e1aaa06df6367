// TensorFlow compatibility: gtl::InlinedVector<T, N>, a vector keeping its
// first N elements inline (absl::InlinedVector, as in TensorFlow).
//
//   gtl::InlinedVector<int64, 4> dims;
//   dims.push_back(batch);
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_LIB_GTL_INLINED_VECTOR_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_LIB_GTL_INLINED_VECTOR_H_

#include <cstddef>

#include "absl/container/inlined_vector.h"
#include "tensorflow/core/platform/types.h"

namespace tensorflow {
namespace gtl {

template <typename T, size_t N>
using InlinedVector = absl::InlinedVector<T, N>;

}  // namespace gtl
}  // namespace tensorflow

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_LIB_GTL_INLINED_VECTOR_H_
