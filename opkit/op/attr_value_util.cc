// AttrValue helpers but parsing (attr_value_parse.cc): SetAttrValue,
// AttrValueHasType, SummarizeAttrValue, equality and hashing, placeholders.
#include "opkit/op/attr_value_util.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/escaping.h"
#include "opkit/core/errors.h"
#include "opkit/op/internal/deterministic_serialization.h"
#include "opkit/op/internal/hash.h"
#include "opkit/core/str_util.h"
#include "opkit/tensor/tensor.h"
#include "opkit/tensor/tensor_shape.h"
#include "opkit/tensor/types.h"

namespace opkit {

// ---------------------------------------------------------------------------
// Setting.

void SetAttrValue(const AttrValue& value, AttrValue* out) { *out = value; }

void SetAttrValue(const std::string& value, AttrValue* out) { out->set_s(value); }
void SetAttrValue(std::string_view value, AttrValue* out) {
  out->set_s(value.data(), value.size());
}
void SetAttrValue(const char* value, AttrValue* out) {
  out->set_s(value == nullptr ? "" : value);
}
void SetAttrValue(int64 value, AttrValue* out) { out->set_i(value); }
void SetAttrValue(int32 value, AttrValue* out) { out->set_i(value); }
void SetAttrValue(float value, AttrValue* out) { out->set_f(value); }
void SetAttrValue(double value, AttrValue* out) {
  out->set_f(static_cast<float>(value));
}
void SetAttrValue(bool value, AttrValue* out) { out->set_b(value); }
void SetAttrValue(DataType value, AttrValue* out) { out->set_type(value); }
void SetAttrValue(const TensorShapeProto& value, AttrValue* out) {
  *out->mutable_shape() = value;
}
void SetAttrValue(const TensorProto& value, AttrValue* out) {
  *out->mutable_tensor() = value;
}
void SetAttrValue(const NameAttrList& value, AttrValue* out) {
  *out->mutable_func() = value;
}

namespace {

// A fresh, empty list value in `*out` (mutable_list() alone would keep the
// elements of a list already there).
AttrValue::ListValue* EmptyList(AttrValue* out) {
  AttrValue::ListValue* list = out->mutable_list();
  list->Clear();
  return list;
}

}  // namespace

void SetAttrValue(const std::vector<std::string>& value, AttrValue* out) {
  AttrValue::ListValue* list = EmptyList(out);
  for (const std::string& v : value) list->add_s(v);
}
void SetAttrValue(const std::vector<std::string_view>& value, AttrValue* out) {
  AttrValue::ListValue* list = EmptyList(out);
  for (std::string_view v : value) list->add_s(v.data(), v.size());
}
void SetAttrValue(const std::vector<const char*>& value, AttrValue* out) {
  AttrValue::ListValue* list = EmptyList(out);
  for (const char* v : value) list->add_s(v == nullptr ? "" : v);
}
void SetAttrValue(const std::vector<int64>& value, AttrValue* out) {
  AttrValue::ListValue* list = EmptyList(out);
  for (int64 v : value) list->add_i(v);
}
void SetAttrValue(const std::vector<int32>& value, AttrValue* out) {
  AttrValue::ListValue* list = EmptyList(out);
  for (int32 v : value) list->add_i(v);
}
void SetAttrValue(const std::vector<float>& value, AttrValue* out) {
  AttrValue::ListValue* list = EmptyList(out);
  for (float v : value) list->add_f(v);
}
void SetAttrValue(const std::vector<double>& value, AttrValue* out) {
  AttrValue::ListValue* list = EmptyList(out);
  for (double v : value) list->add_f(static_cast<float>(v));
}
void SetAttrValue(const std::vector<bool>& value, AttrValue* out) {
  AttrValue::ListValue* list = EmptyList(out);
  for (bool v : value) list->add_b(v);
}
void SetAttrValue(const std::vector<DataType>& value, AttrValue* out) {
  AttrValue::ListValue* list = EmptyList(out);
  for (DataType v : value) list->add_type(v);
}
void SetAttrValue(const std::vector<TensorShapeProto>& value, AttrValue* out) {
  AttrValue::ListValue* list = EmptyList(out);
  for (const TensorShapeProto& v : value) *list->add_shape() = v;
}
void SetAttrValue(const std::vector<TensorProto>& value, AttrValue* out) {
  AttrValue::ListValue* list = EmptyList(out);
  for (const TensorProto& v : value) *list->add_tensor() = v;
}
void SetAttrValue(const std::vector<NameAttrList>& value, AttrValue* out) {
  AttrValue::ListValue* list = EmptyList(out);
  for (const NameAttrList& v : value) *list->add_func() = v;
}


void SetAttrValue(const TensorShape& value, AttrValue* out) {
  value.AsProto(out->mutable_shape());
}
void SetAttrValue(const PartialTensorShape& value, AttrValue* out) {
  value.AsProto(out->mutable_shape());
}

namespace {

// TensorFlow's choice: tensor_content is compact for many elements, the
// typed field reads better for one.
void TensorToProto(const Tensor& t, TensorProto* proto) {
  if (t.NumElements() > 1) {
    t.AsProtoTensorContent(proto);
  } else {
    t.AsProtoField(proto);
  }
}

}  // namespace

void SetAttrValue(const Tensor& value, AttrValue* out) {
  TensorToProto(value, out->mutable_tensor());
}
void SetAttrValue(const std::vector<TensorShape>& value, AttrValue* out) {
  out->mutable_list()->Clear();
  for (const TensorShape& v : value) v.AsProto(out->mutable_list()->add_shape());
}
void SetAttrValue(const std::vector<PartialTensorShape>& value, AttrValue* out) {
  out->mutable_list()->Clear();
  for (const PartialTensorShape& v : value) v.AsProto(out->mutable_list()->add_shape());
}
void SetAttrValue(const std::vector<Tensor>& value, AttrValue* out) {
  out->mutable_list()->Clear();
  for (const Tensor& v : value) TensorToProto(v, out->mutable_list()->add_tensor());
}

void MoveAttrValue(std::vector<std::string>&& value, AttrValue* out) {
  AttrValue::ListValue* list = EmptyList(out);
  for (std::string& v : value) list->add_s(std::move(v));
}

// ---------------------------------------------------------------------------
// Type checks.

namespace {

// The list(...) element kinds, in the order TensorFlow checks them.
struct FieldCheck {
  std::string_view type;  // "int"
  AttrValue::ValueCase scalar_case;
  int (*list_size)(const AttrValue::ListValue&);
};

constexpr FieldCheck kFieldChecks[] = {
    {"string", AttrValue::kS, [](const AttrValue::ListValue& l) { return l.s_size(); }},
    {"int", AttrValue::kI, [](const AttrValue::ListValue& l) { return l.i_size(); }},
    {"float", AttrValue::kF, [](const AttrValue::ListValue& l) { return l.f_size(); }},
    {"bool", AttrValue::kB, [](const AttrValue::ListValue& l) { return l.b_size(); }},
    {"type", AttrValue::kType, [](const AttrValue::ListValue& l) { return l.type_size(); }},
    {"shape", AttrValue::kShape, [](const AttrValue::ListValue& l) { return l.shape_size(); }},
    {"tensor", AttrValue::kTensor, [](const AttrValue::ListValue& l) { return l.tensor_size(); }},
    {"func", AttrValue::kFunc, [](const AttrValue::ListValue& l) { return l.func_size(); }},
};

Status CheckDataTypeValue(int as_int, bool in_list) {
  if (!DataType_IsValid(as_int)) {
    return errors::InvalidArgument("AttrValue has invalid DataType enum: ", as_int);
  }
  const DataType dtype = static_cast<DataType>(as_int);
  if (IsRefType(dtype)) {
    return errors::InvalidArgument(
        "AttrValue must not have reference type value of ", DataTypeString(dtype));
  }
  if (dtype == DT_INVALID) {
    return errors::InvalidArgument(in_list ? "AttrValue contains invalid DataType"
                                           : "AttrValue has invalid DataType");
  }
  return OkStatus();
}

}  // namespace

Status AttrValueHasType(const AttrValue& attr_value, std::string_view type) {
  int num_set = 0;
  const bool has_list = attr_value.value_case() == AttrValue::kList;
  for (const FieldCheck& check : kFieldChecks) {
    if (has_list) {
      if (check.list_size(attr_value.list()) > 0) {
        const std::string list_type = StrCat("list(", check.type, ")");
        if (type != list_type) {
          return errors::InvalidArgument("AttrValue had value with type '",
                                         list_type, "' when '", type,
                                         "' expected");
        }
        ++num_set;
      }
    } else if (attr_value.value_case() == check.scalar_case) {
      if (type != check.type) {
        return errors::InvalidArgument("AttrValue had value with type '",
                                       check.type, "' when '", type,
                                       "' expected");
      }
      ++num_set;
    }
  }
  if (attr_value.value_case() == AttrValue::kPlaceholder) {
    return errors::InvalidArgument(
        "AttrValue had value with unexpected type 'placeholder'");
  }
  const bool list_type = StartsWith(type, "list(");
  // An empty list may arrive with no field set at all (proto3 drops an empty
  // message in old GraphDefs), so "nothing set" passes as an empty list.
  if (list_type && !has_list) {
    if (num_set > 0) {
      return errors::InvalidArgument(
          "AttrValue missing value with expected type '", type, "'");
    }
    ++num_set;
  }
  if (num_set == 0 && !list_type) {
    return errors::InvalidArgument(
        "AttrValue missing value with expected type '", type, "'");
  }
  if (type == "type") {
    OPKIT_RETURN_IF_ERROR(CheckDataTypeValue(attr_value.type(), false));
  } else if (type == "list(type)") {
    for (int as_int : attr_value.list().type()) {
      OPKIT_RETURN_IF_ERROR(CheckDataTypeValue(as_int, true));
    }
  }
  return OkStatus();
}

// ---------------------------------------------------------------------------
// Shared helpers.

namespace {

using internal::DeterministicSerialization;
using internal::HashBytes;
using internal::HashCombine;

// TensorFlow's shape format: "[2,?]", "<unknown>".
std::string ShapeProtoDebugString(const TensorShapeProto& proto) {
  std::string s;
  if (proto.unknown_rank()) {
    s = "<unknown>";
    if (proto.dim_size() == 0) return s;
  }
  s += "[";
  for (int i = 0; i < proto.dim_size(); ++i) {
    if (i > 0) s += ",";
    const int64 size = proto.dim(i).size();
    s += size == -1 ? std::string("?") : StrCat(size);
  }
  s += "]";
  return s;
}

}  // namespace

// ---------------------------------------------------------------------------
// Tensor values. Note [Tensor attr values]: one tensor value has many
// TensorProto spellings (tensor_content or typed fields, a repeated last
// value left out), so tensors are compared and hashed by their content in
// one canonical spelling, and printed through Tensor::DebugString.

namespace {

// Tensors that would take more memory than this are not materialized to be
// compared, hashed or printed; their protos are used as they are (so two
// such tensors spelled differently compare unequal). A small proto can
// describe a huge tensor (one float_val padded over shape [1e12]).
constexpr int64_t kMaxAttrValueTensorByteSize = 32 * 1024 * 1024;

// The bytes `proto` expands to, or -1 when its shape is not a valid, fully
// defined shape. Elements of variable size count as a string object each.
int64_t ExpandedTensorBytes(const TensorProto& proto) {
  PartialTensorShape shape;
  if (!PartialTensorShape::FromProto(proto.tensor_shape(), &shape).ok()) return -1;
  const int64_t n = shape.num_elements();
  if (n < 0) return -1;
  int64_t element = DataTypeSize(proto.dtype());
  if (element == 0) element = static_cast<int64_t>(sizeof(tstring));
  if (n > std::numeric_limits<int64_t>::max() / element) {
    return std::numeric_limits<int64_t>::max();
  }
  return n * element;
}

bool SmallEnoughToExpand(const TensorProto& proto) {
  const int64_t bytes = ExpandedTensorBytes(proto);
  return bytes >= 0 && bytes <= kMaxAttrValueTensorByteSize;
}

// The one spelling of the tensor `proto` describes: dtype, shape and
// tensor_content. False if `proto` is malformed or too large to expand.
bool CanonicalTensorBytes(const TensorProto& proto, std::string* out) {
  if (!SmallEnoughToExpand(proto)) return false;
  Tensor t;
  if (!Tensor::BuildFromProto(proto, &t).ok()) return false;
  TensorProto canonical;
  t.AsProtoTensorContent(&canonical);
  *out = DeterministicSerialization(canonical);
  return true;
}

std::string SummarizeTensorProto(const TensorProto& proto) {
  if (ExpandedTensorBytes(proto) > kMaxAttrValueTensorByteSize) {
    // Type and shape only, as Tensor::DeviceSafeDebugString prints them.
    return StrCat("Tensor<type: ", DataTypeString(proto.dtype()),
                  " shape: ", ShapeProtoDebugString(proto.tensor_shape()), ">");
  }
  Tensor t;
  if (!Tensor::BuildFromProto(proto, &t).ok()) {
    return StrCat("<Invalid TensorProto: ", proto.ShortDebugString(), ">");
  }
  return t.DebugString();
}

bool AreTensorProtosEqual(const TensorProto& a, const TensorProto& b) {
  std::string ca, cb;
  const bool a_ok = CanonicalTensorBytes(a, &ca);
  const bool b_ok = CanonicalTensorBytes(b, &cb);
  if (a_ok && b_ok) return ca == cb;
  if (a_ok != b_ok) return false;
  // Neither can be expanded: equal only when spelled the same.
  return DeterministicSerialization(a) == DeterministicSerialization(b);
}

uint64_t TensorProtoHash(const TensorProto& proto) {
  std::string bytes;
  if (!CanonicalTensorBytes(proto, &bytes)) bytes = DeterministicSerialization(proto);
  return HashBytes(bytes, 0x7e75);
}

}  // namespace

// ---------------------------------------------------------------------------
// Printing.

namespace {

std::string SummarizeString(const std::string& str) {
  const std::string escaped = absl::CEscape(str);
  // A long string keeps 10 characters at each end.
  constexpr size_t kMaxStringSummarySize = 80;
  if (escaped.size() >= kMaxStringSummarySize) {
    return StrCat("\"", escaped.substr(0, 10), "...",
                  escaped.substr(escaped.size() - 10), "\"");
  }
  return StrCat("\"", escaped, "\"");
}

// How TensorFlow's StrCat prints a float: 6 significant digits, or 9 when 6
// do not read back as the same float.
std::string FloatString(float value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.*g", 6, static_cast<double>(value));
  if (std::strtof(buf, nullptr) != value) {
    std::snprintf(buf, sizeof(buf), "%.*g", 9, static_cast<double>(value));
  }
  return buf;
}

std::string DataTypeEnumName(int dtype) {
  if (!DataType_IsValid(dtype)) return StrCat("<invalid DataType ", dtype, ">");
  return DataType_Name(static_cast<DataType>(dtype));
}


std::string SummarizeFunc(const NameAttrList& func) {
  std::vector<std::string> entries;
  for (const auto& [name, value] : func.attr()) {
    entries.push_back(StrCat(name, "=", SummarizeAttrValue(value)));
  }
  std::sort(entries.begin(), entries.end());
  return StrCat(func.name(), "[", StrJoin(entries, ", "), "]");
}

}  // namespace

std::string SummarizeAttrValue(const AttrValue& attr_value) {
  switch (attr_value.value_case()) {
    case AttrValue::kS:
      return SummarizeString(attr_value.s());
    case AttrValue::kI:
      return StrCat(attr_value.i());
    case AttrValue::kF:
      return FloatString(attr_value.f());
    case AttrValue::kB:
      return attr_value.b() ? "true" : "false";
    case AttrValue::kType:
      return DataTypeEnumName(attr_value.type());
    case AttrValue::kShape:
      return ShapeProtoDebugString(attr_value.shape());
    case AttrValue::kTensor:
      return SummarizeTensorProto(attr_value.tensor());
    case AttrValue::kList: {
      const AttrValue::ListValue& list = attr_value.list();
      std::vector<std::string> pieces;
      // Only the first non-empty kind is printed; a well-formed list has one.
      if (list.s_size() > 0) {
        for (const std::string& v : list.s()) pieces.push_back(SummarizeString(v));
      } else if (list.i_size() > 0) {
        for (int64 v : list.i()) pieces.push_back(StrCat(v));
      } else if (list.f_size() > 0) {
        for (float v : list.f()) pieces.push_back(FloatString(v));
      } else if (list.b_size() > 0) {
        for (bool v : list.b()) pieces.push_back(v ? "true" : "false");
      } else if (list.type_size() > 0) {
        for (int v : list.type()) pieces.push_back(DataTypeEnumName(v));
      } else if (list.shape_size() > 0) {
        for (const TensorShapeProto& v : list.shape()) {
          pieces.push_back(ShapeProtoDebugString(v));
        }
      } else if (list.tensor_size() > 0) {
        for (const TensorProto& v : list.tensor()) {
          pieces.push_back(SummarizeTensorProto(v));
        }
      } else if (list.func_size() > 0) {
        for (const NameAttrList& v : list.func()) pieces.push_back(SummarizeFunc(v));
      }
      // A long list keeps its first 5 and last 6 elements; the hash of the
      // whole list tells two long lists apart.
      constexpr size_t kMaxListSummarySize = 30;
      if (pieces.size() >= kMaxListSummarySize) {
        const uint64_t fingerprint = HashBytes(StrJoin(pieces, ","), 0);
        pieces.erase(pieces.begin() + 5, pieces.end() - 6);
        pieces[5] = "...";
        return StrCat("[", StrJoin(pieces, ", "), "]{attr_hash=", fingerprint, "}");
      }
      return StrCat("[", StrJoin(pieces, ", "), "]");
    }
    case AttrValue::kFunc:
      return SummarizeFunc(attr_value.func());
    case AttrValue::kPlaceholder:
      return StrCat("$", attr_value.placeholder());
    case AttrValue::VALUE_NOT_SET:
      break;
  }
  return "<Unknown AttrValue type>";
}

// ---------------------------------------------------------------------------
// Equality and hashing.


namespace {

bool AreFuncsEqual(const NameAttrList& a, const NameAttrList& b) {
  if (a.name() != b.name() || a.attr_size() != b.attr_size()) return false;
  for (const auto& [name, value] : a.attr()) {
    auto it = b.attr().find(name);
    if (it == b.attr().end() || !AreAttrValuesEqual(value, it->second)) return false;
  }
  return true;
}

uint64_t FuncHash(const NameAttrList& func) {
  uint64_t h = HashBytes(func.name(), 0);
  std::map<std::string, const AttrValue*> sorted;
  for (const auto& [name, value] : func.attr()) sorted.emplace(name, &value);
  for (const auto& [name, value] : sorted) {
    h = HashBytes(name, h);
    h = HashCombine(h, AttrValueHash(*value));
  }
  return h;
}

// A list without its tensors and funcs: the part whose serialized form is
// one per value.
AttrValue::ListValue PlainPart(const AttrValue::ListValue& list) {
  AttrValue::ListValue plain = list;
  plain.clear_tensor();
  plain.clear_func();
  return plain;
}

}  // namespace

bool AreAttrValuesEqual(const AttrValue& a, const AttrValue& b) {
  if (a.value_case() != b.value_case()) return false;
  switch (a.value_case()) {
    case AttrValue::kTensor:
      return AreTensorProtosEqual(a.tensor(), b.tensor());
    case AttrValue::kFunc:
      return AreFuncsEqual(a.func(), b.func());
    case AttrValue::kList: {
      // Tensors and funcs in a list compare as they do alone (TensorFlow
      // compares such lists byte for byte).
      const AttrValue::ListValue& la = a.list();
      const AttrValue::ListValue& lb = b.list();
      if (la.tensor_size() != lb.tensor_size() || la.func_size() != lb.func_size()) {
        return false;
      }
      for (int i = 0; i < la.tensor_size(); ++i) {
        if (!AreTensorProtosEqual(la.tensor(i), lb.tensor(i))) return false;
      }
      for (int i = 0; i < la.func_size(); ++i) {
        if (!AreFuncsEqual(la.func(i), lb.func(i))) return false;
      }
      return DeterministicSerialization(PlainPart(la)) ==
             DeterministicSerialization(PlainPart(lb));
    }
    default:
      // Every other kind has one serialized form per value.
      return DeterministicSerialization(a) == DeterministicSerialization(b);
  }
}

uint64_t AttrValueHash(const AttrValue& a) {
  switch (a.value_case()) {
    case AttrValue::kTensor:
      return TensorProtoHash(a.tensor());
    case AttrValue::kFunc:
      return FuncHash(a.func());
    case AttrValue::kList: {
      const AttrValue::ListValue& list = a.list();
      uint64_t h = HashBytes(DeterministicSerialization(PlainPart(list)), 0x1157);
      for (const TensorProto& t : list.tensor()) h = HashCombine(h, TensorProtoHash(t));
      for (const NameAttrList& f : list.func()) h = HashCombine(h, FuncHash(f));
      return h;
    }
    default:
      return HashBytes(DeterministicSerialization(a), 0x5eed);
  }
}

bool HasPlaceHolder(const AttrValue& value) {
  switch (value.value_case()) {
    case AttrValue::kList:
      for (const NameAttrList& func : value.list().func()) {
        for (const auto& entry : func.attr()) {
          if (HasPlaceHolder(entry.second)) return true;
        }
      }
      return false;
    case AttrValue::kFunc:
      for (const auto& entry : value.func().attr()) {
        if (HasPlaceHolder(entry.second)) return true;
      }
      return false;
    case AttrValue::kPlaceholder:
      return true;
    default:
      return false;
  }
}

bool SubstitutePlaceholders(const SubstituteFunc& substitute, AttrValue* value) {
  switch (value->value_case()) {
    case AttrValue::kList:
      for (NameAttrList& func : *value->mutable_list()->mutable_func()) {
        for (auto& entry : *func.mutable_attr()) {
          if (!SubstitutePlaceholders(substitute, &entry.second)) return false;
        }
      }
      return true;
    case AttrValue::kFunc:
      for (auto& entry : *value->mutable_func()->mutable_attr()) {
        if (!SubstitutePlaceholders(substitute, &entry.second)) return false;
      }
      return true;
    case AttrValue::kPlaceholder: {
      // Copy the name: `substitute` overwrites `*value`.
      const std::string name = value->placeholder();
      return substitute(name, value);
    }
    case AttrValue::VALUE_NOT_SET:
      return false;
    default:
      return true;
  }
}

}  // namespace opkit
