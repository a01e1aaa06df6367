// Committing 10,000 kernel registrations (over 1,500 ops) into an empty
// KernelRegistry as one batch: validation against the op registry, building
// the lookup index, the check that no kernel ties with another (Note [Kernel
// ambiguity]), and publishing the index. The registrations are prepared
// outside the timed region.
//
//   build/bench/bench/kernel_registration_bench
//
// Goal (issue 4): under 5 ms per commit.
#include <memory>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "opkit/core/logging.h"
#include "opkit/kernel/kernel_def_builder.h"
#include "opkit/kernel/kernel_registry.h"
#include "opkit/op/op_def_builder.h"
#include "opkit/op/op_registry.h"

namespace opkit {
namespace {

constexpr int kNumOps = 1500;
constexpr int kNumKernels = 10000;

OpKernel* NullFactory(OpKernelConstruction*) { return nullptr; }

const DataType kTypes[] = {DT_FLOAT, DT_DOUBLE, DT_INT32, DT_INT64,
                           DT_HALF,  DT_BFLOAT16, DT_INT8};

std::string OpName(int i) { return "BenchOp" + std::to_string(i); }

OpRegistry& Ops() {
  static OpRegistry* ops = [] {
    SetMinLogLevel(2);
    auto* registry = new OpRegistry;
    for (int i = 0; i < kNumOps; ++i) {
      OpRegistrationData data;
      Status s = OpDefBuilder(OpName(i))
                     .Attr("T: type")
                     .Attr("transpose_a: bool = false")
                     .Input("a: T")
                     .Output("b: T")
                     .Finalize(&data);
      if (s.ok()) s = registry->Register(std::move(data));
      if (!s.ok()) LOG(FATAL) << s;
    }
    return registry;
  }();
  return *ops;
}

// 1,000 ops with 7 kernels and 500 with 6, alternating CPU and GPU.
std::vector<KernelRegistration> MakeRegistrations() {
  std::vector<KernelRegistration> batch;
  batch.reserve(kNumKernels);
  int total = 0;
  for (int i = 0; i < kNumOps; ++i) {
    const int n = i < 1000 ? 7 : 6;
    for (int j = 0; j < n; ++j) {
      KernelRegistration reg;
      reg.def = KernelDefBuilder(OpName(i).c_str())
                    .Device(j % 2 == 0 ? DEVICE_CPU : DEVICE_GPU)
                    .TypeConstraint("T", kTypes[(j / 2) % 7])
                    .BuildDef();
      reg.kernel_class_name = "BenchKernel" + std::to_string(total++);
      reg.factory = &NullFactory;
      reg.origin = RegistrationOrigin{__FILE__, __LINE__, "libbench.so"};
      batch.push_back(std::move(reg));
    }
  }
  return batch;
}

void BM_CommitKernelRegistrations(benchmark::State& state) {
  OpRegistry& ops = Ops();
  const std::vector<KernelRegistration> prototype = MakeRegistrations();
  for (auto _ : state) {
    state.PauseTiming();
    auto registry = std::make_unique<KernelRegistry>(&ops);
    std::vector<KernelRegistration> batch = prototype;
    state.ResumeTiming();
    Status s = registry->RegisterBatch(std::move(batch));
    if (!s.ok()) state.SkipWithError(s.ToString().c_str());
    state.PauseTiming();
    if (registry->size() != static_cast<size_t>(kNumKernels)) {
      state.SkipWithError("not every kernel was registered");
    }
    registry.reset();
    state.ResumeTiming();
  }
  state.SetItemsProcessed(state.iterations() * kNumKernels);
}
BENCHMARK(BM_CommitKernelRegistrations)->Unit(benchmark::kMillisecond);

// The same 10,000 through the pending list, as the library loader commits
// a library: AddPendingKernelRegistration() for each (what the static
// initializers do; timed) then one CommitPending().
void BM_CommitPendingKernelRegistrations(benchmark::State& state) {
  OpRegistry& ops = Ops();
  const std::vector<KernelRegistration> prototype = MakeRegistrations();
  for (auto _ : state) {
    state.PauseTiming();
    auto registry = std::make_unique<KernelRegistry>(&ops);
    std::vector<KernelRegistration> batch = prototype;
    state.ResumeTiming();
    for (KernelRegistration& reg : batch) {
      internal::AddPendingKernelRegistration(std::move(reg.def),
                                             std::move(reg.kernel_class_name),
                                             reg.factory, std::move(reg.origin));
    }
    Status s = registry->CommitPending("libbench.so");
    if (!s.ok()) state.SkipWithError(s.ToString().c_str());
    state.PauseTiming();
    registry.reset();
    state.ResumeTiming();
  }
  state.SetItemsProcessed(state.iterations() * kNumKernels);
}
BENCHMARK(BM_CommitPendingKernelRegistrations)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace opkit
