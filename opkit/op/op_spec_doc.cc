// The Doc() text of an op: the summary line, the description, and the
// "<name>: <text>" paragraphs that describe its inputs, outputs and attrs.
#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "opkit/core/str_util.h"
#include "opkit/op/internal/op_spec_parsers.h"
#include "opkit/op/internal/op_spec_scanner.h"

namespace opkit {
namespace internal {
namespace {

size_t LeadingSpaces(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && s[i] == ' ') ++i;
  return i;
}

bool IsDocNameColon(std::string_view s) {
  return ConsumeNameColon(&s, IsLetter, IsLetterDigitUnderscore, nullptr);
}

std::vector<std::string> SplitLines(std::string_view text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (true) {
    const size_t nl = text.find('\n', start);
    if (nl == std::string_view::npos) {
      lines.emplace_back(text.substr(start));
      break;
    }
    lines.emplace_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  return lines;
}

}  // namespace

void FinalizeDoc(const std::string& text, OpDef* op_def,
                 std::vector<std::string>* errors) {
  std::vector<std::string> lines = SplitLines(text);
  for (std::string& line : lines) StripTrailingSpaces(&line);

  // The first non-blank line is the summary.
  size_t l = 0;
  while (l < lines.size() && lines[l].empty()) ++l;
  if (l < lines.size()) {
    op_def->set_summary(lines[l]);
    ++l;
  }
  while (l < lines.size() && lines[l].empty()) ++l;

  // Then everything up to the first "name:" line is the description.
  const size_t start_l = l;
  while (l < lines.size() && !IsDocNameColon(lines[l])) ++l;
  size_t end_l = l;
  while (start_l < end_l && lines[end_l - 1].empty()) --end_l;
  std::string desc;
  for (size_t i = start_l; i < end_l; ++i) {
    if (i > start_l) desc += "\n";
    desc += lines[i];
  }
  if (!desc.empty()) op_def->set_description(desc);

  // Then "name: text" paragraphs; continuation lines lose their common
  // indentation.
  while (l < lines.size()) {
    std::vector<std::string_view> paragraph;
    std::string_view first = lines[l];
    std::string_view name;
    ConsumeNameColon(&first, IsLetter, IsLetterDigitUnderscore, &name);
    paragraph.push_back(first);
    ++l;
    while (l < lines.size() && !IsDocNameColon(lines[l])) {
      paragraph.emplace_back(lines[l]);
      ++l;
    }
    while (!paragraph.empty() && paragraph.back().empty()) paragraph.pop_back();
    size_t min_indent = std::string_view::npos;
    for (size_t i = 1; i < paragraph.size(); ++i) {
      if (!paragraph[i].empty()) {
        min_indent = std::min(min_indent, LeadingSpaces(paragraph[i]));
      }
    }
    std::string complete;
    for (size_t i = 0; i < paragraph.size(); ++i) {
      std::string_view line = paragraph[i];
      if (i > 0) {
        complete += "\n";
        if (!line.empty()) line.remove_prefix(min_indent);
      }
      complete += line;
    }

    bool found = false;
    for (auto& arg : *op_def->mutable_input_arg()) {
      if (!found && arg.name() == name) {
        arg.set_description(complete);
        found = true;
      }
    }
    for (auto& arg : *op_def->mutable_output_arg()) {
      if (!found && arg.name() == name) {
        arg.set_description(complete);
        found = true;
      }
    }
    for (auto& attr : *op_def->mutable_attr()) {
      if (!found && attr.name() == name) {
        attr.set_description(complete);
        found = true;
      }
    }
    if (!found) {
      errors->push_back(StrCat("No matching input/output/attr for name '",
                               name, "' from Doc() for Op ", op_def->name()));
      return;
    }
  }
}

}  // namespace internal
}  // namespace opkit
