// What every `opkit` command shares: exit codes, error and usage reporting,
// the conventions its options follow on CLI11, JSON and table output, and
// small text helpers.
//
//   void RunCommand::AddOptions(CLI::App& app) {
//     AddRepeatable(app, "fetch", &fetches_, "NAME", "fetch tensor NAME (repeatable)");
//     AddInt(app, "repeat", &repeat_, 1, 1000000000, "N", "run N times");
//     AddFlag(app, "json", &json_, "print results as JSON");
//   }
//   ...
//   if (fetches_.empty()) return ReportUsageError(text(), "give a --fetch");  // exit 2
//   return ReportError(status);                                              // exit 1
//
// Not thread-safe (a command line tool's main thread).
#ifndef OPKIT_TOOLS_OPKIT_CLI_COMMON_H_
#define OPKIT_TOOLS_OPKIT_CLI_COMMON_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "nlohmann/json.hpp"
#include "opkit/core/status.h"

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace opkit {
namespace cli {

// Exit statuses of the program.
enum ExitCode : int {
  kExitOk = 0,
  // A user error: a bad value, a missing file, an unknown op, a failed run;
  // one line on stderr says what and what to do.
  kExitError = 1,
  // Bad usage: an unknown command or option, a missing argument; the usage
  // line follows the message.
  kExitUsage = 2,
};

// What a command's help and usage errors say about it.
struct CommandText {
  // "ops"
  std::string name;
  // The usage line without "usage: " ("opkit ops [PATTERN] [--json]").
  std::string usage;
  // One line for the command list of `opkit --help`.
  std::string summary;
  // Paragraphs printed after the usage line by --help.
  std::string description;
  // The positional arguments, as "missing argument ..." names them when a
  // required one is absent ("NAME (an op name, e.g. MatMul)").
  std::string arguments;
};

// Prints "opkit: error: <message>" (one line: newlines in the message become
// spaces, runs of whitespace shrink) on stderr; returns kExitError.
int ReportError(const Status& status);
int ReportError(std::string_view message);
// Prints "opkit <command>: error: <message>", the usage line and a pointer
// to --help on stderr; returns kExitUsage.
int ReportUsageError(const CommandText& text, std::string_view message);

// Options on CLI11, spelled and checked the same way by every command.
// Each is a long option only (--name); given twice it is a usage error,
// except AddRepeatable's; a value follows as --name VALUE or --name=VALUE.
//
// A flag: --name, no value (--name=x is a usage error).
CLI::Option* AddFlag(CLI::App& app, const std::string& name, bool* value,
                     const std::string& help);
// An option with one value, named `value_name` in help.
CLI::Option* AddValue(CLI::App& app, const std::string& name, std::string* value,
                      const std::string& value_name, const std::string& help);
// An option that may be given many times, one value each time, kept in
// order.
CLI::Option* AddRepeatable(CLI::App& app, const std::string& name,
                           std::vector<std::string>* values,
                           const std::string& value_name, const std::string& help);
// A whole decimal integer in [min, max]. A value outside that is a bad
// value (exit 1: "--repeat value 0 is out of range; use a value in [1,
// 1000000000]"), reported as a CLI::ValidationError.
CLI::Option* AddInt(CLI::App& app, const std::string& name, int64_t* value,
                    int64_t min, int64_t max, const std::string& value_name,
                    const std::string& help);

// Writes `value` to stdout, indented, invalid UTF-8 replaced.
void PrintJson(const nlohmann::json& value);

// Prints rows of cells as left-aligned columns two spaces apart, each line
// after `indent`, trailing spaces cut.
void PrintTable(const std::vector<std::vector<std::string>>& rows,
                const std::string& indent = "");

// Splits "NAME=VALUE" at the first '='. InvalidArgument naming `flag` and
// the `form` expected when there is no '=' or the name is empty ("--feed
// value 'x' is not of the form NAME=FILE.npy"), which is bad usage.
Status SplitNameValue(std::string_view flag, std::string_view form,
                      std::string_view text, std::string* name, std::string* value);

// Whether `text` matches the shell glob `pattern` (*, ?, [...]).
bool GlobMatch(const std::string& pattern, const std::string& text);

// Levenshtein distance, for "did you mean" suggestions.
size_t EditDistance(std::string_view a, std::string_view b);

// Of `names`, the one closest to `name` within an edit distance of 2, or
// "" when none is that close.
std::string ClosestName(std::string_view name, const std::vector<std::string>& names);

// Turns a fetch name into a file name: ':' and '/' become '_'.
std::string SanitizeFileName(std::string_view name);

}  // namespace cli
}  // namespace opkit

#endif  // OPKIT_TOOLS_OPKIT_CLI_COMMON_H_
