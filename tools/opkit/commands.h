// The `opkit` commands: one spec (usage, help, flags) and one entry point
// each, plus helpers shared between command files. main.cc dispatches.
//
//   ParsedArgs args;  // parsed against OpsCommandSpec()
//   int exit_code = RunOps(args);
//
// Every Run* function returns an ExitCode (cli_common.h) and prints its
// result on stdout and its errors on stderr. Nothing a user passes aborts.
#ifndef OPKIT_TOOLS_OPKIT_COMMANDS_H_
#define OPKIT_TOOLS_OPKIT_COMMANDS_H_

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "nlohmann/json.hpp"
#include "opkit/core/status.h"
#include "opkit/tensor/tensor.h"
#include "opkit/tensor/tensor_shape.h"
#include "opkit/kernel_def.pb.h"
#include "opkit/op_def.pb.h"
#include "tools/opkit/cli_common.h"

namespace opkit {
namespace cli {

// A command: its spec and what runs it.
struct Command {
  CommandSpec spec;
  int (*run)(const ParsedArgs& args);
};

// Every command, in the order `opkit --help` lists them (each spec with
// AddCommonFlags applied).
const std::vector<Command>& AllCommands();

// Commands in op_commands.cc.
CommandSpec OpsCommandSpec();
int RunOps(const ParsedArgs& args);
CommandSpec OpCommandSpec();
int RunOp(const ParsedArgs& args);
CommandSpec KernelsCommandSpec();
int RunKernels(const ParsedArgs& args);
CommandSpec ExplainCommandSpec();
int RunExplain(const ParsedArgs& args);
CommandSpec LoadCommandSpec();
int RunLoad(const ParsedArgs& args);
CommandSpec CompatCommandSpec();
int RunCompat(const ParsedArgs& args);

// Commands in graph_commands.cc.
CommandSpec RunCommandSpec();
int RunRun(const ParsedArgs& args);
CommandSpec ShapesCommandSpec();
int RunShapes(const ParsedArgs& args);

// Loads each library with LoadOpLibrary; the first failure is returned
// with the loader's message.
Status LoadLibraries(const std::vector<std::string>& paths);

// The readable signature of an op:
//   "MatMul(a: T, b: T) -> product: T; attrs: transpose_a: bool = false,
//    ...; T in {half, float, ...}"
std::string OpSignature(const OpDef& op_def);

// "T in {float, int32}", "label='x'", ... for a kernel's constraints.
std::string KernelConstraintsString(const KernelDef& def);

// Parses a shape as users write it: "[2,3]", "[]" (scalar), "[1,?,3]" or
// "[1,-1,3]" (unknown dims), "?" or "*" (unknown rank). InvalidArgument
// naming `flag` and the text otherwise.
Status ParseShapeText(std::string_view flag, std::string_view text,
                      PartialTensorShape* out);

// "[1,?,3]", "[]" or "?" (unknown rank): the inverse of ParseShapeText.
std::string ShapeText(const PartialTensorShape& shape);

// The tensor's values the way numpy prints an array ("[[1. 2.]\n [3. 4.]]"),
// with the middle of long dimensions elided ("...") when the tensor has
// more than `threshold` elements.
std::string FormatTensorValues(const Tensor& tensor, int64_t threshold = 1000);

// {"dtype": ..., "shape": [...], "values": [...]} with every element in
// C order (complex numbers as [re, im]; strings as strings).
nlohmann::json TensorToJson(const Tensor& tensor);

}  // namespace cli
}  // namespace opkit

#endif  // OPKIT_TOOLS_OPKIT_COMMANDS_H_
