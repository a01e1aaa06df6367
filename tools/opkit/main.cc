// `opkit`: the command line of the opkit operator framework. Parses the
// global options and the command name, then hands over to the command (see
// commands.h). Run `opkit --help` for the list.
#include <algorithm>
#include <cstdio>
#include <exception>
#include <iostream>
#include <new>
#include <string>
#include <vector>

#include "opkit/core/env.h"
#include "opkit/core/logging.h"
#include "opkit/core/str_util.h"
#include "tools/opkit/cli_common.h"
#include "tools/opkit/commands.h"

namespace opkit {
namespace cli {
namespace {

constexpr char kVersion[] = "0.1.0";

std::string MainUsage() {
  return "usage: opkit [--load LIB]... COMMAND [ARGS...]\n"
         "       opkit help COMMAND | opkit COMMAND --help";
}

std::string MainHelp() {
  std::string out = MainUsage() +
                    "\n\nInspect ops and kernels, load op libraries, and run GraphDefs.\n\n"
                    "commands:\n";
  size_t width = 0;
  for (const Command& c : AllCommands()) width = std::max(width, c.spec.name.size());
  for (const Command& c : AllCommands()) {
    out += "  " + c.spec.name + std::string(width - c.spec.name.size() + 2, ' ') +
           c.spec.summary + "\n";
  }
  out +=
      "\nglobal options:\n"
      "  --load LIB    load the op library LIB before the command (repeatable)\n"
      "  --version     print the version and exit\n"
      "  -h, --help    show this help and exit\n"
      "\nexit status: 0 on success, 1 on an error (message on stderr), 2 on bad usage.\n"
      "Set OPKIT_MIN_LOG_LEVEL=0 to see the framework's informational log.\n";
  return out;
}

int MainUsageError(const std::string& message) {
  std::cerr << "opkit: error: " << message << "\n" << MainUsage() << "\n"
            << "Try 'opkit --help' for the list of commands.\n";
  return kExitUsage;
}

const Command* FindCommand(const std::string& name) {
  for (const Command& c : AllCommands()) {
    if (c.spec.name == name) return &c;
  }
  return nullptr;
}

int UnknownCommand(const std::string& name) {
  std::string best;
  size_t best_distance = 3;
  for (const Command& c : AllCommands()) {
    size_t d = EditDistance(name, c.spec.name);
    if (d < best_distance) {
      best_distance = d;
      best = c.spec.name;
    }
  }
  std::string message = "unknown command '" + name + "'";
  if (!best.empty()) message += "; did you mean '" + best + "'?";
  return MainUsageError(message);
}

int Main(int argc, char** argv) {
  // The framework logs library loads and kernel replacements at INFO; a
  // command line shows warnings and errors only unless asked.
  if (!GetEnvVar("OPKIT_MIN_LOG_LEVEL").has_value()) SetMinLogLevel(1);

  std::vector<std::string> args(argv + 1, argv + argc);
  std::vector<std::string> loads;
  size_t i = 0;
  for (; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a.empty() || a[0] != '-') break;
    if (a == "-h" || a == "--help") {
      std::cout << MainHelp();
      return kExitOk;
    }
    if (a == "--version") {
      std::cout << "opkit " << kVersion << "\n";
      return kExitOk;
    }
    if (a == "--load") {
      if (i + 1 >= args.size()) return MainUsageError("option '--load' needs a value (LIB)");
      loads.push_back(args[++i]);
      continue;
    }
    if (a.compare(0, 7, "--load=") == 0) {
      loads.push_back(a.substr(7));
      continue;
    }
    return MainUsageError("unknown option '" + a + "'");
  }
  if (i >= args.size()) return MainUsageError("missing COMMAND");
  const std::string name = args[i++];
  if (name == "help") {
    if (i >= args.size()) {
      std::cout << MainHelp();
      return kExitOk;
    }
    const Command* c = FindCommand(args[i]);
    if (c == nullptr) return UnknownCommand(args[i]);
    std::cout << CommandHelp(c->spec);
    return kExitOk;
  }
  const Command* command = FindCommand(name);
  if (command == nullptr) return UnknownCommand(name);
  ParsedArgs parsed;
  Status s = ParseCommandArgs(command->spec,
                              std::vector<std::string>(args.begin() + i, args.end()), &parsed);
  if (!s.ok()) return ReportUsageError(command->spec, s.message());
  if (parsed.help) {
    std::cout << CommandHelp(command->spec);
    return kExitOk;
  }
  for (const std::string& lib : parsed.GetAll("load")) loads.push_back(lib);
  s = LoadLibraries(loads);
  if (!s.ok()) return ReportError(s);
  return command->run(parsed);
}

}  // namespace

const std::vector<Command>& AllCommands() {
  static const std::vector<Command>* const kCommands = [] {
    auto* commands = new std::vector<Command>{
        {OpsCommandSpec(), &RunOps},         {OpCommandSpec(), &RunOp},
        {KernelsCommandSpec(), &RunKernels}, {ExplainCommandSpec(), &RunExplain},
        {LoadCommandSpec(), &RunLoad},       {RunCommandSpec(), &RunRun},
        {ShapesCommandSpec(), &RunShapes},   {CompatCommandSpec(), &RunCompat},
    };
    for (Command& c : *commands) AddCommonFlags(&c.spec);
    return commands;
  }();
  return *kCommands;
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
