// TensorFlow compatibility: the Padding enum of convolution and pooling
// kernels (opkit's shape_inference::Padding), its enumerators as TensorFlow
// code spells them unqualified, and reading a "padding" attr into it.
//
//   Padding padding_;
//   OP_REQUIRES_OK(context, context->GetAttr("padding", &padding_));
//   if (padding_ == VALID) { ... }
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_UTIL_PADDING_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_UTIL_PADDING_H_

#include <string>
#include <string_view>

#include "opkit/op/node_def_util.h"
#include "opkit/shape/common_shape_fns.h"
#include "tensorflow/core/platform/types.h"

namespace tensorflow {

// TensorFlow's Padding is a plain enum in namespace tensorflow; opkit's is
// scoped, so its enumerators are given names here.
using Padding = shape_inference::Padding;
inline constexpr Padding VALID = Padding::VALID;
inline constexpr Padding SAME = Padding::SAME;
inline constexpr Padding EXPLICIT = Padding::EXPLICIT;

// The attr specs TensorFlow's ops use for these attrs.
inline std::string GetPaddingAttrString() { return "padding: {'SAME', 'VALID'}"; }
inline std::string GetPaddingAttrStringWithExplicit() {
  return "padding: {'SAME', 'VALID', 'EXPLICIT'}";
}
inline std::string GetExplicitPaddingsAttrString() {
  return "explicit_paddings: list(int) = []";
}

// Reads a string attr ("SAME", "VALID" or "EXPLICIT") into a Padding, so
// that OpKernelConstruction::GetAttr("padding", &padding) works as in
// TensorFlow. An unknown value is InvalidArgument naming it.
inline Status GetNodeAttr(const AttrSlice& attrs, std::string_view attr_name,
                          Padding* value) {
  std::string str;
  Status s = GetNodeAttr(attrs, attr_name, &str);
  if (!s.ok()) return s;
  return shape_inference::GetPaddingFromString(str, value);
}

}  // namespace tensorflow

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_UTIL_PADDING_H_
