// Printing nodes, and naming them in messages: FormatNodeDefForError,
// SummarizeNodeDef, SummarizeAttrs, AttachDef. Declared in node_def_util.h.
#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "opkit/core/str_util.h"
#include "opkit/op/attr_value_util.h"
#include "opkit/op/internal/node_def_helpers.h"
#include "opkit/op/node_def_util.h"

namespace opkit {
namespace internal {

// Names the slice's node in a failure, unless the message names it already.
Status NameNode(const AttrSlice& attrs, const Status& s) {
  if (s.ok() || attrs.node_def() == nullptr) return s;
  const std::string formatted = FormatNodeDefForError(*attrs.node_def());
  if (s.message().find(formatted) != std::string::npos) return s;
  return AttachDef(s, *attrs.node_def());
}

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

}  // namespace internal

using internal::SortedAttrs;
using internal::SummarizeNodeWithAttrs;

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
