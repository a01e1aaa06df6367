// TensorFlow compatibility: gtl::ArraySlice<T> and gtl::MutableArraySlice<T>,
// which TensorFlow defines as absl::Span<const T> and absl::Span<T>.
//
//   int64 Product(gtl::ArraySlice<int64> dims);
//   Product({2, 3, 4});                  // an initializer list
//   Product(shape_vector);               // a std::vector<int64>
//   void Fill(gtl::MutableArraySlice<float> out);
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_LIB_GTL_ARRAY_SLICE_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_LIB_GTL_ARRAY_SLICE_H_

#include "absl/types/span.h"
#include "tensorflow/core/platform/types.h"

namespace tensorflow {
namespace gtl {

template <typename T>
using ArraySlice = absl::Span<const T>;
template <typename T>
using MutableArraySlice = absl::Span<T>;

}  // namespace gtl
}  // namespace tensorflow

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_LIB_GTL_ARRAY_SLICE_H_
