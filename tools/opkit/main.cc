// `opkit`: the command line of the opkit operator framework. CLI11 parses
// the global options, the command name and the command's own options (each
// command declares them, commands.h); main() reports what CLI11 refuses in
// opkit's words and runs the command. Run `opkit --help` for the list.
#include <exception>
#include <iostream>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/strings/match.h"
#include "opkit/core/env.h"
#include "opkit/core/logging.h"
#include "opkit/core/str_util.h"
#include "tools/opkit/cli_common.h"
#include "tools/opkit/commands.h"

namespace opkit {
namespace cli {
namespace {

constexpr char kVersion[] = "0.1.0";
constexpr char kMainUsage[] =
    "opkit [--load LIB]... COMMAND [ARGS...]\n"
    "       opkit help COMMAND | opkit COMMAND --help";
constexpr char kMainSummary[] =
    "Inspect ops and kernels, load op libraries, and run GraphDefs.";
constexpr char kExitStatus[] =
    "exit status: 0 on success, 1 on an error (message on stderr), 2 on bad usage.\n";

using Commands = std::vector<std::unique_ptr<Command>>;

Command* FindCommand(const Commands& commands, const std::string& name) {
  for (const auto& c : commands) {
    if (c->text().name == name) return c.get();
  }
  return nullptr;
}

int MainUsageError(const std::string& message) {
  std::cout.flush();
  std::cerr << "opkit: error: " << message << "\n"
            << "usage: " << kMainUsage << "\n"
            << "Try 'opkit --help' for the list of commands.\n";
  return kExitUsage;
}

int UnknownCommand(const Commands& commands, const std::string& name) {
  std::vector<std::string> names;
  for (const auto& c : commands) names.push_back(c->text().name);
  const std::string best = ClosestName(name, names);
  return MainUsageError("unknown command '" + name + "'" +
                        (best.empty() ? "" : "; did you mean '" + best + "'?"));
}

// The message for `word`, which CLI11 left over as no option of `app`.
std::string UnknownOption(const CLI::App& app, const std::string& word) {
  if (!absl::StartsWith(word, "--")) {
    return "unknown option '" + word + "' (options are spelled --name)";
  }
  const std::string name = word.substr(2, word.find('=') - 2);
  std::vector<std::string> names;
  for (const CLI::Option* opt : app.get_options()) {
    for (const std::string& n : opt->get_lnames()) names.push_back(n);
  }
  const std::string best = ClosestName(name, names);
  return "unknown option '--" + name + "'" +
         (best.empty() ? "" : "; did you mean '--" + best + "'?");
}

// CLI11 (2.1) begins the text of an error about an option with the
// option's name: "--device: 1 required DEV missing", "json was given a
// disallowed flag override", "--repeat: value 0 is out of range". Returns the
// option of `app` that `what` names, and in `*rest` the text after the name;
// nullptr when it names none.
const CLI::Option* OptionInError(const CLI::App& app, const std::string& what,
                                 std::string* rest) {
  for (const CLI::Option* opt : app.get_options()) {
    for (const std::string& name : opt->get_lnames()) {
      for (const std::string& prefix : {"--" + name + ": ", name + " "}) {
        if (absl::StartsWith(what, prefix)) {
          *rest = what.substr(prefix.size());
          return opt;
        }
      }
    }
  }
  return nullptr;
}

// Reports what CLI11 refused: a bad option value (ValidationError) is a
// user error, exit 1; the rest is bad usage, exit 2, worded as opkit words
// it (README) where CLI11's text names the option.
int ReportParseError(const CLI::App& app, const Commands& commands,
                     const CLI::ParseError& e) {
  const std::vector<CLI::App*> selected = app.get_subcommands();
  const CLI::App& where = selected.empty() ? app : *selected.front();
  const Command* command = selected.empty() ? nullptr : FindCommand(commands, where.get_name());
  auto usage_error = [&](const std::string& message) {
    return command != nullptr ? ReportUsageError(command->text(), message)
                              : MainUsageError(message);
  };
  if (dynamic_cast<const CLI::RequiredError*>(&e) != nullptr && command != nullptr) {
    return usage_error("missing argument " + command->text().arguments);
  }
  const std::string what = e.what();
  std::string rest;
  const CLI::Option* opt = OptionInError(where, what, &rest);
  if (opt == nullptr && &where != &app) opt = OptionInError(app, what, &rest);
  if (opt != nullptr) {
    const std::string name = "--" + opt->get_lnames().front();
    if (dynamic_cast<const CLI::ValidationError*>(&e) != nullptr) {
      return ReportError(name + " " + rest);
    }
    if (absl::StrContains(rest, "missing")) {
      return usage_error("option '" + name + "' needs a value (" + opt->get_type_name() + ")");
    }
    if (absl::StrContains(rest, "At Most")) {
      return usage_error("option '" + name + "' may be given only once");
    }
    if (absl::StrContains(rest, "flag override")) {
      return usage_error("option '" + name + "' takes no value");
    }
  }
  if (dynamic_cast<const CLI::ConversionError*>(&e) != nullptr) return ReportError(what);
  return usage_error(what);
}

// Help in opkit's layout: the usage line, what the command does, its
// options, the exit statuses. The top level lists the commands.
class HelpFormatter : public CLI::Formatter {
 public:
  explicit HelpFormatter(const Commands& commands) : commands_(commands) {
    column_width(28);
  }

  std::string make_help(const CLI::App* app, std::string, CLI::AppFormatMode) const override {
    const Command* command =
        app->get_parent() == nullptr ? nullptr : FindCommand(commands_, app->get_name());
    if (command == nullptr) return MainHelp(*app);
    const CommandText& text = command->text();
    std::string out = "usage: " + text.usage + "\n\n" + text.summary + "\n";
    if (!text.description.empty()) out += "\n" + text.description + "\n";
    return out + "\noptions:\n" + OptionRows(*app) + "\n" + kExitStatus;
  }

  // "-h, --help": the names of one option, comma-separated.
  std::string make_option_name(const CLI::Option* opt, bool positional) const override {
    std::string names = CLI::Formatter::make_option_name(opt, positional);
    for (size_t i = names.find(','); i != std::string::npos; i = names.find(',', i + 2)) {
      names.insert(i + 1, " ");
    }
    return names;
  }

  // "--attr NAME=VALUE": the value's name only, without CLI11's defaults
  // and repetition marks.
  std::string make_option_opts(const CLI::Option* opt) const override {
    return opt->get_type_size() == 0 ? std::string() : " " + opt->get_type_name();
  }

 private:
  std::string MainHelp(const CLI::App& app) const {
    const CLI::App* root = &app;
    while (root->get_parent() != nullptr) root = root->get_parent();
    std::string out = std::string("usage: ") + kMainUsage + "\n\n" + kMainSummary +
                      "\n\ncommands:\n";
    for (const auto& c : commands_) out += make_subcommand(root->get_subcommand(c->text().name));
    return out + "\nglobal options:\n" + OptionRows(*root) + "\n" + kExitStatus +
           "Set OPKIT_MIN_LOG_LEVEL=0 to see the framework's informational log.\n";
  }

  // One row per option of `app`, -h/--help last.
  std::string OptionRows(const CLI::App& app) const {
    std::string out;
    for (const CLI::Option* opt : app.get_options([&app](const CLI::Option* o) {
           return o->nonpositional() && o != app.get_help_ptr();
         })) {
      out += make_option(opt, false);
    }
    if (app.get_help_ptr() != nullptr) out += make_option(app.get_help_ptr(), false);
    return out;
  }

  const Commands& commands_;
};

int Main(int argc, char** argv) {
  // The framework logs library loads and kernel replacements at INFO; a
  // command line shows warnings and errors only unless asked.
  if (!GetEnvVar("OPKIT_MIN_LOG_LEVEL").has_value()) SetMinLogLevel(1);

  const Commands commands = MakeCommands();
  CLI::App app(kMainSummary, "opkit");
  app.formatter(std::make_shared<HelpFormatter>(commands));
  app.set_help_flag("-h,--help", "show this help and exit");
  app.set_version_flag("--version", StrCat("opkit ", kVersion), "print the version and exit");
  // Leftover words are reported below in opkit's words; one command at a
  // time, so that a later word naming a command is an argument.
  app.allow_extras();
  app.require_subcommand(0, 1);
  std::vector<std::string> loads;
  AddRepeatable(app, "load", &loads, "LIB",
                "load the op library LIB before the command (repeatable)");
  for (const auto& c : commands) {
    CLI::App* sub = app.add_subcommand(c->text().name, c->text().summary);
    sub->allow_extras();
    c->AddOptions(*sub);
    // A command may give --load a meaning of its own (bench compares kernels).
    if (sub->get_option_no_throw("--load") == nullptr) {
      AddRepeatable(*sub, "load", &loads, "LIB", "load the op library LIB first (repeatable)");
    }
  }
  std::string topic;
  CLI::App* help = app.add_subcommand("help", "show the help of COMMAND")->group("");
  help->allow_extras();
  help->add_option("COMMAND", topic, "a command");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();  // the help of the command given, if any
    return kExitOk;
  } catch (const CLI::CallForVersion& e) {
    std::cout << e.what() << "\n";
    return kExitOk;
  } catch (const CLI::ParseError& e) {
    return ReportParseError(app, commands, e);
  }

  const std::vector<std::string> leftover = app.remaining();
  if (!leftover.empty()) {
    const std::string& word = leftover.front();
    if (absl::StartsWith(word, "-")) return MainUsageError(UnknownOption(app, word));
    return UnknownCommand(commands, word);
  }
  const std::vector<CLI::App*> selected = app.get_subcommands();
  if (selected.empty()) return MainUsageError("missing COMMAND");
  CLI::App& sub = *selected.front();
  std::vector<std::string> extra;
  for (const std::string& word : sub.remaining()) {
    if (word != "--") extra.push_back(word);  // CLI11 keeps the end-of-options mark
  }
  if (&sub == help) {
    if (!extra.empty()) return MainUsageError("unexpected argument '" + extra.front() + "'");
    if (topic.empty()) {
      std::cout << app.get_formatter()->make_help(&app, "", CLI::AppFormatMode::Normal);
      return kExitOk;
    }
    if (FindCommand(commands, topic) == nullptr) return UnknownCommand(commands, topic);
    std::cout << app.get_subcommand(topic)->help();
    return kExitOk;
  }
  Command* command = FindCommand(commands, sub.get_name());
  if (!extra.empty()) {
    const std::string& word = extra.front();
    return ReportUsageError(command->text(), absl::StartsWith(word, "-") && word.size() > 1
                                                 ? UnknownOption(sub, word)
                                                 : "unexpected argument '" + word + "'");
  }
  Status s = LoadLibraries(loads);
  if (!s.ok()) return ReportError(s);
  return command->Run();
}

}  // namespace

std::vector<std::unique_ptr<Command>> MakeCommands() {
  std::vector<std::unique_ptr<Command>> commands;
  commands.push_back(MakeOpsCommand());
  commands.push_back(MakeOpCommand());
  commands.push_back(MakeKernelsCommand());
  commands.push_back(MakeExplainCommand());
  commands.push_back(MakeLoadCommand());
  commands.push_back(MakeRunCommand());
  commands.push_back(MakeShapesCommand());
  commands.push_back(MakeGradientsCommand());
  commands.push_back(MakeBenchCommand());
  commands.push_back(MakeCompatCommand());
  return commands;
}

}  // namespace cli
}  // namespace opkit

int main(int argc, char** argv) {
  try {
    return opkit::cli::Main(argc, argv);
  } catch (const std::bad_alloc&) {
    std::cout.flush();
    std::cerr << "opkit: error: out of memory; the input may be too large\n";
    return opkit::cli::kExitError;
  } catch (const std::exception& e) {
    std::cout.flush();
    std::cerr << "opkit: error: internal error: " << e.what() << "\n";
    return opkit::cli::kExitError;
  }
}
