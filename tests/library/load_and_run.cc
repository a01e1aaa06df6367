// load_and_run LIBRARY OP EXPECTED: loads an op library, runs its nullary
// int32 op OP eagerly and checks the value. Used by the scripts that build
// a plugin outside CMake (opkit-config) and against the installed package.
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "opkit/runtime/eager_context.h"
#include "opkit/runtime/library.h"

int main(int argc, char** argv) {
  using namespace opkit;  // NOLINT
  if (argc != 4) {
    std::fprintf(stderr, "usage: load_and_run LIBRARY OP EXPECTED\n");
    return 2;
  }
  StatusOr<OpLibrary> lib = LoadOpLibrary(argv[1]);
  if (!lib.ok()) {
    std::fprintf(stderr, "%s\n", lib.status().ToString().c_str());
    return 1;
  }
  auto ctx = EagerContext::Create();
  if (!ctx.ok()) return 1;
  std::vector<Tensor> out;
  Status s = (*ctx)->Run(argv[2], {}, &out);
  if (!s.ok() || out.size() != 1 || out[0].dtype() != DT_INT32) {
    std::fprintf(stderr, "running %s: %s\n", argv[2], s.ToString().c_str());
    return 1;
  }
  const int value = out[0].scalar<int32>()();
  std::printf("%s() = %d\n", argv[2], value);
  return value == std::atoi(argv[3]) ? 0 : 1;
}
