// Node names and input strings: which are valid ("a", "a:1", "^b",
// "Project>n"), ValidateExternalNodeDefSyntax, and TensorId /
// ParseTensorName. Declared in node_def_util.h.
#include <algorithm>
#include <climits>
#include <string>
#include <string_view>

#include "opkit/core/errors.h"
#include "opkit/core/str_util.h"
#include "opkit/op/internal/node_def_helpers.h"
#include "opkit/op/node_def_util.h"

namespace opkit {
namespace {

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

}  // namespace opkit
