// A NodeDef against its OpDef: AddDefaultsToNodeDef fills in the op's attr
// defaults, ValidateNodeDef checks the op name, input order, attrs and the
// number of inputs. Declared in node_def_util.h.
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "opkit/core/errors.h"
#include "opkit/core/str_util.h"
#include "opkit/op/internal/node_def_helpers.h"
#include "opkit/op/node_def_util.h"
#include "opkit/op/op_def_util.h"

namespace opkit {

using internal::ArgTypes;
using internal::NameNode;
using internal::SortedAttrs;
using internal::WithContext;

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
  return ValidateNodeDef(node_def, op_def, nullptr);
}

Status ValidateNodeDef(const NodeDef& node_def, const OpDef& op_def,
                       NodeSignature* signature) {
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

  // Validate the number of inputs against what the attrs imply; the types
  // and ranges worked out for that are the caller's (Note [Validate once]).
  const AttrSlice attrs(node_def);
  NodeSignature local;
  NodeSignature* sig = signature != nullptr ? signature : &local;
  sig->input_types.clear();
  sig->output_types.clear();
  NameRangeMap* input_ranges = signature != nullptr ? &sig->input_ranges : nullptr;
  NameRangeMap* output_ranges = signature != nullptr ? &sig->output_ranges : nullptr;
  const DataTypeVector& inputs = sig->input_types;
  OPKIT_RETURN_IF_ERROR(
      NameNode(attrs, ArgTypes(attrs, op_def, true, &sig->input_types, input_ranges)));
  OPKIT_RETURN_IF_ERROR(
      NameNode(attrs, ArgTypes(attrs, op_def, false, &sig->output_types, output_ranges)));
  if (num_inputs != static_cast<int64>(inputs.size())) {
    return errors::InvalidArgument(
        "NodeDef expected inputs '", DataTypeSliceString(inputs), "' do not match ",
        num_inputs, " inputs specified; ", SummarizeOpDef(op_def),
        "; NodeDef: ", FormatNodeDefForError(node_def));
  }
  return OkStatus();
}

}  // namespace opkit
