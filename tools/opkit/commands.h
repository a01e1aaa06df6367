// The `opkit` commands, and helpers shared between the files that hold
// them. main.cc gives each command a CLI11 subcommand, lets it declare its
// options there, parses, and runs the one the user named:
//
//   std::unique_ptr<Command> ops = MakeOpsCommand();
//   CLI::App* sub = app.add_subcommand(ops->text().name, ops->text().summary);
//   ops->AddOptions(*sub);      // binds --json etc. to the command's members
//   app.parse(argc, argv);
//   int exit_code = ops->Run(); // prints its result on stdout, errors on stderr
//
// Nothing a user passes aborts.
#ifndef OPKIT_TOOLS_OPKIT_COMMANDS_H_
#define OPKIT_TOOLS_OPKIT_COMMANDS_H_

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "opkit/core/status.h"
#include "opkit/op_def.pb.h"
#include "opkit/tensor/tensor_shape.h"
#include "tools/opkit/cli_common.h"

namespace opkit {
namespace cli {

// One command: its help texts, its options and positional arguments (held
// as typed members, declared on a CLI11 subcommand by AddOptions), and what
// it does once they are parsed.
class Command {
 public:
  explicit Command(CommandText text) : text_(std::move(text)) {}
  virtual ~Command() = default;
  Command(const Command&) = delete;
  Command& operator=(const Command&) = delete;

  const CommandText& text() const { return text_; }

  // Declares the command's options and positional arguments on `app`, its
  // subcommand, bound to members of this command (which outlives `app`).
  virtual void AddOptions(CLI::App& app) = 0;

  // Runs the command with the parsed values; returns an ExitCode.
  virtual int Run() = 0;

 protected:
  // Reports bad usage of this command; returns kExitUsage.
  int UsageError(std::string_view message) const {
    return ReportUsageError(text_, message);
  }

 private:
  CommandText text_;
};

// Every command, in the order `opkit --help` lists them.
std::vector<std::unique_ptr<Command>> MakeCommands();

// In op_commands.cc.
std::unique_ptr<Command> MakeOpsCommand();
std::unique_ptr<Command> MakeOpCommand();
std::unique_ptr<Command> MakeCompatCommand();
// In kernel_commands.cc.
std::unique_ptr<Command> MakeKernelsCommand();
std::unique_ptr<Command> MakeExplainCommand();
std::unique_ptr<Command> MakeLoadCommand();
// In graph_commands.cc.
std::unique_ptr<Command> MakeRunCommand();
std::unique_ptr<Command> MakeShapesCommand();
std::unique_ptr<Command> MakeGradientsCommand();
// In bench_command.cc.
std::unique_ptr<Command> MakeBenchCommand();

// Loads each library with LoadOpLibrary; the first failure is returned
// with the loader's message.
Status LoadLibraries(const std::vector<std::string>& paths);

// The op's OpDef from the global registry, or the registry's NotFound
// (which suggests close names).
Status LookUpOp(const std::string& name, const OpDef** op_def);

// The readable signature of an op:
//   "MatMul(a: T, b: T) -> product: T; attrs: transpose_a: bool = false,
//    ...; T in {half, float, ...}"
std::string OpSignature(const OpDef& op_def);

// The allowed values of an attr or a kernel constraint ("{'SAME',
// 'VALID'}", "{float, int32}").
std::string AllowedText(const AttrValue& allowed);

// A value the way the signature shows it: types by name, shapes as
// ShapeText, the rest as SummarizeAttrValue prints them.
std::string ValueText(const AttrValue& value);

// "[1,?,3]", "[]" or "?" (unknown rank).
std::string ShapeText(const PartialTensorShape& shape);

// Normalizes a tensor name: "x" becomes "x:0"; "x:1" stays.
std::string TensorName(const std::string& name);

// A shape as users write it: "[2,3]", "[]", "[1,?,3]", "?" ... (the shape
// shorthand of ParseAttrValue). InvalidArgument naming the option `flag`
// otherwise.
Status ParseShapeText(std::string_view flag, std::string_view text,
                      PartialTensorShape* out);

}  // namespace cli
}  // namespace opkit

#endif  // OPKIT_TOOLS_OPKIT_COMMANDS_H_
