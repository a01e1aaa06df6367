// The types and index ranges of a node's inputs and outputs, computed from
// its attrs (op_def's defaults standing in for attrs the node leaves out):
// InputTypesForNode, OutputTypesForNode, NameRangesForNode and friends.
// Declared in node_def_util.h.
#include <string_view>

#include "opkit/core/errors.h"
#include "opkit/op/internal/node_def_helpers.h"
#include "opkit/op/node_def_util.h"
#include "opkit/op/op_def_util.h"

namespace opkit {
namespace {

using internal::NameNode;
using internal::WithContext;

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
  return internal::ReadAttrValue(*value, name, out);
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
  return internal::CheckTypeListAttr(**value, arg.type_list_attr());
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

}  // namespace

namespace internal {

Status ArgTypes(const AttrSlice& attrs, const OpDef& op_def, bool is_input,
                DataTypeVector* types, NameRangeMap* ranges) {
  if (ranges != nullptr) ranges->clear();
  // AddArgToSig caps the total at kMaxArgsPerNode, so the ints cannot wrap.
  const size_t base = types->size();
  const auto& args = is_input ? op_def.input_arg() : op_def.output_arg();
  for (const OpDef::ArgDef& arg : args) {
    const size_t start = types->size() - base;
    OPKIT_RETURN_IF_ERROR(AddArgToSig(attrs, op_def, arg, is_input, types));
    if (ranges != nullptr) {
      (*ranges)[arg.name()] = {static_cast<int>(start),
                               static_cast<int>(types->size() - base)};
    }
  }
  return OkStatus();
}

}  // namespace internal

namespace {

using internal::ArgTypes;

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

}  // namespace

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

}  // namespace opkit
