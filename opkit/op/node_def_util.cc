// NodeDef utilities; see node_def_util.h. Behaviour and message texts follow
// TensorFlow's node_def_util.cc; the code is opkit's own.
#include "opkit/op/node_def_util.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "opkit/core/errors.h"
#include "opkit/core/str_util.h"
#include "opkit/op/attr_value_util.h"
#include "opkit/op/op_def_util.h"
#include "opkit/tensor/tensor.h"
#include "opkit/tensor/tensor_shape.h"

namespace opkit {
namespace {

const AttrValueMap& EmptyAttrValueMap() {
  // Leaked on purpose: AttrSlices may outlive static destruction order.
  static const AttrValueMap* const kEmpty = new AttrValueMap;
  return *kEmpty;
}

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

// `s` with `context` appended on a new line, TensorFlow's
// errors::AppendToMessage layout.
template <typename... Args>
Status WithContext(const Status& s, const Args&... context) {
  if (s.ok()) return s;
  return Status(s.code(), StrCat(s.message(), "\n\t", context...));
}

// Names the slice's node in a failure, unless the message names it already.
Status NameNode(const AttrSlice& attrs, const Status& s) {
  if (s.ok() || attrs.node_def() == nullptr) return s;
  const std::string formatted = FormatNodeDefForError(*attrs.node_def());
  if (s.message().find(formatted) != std::string::npos) return s;
  return AttachDef(s, *attrs.node_def());
}

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

// ---------------------------------------------------------------------------
// Signatures: the types and index ranges of a node's args.

// The attr `name` of the node, or else op_def's default for it; NotFound
// (naming nothing yet: callers add the arg and the node) when neither.
Status FindAttrOrDefault(const AttrSlice& attrs, const OpDef& op_def,
                         std::string_view name, const AttrValue** value) {
  *value = attrs.Find(name);
  if (*value != nullptr) return OkStatus();
  for (const OpDef::AttrDef& attr : op_def.attr()) {
    if (attr.name() == name && attr.has_default_value()) {
      *value = &attr.default_value();
      return OkStatus();
    }
  }
  return errors::NotFound("No attr named '", name, "' in NodeDef:");
}

template <typename T>
Status GetAttrOrDefault(const AttrSlice& attrs, const OpDef& op_def,
                        std::string_view name, T* out) {
  const AttrValue* value = nullptr;
  OPKIT_RETURN_IF_ERROR(FindAttrOrDefault(attrs, op_def, name, &value));
  return Extract(*value, name, out);
}

const char* ArgKind(bool is_input) { return is_input ? "input" : "output"; }

// The value of `arg`'s number_attr, checked to be usable as a count.
Status NumberAttrValue(const AttrSlice& attrs, const OpDef& op_def,
                       const OpDef::ArgDef& arg, bool is_input, int* count) {
  int64 repeats = 0;
  OPKIT_RETURN_IF_ERROR(GetAttrOrDefault(attrs, op_def, arg.number_attr(), &repeats));
  if (repeats < 0) {
    return errors::InvalidArgument("Value for number_attr() ", repeats, " < 0");
  }
  if (repeats > kMaxArgsPerNode) {
    return errors::InvalidArgument("Number of ", ArgKind(is_input),
                                   "s is too big: ", repeats, " (attr '",
                                   arg.number_attr(), "'); opkit supports at most ",
                                   kMaxArgsPerNode, " inputs or outputs per node");
  }
  *count = static_cast<int>(repeats);
  return OkStatus();
}

// The list(type) value of `arg`'s type_list_attr.
Status TypeListAttrValue(const AttrSlice& attrs, const OpDef& op_def,
                         const OpDef::ArgDef& arg, const AttrValue** value) {
  OPKIT_RETURN_IF_ERROR(FindAttrOrDefault(attrs, op_def, arg.type_list_attr(), value));
  return CheckType(**value, arg.type_list_attr(), "list(type)", IsTypeList(**value));
}

Status TooManyArgs(bool is_input, int64 total) {
  return errors::InvalidArgument("Number of ", ArgKind(is_input), "s is too big: ", total,
                                 "; opkit supports at most ", kMaxArgsPerNode,
                                 " inputs or outputs per node");
}

// Appends the types of `arg` to *sig.
Status AddArgToSigUnnamed(const AttrSlice& attrs, const OpDef& op_def,
                          const OpDef::ArgDef& arg, bool is_input, DataTypeVector* sig) {
  const size_t original_size = sig->size();
  auto check_room = [&](int64 more) {
    const int64 total = static_cast<int64>(original_size) + more;
    return total > kMaxArgsPerNode ? TooManyArgs(is_input, total) : OkStatus();
  };
  if (!arg.number_attr().empty()) {
    int repeats = 0;
    OPKIT_RETURN_IF_ERROR(NumberAttrValue(attrs, op_def, arg, is_input, &repeats));
    DataType dtype = DT_INVALID;
    if (!arg.type_attr().empty()) {
      OPKIT_RETURN_IF_ERROR(GetAttrOrDefault(attrs, op_def, arg.type_attr(), &dtype));
    } else if (arg.type() != DT_INVALID) {
      dtype = arg.type();
    } else {
      return errors::InvalidArgument("Missing type or type_attr field in ",
                                     arg.ShortDebugString());
    }
    OPKIT_RETURN_IF_ERROR(check_room(repeats));
    sig->insert(sig->end(), static_cast<size_t>(repeats), dtype);
  } else if (!arg.type_attr().empty()) {
    DataType dtype = DT_INVALID;
    OPKIT_RETURN_IF_ERROR(GetAttrOrDefault(attrs, op_def, arg.type_attr(), &dtype));
    OPKIT_RETURN_IF_ERROR(check_room(1));
    sig->push_back(dtype);
  } else if (!arg.type_list_attr().empty()) {
    const AttrValue* value = nullptr;
    OPKIT_RETURN_IF_ERROR(TypeListAttrValue(attrs, op_def, arg, &value));
    OPKIT_RETURN_IF_ERROR(check_room(value->list().type_size()));
    for (int dtype : value->list().type()) sig->push_back(static_cast<DataType>(dtype));
  } else if (arg.type() != DT_INVALID) {
    OPKIT_RETURN_IF_ERROR(check_room(1));
    sig->push_back(arg.type());
  } else {
    return errors::InvalidArgument("No type fields in ", arg.ShortDebugString());
  }
  // A fixed `type` comes from the OpDef, which may be malformed: only real
  // DataTypes may go through MakeRefType (whose +100 could overflow).
  for (size_t i = original_size; i < sig->size(); ++i) {
    if (!DataTypeIsValid((*sig)[i])) {
      return errors::InvalidArgument("Invalid DataType ", static_cast<int>((*sig)[i]),
                                     " in ", arg.ShortDebugString());
    }
  }
  if (arg.is_ref()) {
    for (size_t i = original_size; i < sig->size(); ++i) {
      if (IsRefType((*sig)[i])) {
        return errors::InvalidArgument("Requested reference to a reference type: ",
                                       arg.ShortDebugString());
      }
      (*sig)[i] = MakeRefType((*sig)[i]);
    }
  }
  return OkStatus();
}

Status AddArgToSig(const AttrSlice& attrs, const OpDef& op_def, const OpDef::ArgDef& arg,
                   bool is_input, DataTypeVector* sig) {
  return WithContext(AddArgToSigUnnamed(attrs, op_def, arg, is_input, sig), " for ",
                     ArgKind(is_input), " '", arg.name(), "' of op ", op_def.name());
}

Status ArgTypes(const AttrSlice& attrs, const OpDef& op_def, bool is_input,
                DataTypeVector* types) {
  const auto& args = is_input ? op_def.input_arg() : op_def.output_arg();
  for (const OpDef::ArgDef& arg : args) {
    OPKIT_RETURN_IF_ERROR(AddArgToSig(attrs, op_def, arg, is_input, types));
  }
  return OkStatus();
}

// The number of tensors `arg` stands for.
Status ArgCount(const AttrSlice& attrs, const OpDef& op_def, const OpDef::ArgDef& arg,
                bool is_input, int* num) {
  if (!arg.number_attr().empty()) {
    return NumberAttrValue(attrs, op_def, arg, is_input, num);
  }
  if (!arg.type_list_attr().empty()) {
    const AttrValue* value = nullptr;
    OPKIT_RETURN_IF_ERROR(TypeListAttrValue(attrs, op_def, arg, &value));
    *num = value->list().type_size();
    return OkStatus();
  }
  if (!arg.type_attr().empty() || arg.type() != DT_INVALID) {
    *num = 1;
    return OkStatus();
  }
  return errors::InvalidArgument(
      "Argument '", arg.name(),
      "' incorrectly specified in op definition: ", SummarizeOpDef(op_def));
}

Status NameRanges(const AttrSlice& attrs, const OpDef& op_def, bool is_input,
                  NameRangeMap* result) {
  result->clear();
  const auto& args = is_input ? op_def.input_arg() : op_def.output_arg();
  int64 start = 0;
  for (const OpDef::ArgDef& arg : args) {
    int num = 0;
    OPKIT_RETURN_IF_ERROR(WithContext(ArgCount(attrs, op_def, arg, is_input, &num),
                                      " for ", ArgKind(is_input), " '", arg.name(),
                                      "' of op ", op_def.name()));
    const int64 end = start + num;
    if (end > kMaxArgsPerNode) return TooManyArgs(is_input, end);
    (*result)[arg.name()] = {static_cast<int>(start), static_cast<int>(end)};
    start = end;
  }
  return OkStatus();
}

// ---------------------------------------------------------------------------
// Summaries.

// The attrs of `attrs` sorted by name.
std::vector<const AttrValueMap::value_type*> SortedAttrs(const AttrSlice& attrs) {
  std::vector<const AttrValueMap::value_type*> sorted;
  for (const auto& entry : attrs) sorted.push_back(&entry);
  std::sort(sorted.begin(), sorted.end(),
            [](const auto* a, const auto* b) { return a->first < b->first; });
  return sorted;
}

std::string SummarizeNodeWithAttrs(const NodeDef& node_def, const AttrSlice& attrs,
                                   int max_inputs_in_summary) {
  std::string ret = StrCat(FormatNodeNameForError(node_def.name()), " = ", node_def.op(),
                           "[", SummarizeAttrsHelper(attrs, node_def.device()), "](");
  int printed = 0;
  for (const std::string& input : node_def.input()) {
    if (printed > 0) ret += ", ";
    if (max_inputs_in_summary >= 0 && printed == max_inputs_in_summary) {
      ret += "...";
      break;
    }
    ret += input;
    ++printed;
  }
  ret += ")";
  return ret;
}

// ---------------------------------------------------------------------------
// Names.

bool IsSegmentStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         c == '.';
}
bool IsSegmentChar(char c) {
  return IsSegmentStart(c) || c == '_' || c == '/' || c == '-';
}

// The length of the longest prefix of `s` that is a node name, or 0.
size_t ScanNodeName(std::string_view s) {
  size_t pos = 0;
  while (true) {
    if (pos >= s.size() || !IsSegmentStart(s[pos])) return 0;
    ++pos;
    while (pos < s.size() && IsSegmentChar(s[pos])) ++pos;
    if (pos + 1 < s.size() && s[pos] == '>' && IsSegmentStart(s[pos + 1])) {
      ++pos;  // Another namespace segment follows.
      continue;
    }
    return pos;
  }
}

bool IsValidPort(std::string_view port) {
  if (port == "0") return true;
  if (port.empty() || port[0] < '1' || port[0] > '9') return false;
  return std::all_of(port.begin(), port.end(),
                     [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

// ---------------------------------------------------------------------------
// AttrSlice

AttrSlice::AttrSlice(const NodeDef* ndef, const AttrValueMap* front,
                     const AttrValueMap* back)
    : ndef_(ndef), front_(front != nullptr ? front : &EmptyAttrValueMap()), back_(back) {}

AttrSlice::AttrSlice() : AttrSlice(nullptr, nullptr, nullptr) {}

AttrSlice::AttrSlice(const NodeDef& node_def)
    : AttrSlice(&node_def, &node_def.attr(), nullptr) {}

AttrSlice::AttrSlice(const AttrValueMap* attrs) : AttrSlice(nullptr, attrs, nullptr) {}

AttrSlice::AttrSlice(const NodeDef& node_def, const AttrValueMap* overlay)
    : AttrSlice(&node_def, overlay != nullptr ? overlay : &node_def.attr(),
                overlay != nullptr ? &node_def.attr() : nullptr) {}

AttrSlice::AttrSlice(const AttrValueMap* attrs, const AttrValueMap* overlay)
    : AttrSlice(nullptr, overlay != nullptr ? overlay : attrs,
                overlay != nullptr ? attrs : nullptr) {}

AttrSlice AttrSlice::WithDefaults(const NodeDef& node_def, const AttrValueMap* defaults) {
  return AttrSlice(&node_def, &node_def.attr(), defaults);
}

int AttrSlice::size() const {
  size_t n = front_->size();
  if (back_ != nullptr) {
    for (const auto& entry : *back_) {
      if (front_->find(entry.first) == front_->end()) ++n;
    }
  }
  return static_cast<int>(n);
}

const AttrValue* AttrSlice::Find(std::string_view attr_name) const {
  // Heterogeneous lookup: protobuf's Map hashes the string_view directly.
  auto it = front_->find(attr_name);
  if (it != front_->end()) return &it->second;
  if (back_ != nullptr) {
    it = back_->find(attr_name);
    if (it != back_->end()) return &it->second;
  }
  return nullptr;
}

Status AttrSlice::Find(std::string_view attr_name, const AttrValue** attr_value) const {
  *attr_value = Find(attr_name);
  if (*attr_value != nullptr) return OkStatus();
  Status s = errors::NotFound("No attr named '", attr_name, "' in NodeDef:");
  if (ndef_ != nullptr) return AttachDef(s, *ndef_);
  return errors::AppendToMessage(s, " ", SummarizeNode());
}

bool AttrSlice::EqualAttrs(const AttrSlice& other) const {
  if (size() != other.size()) return false;
  for (const auto& entry : other) {
    const AttrValue* mine = Find(entry.first);
    if (mine == nullptr || !AreAttrValuesEqual(*mine, entry.second)) return false;
  }
  return true;
}

std::string AttrSlice::SummarizeNode() const {
  if (ndef_ != nullptr) return SummarizeNodeWithAttrs(*ndef_, *this, -1);
  return StrCat("[", SummarizeAttrsHelper(*this, std::string_view()), "]");
}

std::string AttrSlice::DebugString() const {
  std::string ret;
  for (const auto* entry : SortedAttrs(*this)) {
    if (!ret.empty()) ret += ", ";
    ret += StrCat(entry->first, "=", SummarizeAttrValue(entry->second));
  }
  return ret;
}

AttrSlice::const_iterator::const_iterator(const AttrSlice* slice, bool in_back,
                                          AttrValueMap::const_iterator it)
    : slice_(slice), in_back_(in_back), it_(it) {
  Settle();
}

void AttrSlice::const_iterator::Settle() {
  if (!in_back_) {
    if (it_ != slice_->front_->end() || slice_->back_ == nullptr) return;
    in_back_ = true;
    it_ = slice_->back_->begin();
  }
  while (it_ != slice_->back_->end() &&
         slice_->front_->find(it_->first) != slice_->front_->end()) {
    ++it_;
  }
}

AttrSlice::const_iterator& AttrSlice::const_iterator::operator++() {
  ++it_;
  Settle();
  return *this;
}

AttrSlice::const_iterator AttrSlice::begin() const {
  return const_iterator(this, false, front_->begin());
}

AttrSlice::const_iterator AttrSlice::end() const {
  if (back_ != nullptr) return const_iterator(this, true, back_->end());
  return const_iterator(this, false, front_->end());
}

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

void AddDefaultsToNodeDef(const OpDef& op_def, NodeDef* node_def) {
  for (const OpDef::AttrDef& attr : op_def.attr()) {
    if (!attr.has_default_value()) continue;
    if (node_def->attr().find(attr.name()) != node_def->attr().end()) continue;
    AddNodeAttr(attr.name(), attr.default_value(), node_def);
  }
}

// ---------------------------------------------------------------------------
// ValidateNodeDef

Status ValidateNodeDef(const NodeDef& node_def, const OpDef& op_def) {
  if (node_def.op() != op_def.name()) {
    return errors::InvalidArgument("NodeDef op '", node_def.op(), "' does not match ",
                                   SummarizeOpDef(op_def),
                                   "; NodeDef: ", FormatNodeDefForError(node_def));
  }

  bool seen_control = false;
  int64 num_inputs = 0;
  for (const std::string& input : node_def.input()) {
    if (StartsWith(input, "^")) {
      seen_control = true;
      if (input.find(':') != std::string::npos) {
        return errors::InvalidArgument(
            "Control input '", input,
            "' must not have ':' in NodeDef: ", FormatNodeDefForError(node_def));
      }
    } else if (seen_control) {
      return errors::InvalidArgument(
          "Non-control input '", input,
          "' after control input in NodeDef: ", FormatNodeDefForError(node_def),
          "; every data input must come before the "
          "control inputs ('^name')");
    } else {
      ++num_inputs;
    }
  }

  // Index the OpDef's attrs; `found` tracks which ones the node sets.
  std::unordered_map<std::string_view, int> op_attrs;
  op_attrs.reserve(op_def.attr_size());
  for (int i = 0; i < op_def.attr_size(); ++i) {
    if (!op_attrs.emplace(op_def.attr(i).name(), i).second) {
      return errors::InvalidArgument("OpDef has duplicate attr name '",
                                     op_def.attr(i).name(),
                                     "': ", SummarizeOpDef(op_def));
    }
  }
  std::vector<bool> found(op_def.attr_size(), false);

  // Sorted, so that of several bad attrs the same one is always reported.
  for (const auto* entry : SortedAttrs(AttrSlice(node_def))) {
    const std::string& name = entry->first;
    // Internal attrs ("_class", "_kernel", ...) are not part of the OpDef.
    if (StartsWith(name, "_")) continue;
    auto it = op_attrs.find(name);
    if (it == op_attrs.end()) {
      return errors::InvalidArgument(
          "NodeDef mentions attr '", name, "' not in ", SummarizeOpDef(op_def),
          "; NodeDef: ", FormatNodeDefForError(node_def),
          ". (Check whether your GraphDef-interpreting binary is up to date with "
          "your GraphDef-generating binary.).");
    }
    found[it->second] = true;
    // Placeholders ("$T" in a function body) get their values later.
    if (!entry->second.placeholder().empty()) continue;
    const Status s = ValidateAttrValue(entry->second, op_def.attr(it->second));
    if (!s.ok()) {
      return WithContext(s, "; NodeDef: ", FormatNodeDefForError(node_def), "; ",
                         SummarizeOpDef(op_def));
    }
  }

  std::vector<std::string_view> missing;
  for (int i = 0; i < op_def.attr_size(); ++i) {
    if (!found[i] && !op_def.attr(i).has_default_value()) {
      missing.push_back(op_def.attr(i).name());
    }
  }
  if (!missing.empty()) {
    return errors::InvalidArgument(
        "NodeDef missing attr", missing.size() == 1 ? " '" : "s '",
        StrJoin(missing, "', '"), "' from ", SummarizeOpDef(op_def),
        "; NodeDef: ", FormatNodeDefForError(node_def), ". Set ",
        missing.size() == 1 ? "it" : "them", " in the NodeDef");
  }

  // Validate the number of inputs against what the attrs imply.
  const AttrSlice attrs(node_def);
  DataTypeVector inputs;
  OPKIT_RETURN_IF_ERROR(NameNode(attrs, ArgTypes(attrs, op_def, true, &inputs)));
  DataTypeVector outputs;
  OPKIT_RETURN_IF_ERROR(NameNode(attrs, ArgTypes(attrs, op_def, false, &outputs)));
  if (num_inputs != static_cast<int64>(inputs.size())) {
    return errors::InvalidArgument(
        "NodeDef expected inputs '", DataTypeSliceString(inputs), "' do not match ",
        num_inputs, " inputs specified; ", SummarizeOpDef(op_def),
        "; NodeDef: ", FormatNodeDefForError(node_def));
  }
  return OkStatus();
}

// ---------------------------------------------------------------------------
// Input and output types.

Status InputTypesForNode(const NodeDef& node_def, const OpDef& op_def,
                         DataTypeVector* inputs) {
  const AttrSlice attrs(node_def);
  return NameNode(attrs, ArgTypes(attrs, op_def, true, inputs));
}

Status OutputTypesForNode(const NodeDef& node_def, const OpDef& op_def,
                          DataTypeVector* outputs) {
  const AttrSlice attrs(node_def);
  return NameNode(attrs, ArgTypes(attrs, op_def, false, outputs));
}

Status OutputTypesForNode(const AttrSlice& attrs, const OpDef& op_def,
                          DataTypeVector* outputs) {
  return NameNode(attrs, ArgTypes(attrs, op_def, false, outputs));
}

Status InOutTypesForNode(const NodeDef& node_def, const OpDef& op_def,
                         DataTypeVector* inputs, DataTypeVector* outputs) {
  OPKIT_RETURN_IF_ERROR(InputTypesForNode(node_def, op_def, inputs));
  return OutputTypesForNode(node_def, op_def, outputs);
}

namespace {

// Type of input / output `index`, computing only the args up to it.
Status ArgTypeForNode(const NodeDef& node_def, const OpDef& op_def, bool is_input,
                      int index, DataType* type) {
  const AttrSlice attrs(node_def);
  if (index >= 0) {
    DataTypeVector types;
    const auto& args = is_input ? op_def.input_arg() : op_def.output_arg();
    for (const OpDef::ArgDef& arg : args) {
      OPKIT_RETURN_IF_ERROR(
          NameNode(attrs, AddArgToSig(attrs, op_def, arg, is_input, &types)));
      if (static_cast<int64>(types.size()) > index) {
        *type = types[index];
        return OkStatus();
      }
    }
  }
  return errors::InvalidArgument(is_input ? "Input " : "Output ", index,
                                 " not found for node ", node_def.name());
}

}  // namespace

Status InputTypeForNode(const NodeDef& node_def, const OpDef& op_def, int index,
                        DataType* input_type) {
  return ArgTypeForNode(node_def, op_def, true, index, input_type);
}

Status OutputTypeForNode(const NodeDef& node_def, const OpDef& op_def, int index,
                         DataType* output_type) {
  return ArgTypeForNode(node_def, op_def, false, index, output_type);
}

Status NumOutputsForNode(const NodeDef& node_def, const OpDef& op_def, int* num_outputs) {
  DataTypeVector outputs;
  OPKIT_RETURN_IF_ERROR(OutputTypesForNode(node_def, op_def, &outputs));
  *num_outputs = static_cast<int>(outputs.size());
  return OkStatus();
}

Status NameRangesForNode(const AttrSlice& attrs, const OpDef& op_def,
                         NameRangeMap* inputs, NameRangeMap* outputs) {
  if (inputs != nullptr) {
    OPKIT_RETURN_IF_ERROR(NameNode(attrs, NameRanges(attrs, op_def, true, inputs)));
  }
  if (outputs != nullptr) {
    OPKIT_RETURN_IF_ERROR(NameNode(attrs, NameRanges(attrs, op_def, false, outputs)));
  }
  return OkStatus();
}

// ---------------------------------------------------------------------------
// Names and syntax.

bool IsValidNodeName(std::string_view name) {
  return !name.empty() && ScanNodeName(name) == name.size();
}

bool IsValidDataInputName(std::string_view name) {
  const size_t n = ScanNodeName(name);
  if (n == 0) return false;
  if (n == name.size()) return true;
  return name[n] == ':' && IsValidPort(name.substr(n + 1));
}

bool IsValidControlInputName(std::string_view name) {
  return StartsWith(name, "^") && IsValidNodeName(name.substr(1));
}

Status ValidateOpInput(std::string_view input_name, bool* is_control_input) {
  *is_control_input = false;
  if (IsValidDataInputName(input_name)) return OkStatus();
  if (IsValidControlInputName(input_name)) {
    *is_control_input = true;
    return OkStatus();
  }
  return errors::InvalidArgument("Illegal op input name '", input_name, "'");
}

Status ValidateNodeName(std::string_view node_name) {
  if (IsValidNodeName(node_name)) return OkStatus();
  return errors::InvalidArgument("Illegal op name '", node_name, "'");
}

Status ValidateExternalNodeDefSyntax(const NodeDef& node_def) {
  Status s = ValidateNodeName(node_def.name());
  if (!s.ok()) return AttachDef(s, node_def);
  bool in_control_inputs = false;
  for (const std::string& input : node_def.input()) {
    bool is_control_input = false;
    s = ValidateOpInput(input, &is_control_input);
    if (!s.ok()) return AttachDef(s, node_def);
    if (in_control_inputs && !is_control_input) {
      return AttachDef(
          errors::InvalidArgument("All control inputs must follow all data inputs"),
          node_def);
    }
    in_control_inputs = is_control_input;
  }
  return OkStatus();
}

std::string TensorId::ToString() const {
  if (index() == kControlSlot) return StrCat("^", node());
  if (index() == 0) return std::string(node());
  return StrCat(node(), ":", index());
}

TensorId ParseTensorName(std::string_view name) {
  // A run of digits at the end, preceded by ':' and a non-empty node name,
  // is the port; TensorFlow reads it the same way, from the back.
  size_t digits_start = name.size();
  while (digits_start > 0 && name[digits_start - 1] >= '0' &&
         name[digits_start - 1] <= '9') {
    --digits_start;
  }
  const size_t num_digits = name.size() - digits_start;
  if (num_digits > 0 && digits_start >= 2 && name[digits_start - 1] == ':') {
    int64 index = 0;
    bool fits = true;
    for (size_t i = digits_start; i < name.size() && fits; ++i) {
      index = index * 10 + (name[i] - '0');
      fits = index <= INT_MAX;
    }
    if (fits) {
      return TensorId(name.substr(0, digits_start - 1), static_cast<int>(index));
    }
  }
  if (StartsWith(name, "^")) return TensorId(name.substr(1), kControlSlot);
  return TensorId(name, 0);
}

Status ParseTensorName(std::string_view name, TensorId* out) {
  bool is_control = false;
  OPKIT_RETURN_IF_ERROR(ValidateOpInput(name, &is_control));
  const TensorId id = ParseTensorName(name);
  if (!is_control && id.node().size() != ScanNodeName(name)) {
    // Valid syntax, but the port does not fit in an int.
    return errors::InvalidArgument("Illegal op input name '", name,
                                   "': the output index is larger than ", INT_MAX);
  }
  *out = id;
  return OkStatus();
}

// ---------------------------------------------------------------------------
// Printing.

std::string FormatNodeNameForError(std::string_view name) {
  return StrCat("{{node ", name, "}}");
}

std::string FormatFunctionForError(std::string_view name) {
  return StrCat("{{function_node ", name, "}}");
}

std::string FormatNodeDefForError(const NodeDef& node_def) {
  return FormatNodeDefForError(node_def.name(), node_def.has_experimental_debug_info(),
                               node_def.experimental_debug_info());
}

std::string FormatNodeDefForError(
    std::string_view node_name, bool has_experimental_debug_info,
    const NodeDef::ExperimentalDebugInfo& experimental_debug_info) {
  const auto& node_names = experimental_debug_info.original_node_names();
  if (!has_experimental_debug_info || node_names.empty()) {
    return FormatNodeNameForError(node_name);
  }
  const auto& func_names = experimental_debug_info.original_func_names();
  std::string ret;
  for (int i = 0; i < node_names.size(); ++i) {
    if (i > 0) ret += ", ";
    if (i < func_names.size()) ret += FormatFunctionForError(func_names[i]);
    ret += FormatNodeNameForError(node_names[i]);
  }
  return ret;
}

std::string SummarizeAttrsHelper(const AttrSlice& attrs, std::string_view device) {
  std::string ret;
  for (const auto* entry : SortedAttrs(attrs)) {
    if (!ret.empty()) ret += ", ";
    ret += StrCat(entry->first, "=", SummarizeAttrValue(entry->second));
  }
  // The device reads as one more attr, always last.
  if (!device.empty()) {
    if (!ret.empty()) ret += ", ";
    ret += StrCat("_device=\"", device, "\"");
  }
  return ret;
}

std::string SummarizeAttrs(const NodeDef& node_def) {
  return SummarizeAttrsHelper(node_def, node_def.device());
}

std::string SummarizeNodeDef(const NodeDef& node_def, int max_inputs_in_summary) {
  return SummarizeNodeWithAttrs(node_def, AttrSlice(node_def), max_inputs_in_summary);
}

Status AttachDef(const Status& status, const NodeDef& node_def,
                 bool allow_multiple_formatted_node) {
  if (status.ok()) return status;
  const std::string node_error =
      !allow_multiple_formatted_node &&
              status.message().find("{{node ") != std::string::npos
          ? node_def.name()
          : FormatNodeDefForError(node_def);
  return Status(status.code(), StrCat(status.message(), "\n\t [[", node_error, "]]"));
}

}  // namespace opkit
