#include "tools/opkit/cli_common.h"

#include <fnmatch.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <iostream>
#include <string>

#include "opkit/core/errors.h"
#include "opkit/core/str_util.h"

namespace opkit {
namespace cli {
namespace {

const FlagSpec* FindFlag(const CommandSpec& spec, std::string_view name) {
  for (const FlagSpec& f : spec.flags) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

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

std::string ParsedArgs::Get(const std::string& name,
                            const std::string& fallback) const {
  auto it = flags.find(name);
  if (it == flags.end() || it->second.empty()) return fallback;
  return it->second.back();
}

const std::vector<std::string>& ParsedArgs::GetAll(const std::string& name) const {
  static const std::vector<std::string>* const kEmpty = new std::vector<std::string>();
  auto it = flags.find(name);
  return it == flags.end() ? *kEmpty : it->second;
}

void AddCommonFlags(CommandSpec* spec) {
  if (FindFlag(*spec, "load") == nullptr) {
    spec->flags.push_back(
        {"load", "LIB", true, "load the op library LIB first (repeatable)"});
  }
}

Status ParseCommandArgs(const CommandSpec& spec,
                        const std::vector<std::string>& args, ParsedArgs* out) {
  *out = ParsedArgs();
  bool flags_done = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (flags_done || arg.size() < 2 || arg[0] != '-' ||
        (arg[1] != '-' && arg != "-h" &&
         (std::isdigit(static_cast<unsigned char>(arg[1])) || arg[1] == '.'))) {
      // "-" alone and negative numbers are positional.
      out->positional.push_back(arg);
      continue;
    }
    if (arg[1] != '-' && arg != "-h") {
      return errors::InvalidArgument("unknown option '", arg,
                                     "' (options are spelled --name)");
    }
    if (arg == "--") {
      flags_done = true;
      continue;
    }
    if (arg == "-h" || arg == "--help") {
      out->help = true;
      return OkStatus();
    }
    std::string name = arg.substr(2);
    std::string value;
    bool has_value = false;
    size_t eq = name.find('=');
    if (eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
      has_value = true;
    }
    const FlagSpec* flag = FindFlag(spec, name);
    if (flag == nullptr) {
      std::string best;
      size_t best_distance = 3;
      for (const FlagSpec& f : spec.flags) {
        size_t d = EditDistance(name, f.name);
        if (d < best_distance) {
          best_distance = d;
          best = f.name;
        }
      }
      return errors::InvalidArgument("unknown option '--", name, "'",
                                     best.empty() ? "" : "; did you mean '--" + best + "'?");
    }
    if (flag->value_name.empty()) {
      if (has_value) {
        return errors::InvalidArgument("option '--", name,
                                       "' takes no value (got '", value, "')");
      }
    } else if (!has_value) {
      if (i + 1 >= args.size()) {
        return errors::InvalidArgument("option '--", name, "' needs a value (",
                                       flag->value_name, ")");
      }
      value = args[++i];
    }
    auto& values = out->flags[name];
    if (!values.empty() && !flag->repeatable) {
      return errors::InvalidArgument("option '--", name,
                                     "' may be given only once");
    }
    values.push_back(value);
  }
  const int n = static_cast<int>(out->positional.size());
  if (n < spec.min_positional) {
    return errors::InvalidArgument("missing argument ", spec.positional_name);
  }
  if (spec.max_positional >= 0 && n > spec.max_positional) {
    return errors::InvalidArgument("unexpected argument '",
                                   out->positional[spec.max_positional], "'");
  }
  return OkStatus();
}

std::string CommandHelp(const CommandSpec& spec) {
  std::string out = "usage: " + spec.usage + "\n\n" + spec.summary + "\n";
  if (!spec.description.empty()) out += "\n" + spec.description + "\n";
  out += "\noptions:\n";
  std::vector<std::pair<std::string, std::string>> rows;
  for (const FlagSpec& f : spec.flags) {
    std::string left = "--" + f.name;
    if (!f.value_name.empty()) left += " " + f.value_name;
    rows.emplace_back(left, f.help);
  }
  rows.emplace_back("-h, --help", "show this help and exit");
  size_t width = 0;
  for (const auto& r : rows) width = std::max(width, r.first.size());
  for (const auto& r : rows) {
    out += "  " + r.first + std::string(width - r.first.size() + 2, ' ') +
           r.second + "\n";
  }
  out +=
      "\nexit status: 0 on success, 1 on an error (message on stderr), 2 on "
      "bad usage.\n";
  return out;
}

int ReportError(const Status& status) { return ReportError(status.message()); }

int ReportError(std::string_view message) {
  std::cout.flush();
  std::cerr << "opkit: error: " << OneLine(message) << "\n";
  return kExitError;
}

int ReportUsageError(const CommandSpec& spec, std::string_view message) {
  std::cout.flush();
  std::cerr << "opkit " << spec.name << ": error: " << OneLine(message) << "\n"
            << "usage: " << spec.usage << "\n"
            << "Try 'opkit " << spec.name << " --help' for more.\n";
  return kExitUsage;
}

void PrintJson(const nlohmann::json& value) {
  std::cout << value.dump(2, ' ', false, nlohmann::json::error_handler_t::replace)
            << "\n";
}

Status SplitNameValue(std::string_view flag, std::string_view text,
                      std::string* name, std::string* value) {
  size_t eq = text.find('=');
  if (eq == std::string_view::npos || eq == 0) {
    return errors::InvalidArgument("--", flag, " value '", text,
                                   "' is not of the form NAME=VALUE");
  }
  *name = std::string(text.substr(0, eq));
  *value = std::string(text.substr(eq + 1));
  return OkStatus();
}

Status ParseInt(std::string_view flag, std::string_view text, int64_t min,
                int64_t max, int64_t* out) {
  int64_t v = 0;
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  if (!text.empty() && text[0] == '+') ++begin;
  auto res = std::from_chars(begin, end, v);
  if (text.empty() || res.ec != std::errc() || res.ptr != end) {
    return errors::InvalidArgument("--", flag, " value '", text,
                                   "' is not an integer");
  }
  if (v < min || v > max) {
    return errors::InvalidArgument("--", flag, " value ", v,
                                   " is out of range; use a value in [", min,
                                   ", ", max, "]");
  }
  *out = v;
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
