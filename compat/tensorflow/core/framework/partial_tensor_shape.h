// TensorFlow compatibility: PartialTensorShape (opkit's, in
// opkit/tensor/tensor_shape.h: unknown rank, -1 for an unknown size) and
// PartialTensorShapeUtils.
//
//   PartialTensorShape s({-1, 3});             // "[?,3]"
//   s.IsCompatibleWith(PartialTensorShape({2, 3}));   // true
//   PartialTensorShapeUtils::PartialShapeListString({s, PartialTensorShape()});
//   // "[[?,3], <unknown>]"
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_FRAMEWORK_PARTIAL_TENSOR_SHAPE_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_FRAMEWORK_PARTIAL_TENSOR_SHAPE_H_

#include <string>

#include "opkit/tensor/tensor_shape.h"
#include "tensorflow/core/framework/tensor_shape.h"
#include "tensorflow/core/lib/gtl/array_slice.h"

namespace tensorflow {

// Predicates over lists of partial shapes, as TensorFlow names them.
class PartialTensorShapeUtils {
 public:
  // "[[?,3], <unknown>]".
  static std::string PartialShapeListString(
      gtl::ArraySlice<PartialTensorShape> shapes) {
    std::string out = "[";
    for (size_t i = 0; i < shapes.size(); ++i) {
      if (i > 0) out += ", ";
      out += shapes[i].DebugString();
    }
    return out + "]";
  }
  // Same length and each pair IsIdenticalTo / IsCompatibleWith.
  static bool AreIdentical(gtl::ArraySlice<PartialTensorShape> shapes0,
                           gtl::ArraySlice<PartialTensorShape> shapes1) {
    return AllPairs(shapes0, shapes1, &PartialTensorShape::IsIdenticalTo);
  }
  static bool AreCompatible(gtl::ArraySlice<PartialTensorShape> shapes0,
                            gtl::ArraySlice<PartialTensorShape> shapes1) {
    return AllPairs(shapes0, shapes1, &PartialTensorShape::IsCompatibleWith);
  }

 private:
  static bool AllPairs(gtl::ArraySlice<PartialTensorShape> a,
                       gtl::ArraySlice<PartialTensorShape> b,
                       bool (PartialTensorShape::*holds)(
                           const PartialTensorShape&) const) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
      if (!(a[i].*holds)(b[i])) return false;
    }
    return true;
  }
};

}  // namespace tensorflow

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_FRAMEWORK_PARTIAL_TENSOR_SHAPE_H_
