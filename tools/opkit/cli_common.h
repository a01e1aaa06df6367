// What every `opkit` command shares: its description (usage line, help
// text, flags), the small argument parser, exit codes, error reporting and
// JSON output.
//
//   const CommandSpec& spec = OpsCommandSpec();
//   ParsedArgs args;
//   Status s = ParseCommandArgs(spec, argv_tail, &args);
//   if (!s.ok()) return ReportUsageError(spec, s.message());   // exit 2
//   if (args.Has("json")) PrintJson(value);
//   ...
//   return ReportError(status);                                 // exit 1
//
// Flags are `--name VALUE`, `--name=VALUE` or, for a boolean flag, `--name`;
// `--` ends the flags; `-h`/`--help` asks for help. Flags and positional
// arguments may be mixed in any order.
//
// Not thread-safe (a command line tool's main thread).
#ifndef OPKIT_TOOLS_OPKIT_CLI_COMMON_H_
#define OPKIT_TOOLS_OPKIT_CLI_COMMON_H_

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "nlohmann/json.hpp"
#include "opkit/core/status.h"

namespace opkit {
namespace cli {

// Exit statuses of the program.
enum ExitCode : int {
  kExitOk = 0,
  // A user error: a bad value, a missing file, an unknown op, a failed run;
  // one line on stderr says what and what to do.
  kExitError = 1,
  // Bad usage: an unknown command or flag, a missing argument; the usage
  // line follows the message.
  kExitUsage = 2,
};

// One flag a command accepts.
struct FlagSpec {
  // Without the dashes: "attr" for --attr.
  std::string name;
  // What the value is called in help ("NAME=VALUE"); empty for a boolean
  // flag, which takes no value.
  std::string value_name;
  // Whether it may be given more than once.
  bool repeatable = false;
  // One line of help.
  std::string help;
};

// Everything the parser and the help printer need to know about a command.
struct CommandSpec {
  std::string name;
  // The usage line without "usage: " ("opkit ops [PATTERN] [--json]").
  std::string usage;
  // One line for the command list of `opkit --help`.
  std::string summary;
  // Paragraphs printed after the usage line by --help.
  std::string description;
  std::vector<FlagSpec> flags;
  // How many positional arguments are allowed (-1: no limit), and what
  // they are called for the "missing argument" message.
  int min_positional = 0;
  int max_positional = 0;
  std::string positional_name;
};

// The result of parsing one command's arguments.
struct ParsedArgs {
  std::vector<std::string> positional;
  // Flag name -> its values in order (a boolean flag has one empty value).
  std::map<std::string, std::vector<std::string>> flags;
  // -h or --help was given.
  bool help = false;

  bool Has(const std::string& name) const { return flags.count(name) > 0; }
  // The last value of `name`, or `fallback` when absent.
  std::string Get(const std::string& name, const std::string& fallback = "") const;
  // Every value of `name` (empty when absent).
  const std::vector<std::string>& GetAll(const std::string& name) const;
};

// The flags every command accepts: --load LIB (repeatable).
void AddCommonFlags(CommandSpec* spec);

// Parses `args` (the words after the command name) against `spec`.
// InvalidArgument, with a message for the user, on an unknown flag, a
// missing flag value, a value given to a boolean flag, a non-repeatable flag
// given twice, or too few or too many positional arguments. With -h/--help
// anywhere, returns OK with `help` set and stops checking.
Status ParseCommandArgs(const CommandSpec& spec,
                        const std::vector<std::string>& args, ParsedArgs* out);

// The full --help text of `spec`.
std::string CommandHelp(const CommandSpec& spec);

// Prints "opkit: error: <message>" (one line: newlines in the message become
// spaces, runs of whitespace shrink) on stderr; returns kExitError.
int ReportError(const Status& status);
int ReportError(std::string_view message);
// Prints "opkit <command>: error: <message>", the usage line and a pointer
// to --help on stderr; returns kExitUsage.
int ReportUsageError(const CommandSpec& spec, std::string_view message);

// Writes `value` to stdout, indented, invalid UTF-8 replaced.
void PrintJson(const nlohmann::json& value);

// Splits "NAME=VALUE" at the first '='. InvalidArgument naming `flag` when
// there is no '=' or the name is empty.
Status SplitNameValue(std::string_view flag, std::string_view text,
                      std::string* name, std::string* value);

// Parses a whole decimal integer in [min, max]; InvalidArgument naming
// `flag` and `text` otherwise.
Status ParseInt(std::string_view flag, std::string_view text, int64_t min,
                int64_t max, int64_t* out);

// Whether `text` matches the shell glob `pattern` (*, ?, [...]).
bool GlobMatch(const std::string& pattern, const std::string& text);

// Levenshtein distance, for "did you mean" suggestions.
size_t EditDistance(std::string_view a, std::string_view b);

// Turns a fetch name into a file name: ':' and '/' become '_'.
std::string SanitizeFileName(std::string_view name);

}  // namespace cli
}  // namespace opkit

#endif  // OPKIT_TOOLS_OPKIT_CLI_COMMON_H_
