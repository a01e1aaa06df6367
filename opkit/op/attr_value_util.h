// Helpers for AttrValue, the value of an op attribute: parse one from the
// text an op spec gives as a default, set one from a C++ value, check it
// against an attr type, print it, compare and hash it.
//
//   AttrValue v;
//   OPKIT_RETURN_IF_ERROR(ParseAttrValue("list(int)", "[2, 3]", &v));
//   OPKIT_RETURN_IF_ERROR(ParseAttrValue("shape", "[2,?]", AttrTextSyntax::kShorthand, &v));
//   OPKIT_RETURN_IF_ERROR(AttrValueHasType(v, "list(int)"));
//   SummarizeAttrValue(v);                      // "[2, 3]"
//
//   AttrValue t;
//   SetAttrValue(DT_FLOAT, &t);                 // type: DT_FLOAT
//   SetAttrValue({"a", "b"}, &t);               // list { s: "a" s: "b" }
//
// The formats and rules are TensorFlow's (attr_value_util.h), so that
// messages and defaults read the same as TensorFlow's for the same ops.
// Every function here is thread-compatible (no shared state).
#ifndef OPKIT_OP_ATTR_VALUE_UTIL_H_
#define OPKIT_OP_ATTR_VALUE_UTIL_H_

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "opkit/attr_value.pb.h"
#include "opkit/core/export.h"
#include "opkit/core/status.h"
#include "opkit/tensor/numeric_types.h"
#include "opkit/tensor.pb.h"
#include "opkit/tensor_shape.pb.h"
#include "opkit/types.pb.h"

namespace opkit {

// Declared in opkit/tensor/tensor_shape.h and tensor.h; a caller that
// passes one includes that header.
class TensorShape;
class PartialTensorShape;
class Tensor;

// ---------------------------------------------------------------------------
// Parsing.

// Parses `text`, a value of attr type `type` written in protobuf text-format
// value syntax (what follows `=` in an op spec's attr), into `*out`.
//
//   type "int":         "-3"                 type "type":        "DT_INT32"
//   type "string":      "'foo'" or "\"foo\"" type "float":       "1.0"
//   type "shape":       "{ dim { size: 2 } }", "{ unknown_rank: true }"
//   type "tensor":      "{ dtype: DT_INT32 int_val: 5 }"
//   type "list(int)":   "[]", "[2, 3, 5]"    type "list(type)":  "[DT_FLOAT]"
//
// `type` is "string", "int", "float", "bool", "type", "shape", "tensor",
// "func", "placeholder" or "list(<one of those but placeholder>)". A list
// type needs bracketed text ("7" is not a list(int)); text may not reach
// outside the value it gives (no "5 f: 1.0", no "[1] i: [2]"). On failure
// returns InvalidArgument naming the type, the text and the parser's reason,
// and leaves `*out` unchanged. Never logs.
OPKIT_EXPORT Status ParseAttrValue(std::string_view type, std::string_view text,
                                   AttrValue* out);

// The spellings ParseAttrValue accepts.
enum class AttrTextSyntax {
  // Protobuf text format, as above: TensorFlow's, and an op spec's.
  kTextFormat,
  // What a person writes on a command line (`opkit explain --attr T=float`)
  // or passes from Python (dtype="float32"):
  //
  //   type    float  float32  DT_FLOAT (any case after DT_)  tf.float32
  //   int     -3  +42 (decimal, in int64's range)
  //   float   0.5  1e-3  inf (whole, in float's range)
  //   bool    true  false  True  False  1  0
  //   string  SAME (as it is)  'a b'  "a\n" (one quoted string, C escapes)
  //   shape   [2,3]  []  [1,?,3]  [1,-1,3]  ?  *  or text format { ... }
  //   func    my_fn (a name)  or text format { name: ... }
  //   tensor, placeholder: text format
  //   list(T) [a, b, ...] or a, b, ... without the brackets; [] is empty;
  //           each item as T takes it ([float, int32], [[2,3], [?]])
  //
  // Surrounding spaces are ignored. A failure says what the text is not
  // and shows the shorthand, e.g. "'flot' is not a data type; write e.g.
  // float, int32 or DT_FLOAT". Ref types are refused.
  kShorthand,
};

// ParseAttrValue for `syntax`; kTextFormat is the three-argument form. On
// failure InvalidArgument, and `*out` is left unchanged.
OPKIT_EXPORT Status ParseAttrValue(std::string_view type, std::string_view text,
                                   AttrTextSyntax syntax, AttrValue* out);

// ---------------------------------------------------------------------------
// Setting. Each overload replaces `*out`'s value with the given one; a list
// overload always leaves `list` set, even for an empty list (so that the
// value reads as an empty list rather than as no value).

OPKIT_EXPORT void SetAttrValue(const AttrValue& value, AttrValue* out);

OPKIT_EXPORT void SetAttrValue(const std::string& value, AttrValue* out);
OPKIT_EXPORT void SetAttrValue(std::string_view value, AttrValue* out);
OPKIT_EXPORT void SetAttrValue(const char* value, AttrValue* out);
OPKIT_EXPORT void SetAttrValue(int64 value, AttrValue* out);
OPKIT_EXPORT void SetAttrValue(int32 value, AttrValue* out);
OPKIT_EXPORT void SetAttrValue(float value, AttrValue* out);
// Stored as a float (AttrValue has no double field).
OPKIT_EXPORT void SetAttrValue(double value, AttrValue* out);
OPKIT_EXPORT void SetAttrValue(bool value, AttrValue* out);
OPKIT_EXPORT void SetAttrValue(DataType value, AttrValue* out);
OPKIT_EXPORT void SetAttrValue(const TensorShape& value, AttrValue* out);
OPKIT_EXPORT void SetAttrValue(const PartialTensorShape& value, AttrValue* out);
OPKIT_EXPORT void SetAttrValue(const TensorShapeProto& value, AttrValue* out);
// A tensor of more than one element is stored as tensor_content, a smaller
// one in its typed value field (as TensorFlow does).
OPKIT_EXPORT void SetAttrValue(const Tensor& value, AttrValue* out);
OPKIT_EXPORT void SetAttrValue(const TensorProto& value, AttrValue* out);
OPKIT_EXPORT void SetAttrValue(const NameAttrList& value, AttrValue* out);

OPKIT_EXPORT void SetAttrValue(const std::vector<std::string>& value, AttrValue* out);
OPKIT_EXPORT void SetAttrValue(const std::vector<std::string_view>& value, AttrValue* out);
OPKIT_EXPORT void SetAttrValue(const std::vector<const char*>& value, AttrValue* out);
OPKIT_EXPORT void SetAttrValue(const std::vector<int64>& value, AttrValue* out);
OPKIT_EXPORT void SetAttrValue(const std::vector<int32>& value, AttrValue* out);
OPKIT_EXPORT void SetAttrValue(const std::vector<float>& value, AttrValue* out);
OPKIT_EXPORT void SetAttrValue(const std::vector<double>& value, AttrValue* out);
OPKIT_EXPORT void SetAttrValue(const std::vector<bool>& value, AttrValue* out);
OPKIT_EXPORT void SetAttrValue(const std::vector<DataType>& value, AttrValue* out);
OPKIT_EXPORT void SetAttrValue(const std::vector<TensorShape>& value, AttrValue* out);
OPKIT_EXPORT void SetAttrValue(const std::vector<PartialTensorShape>& value, AttrValue* out);
OPKIT_EXPORT void SetAttrValue(const std::vector<TensorShapeProto>& value, AttrValue* out);
OPKIT_EXPORT void SetAttrValue(const std::vector<Tensor>& value, AttrValue* out);
OPKIT_EXPORT void SetAttrValue(const std::vector<TensorProto>& value, AttrValue* out);
OPKIT_EXPORT void SetAttrValue(const std::vector<NameAttrList>& value, AttrValue* out);

// A braced list: SetAttrValue({1, 2}, &v), SetAttrValue({"a", "b"}, &v),
// SetAttrValue({DT_FLOAT, DT_INT32}, &v). Forwards to the vector overload
// of the element type.
template <typename T>
void SetAttrValue(std::initializer_list<T> value, AttrValue* out) {
  SetAttrValue(std::vector<T>(value), out);
}

// Like SetAttrValue(const std::vector<std::string>&, out) but moves the
// strings.
OPKIT_EXPORT void MoveAttrValue(std::vector<std::string>&& value, AttrValue* out);

// ---------------------------------------------------------------------------
// Checking, printing, comparing.

// OK if `attr_value` holds a value of attr type `type` ("int", "list(type)",
// ...). An empty list value (or no value at all) is accepted for a list
// type. "type" and "list(type)" values must be valid, non-ref DataTypes
// other than DT_INVALID. Otherwise InvalidArgument with TensorFlow's message,
// e.g. "AttrValue had value with type 'int' when 'string' expected".
OPKIT_EXPORT Status AttrValueHasType(const AttrValue& attr_value,
                                     std::string_view type);

// A short human-readable form, TensorFlow's format: 5, 1.5, true, DT_FLOAT,
// "foo" (quoted, C-escaped, the middle elided past 80 characters), [2,3],
// <unknown>, the tensor's DebugString, [1, 2, 3] (lists of 30 or more
// elements keep the first 5 and last 6 and add "{attr_hash=N}"),
// f[a=1, b=2] for a func (attrs sorted), $name for a placeholder.
OPKIT_EXPORT std::string SummarizeAttrValue(const AttrValue& attr_value);

// Whether `a` and `b` denote the same value. Tensors compare by content (a
// value written as tensor_content equals the same value written in the typed
// field); func attrs compare by name and attr map, whatever the map's order.
OPKIT_EXPORT bool AreAttrValuesEqual(const AttrValue& a, const AttrValue& b);

// A hash consistent with AreAttrValuesEqual: equal values hash equal. Stable
// within a process (not meant to be stored).
OPKIT_EXPORT uint64_t AttrValueHash(const AttrValue& a);

// Whether `value` is, or contains inside a func value, a placeholder.
OPKIT_EXPORT bool HasPlaceHolder(const AttrValue& value);

// Replaces every placeholder in `*value` (also inside func values) by calling
// `substitute(placeholder_name, value_to_fill)`. Returns false if `substitute`
// does, or if some value is unset.
using SubstituteFunc = std::function<bool(const std::string&, AttrValue*)>;
OPKIT_EXPORT bool SubstitutePlaceholders(const SubstituteFunc& substitute,
                                         AttrValue* value);

}  // namespace opkit

#endif  // OPKIT_OP_ATTR_VALUE_UTIL_H_
