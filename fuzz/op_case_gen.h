// The op fuzzer's generator and runner: one case (an op, its attrs, its
// inputs) made from a byte stream by reading the op's OpDef and the kernels
// registered for it, then run eagerly (EagerContext) and as a one-node graph
// (Session). Shared by the libFuzzer target op_fuzz.cc and the fixed-seed
// driver op_fuzz_driver.cc.
//
//   std::vector<OpDef> ops = FuzzableOps();
//   OpCaseBytes bytes(input);                       // "Op\n" + raw bytes
//   OpCase c;
//   if (GenerateOpCase(bytes.op(), &bytes, &c)) {
//     OPKIT_ASSIGN_OR_RETURN(auto runner, OpCaseRunner::Create());
//     OpCaseResult r = runner->Run(c);              // two Statuses
//   }
//
// An input (a corpus file) is the op's name, a newline, then the bytes the
// generator reads; when they run out it reads zeros. Naming the op keeps a
// saved input meaning the same op when ops are added.
//
// Note [Op fuzz sizes]
// Every generated input tensor has at most kMaxInputElements elements, so
// making a case costs nothing; huge sizes reach kernels through dims of an
// empty tensor ([0, 2^40]), through int inputs that kernels read as shapes,
// sizes or counts (INT32_MAX, 2^40), and through int attrs. What a kernel
// then asks for is bounded by the allocation limit (allocation_limit.h),
// which the runner sets to a budget for the whole run, so a huge output is
// ResourceExhausted instead of an OOM kill.
#ifndef OPKIT_FUZZ_OP_CASE_GEN_H_
#define OPKIT_FUZZ_OP_CASE_GEN_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "opkit/core/status.h"
#include "opkit/core/statusor.h"
#include "opkit/op_def.pb.h"
#include "opkit/runtime/eager_context.h"
#include "opkit/tensor/tensor.h"

namespace opkit {
namespace fuzz {

inline constexpr int64_t kMaxInputElements = 64;
// The allocation limit the runner sets for the whole run (256 MiB).
inline constexpr int64_t kAllocationBudgetBytes = int64_t{256} << 20;

// A fuzz input: "OpName\n" then bytes. Next() gives the bytes after the
// newline, then zeros. Not thread-safe.
class OpCaseBytes {
 public:
  explicit OpCaseBytes(std::string_view input);
  // The op named on the first line ("" without a newline).
  const std::string& op() const { return op_; }
  uint8_t Next() {
    return pos_ < data_.size() ? static_cast<uint8_t>(data_[pos_++]) : 0;
  }
  // n in [0, bound) (0 when bound <= 0).
  int Below(int bound) { return bound <= 0 ? 0 : Next() % bound; }
  // True with probability about 1/n.
  bool OneIn(int n) { return Below(n) == 0; }
  uint64_t Next64();

 private:
  std::string op_;
  std::string_view data_;
  size_t pos_ = 0;
};

// One call to fuzz. `placeholder[i]` says that input i is fed to a
// Placeholder in the graph run instead of being a Const.
struct OpCase {
  std::string op;
  EagerAttrs attrs;
  std::vector<Tensor> inputs;
  std::vector<bool> placeholder;
  // Op, attrs and every input's dtype, shape and first values, one line
  // each, to print before the case runs.
  std::string Describe() const;
};

// Every registered op the fuzzer runs (sorted by name), and the ones it
// skips with why (SkippedOps, also listed in fuzz/README.md).
std::vector<OpDef> FuzzableOps();
const std::map<std::string, std::string>& SkippedOps();

// Builds the case for op `op_name` from `bytes`. False for an op that is not
// registered or is skipped.
bool GenerateOpCase(const std::string& op_name, OpCaseBytes* bytes,
                    OpCase* out);

struct OpCaseResult {
  Status eager;
  Status graph;
};

// Runs cases eagerly and in a graph. Not thread-safe. Sets the allocation
// limit to kAllocationBudgetBytes for its lifetime.
class OpCaseRunner {
 public:
  static StatusOr<std::unique_ptr<OpCaseRunner>> Create();
  ~OpCaseRunner();
  OpCaseRunner(const OpCaseRunner&) = delete;
  OpCaseRunner& operator=(const OpCaseRunner&) = delete;

  // Both Statuses are results; only a crash, a hang or a sanitizer report
  // is a finding. A graph Run gets `graph_timeout_ms`.
  OpCaseResult Run(const OpCase& c, int64_t graph_timeout_ms = 2000);

 private:
  OpCaseRunner();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// True when OPKIT_FUZZ_VERBOSE=1: print each case before it runs.
bool Verbose();

}  // namespace fuzz
}  // namespace opkit

#endif  // OPKIT_FUZZ_OP_CASE_GEN_H_
