// Reading and writing a node's attrs with their C++ types: GetNodeAttr,
// TryGetNodeAttr, HasNodeAttr, AddNodeAttr, AddAttr. The rest of
// node_def_util.h is split by concept: attr_slice.cc, node_def_validate.cc
// (defaults and validation), node_def_args.cc (input/output types and arg
// ranges), node_def_names.cc (names and input syntax), node_def_format.cc
// (summaries and messages). Behaviour and message texts follow TensorFlow's
// node_def_util.cc; the code is opkit's own.
#include "opkit/op/node_def_util.h"

#include <algorithm>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "opkit/core/errors.h"
#include "opkit/core/str_util.h"
#include "opkit/op/attr_value_util.h"
#include "opkit/op/internal/node_def_helpers.h"
#include "opkit/tensor/tensor.h"
#include "opkit/tensor/tensor_shape.h"

namespace opkit {
namespace {

using internal::NameNode;
using internal::WithContext;

// At most `max_len` characters of `text` (for echoing untrusted values).
std::string Abbreviate(const std::string& text, size_t max_len = 200) {
  if (text.size() <= max_len) return text;
  return StrCat(text.substr(0, max_len), "...");
}

// ---------------------------------------------------------------------------
// Converting one AttrValue to a C++ value. No node context here: callers add
// it. Each leaves *out unchanged on failure.

// Whether `dtype` may be the value of a "type" attr.
bool IsUsableTypeValue(int dtype) {
  return DataTypeIsValid(dtype) && dtype != DT_INVALID &&
         !IsRefType(static_cast<DataType>(dtype));
}

int64 ListTotal(const AttrValue::ListValue& l) {
  return int64{l.s_size()} + l.i_size() + l.f_size() + l.b_size() + l.type_size() +
         l.shape_size() + l.tensor_size() + l.func_size();
}

// Whether `v` is a list whose only elements are the `field_size` ones of the
// requested kind (no value at all counts as an empty list).
bool IsListOf(const AttrValue& v, int field_size) {
  if (v.value_case() == AttrValue::VALUE_NOT_SET) return true;
  return v.value_case() == AttrValue::kList && ListTotal(v.list()) == field_size;
}

// Whether `v` is a list of types, each usable as a "type" attr value.
bool IsTypeList(const AttrValue& v) {
  if (!IsListOf(v, v.list().type_size())) return false;
  const auto& types = v.list().type();
  return std::all_of(types.begin(), types.end(), IsUsableTypeValue);
}

// OK if `v` holds a value of attr type `type`. `obviously_ok` is a cheap,
// allocation-free check that accepts only values AttrValueHasType accepts;
// when it fails, AttrValueHasType decides and words the error.
Status CheckType(const AttrValue& v, std::string_view name, std::string_view type,
                 bool obviously_ok) {
  if (obviously_ok) return OkStatus();
  Status s = AttrValueHasType(v, type);
  if (s.ok()) return s;
  return WithContext(s, " for attr '", name, "'");
}

Status Int32FromInt64(int64 v, std::string_view name, int32* out) {
  if (v < std::numeric_limits<int32>::min() || v > std::numeric_limits<int32>::max()) {
    return errors::InvalidArgument("Attr ", name, " has value ", v,
                                   " out of range for an int32");
  }
  *out = static_cast<int32>(v);
  return OkStatus();
}

Status Extract(const AttrValue& v, std::string_view name, std::string* out) {
  OPKIT_RETURN_IF_ERROR(CheckType(v, name, "string", v.value_case() == AttrValue::kS));
  *out = v.s();
  return OkStatus();
}
Status Extract(const AttrValue& v, std::string_view name, int64* out) {
  OPKIT_RETURN_IF_ERROR(CheckType(v, name, "int", v.value_case() == AttrValue::kI));
  *out = v.i();
  return OkStatus();
}
Status Extract(const AttrValue& v, std::string_view name, int32* out) {
  OPKIT_RETURN_IF_ERROR(CheckType(v, name, "int", v.value_case() == AttrValue::kI));
  return Int32FromInt64(v.i(), name, out);
}
Status Extract(const AttrValue& v, std::string_view name, float* out) {
  OPKIT_RETURN_IF_ERROR(CheckType(v, name, "float", v.value_case() == AttrValue::kF));
  *out = v.f();
  return OkStatus();
}
Status Extract(const AttrValue& v, std::string_view name, bool* out) {
  OPKIT_RETURN_IF_ERROR(CheckType(v, name, "bool", v.value_case() == AttrValue::kB));
  *out = v.b();
  return OkStatus();
}
Status Extract(const AttrValue& v, std::string_view name, DataType* out) {
  // AttrValueHasType("type") also rejects DT_INVALID, refs and numbers
  // outside the enum, so the cast below only ever sees a real DataType.
  OPKIT_RETURN_IF_ERROR(
      CheckType(v, name, "type",
                v.value_case() == AttrValue::kType && IsUsableTypeValue(v.type())));
  *out = static_cast<DataType>(v.type());
  return OkStatus();
}
Status Extract(const AttrValue& v, std::string_view name, TensorShapeProto* out) {
  OPKIT_RETURN_IF_ERROR(CheckType(v, name, "shape", v.value_case() == AttrValue::kShape));
  *out = v.shape();
  return OkStatus();
}
Status ShapeFromProto(const TensorShapeProto& p, std::string_view name,
                      TensorShape* out) {
  return WithContext(TensorShape::FromProto(p, out), " for attr '", name, "'");
}
Status ShapeFromProto(const TensorShapeProto& p, std::string_view name,
                      PartialTensorShape* out) {
  return WithContext(PartialTensorShape::FromProto(p, out), " for attr '", name, "'");
}
Status Extract(const AttrValue& v, std::string_view name, TensorShape* out) {
  OPKIT_RETURN_IF_ERROR(CheckType(v, name, "shape", v.value_case() == AttrValue::kShape));
  return ShapeFromProto(v.shape(), name, out);
}
Status Extract(const AttrValue& v, std::string_view name, PartialTensorShape* out) {
  OPKIT_RETURN_IF_ERROR(CheckType(v, name, "shape", v.value_case() == AttrValue::kShape));
  return ShapeFromProto(v.shape(), name, out);
}
Status TensorFromProto(const TensorProto& p, std::string_view name, Tensor* out) {
  Status s = Tensor::BuildFromProto(p, out);
  if (s.ok()) return s;
  return errors::InvalidArgument("Attr ", name, " has value ",
                                 Abbreviate(p.ShortDebugString()),
                                 " that can't be converted to a Tensor: ", s.message());
}
Status Extract(const AttrValue& v, std::string_view name, Tensor* out) {
  OPKIT_RETURN_IF_ERROR(
      CheckType(v, name, "tensor", v.value_case() == AttrValue::kTensor));
  return TensorFromProto(v.tensor(), name, out);
}
Status Extract(const AttrValue& v, std::string_view name, const TensorProto** out) {
  OPKIT_RETURN_IF_ERROR(
      CheckType(v, name, "tensor", v.value_case() == AttrValue::kTensor));
  *out = &v.tensor();
  return OkStatus();
}
Status Extract(const AttrValue& v, std::string_view name, NameAttrList* out) {
  OPKIT_RETURN_IF_ERROR(CheckType(v, name, "func", v.value_case() == AttrValue::kFunc));
  *out = v.func();
  return OkStatus();
}
Status Extract(const AttrValue& v, std::string_view name, const NameAttrList** out) {
  OPKIT_RETURN_IF_ERROR(CheckType(v, name, "func", v.value_case() == AttrValue::kFunc));
  *out = &v.func();
  return OkStatus();
}

// Lists: check the kind, convert every element into a fresh vector, and only
// then replace *out.
template <typename T, typename Elements, typename Convert>
Status ExtractList(const AttrValue& v, std::string_view name, std::string_view type,
                   const Elements& elements, Convert convert, std::vector<T>* out) {
  const bool obviously_ok =
      type == "list(type)" ? IsTypeList(v) : IsListOf(v, elements.size());
  OPKIT_RETURN_IF_ERROR(CheckType(v, name, type, obviously_ok));
  std::vector<T> result;
  result.reserve(elements.size());
  for (const auto& e : elements) {
    T item{};
    OPKIT_RETURN_IF_ERROR(convert(e, &item));
    result.push_back(std::move(item));
  }
  out->swap(result);
  return OkStatus();
}

template <typename T>
auto CopyElement() {
  return [](const auto& e, T* item) {
    *item = static_cast<T>(e);
    return OkStatus();
  };
}

Status Extract(const AttrValue& v, std::string_view name, std::vector<std::string>* out) {
  return ExtractList(v, name, "list(string)", v.list().s(), CopyElement<std::string>(),
                     out);
}
Status Extract(const AttrValue& v, std::string_view name, std::vector<int64>* out) {
  return ExtractList(v, name, "list(int)", v.list().i(), CopyElement<int64>(), out);
}
Status Extract(const AttrValue& v, std::string_view name, std::vector<int32>* out) {
  return ExtractList(
      v, name, "list(int)", v.list().i(),
      [name](int64 e, int32* item) { return Int32FromInt64(e, name, item); }, out);
}
Status Extract(const AttrValue& v, std::string_view name, std::vector<float>* out) {
  return ExtractList(v, name, "list(float)", v.list().f(), CopyElement<float>(), out);
}
Status Extract(const AttrValue& v, std::string_view name, std::vector<bool>* out) {
  OPKIT_RETURN_IF_ERROR(CheckType(v, name, "list(bool)", IsListOf(v, v.list().b_size())));
  std::vector<bool> result(v.list().b().begin(), v.list().b().end());
  out->swap(result);
  return OkStatus();
}
Status Extract(const AttrValue& v, std::string_view name, std::vector<DataType>* out) {
  // AttrValueHasType("list(type)") checks every element (see the scalar).
  return ExtractList(v, name, "list(type)", v.list().type(), CopyElement<DataType>(),
                     out);
}
Status Extract(const AttrValue& v, std::string_view name,
               std::vector<TensorShapeProto>* out) {
  return ExtractList(v, name, "list(shape)", v.list().shape(),
                     CopyElement<TensorShapeProto>(), out);
}
Status Extract(const AttrValue& v, std::string_view name, std::vector<TensorShape>* out) {
  return ExtractList(
      v, name, "list(shape)", v.list().shape(),
      [name](const TensorShapeProto& p, TensorShape* item) {
        return ShapeFromProto(p, name, item);
      },
      out);
}
Status Extract(const AttrValue& v, std::string_view name,
               std::vector<PartialTensorShape>* out) {
  return ExtractList(
      v, name, "list(shape)", v.list().shape(),
      [name](const TensorShapeProto& p, PartialTensorShape* item) {
        return ShapeFromProto(p, name, item);
      },
      out);
}
Status Extract(const AttrValue& v, std::string_view name, std::vector<Tensor>* out) {
  return ExtractList(
      v, name, "list(tensor)", v.list().tensor(),
      [name](const TensorProto& p, Tensor* item) {
        return TensorFromProto(p, name, item);
      },
      out);
}
Status Extract(const AttrValue& v, std::string_view name,
               std::vector<NameAttrList>* out) {
  return ExtractList(v, name, "list(func)", v.list().func(), CopyElement<NameAttrList>(),
                     out);
}
Status Extract(const AttrValue& v, std::string_view name,
               std::vector<const std::string*>* out) {
  OPKIT_RETURN_IF_ERROR(
      CheckType(v, name, "list(string)", IsListOf(v, v.list().s_size())));
  std::vector<const std::string*> result;
  result.reserve(v.list().s_size());
  for (const std::string& s : v.list().s()) result.push_back(&s);
  out->swap(result);
  return OkStatus();
}
Status Extract(const AttrValue& v, std::string_view name,
               std::vector<const TensorShapeProto*>* out) {
  OPKIT_RETURN_IF_ERROR(
      CheckType(v, name, "list(shape)", IsListOf(v, v.list().shape_size())));
  std::vector<const TensorShapeProto*> result;
  result.reserve(v.list().shape_size());
  for (const TensorShapeProto& s : v.list().shape()) result.push_back(&s);
  out->swap(result);
  return OkStatus();
}

template <typename T>
Status GetAttr(const AttrSlice& attrs, std::string_view name, T* value) {
  const AttrValue* attr_value = nullptr;
  OPKIT_RETURN_IF_ERROR(attrs.Find(name, &attr_value));
  return NameNode(attrs, Extract(*attr_value, name, value));
}

template <typename T>
bool TryGetAttr(const AttrSlice& attrs, std::string_view name, T* value) {
  const AttrValue* attr_value = attrs.Find(name);
  return attr_value != nullptr && Extract(*attr_value, name, value).ok();
}

}  // namespace

namespace internal {

Status ReadAttrValue(const AttrValue& v, std::string_view name, int64* out) {
  return Extract(v, name, out);
}
Status ReadAttrValue(const AttrValue& v, std::string_view name, DataType* out) {
  return Extract(v, name, out);
}
Status CheckTypeListAttr(const AttrValue& v, std::string_view name) {
  return CheckType(v, name, "list(type)", IsTypeList(v));
}

}  // namespace internal

// ---------------------------------------------------------------------------
// GetNodeAttr / TryGetNodeAttr

#define OPKIT_DEFINE_GET_NODE_ATTR(TYPE)                                                \
  Status GetNodeAttr(const AttrSlice& attrs, std::string_view attr_name, TYPE* value) { \
    return GetAttr(attrs, attr_name, value);                                            \
  }
OPKIT_DEFINE_GET_NODE_ATTR(std::string)
OPKIT_DEFINE_GET_NODE_ATTR(int64)
OPKIT_DEFINE_GET_NODE_ATTR(int32)
OPKIT_DEFINE_GET_NODE_ATTR(float)
OPKIT_DEFINE_GET_NODE_ATTR(bool)
OPKIT_DEFINE_GET_NODE_ATTR(DataType)
OPKIT_DEFINE_GET_NODE_ATTR(TensorShapeProto)
OPKIT_DEFINE_GET_NODE_ATTR(TensorShape)
OPKIT_DEFINE_GET_NODE_ATTR(PartialTensorShape)
OPKIT_DEFINE_GET_NODE_ATTR(Tensor)
OPKIT_DEFINE_GET_NODE_ATTR(const TensorProto*)
OPKIT_DEFINE_GET_NODE_ATTR(NameAttrList)
OPKIT_DEFINE_GET_NODE_ATTR(const NameAttrList*)
OPKIT_DEFINE_GET_NODE_ATTR(std::vector<std::string>)
OPKIT_DEFINE_GET_NODE_ATTR(std::vector<int64>)
OPKIT_DEFINE_GET_NODE_ATTR(std::vector<int32>)
OPKIT_DEFINE_GET_NODE_ATTR(std::vector<float>)
OPKIT_DEFINE_GET_NODE_ATTR(std::vector<bool>)
OPKIT_DEFINE_GET_NODE_ATTR(std::vector<DataType>)
OPKIT_DEFINE_GET_NODE_ATTR(std::vector<TensorShapeProto>)
OPKIT_DEFINE_GET_NODE_ATTR(std::vector<TensorShape>)
OPKIT_DEFINE_GET_NODE_ATTR(std::vector<PartialTensorShape>)
OPKIT_DEFINE_GET_NODE_ATTR(std::vector<Tensor>)
OPKIT_DEFINE_GET_NODE_ATTR(std::vector<NameAttrList>)
#undef OPKIT_DEFINE_GET_NODE_ATTR

#define OPKIT_DEFINE_TRY_GET_NODE_ATTR(TYPE)                                             \
  bool TryGetNodeAttr(const AttrSlice& attrs, std::string_view attr_name, TYPE* value) { \
    return TryGetAttr(attrs, attr_name, value);                                          \
  }
OPKIT_DEFINE_TRY_GET_NODE_ATTR(std::string)
OPKIT_DEFINE_TRY_GET_NODE_ATTR(int64)
OPKIT_DEFINE_TRY_GET_NODE_ATTR(int32)
OPKIT_DEFINE_TRY_GET_NODE_ATTR(float)
OPKIT_DEFINE_TRY_GET_NODE_ATTR(bool)
OPKIT_DEFINE_TRY_GET_NODE_ATTR(DataType)
OPKIT_DEFINE_TRY_GET_NODE_ATTR(TensorShape)
OPKIT_DEFINE_TRY_GET_NODE_ATTR(PartialTensorShape)
OPKIT_DEFINE_TRY_GET_NODE_ATTR(const TensorProto*)
OPKIT_DEFINE_TRY_GET_NODE_ATTR(const NameAttrList*)
OPKIT_DEFINE_TRY_GET_NODE_ATTR(std::vector<std::string>)
OPKIT_DEFINE_TRY_GET_NODE_ATTR(std::vector<const std::string*>)
OPKIT_DEFINE_TRY_GET_NODE_ATTR(std::vector<const TensorShapeProto*>)
OPKIT_DEFINE_TRY_GET_NODE_ATTR(std::vector<int64>)
OPKIT_DEFINE_TRY_GET_NODE_ATTR(std::vector<int32>)
OPKIT_DEFINE_TRY_GET_NODE_ATTR(std::vector<float>)
OPKIT_DEFINE_TRY_GET_NODE_ATTR(std::vector<bool>)
OPKIT_DEFINE_TRY_GET_NODE_ATTR(std::vector<DataType>)
OPKIT_DEFINE_TRY_GET_NODE_ATTR(std::vector<TensorShape>)
#undef OPKIT_DEFINE_TRY_GET_NODE_ATTR

bool HasNodeAttr(const AttrSlice& attrs, std::string_view attr_name) {
  return attrs.Find(attr_name) != nullptr;
}

const std::string& GetNodeAttrString(const AttrSlice& attrs, std::string_view attr_name) {
  static const std::string* const kEmpty = new std::string;
  const AttrValue* value = attrs.Find(attr_name);
  if (value == nullptr || value->value_case() != AttrValue::kS) return *kEmpty;
  return value->s();
}

// ---------------------------------------------------------------------------
// AddNodeAttr

namespace {

AttrValue& MutableAttr(std::string_view name, NodeDef* node_def) {
  return (*node_def->mutable_attr())[std::string(name)];
}

template <typename T>
void SetNodeAttr(std::string_view name, const T& value, NodeDef* node_def) {
  AttrValue attr_value;
  SetAttrValue(value, &attr_value);
  MutableAttr(name, node_def) = std::move(attr_value);
}

}  // namespace

void AddNodeAttr(std::string_view name, const AttrValue& value, NodeDef* node_def) {
  MutableAttr(name, node_def) = value;
}
void AddNodeAttr(std::string_view name, AttrValue&& value, NodeDef* node_def) {
  MutableAttr(name, node_def) = std::move(value);
}

#define OPKIT_DEFINE_ADD_NODE_ATTR(TYPE)                                   \
  void AddNodeAttr(std::string_view name, TYPE value, NodeDef* node_def) { \
    SetNodeAttr(name, value, node_def);                                    \
  }
OPKIT_DEFINE_ADD_NODE_ATTR(std::string_view)
OPKIT_DEFINE_ADD_NODE_ATTR(const char*)
OPKIT_DEFINE_ADD_NODE_ATTR(const std::string&)
OPKIT_DEFINE_ADD_NODE_ATTR(int32)
OPKIT_DEFINE_ADD_NODE_ATTR(int64)
OPKIT_DEFINE_ADD_NODE_ATTR(float)
OPKIT_DEFINE_ADD_NODE_ATTR(double)
OPKIT_DEFINE_ADD_NODE_ATTR(bool)
OPKIT_DEFINE_ADD_NODE_ATTR(DataType)
OPKIT_DEFINE_ADD_NODE_ATTR(const TensorShape&)
OPKIT_DEFINE_ADD_NODE_ATTR(const PartialTensorShape&)
OPKIT_DEFINE_ADD_NODE_ATTR(const TensorShapeProto&)
OPKIT_DEFINE_ADD_NODE_ATTR(const Tensor&)
OPKIT_DEFINE_ADD_NODE_ATTR(const TensorProto&)
OPKIT_DEFINE_ADD_NODE_ATTR(const NameAttrList&)
OPKIT_DEFINE_ADD_NODE_ATTR(const std::vector<std::string>&)
OPKIT_DEFINE_ADD_NODE_ATTR(const std::vector<std::string_view>&)
OPKIT_DEFINE_ADD_NODE_ATTR(const std::vector<const char*>&)
OPKIT_DEFINE_ADD_NODE_ATTR(const std::vector<int32>&)
OPKIT_DEFINE_ADD_NODE_ATTR(const std::vector<int64>&)
OPKIT_DEFINE_ADD_NODE_ATTR(const std::vector<float>&)
OPKIT_DEFINE_ADD_NODE_ATTR(const std::vector<double>&)
OPKIT_DEFINE_ADD_NODE_ATTR(const std::vector<bool>&)
OPKIT_DEFINE_ADD_NODE_ATTR(const std::vector<DataType>&)
OPKIT_DEFINE_ADD_NODE_ATTR(const std::vector<TensorShape>&)
OPKIT_DEFINE_ADD_NODE_ATTR(const std::vector<PartialTensorShape>&)
OPKIT_DEFINE_ADD_NODE_ATTR(const std::vector<TensorShapeProto>&)
OPKIT_DEFINE_ADD_NODE_ATTR(const std::vector<Tensor>&)
OPKIT_DEFINE_ADD_NODE_ATTR(const std::vector<NameAttrList>&)
#undef OPKIT_DEFINE_ADD_NODE_ATTR

void AddAttr(std::string_view name, const AttrValue& value, AttrValueMap* map) {
  (*map)[std::string(name)] = value;
}

void AddAttr(std::string_view name, bool value, AttrValueMap* map) {
  AttrValue attr_value;
  SetAttrValue(value, &attr_value);
  (*map)[std::string(name)] = std::move(attr_value);
}

}  // namespace opkit
