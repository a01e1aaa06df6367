// Error reporting, option conventions on CLI11, output and text helpers
// shared by the `opkit` commands (see cli_common.h).
#include "tools/opkit/cli_common.h"

#include <fnmatch.h>

#include <algorithm>
#include <iostream>
#include <string>

#include "CLI/CLI.hpp"
#include "opkit/core/errors.h"
#include "opkit/core/str_util.h"
#include "opkit/op/attr_value_util.h"

namespace opkit {
namespace cli {
namespace {

std::string OneLine(std::string_view message) {
  std::string out;
  bool space = false;
  for (char c : message) {
    if (c == '\n' || c == '\t' || c == '\r' || c == ' ') {
      space = true;
      continue;
    }
    if (space && !out.empty()) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

}  // namespace

int ReportError(const Status& status) { return ReportError(status.message()); }

int ReportError(std::string_view message) {
  std::cout.flush();
  std::cerr << "opkit: error: " << OneLine(message) << "\n";
  return kExitError;
}

int ReportUsageError(const CommandText& text, std::string_view message) {
  std::cout.flush();
  std::cerr << "opkit " << text.name << ": error: " << OneLine(message) << "\n"
            << "usage: " << text.usage << "\n"
            << "Try 'opkit " << text.name << " --help' for more.\n";
  return kExitUsage;
}

CLI::Option* AddFlag(CLI::App& app, const std::string& name, bool* value,
                     const std::string& help) {
  return app.add_flag("--" + name, *value, help)
      ->disable_flag_override()
      ->multi_option_policy(CLI::MultiOptionPolicy::Throw);
}

CLI::Option* AddValue(CLI::App& app, const std::string& name, std::string* value,
                      const std::string& value_name, const std::string& help) {
  return app.add_option("--" + name, *value, help)
      ->type_name(value_name)
      ->multi_option_policy(CLI::MultiOptionPolicy::Throw);
}

CLI::Option* AddRepeatable(CLI::App& app, const std::string& name,
                           std::vector<std::string>* values,
                           const std::string& value_name, const std::string& help) {
  // One value per occurrence: `--fetch y z` leaves z to the positionals.
  return app.add_option("--" + name, *values, help)
      ->type_name(value_name)
      ->allow_extra_args(false);
}

CLI::Option* AddInt(CLI::App& app, const std::string& name, int64_t* value,
                    int64_t min, int64_t max, const std::string& value_name,
                    const std::string& help) {
  // The check reads the text as attr int values are read and leaves it in
  // canonical form for CLI11's conversion to int64.
  CLI::Validator in_range(
      [min, max](std::string& text) -> std::string {
        AttrValue v;
        Status s = ParseAttrValue("int", text, AttrTextSyntax::kShorthand, &v);
        if (!s.ok()) return "value " + s.message();
        if (v.i() < min || v.i() > max) {
          return StrCat("value ", v.i(), " is out of range; use a value in [", min, ", ",
                        max, "]");
        }
        text = std::to_string(v.i());
        return std::string();
      },
      /*validator_desc=*/"");
  return app.add_option("--" + name, *value, help)
      ->type_name(value_name)
      ->multi_option_policy(CLI::MultiOptionPolicy::Throw)
      ->check(in_range);
}

void PrintJson(const nlohmann::json& value) {
  std::cout << value.dump(2, ' ', false, nlohmann::json::error_handler_t::replace)
            << "\n";
}

void PrintTable(const std::vector<std::vector<std::string>>& rows,
                const std::string& indent) {
  std::vector<size_t> width;
  for (const auto& row : rows) {
    if (width.size() < row.size()) width.resize(row.size(), 0);
    for (size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  }
  for (const auto& row : rows) {
    std::string line = indent;
    for (size_t i = 0; i < row.size(); ++i) {
      line += row[i];
      if (i + 1 < row.size()) line += std::string(width[i] - row[i].size() + 2, ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    std::cout << line << "\n";
  }
}

Status SplitNameValue(std::string_view flag, std::string_view form,
                      std::string_view text, std::string* name, std::string* value) {
  size_t eq = text.find('=');
  if (eq == std::string_view::npos || eq == 0) {
    return errors::InvalidArgument("--", flag, " value '", text,
                                   "' is not of the form ", form);
  }
  *name = std::string(text.substr(0, eq));
  *value = std::string(text.substr(eq + 1));
  return OkStatus();
}

bool GlobMatch(const std::string& pattern, const std::string& text) {
  return fnmatch(pattern.c_str(), text.c_str(), 0) == 0;
}

size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t prev = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t cur = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, prev + (a[i - 1] == b[j - 1] ? 0 : 1)});
      prev = cur;
    }
  }
  return row[b.size()];
}

std::string ClosestName(std::string_view name, const std::vector<std::string>& names) {
  std::string best;
  size_t best_distance = 3;
  for (const std::string& candidate : names) {
    const size_t d = EditDistance(name, candidate);
    if (d < best_distance) {
      best_distance = d;
      best = candidate;
    }
  }
  return best;
}

std::string SanitizeFileName(std::string_view name) {
  std::string out(name);
  for (char& c : out) {
    if (c == ':' || c == '/') c = '_';
  }
  if (out.empty() || out == "." || out == "..") out = "_" + out;
  return out;
}

}  // namespace cli
}  // namespace opkit
