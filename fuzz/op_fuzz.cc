// Fuzz target for every registered op: the input names an op on its first
// line; the bytes after it choose the op's attrs (from its OpDef's allowed
// values and its kernels' type constraints) and inputs (dtypes, shapes up to
// rank 8, empty and huge dims, edge values: negative and out-of-range
// indices and axes, INT_MIN/INT_MAX, NaN and Inf). The case runs eagerly and
// as a one-node graph; any Status is fine, a crash, a hang or a sanitizer
// report is not. See op_case_gen.h for the input format and
// op_fuzz_driver.cc for the fixed-seed driver that CI runs.
//
// With OPKIT_FUZZ_VERBOSE=1 each case is printed before it runs, with both
// Statuses after.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string_view>

#include "fuzz/op_case_gen.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace opkit::fuzz;  // NOLINT
  static OpCaseRunner* const runner = [] {
    auto r = OpCaseRunner::Create();
    if (!r.ok()) {
      std::fprintf(stderr, "op_fuzz: %s\n", r.status().ToString().c_str());
      std::abort();
    }
    return r->release();
  }();
  OpCaseBytes bytes(std::string_view(reinterpret_cast<const char*>(data), size));
  OpCase c;
  if (!GenerateOpCase(bytes.op(), &bytes, &c)) return 0;
  if (Verbose()) std::fprintf(stderr, "%s", c.Describe().c_str());
  (void)runner->Run(c);
  return 0;
}
