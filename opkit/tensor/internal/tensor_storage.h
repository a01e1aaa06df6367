// What tensor.cc and tensor_proto.cc share about a dtype's storage: the
// bytes an element takes in a tensor buffer, and the error for a dtype that
// has none. Not part of the API.
#ifndef OPKIT_TENSOR_INTERNAL_TENSOR_STORAGE_H_
#define OPKIT_TENSOR_INTERNAL_TENSOR_STORAGE_H_

#include <cstddef>

#include "opkit/core/status.h"
#include "opkit/tensor/numeric_types.h"
#include "opkit/tensor/resource_handle.h"
#include "opkit/tensor/types.h"
#include "opkit/tensor/variant.h"

namespace opkit {
namespace internal {

// Bytes per element in a tensor buffer; 0 when `dtype` has no storage here.
// DT_STRING, DT_RESOURCE and DT_VARIANT elements are C++ objects (tstring,
// ResourceHandle, Variant), constructed and destroyed with the buffer.
inline size_t ElementSize(DataType dtype) {
  if (dtype == DT_STRING) return sizeof(tstring);
  if (dtype == DT_RESOURCE) return sizeof(ResourceHandle);
  if (dtype == DT_VARIANT) return sizeof(Variant);
  return static_cast<size_t>(DataTypeSize(dtype));
}

inline bool HasStorage(DataType dtype) { return ElementSize(dtype) > 0; }
// InvalidArgument saying why no tensor of `dtype` can be allocated
// (HasStorage(dtype) is false).
Status UnsupportedDtype(DataType dtype);

}  // namespace internal
}  // namespace opkit

#endif  // OPKIT_TENSOR_INTERNAL_TENSOR_STORAGE_H_
