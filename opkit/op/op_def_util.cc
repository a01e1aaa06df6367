// op_def_util.h's implementation: attr-value checks against an AttrDef, arg
// and attr lookup in an OpDef, OpDef validation and summaries, deprecation,
// and the compatibility rules between an op's old and new definitions.

#include "opkit/op/op_def_util.h"

#include <algorithm>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "opkit/core/errors.h"
#include "opkit/op/internal/deterministic_serialization.h"
#include "opkit/op/internal/hash.h"
#include "opkit/op/internal/node_def_helpers.h"
#include "opkit/core/logging.h"
#include "opkit/core/mutex.h"
#include "opkit/core/str_util.h"
#include "opkit/op/attr_value_util.h"
#include "opkit/tensor/types.h"

namespace opkit {
namespace {

using internal::WithContext;

Status AllowedTypeValue(DataType dt, const OpDef::AttrDef& attr) {
  const AttrValue::ListValue& allowed = attr.allowed_values().list();
  for (int t : allowed.type()) {
    if (t == dt) return OkStatus();
  }
  std::vector<std::string> names;
  for (int t : allowed.type()) names.push_back(DataTypeString(static_cast<DataType>(t)));
  return errors::InvalidArgument("Value for attr '", attr.name(), "' of ",
                                 DataTypeString(dt),
                                 " is not in the list of allowed values: ",
                                 StrJoin(names, ", "));
}

Status AllowedStringValue(const std::string& str, const OpDef::AttrDef& attr) {
  const AttrValue::ListValue& allowed = attr.allowed_values().list();
  for (const std::string& s : allowed.s()) {
    if (s == str) return OkStatus();
  }
  std::vector<std::string> quoted;
  for (const std::string& s : allowed.s()) quoted.push_back(StrCat("\"", s, "\""));
  return errors::InvalidArgument("Value for attr '", attr.name(), "' of \"", str,
                                 "\" is not in the list of allowed values: ",
                                 StrJoin(quoted, ", "));
}

// The number of elements of the list field that attr type `type` uses, or
// -1 if `type` is not a list type.
int ListLength(const AttrValue& value, const std::string& type) {
  const AttrValue::ListValue& l = value.list();
  if (type == "list(string)") return l.s_size();
  if (type == "list(int)") return l.i_size();
  if (type == "list(float)") return l.f_size();
  if (type == "list(bool)") return l.b_size();
  if (type == "list(type)") return l.type_size();
  if (type == "list(shape)") return l.shape_size();
  if (type == "list(tensor)") return l.tensor_size();
  if (type == "list(func)") return l.func_size();
  return -1;
}

bool IsUpper(char c) { return c >= 'A' && c <= 'Z'; }
bool IsWordChar(char c) {
  return (c >= 'a' && c <= 'z') || IsUpper(c) || (c >= '0' && c <= '9') || c == '_';
}

}  // namespace

Status ValidateAttrValue(const AttrValue& attr_value, const OpDef::AttrDef& attr) {
  OPKIT_RETURN_IF_ERROR(WithContext(AttrValueHasType(attr_value, attr.type()),
                                    " for attr '", attr.name(), "'"));

  if (attr.has_minimum()) {
    if (attr.type() == "int") {
      if (attr_value.i() < attr.minimum()) {
        return errors::InvalidArgument("Value for attr '", attr.name(), "' of ",
                                       attr_value.i(), " must be at least minimum ",
                                       attr.minimum());
      }
    } else {
      const int length = ListLength(attr_value, attr.type());
      if (length < attr.minimum()) {
        return errors::InvalidArgument("Length for attr '", attr.name(), "' of ",
                                       length, " must be at least minimum ",
                                       attr.minimum());
      }
    }
  }

  if (attr.has_allowed_values()) {
    if (attr.type() == "type") {
      OPKIT_RETURN_IF_ERROR(AllowedTypeValue(attr_value.type(), attr));
    } else if (attr.type() == "list(type)") {
      for (int dt : attr_value.list().type()) {
        OPKIT_RETURN_IF_ERROR(AllowedTypeValue(static_cast<DataType>(dt), attr));
      }
    } else if (attr.type() == "string") {
      OPKIT_RETURN_IF_ERROR(AllowedStringValue(attr_value.s(), attr));
    } else if (attr.type() == "list(string)") {
      for (const std::string& s : attr_value.list().s()) {
        OPKIT_RETURN_IF_ERROR(AllowedStringValue(s, attr));
      }
    } else {
      return errors::Unimplemented(
          "Support for allowed_values not implemented for type ", attr.type());
    }
  }
  return OkStatus();
}

const OpDef::AttrDef* FindAttr(std::string_view name, const OpDef& op_def) {
  for (const OpDef::AttrDef& attr : op_def.attr()) {
    if (attr.name() == name) return &attr;
  }
  return nullptr;
}

OpDef::AttrDef* FindAttrMutable(std::string_view name, OpDef* op_def) {
  for (OpDef::AttrDef& attr : *op_def->mutable_attr()) {
    if (attr.name() == name) return &attr;
  }
  return nullptr;
}

const OpDef::ArgDef* FindInputArg(std::string_view name, const OpDef& op_def) {
  for (const OpDef::ArgDef& arg : op_def.input_arg()) {
    if (arg.name() == name) return &arg;
  }
  return nullptr;
}

const OpDef::ArgDef* FindOutputArg(std::string_view name, const OpDef& op_def) {
  for (const OpDef::ArgDef& arg : op_def.output_arg()) {
    if (arg.name() == name) return &arg;
  }
  return nullptr;
}

bool IsValidOpName(std::string_view name) {
  // Segments "[A-Z][A-Za-z0-9_]*" separated by single '>'.
  size_t i = 0;
  while (true) {
    if (i >= name.size() || !IsUpper(name[i])) return false;
    ++i;
    while (i < name.size() && IsWordChar(name[i])) ++i;
    if (i == name.size()) return true;
    if (name[i] != '>') return false;
    ++i;
  }
}

namespace {

// Every ValidateOpDef failure ends with the whole OpDef, as TensorFlow's do,
// so that the offending registration can be found.
template <typename... Args>
Status OpDefError(const OpDef& op_def, const Args&... args) {
  return errors::InvalidArgument(args..., "; in OpDef: ", op_def.ShortDebugString());
}

Status ValidateArg(const OpDef::ArgDef& arg, const OpDef& op_def, bool output,
                   std::unordered_set<std::string>* names) {
  const std::string suffix =
      StrCat(output ? " for output '" : " for input '", arg.name(), "'");
  if (!names->insert(arg.name()).second) {
    return OpDefError(op_def, "Duplicate name: ", arg.name());
  }
  const bool has_type = arg.type() != DT_INVALID;
  const bool has_type_attr = !arg.type_attr().empty();
  const bool has_type_list_attr = !arg.type_list_attr().empty();
  if (!has_type && !has_type_attr && !has_type_list_attr) {
    return OpDefError(op_def, "Missing type", suffix);
  }

  if (!arg.number_attr().empty()) {
    const OpDef::AttrDef* attr = FindAttr(arg.number_attr(), op_def);
    if (attr == nullptr) {
      return OpDefError(op_def, "No attr with name '", arg.number_attr(), "'", suffix);
    }
    if (attr->type() != "int") {
      return OpDefError(op_def, "Attr '", attr->name(), "' used as length", suffix,
                        " has type ", attr->type(), " != int");
    }
    if (!attr->has_minimum()) {
      return OpDefError(op_def, "Attr '", attr->name(), "' used as length", suffix,
                        " must have minimum");
    }
    if (attr->minimum() < 0) {
      return OpDefError(op_def, "Attr '", attr->name(), "' used as length", suffix,
                        " must have minimum >= 0");
    }
    if (has_type_list_attr) {
      return OpDefError(op_def, "Can't have both number_attr and type_list_attr",
                        suffix);
    }
    if (has_type + has_type_attr != 1) {
      return OpDefError(op_def, "Exactly one of type, type_attr must be set", suffix);
    }
  } else if (has_type + has_type_attr + has_type_list_attr != 1) {
    return OpDefError(op_def,
                      "Exactly one of type, type_attr, type_list_attr must be set",
                      suffix);
  }

  if (has_type_attr) {
    const OpDef::AttrDef* attr = FindAttr(arg.type_attr(), op_def);
    if (attr == nullptr) {
      return OpDefError(op_def, "No attr with name '", arg.type_attr(), "'", suffix);
    }
    if (attr->type() != "type") {
      return OpDefError(op_def, "Attr '", attr->name(), "' used as type_attr", suffix,
                        " has type ", attr->type(), " != type");
    }
  } else if (has_type_list_attr) {
    const OpDef::AttrDef* attr = FindAttr(arg.type_list_attr(), op_def);
    if (attr == nullptr) {
      return OpDefError(op_def, "No attr with name '", arg.type_list_attr(), "'",
                        suffix);
    }
    if (attr->type() != "list(type)") {
      return OpDefError(op_def, "Attr '", attr->name(), "' used as type_list_attr",
                        suffix, " has type ", attr->type(), " != list(type)");
    }
  } else if (IsRefType(arg.type())) {
    // A ref arg is written with is_ref and its base type.
    return OpDefError(op_def, "Illegal use of ref type '", DataTypeString(arg.type()),
                      "'. Use 'Ref(type)' instead", suffix);
  } else if (!DataTypeIsValid(arg.type())) {
    return OpDefError(op_def, "Invalid DataType enum ", static_cast<int>(arg.type()),
                      suffix);
  }
  return OkStatus();
}

}  // namespace

Status ValidateOpDef(const OpDef& op_def) {
  if (!StartsWith(op_def.name(), "_") && !IsValidOpName(op_def.name())) {
    return OpDefError(op_def, "Invalid name: ", op_def.name(),
                      " (Did you use CamelCase?)");
  }

  std::unordered_set<std::string> names;
  for (const OpDef::AttrDef& attr : op_def.attr()) {
    if (!names.insert(attr.name()).second) {
      return OpDefError(op_def, "Duplicate name: ", attr.name());
    }
    DataType dt;
    if (DataTypeFromString(attr.name(), &dt)) {
      return OpDefError(op_def, "Attr can't have name ", attr.name(),
                        " that matches a data type");
    }

    // The type: a known base type, or list(<known base type>).
    std::string_view type = attr.type();
    const bool is_list = StartsWith(type, "list(");
    if (is_list) type.remove_prefix(5);
    bool found = false;
    for (std::string_view valid :
         {"string", "int", "float", "bool", "type", "shape", "tensor", "func"}) {
      if (StartsWith(type, valid)) {
        type.remove_prefix(valid.size());
        found = true;
        break;
      }
    }
    if (!found) {
      return OpDefError(op_def, "Unrecognized type '", type, "' in attr '",
                        attr.name(), "'");
    }
    if (is_list) {
      if (!StartsWith(type, ")")) {
        return OpDefError(op_def, "'list(' is missing ')' in attr ", attr.name(),
                          "'s type ", attr.type());
      }
      type.remove_prefix(1);
    }
    if (!type.empty()) {
      return OpDefError(op_def, "Extra '", type, "' at the end of attr ", attr.name(),
                        "'s type ", attr.type());
    }

    if (attr.has_minimum()) {
      if (attr.type() != "int" && !is_list) {
        return OpDefError(op_def, "Attr '", attr.name(),
                          "' has minimum for unsupported type ", attr.type());
      }
      if (is_list && attr.minimum() < 0) {
        return OpDefError(op_def, "Attr '", attr.name(),
                          "' with list type must have a non-negative minimum, not ",
                          attr.minimum());
      }
    } else if (attr.minimum() != 0) {
      return OpDefError(op_def, "Attr '", attr.name(),
                        "' with has_minimum = false but minimum ", attr.minimum(),
                        " not equal to default of 0");
    }

    if (attr.has_allowed_values()) {
      const std::string list_type =
          is_list ? attr.type() : StrCat("list(", attr.type(), ")");
      OPKIT_RETURN_IF_ERROR(WithContext(AttrValueHasType(attr.allowed_values(), list_type),
                                        " for attr '", attr.name(), "' in Op '",
                                        op_def.name(), "'"));
    }

    // Last, so that ValidateAttrValue may rely on the rest of the attr.
    if (attr.has_default_value()) {
      OPKIT_RETURN_IF_ERROR(WithContext(ValidateAttrValue(attr.default_value(), attr),
                                        " in Op '", op_def.name(), "'"));
    }
  }

  for (const OpDef::ArgDef& arg : op_def.input_arg()) {
    OPKIT_RETURN_IF_ERROR(ValidateArg(arg, op_def, false, &names));
  }
  for (const OpDef::ArgDef& arg : op_def.output_arg()) {
    OPKIT_RETURN_IF_ERROR(ValidateArg(arg, op_def, true, &names));
  }
  return OkStatus();
}

Status CheckOpDeprecation(const OpDef& op_def, int graph_def_version) {
  if (!op_def.has_deprecation()) return OkStatus();
  const OpDeprecation& dep = op_def.deprecation();
  if (graph_def_version >= dep.version()) {
    return errors::Unimplemented("Op ", op_def.name(),
                                 " is not available in GraphDef version ",
                                 graph_def_version, ". It has been removed in version ",
                                 dep.version(), ". ", dep.explanation(), ".");
  }
  static mutex* mu = new mutex;
  static auto* warned = new std::set<std::string>;
  bool first_time;
  {
    mutex_lock lock(*mu);
    first_time = warned->insert(op_def.name()).second;
  }
  if (first_time) {
    OPKIT_LOG(WARNING) << "Op " << op_def.name() << " is deprecated."
                       << " It will cease to work in GraphDef version "
                       << dep.version() << ". " << dep.explanation() << ".";
  }
  return OkStatus();
}

namespace {

std::string SummarizeArgs(const google::protobuf::RepeatedPtrField<OpDef::ArgDef>& args) {
  std::string ret;
  for (const OpDef::ArgDef& arg : args) {
    if (!ret.empty()) ret += ", ";
    ret += arg.name();
    ret += ":";
    if (arg.is_ref()) ret += "Ref(";
    if (!arg.number_attr().empty()) {
      ret += arg.number_attr();
      ret += "*";
    }
    if (arg.type() != DT_INVALID) {
      ret += DataTypeString(arg.type());
    } else if (!arg.type_attr().empty()) {
      ret += arg.type_attr();
    } else {
      // TensorFlow prints nothing here; the list(type) attr's name says more.
      ret += arg.type_list_attr();
    }
    if (arg.is_ref()) ret += ")";
  }
  return ret;
}

}  // namespace

std::string SummarizeOpDef(const OpDef& op_def) {
  std::string ret = StrCat("Op<name=", op_def.name(), "; signature=",
                           SummarizeArgs(op_def.input_arg()), " -> ",
                           SummarizeArgs(op_def.output_arg()));
  for (const OpDef::AttrDef& attr : op_def.attr()) {
    ret += StrCat("; attr=", attr.name(), ":", attr.type());
    if (attr.has_default_value()) {
      ret += StrCat(",default=", SummarizeAttrValue(attr.default_value()));
    }
    if (attr.has_minimum()) ret += StrCat(",min=", attr.minimum());
    if (attr.has_allowed_values()) {
      ret += StrCat(",allowed=", SummarizeAttrValue(attr.allowed_values()));
    }
  }
  if (op_def.is_commutative()) ret += "; is_commutative=true";
  if (op_def.is_aggregate()) ret += "; is_aggregate=true";
  if (op_def.is_stateful()) ret += "; is_stateful=true";
  if (op_def.allows_uninitialized_input()) ret += "; allows_uninitialized_input=true";
  if (op_def.is_distributed_communication()) {
    ret += "; is_distributed_communication=true";
  }
  ret += ">";
  return ret;
}

// ---------------------------------------------------------------------------
// Backward compatibility.

namespace {

using AttrMap = std::unordered_map<std::string, const OpDef::AttrDef*>;

AttrMap MakeAttrMap(const OpDef& op_def) {
  AttrMap map;
  for (const OpDef::AttrDef& attr : op_def.attr()) map[attr.name()] = &attr;
  return map;
}

const OpDef::AttrDef* Lookup(const AttrMap& map, const std::string& name) {
  auto it = map.find(name);
  return it == map.end() ? nullptr : it->second;
}

template <typename Range>
bool IsSubsetOf(const Range& sub, const Range& super) {
  for (const auto& x : sub) {
    if (std::find(super.begin(), super.end(), x) == super.end()) return false;
  }
  return true;
}

// Whether `new_attr` refuses a value `old_attr` allowed.
bool MoreRestrictive(const OpDef::AttrDef& old_attr, const OpDef::AttrDef& new_attr) {
  if (!new_attr.has_allowed_values()) return false;
  if (!old_attr.has_allowed_values()) return true;
  return !IsSubsetOf(old_attr.allowed_values().list().type(),
                     new_attr.allowed_values().list().type()) ||
         !IsSubsetOf(old_attr.allowed_values().list().s(),
                     new_attr.allowed_values().list().s());
}

bool HigherMinimum(const OpDef::AttrDef& old_attr, const OpDef::AttrDef& new_attr) {
  if (!new_attr.has_minimum()) return false;
  if (!old_attr.has_minimum()) return true;
  return new_attr.minimum() > old_attr.minimum();
}

std::string AllowedStr(const OpDef::AttrDef& attr) {
  if (!attr.has_allowed_values()) return "no restriction";
  return SummarizeAttrValue(attr.allowed_values());
}

std::string MinStr(const OpDef::AttrDef& attr) {
  if (!attr.has_minimum()) return "no minimum";
  return StrCat(attr.minimum());
}

std::string DefaultAttrStr(const OpDef::AttrDef& attr) {
  if (!attr.has_default_value()) return "no default";
  return SummarizeAttrValue(attr.default_value());
}

// The arg list of one side written so that a compatible old and new OpDef
// give the same text: attrs both sides have appear by name, attrs only the
// new side has are replaced by their defaults ("T" defaulting to int32 reads
// "int32"; "N * int32" with N defaulting to 2 reads "int32, int32").
// `is_ref` gets one entry per tensor. Requires every attr only `new_attrs`
// has to have a default of its type (OpDefCompatible checks that first).
std::string ArgSignature(const google::protobuf::RepeatedPtrField<OpDef::ArgDef>& args,
                         const AttrMap& old_attrs, const AttrMap& new_attrs,
                         bool with_names, std::vector<bool>* is_ref) {
  std::vector<std::string> parts;
  auto add = [&](const OpDef::ArgDef& arg, const std::string& type) {
    parts.push_back(with_names ? StrCat(arg.name(), ":", type) : type);
    is_ref->push_back(arg.is_ref());
  };
  for (const OpDef::ArgDef& arg : args) {
    if (!arg.type_list_attr().empty()) {
      if (Lookup(old_attrs, arg.type_list_attr()) != nullptr) {
        add(arg, arg.type_list_attr());
        continue;
      }
      const OpDef::AttrDef* new_attr = Lookup(new_attrs, arg.type_list_attr());
      if (new_attr == nullptr) {
        add(arg, StrCat("<unknown attr '", arg.type_list_attr(), "'>"));
        continue;
      }
      for (int t : new_attr->default_value().list().type()) {
        add(arg, DataTypeString(static_cast<DataType>(t)));
      }
      continue;
    }

    int64_t count = 1;
    std::string type;
    if (!arg.number_attr().empty()) {
      if (Lookup(old_attrs, arg.number_attr()) != nullptr) {
        type = StrCat(arg.number_attr(), " * ");
      } else if (const OpDef::AttrDef* new_attr = Lookup(new_attrs, arg.number_attr())) {
        count = new_attr->default_value().i();
      } else {
        type = StrCat("<unknown attr '", arg.number_attr(), "'> * ");
      }
    }
    if (arg.type() != DT_INVALID) {
      type += DataTypeString(arg.type());
    } else if (Lookup(old_attrs, arg.type_attr()) != nullptr) {
      type += arg.type_attr();
    } else if (const OpDef::AttrDef* new_attr = Lookup(new_attrs, arg.type_attr())) {
      type += DataTypeString(new_attr->default_value().type());
    } else {
      type += StrCat("<unknown attr '", arg.type_attr(), "'>");
    }
    // A default length is a user-supplied number; a silly one must not make
    // this loop run for ever. No real op has thousands of tensors in one arg.
    constexpr int64_t kMaxExpanded = 4096;
    if (count > kMaxExpanded) {
      add(arg, StrCat(count, " * ", type));
      continue;
    }
    for (int64_t i = 0; i < count; ++i) add(arg, type);
  }
  return StrJoin(parts, ", ");
}

}  // namespace

Status OpDefCompatible(const OpDef& old_op, const OpDef& new_op) {
  auto incompatible = [&](const auto&... why) {
    return errors::InvalidArgument("Incompatible Op change: ", why...,
                                   "; old: ", SummarizeOpDef(old_op),
                                   "; new: ", SummarizeOpDef(new_op));
  };

  if (old_op.name() != new_op.name()) return incompatible("Name mismatch");

  const AttrMap old_attrs = MakeAttrMap(old_op);
  const AttrMap new_attrs = MakeAttrMap(new_op);
  for (const OpDef::AttrDef& old_attr : old_op.attr()) {
    const OpDef::AttrDef* new_attr = Lookup(new_attrs, old_attr.name());
    if (new_attr == nullptr) {
      return incompatible("Attr '", old_attr.name(), "' removed");
    }
    if (old_attr.type() != new_attr->type()) {
      return incompatible("Attr '", old_attr.name(), "' changed type '",
                          old_attr.type(), "' -> '", new_attr->type(), "'");
    }
    if (MoreRestrictive(old_attr, *new_attr)) {
      return incompatible("Attr '", old_attr.name(),
                          "' has a stricter set of allowed values; from ",
                          AllowedStr(old_attr), " to ", AllowedStr(*new_attr));
    }
    if (HigherMinimum(old_attr, *new_attr)) {
      return incompatible("Attr '", old_attr.name(), "' has a higher minimum; from ",
                          MinStr(old_attr), " to ", MinStr(*new_attr));
    }
  }
  for (const OpDef::AttrDef& new_attr : new_op.attr()) {
    if (Lookup(old_attrs, new_attr.name()) == nullptr &&
        !new_attr.has_default_value()) {
      return incompatible("Attr '", new_attr.name(), "' added without default");
    }
  }

  std::vector<bool> old_in_ref, new_in_ref, old_out_ref, new_out_ref;
  const std::string old_in_sig =
      ArgSignature(old_op.input_arg(), old_attrs, new_attrs, false, &old_in_ref);
  const std::string new_in_sig =
      ArgSignature(new_op.input_arg(), old_attrs, new_attrs, false, &new_in_ref);
  if (old_in_sig != new_in_sig) {
    return incompatible("Input signature mismatch '", old_in_sig, "' vs. '",
                        new_in_sig, "'");
  }
  if (old_in_ref.size() != new_in_ref.size()) {
    return incompatible("Unexpected change in input ref lists.");
  }
  for (size_t i = 0; i < old_in_ref.size(); ++i) {
    // Dropping "ref" from an input is fine: a ref can always be read.
    if (!old_in_ref[i] && new_in_ref[i]) {
      return incompatible("Input ", i, " changed from non-ref to ref");
    }
  }

  const std::string old_out_sig =
      ArgSignature(old_op.output_arg(), old_attrs, new_attrs, true, &old_out_ref);
  const std::string new_out_sig =
      ArgSignature(new_op.output_arg(), old_attrs, new_attrs, true, &new_out_ref);
  if (old_out_sig != new_out_sig) {
    return incompatible("Output signature mismatch '", old_out_sig, "' vs. '",
                        new_out_sig, "'");
  }
  if (old_out_ref.size() != new_out_ref.size()) {
    return incompatible("Unexpected change in output ref lists");
  }
  for (size_t i = 0; i < old_out_ref.size(); ++i) {
    // Adding "ref" to an output is fine: consumers may read it as a value.
    if (old_out_ref[i] && !new_out_ref[i]) {
      return incompatible("Output ", i, " changed from ref to non-ref");
    }
  }
  return OkStatus();
}

Status OpDefAddedDefaultsUnchanged(const OpDef& old_op, const OpDef& penultimate_op,
                                   const OpDef& new_op) {
  const AttrMap old_attrs = MakeAttrMap(old_op);
  const AttrMap new_attrs = MakeAttrMap(new_op);
  for (const OpDef::AttrDef& penultimate_attr : penultimate_op.attr()) {
    if (Lookup(old_attrs, penultimate_attr.name()) != nullptr) continue;
    const OpDef::AttrDef* new_attr = Lookup(new_attrs, penultimate_attr.name());
    if (new_attr == nullptr) {
      return errors::InvalidArgument("Missing attr '", penultimate_attr.name(),
                                     "' in op: ", SummarizeOpDef(new_op));
    }
    if (!penultimate_attr.has_default_value() || !new_attr->has_default_value()) {
      return errors::InvalidArgument("Missing default for attr '",
                                     penultimate_attr.name(),
                                     "' in op: ", SummarizeOpDef(new_op));
    }
    if (!AreAttrValuesEqual(penultimate_attr.default_value(),
                            new_attr->default_value())) {
      return errors::InvalidArgument(
          "Can't change default value for attr '", penultimate_attr.name(), "' from ",
          SummarizeAttrValue(penultimate_attr.default_value()),
          " in op: ", SummarizeOpDef(new_op));
    }
  }
  return OkStatus();
}

Status OpDefAttrDefaultsUnchanged(const OpDef& old_op, const OpDef& new_op) {
  const AttrMap new_attrs = MakeAttrMap(new_op);
  for (const OpDef::AttrDef& old_attr : old_op.attr()) {
    const OpDef::AttrDef* new_attr = Lookup(new_attrs, old_attr.name());
    if (new_attr == nullptr || !old_attr.has_default_value()) continue;
    if (!new_attr->has_default_value()) {
      return errors::InvalidArgument("Attr '", old_attr.name(),
                                     "' has removed it's default; from ",
                                     DefaultAttrStr(old_attr), " to ",
                                     DefaultAttrStr(*new_attr));
    }
    if (!AreAttrValuesEqual(old_attr.default_value(), new_attr->default_value())) {
      return errors::InvalidArgument("Attr '", old_attr.name(),
                                     "' has changed it's default value; from ",
                                     DefaultAttrStr(old_attr), " to ",
                                     DefaultAttrStr(*new_attr));
    }
  }
  return OkStatus();
}

void RemoveNonDeprecationDescriptionsFromOpDef(OpDef* op_def) {
  for (OpDef::ArgDef& arg : *op_def->mutable_input_arg()) arg.clear_description();
  for (OpDef::ArgDef& arg : *op_def->mutable_output_arg()) arg.clear_description();
  for (OpDef::AttrDef& attr : *op_def->mutable_attr()) attr.clear_description();
  op_def->clear_summary();
  op_def->clear_description();
}

void RemoveDescriptionsFromOpDef(OpDef* op_def) {
  RemoveNonDeprecationDescriptionsFromOpDef(op_def);
  if (op_def->has_deprecation()) op_def->mutable_deprecation()->clear_explanation();
}

void RemoveDescriptionsFromOpList(OpList* op_list) {
  for (OpDef& op_def : *op_list->mutable_op()) RemoveDescriptionsFromOpDef(&op_def);
}

// ---------------------------------------------------------------------------
// Equality and hashing.

namespace {

using internal::HashBytes;
using internal::HashCombine;

std::string Serialized(const google::protobuf::Message& m) {
  return internal::DeterministicSerialization(m);
}

bool RepeatedAttrDefEqual(const google::protobuf::RepeatedPtrField<OpDef::AttrDef>& a1,
                          const google::protobuf::RepeatedPtrField<OpDef::AttrDef>& a2) {
  if (a1.size() != a2.size()) return false;
  std::unordered_map<std::string, const OpDef::AttrDef*> by_name;
  for (const OpDef::AttrDef& def : a1) {
    // Duplicate names make the OpDef invalid; such lists are unequal to
    // everything but an identical list.
    if (!by_name.emplace(def.name(), &def).second) {
      return std::equal(a1.begin(), a1.end(), a2.begin(),
                        [](const OpDef::AttrDef& x, const OpDef::AttrDef& y) {
                          return AttrDefEqual(x, y);
                        });
    }
  }
  for (const OpDef::AttrDef& def : a2) {
    auto it = by_name.find(def.name());
    if (it == by_name.end() || !AttrDefEqual(*it->second, def)) return false;
    by_name.erase(it);
  }
  return by_name.empty();
}

std::vector<std::string> SortedControlOutputs(const OpDef& o) {
  std::vector<std::string> v(o.control_output().begin(), o.control_output().end());
  std::sort(v.begin(), v.end());
  return v;
}

}  // namespace

bool AttrDefEqual(const OpDef::AttrDef& a1, const OpDef::AttrDef& a2) {
  return a1.name() == a2.name() && a1.type() == a2.type() &&
         a1.description() == a2.description() &&
         a1.has_minimum() == a2.has_minimum() &&
         (!a1.has_minimum() || a1.minimum() == a2.minimum()) &&
         AreAttrValuesEqual(a1.default_value(), a2.default_value()) &&
         AreAttrValuesEqual(a1.allowed_values(), a2.allowed_values());
}

uint64_t AttrDefHash(const OpDef::AttrDef& a) {
  uint64_t h = HashBytes(a.name(), 0);
  h = HashBytes(a.type(), h);
  h = HashCombine(h, AttrValueHash(a.default_value()));
  h = HashBytes(a.description(), h);
  h = HashCombine(h, static_cast<uint64_t>(a.has_minimum()));
  // AttrDefEqual ignores the minimum when has_minimum is false.
  h = HashCombine(h, a.has_minimum() ? static_cast<uint64_t>(a.minimum()) : 0);
  h = HashCombine(h, AttrValueHash(a.allowed_values()));
  return h;
}

bool OpDefEqual(const OpDef& o1, const OpDef& o2) {
  if (!RepeatedAttrDefEqual(o1.attr(), o2.attr())) return false;
  if (SortedControlOutputs(o1) != SortedControlOutputs(o2)) return false;
  OpDef c1 = o1;
  OpDef c2 = o2;
  c1.clear_attr();
  c1.clear_control_output();
  c2.clear_attr();
  c2.clear_control_output();
  return Serialized(c1) == Serialized(c2);
}

uint64_t OpDefHash(const OpDef& o) {
  std::vector<const OpDef::AttrDef*> attrs;
  for (const OpDef::AttrDef& a : o.attr()) attrs.push_back(&a);
  std::sort(attrs.begin(), attrs.end(),
            [](const OpDef::AttrDef* x, const OpDef::AttrDef* y) {
              return x->name() < y->name();
            });
  uint64_t h = 0xDECAFCAFFEULL;
  for (const OpDef::AttrDef* a : attrs) {
    h = HashBytes(a->name(), h);
    h = HashCombine(h, AttrDefHash(*a));
  }
  for (const std::string& co : SortedControlOutputs(o)) h = HashBytes(co, h);
  OpDef rest = o;
  rest.clear_attr();
  rest.clear_control_output();
  return HashBytes(Serialized(rest), h);
}

}  // namespace opkit
