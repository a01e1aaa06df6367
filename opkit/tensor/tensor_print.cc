// Printing tensors in TensorFlow's formats: SummarizeValue (the v1 layout
// "[1 2][3 4]" and tf.print's nested layout), DebugString,
// DeviceSafeDebugString.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "opkit/core/str_util.h"
#include "opkit/tensor/resource_handle.h"
#include "opkit/tensor/variant.h"
#include "opkit/tensor/tensor.h"

namespace opkit {
namespace {

// absl::StrCat's float format: like printf("%.6g"), "nan" for every NaN.
std::string SixDigits(double v) {
  if (std::isnan(v)) return "nan";
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.6g", v);
  return buf;
}

// Prints element i of a tensor's storage.
using ElementPrinter = std::function<std::string(int64_t)>;

// The v1 layout: "[1 2][3 4]", stopping after `limit` elements.
void PrintDimV1(const std::vector<int64_t>& shape, size_t dim, int64_t limit,
                const ElementPrinter& print, int64_t* index, std::string* out) {
  if (*index >= limit) return;
  const int64_t count = shape[dim];
  if (dim + 1 == shape.size()) {
    for (int64_t i = 0; i < count; ++i) {
      if (*index >= limit) {
        if (dim != 0) *out += "...";
        return;
      }
      if (i > 0) *out += " ";
      *out += print((*index)++);
    }
    return;
  }
  for (int64_t i = 0; i < count && *index < limit; ++i) {
    // Once `limit` elements are out nothing more is printed, so stopping
    // early only saves looping over the rest of a large tensor.
    *out += "[";
    PrintDimV1(shape, dim + 1, limit, print, index, out);
    *out += "]";
  }
}

void AppendDimSpacing(size_t dim, size_t rank, std::string* out) {
  if (dim + 1 == rank) {
    *out += " ";
    return;
  }
  out->append(rank - dim - 1, '\n');
  out->append(dim + 1, ' ');
}

// The tf.print layout: nested brackets, the first and last `edge` entries
// of each dimension with "..." between.
void PrintDimV2(const std::vector<int64_t>& shape, size_t dim, int64_t edge,
                const ElementPrinter& print, int64_t offset, std::string* out) {
  const size_t rank = shape.size();
  if (dim == rank) {
    *out += print(offset);
    return;
  }
  *out += "[";
  const int64_t count = shape[dim];
  int64_t stride = 1;
  for (size_t i = dim + 1; i < rank; ++i) stride *= shape[i];
  for (int64_t i = 0; i < edge && i < count; ++i) {
    if (i > 0) AppendDimSpacing(dim, rank, out);
    PrintDimV2(shape, dim + 1, edge, print, offset + stride * i, out);
  }
  if (count > 2 * edge) {
    AppendDimSpacing(dim, rank, out);
    *out += "...";
  }
  for (int64_t i = std::max(edge, count - edge); i < count; ++i) {
    AppendDimSpacing(dim, rank, out);
    PrintDimV2(shape, dim + 1, edge, print, offset + stride * i, out);
  }
  *out += "]";
}

std::string SummarizeElements(const TensorShape& shape, int64_t limit,
                              int64_t num_elements, bool print_v2,
                              const ElementPrinter& print) {
  std::string out;
  const std::vector<int64_t>& dims = shape.dim_sizes();
  if (dims.empty()) {
    for (int64_t i = 0; i < limit; ++i) {
      if (i > 0) out += " ";
      out += print(i);
    }
    if (num_elements > limit) out += "...";
    return out;
  }
  if (print_v2) {
    PrintDimV2(dims, 0, limit, print, 0, &out);
  } else {
    int64_t index = 0;
    PrintDimV1(dims, 0, limit, print, &index, &out);
    if (num_elements > limit) out += "...";
  }
  return out;
}

template <typename T>
ElementPrinter IntegerPrinter(const void* data) {
  const T* p = static_cast<const T*>(data);
  return [p](int64_t i) { return std::to_string(p[i]); };
}

template <typename T>
ElementPrinter FloatPrinter(const void* data) {
  const T* p = static_cast<const T*>(data);
  return [p](int64_t i) { return SixDigits(static_cast<double>(static_cast<float>(p[i]))); };
}

}  // namespace

std::string Tensor::SummarizeValue(int64_t max_entries, bool print_v2) const {
  const int64_t num_elements = NumElements();
  if (max_entries < 0) max_entries = num_elements;
  const int64_t limit = std::min(max_entries, num_elements);
  if (limit > 0 && data_ == nullptr) {
    return StrCat("uninitialized Tensor of ", num_elements, " elements of type ",
                  static_cast<int>(dtype_));
  }
  ElementPrinter print;
  switch (dtype_) {
    case DT_FLOAT:
      print = [p = base<const float>()](int64_t i) { return SixDigits(p[i]); };
      break;
    case DT_DOUBLE:
      print = [p = base<const double>()](int64_t i) { return SixDigits(p[i]); };
      break;
    case DT_HALF:
      print = FloatPrinter<half>(data_);
      break;
    case DT_BFLOAT16:
      print = FloatPrinter<bfloat16>(data_);
      break;
    case DT_INT32:
      print = IntegerPrinter<int32>(data_);
      break;
    case DT_UINT32:
      print = IntegerPrinter<uint32>(data_);
      break;
    case DT_INT64:
      print = IntegerPrinter<int64>(data_);
      break;
    case DT_UINT64:
      print = IntegerPrinter<uint64>(data_);
      break;
    // The quantized types print as their stored integers, except qint32,
    // which TensorFlow leaves as "?".
    case DT_UINT8:
    case DT_QUINT8:
    case DT_UINT4:
    case DT_UINT2:
      print = [p = reinterpret_cast<const uint8*>(data_)](int64_t i) {
        return std::to_string(static_cast<int>(p[i]));
      };
      break;
    case DT_INT8:
    case DT_QINT8:
    case DT_INT4:
    case DT_INT2:
      print = [p = reinterpret_cast<const int8*>(data_)](int64_t i) {
        return std::to_string(static_cast<int>(p[i]));
      };
      break;
    case DT_UINT16:
    case DT_QUINT16:
      print = IntegerPrinter<uint16>(data_);
      break;
    case DT_INT16:
    case DT_QINT16:
      print = IntegerPrinter<int16>(data_);
      break;
    case DT_BOOL:
      // Read as bytes: a kernel may have stored a byte that is not 0 or 1.
      print = [p = reinterpret_cast<const uint8*>(data_)](int64_t i) {
        return std::string(p[i] != 0 ? "1" : "0");
      };
      break;
    case DT_STRING:
      print = [p = base<const tstring>(), print_v2](int64_t i) {
        return print_v2 ? "\"" + absl::Utf8SafeCEscape(p[i]) + "\""
                        : absl::Utf8SafeCEscape(p[i]);
      };
      break;
    case DT_RESOURCE:
      print = [p = base<const ResourceHandle>()](int64_t i) {
        return p[i].SummarizeValue();
      };
      break;
    case DT_VARIANT:
      print = [p = base<const Variant>()](int64_t i) {
        return p[i].DebugString();
      };
      break;
    default: {
      // Complex, qint32, float8 and types without storage: "?" per element.
      std::string out;
      if (print_v2 && dims() > 0) out += "[";
      for (int64_t i = 0; i < limit; ++i) {
        if (i > 0) out += " ";
        out += "?";
      }
      if (max_entries < num_elements) out += "...";
      if (print_v2 && dims() > 0) out += "]";
      return out;
    }
  }
  return SummarizeElements(shape_, limit, num_elements, print_v2, print);
}

std::string Tensor::DebugString(int num_values) const {
  return StrCat("Tensor<type: ", DataTypeString(dtype_), " shape: ",
                shape_.DebugString(), " values: ", SummarizeValue(num_values),
                ">");
}

std::string Tensor::DeviceSafeDebugString() const {
  return StrCat("Tensor<type: ", DataTypeString(dtype_), " shape: ",
                shape_.DebugString(), ">");
}

}  // namespace opkit
