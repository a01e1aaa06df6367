// BlasGemm on each backend this build and CPU have (Note [MatMul on
// AVX-512] in opkit/kernels/blas_gemm.cc), one thread, on the float products
// of bench/python/train_step.py's MLP step (784-512-512-10, batch 64) and a
// square 1024 one:
//
//   build/bench/bench/blas_gemm_bench --benchmark_repetitions=3
//       --benchmark_report_aggregates_only=true
//
// Arguments: backend (0 openblas, 1 eigen_avx512, 2 eigen), then the shape
// as m, n, k and whether op(a) is a transpose; a backend the process does
// not have is skipped with its reason.
#include <cstdint>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "opkit/kernels/blas_gemm.h"

namespace opkit {
namespace {

void BM_BlasGemm(benchmark::State& state) {
  const GemmBackend backend = static_cast<GemmBackend>(state.range(0));
  const int64_t m = state.range(1), n = state.range(2), k = state.range(3);
  const bool transpose_a = state.range(4) != 0;
  const GemmBackend before = BlasGemmBackend();
  if (Status s = SetBlasGemmBackend(backend); !s.ok()) {
    state.SkipWithError(s.ToString().c_str());
    return;
  }
  std::vector<float> a(static_cast<size_t>(m * k), 0.5f);
  std::vector<float> b(static_cast<size_t>(k * n), 0.25f);
  std::vector<float> c(static_cast<size_t>(m * n));
  const int64_t lda = transpose_a ? m : k;
  for (auto _ : state) {
    BlasGemm(transpose_a, false, m, n, k, a.data(), lda, b.data(), n, c.data(), n);
    benchmark::DoNotOptimize(c.data());
  }
  state.counters["GFLOP/s"] = benchmark::Counter(
      2.0 * m * n * k, benchmark::Counter::kIsIterationInvariantRate,
      benchmark::Counter::kIs1000);
  state.SetLabel(GemmBackendName(backend));
  (void)SetBlasGemmBackend(before);
}

void Shapes(benchmark::internal::Benchmark* b) {
  b->ArgNames({"backend", "m", "n", "k", "ta"});
  for (int backend = 0; backend < 3; ++backend) {
    b->Args({backend, 64, 512, 784, 0});     // layer 1 forward
    b->Args({backend, 64, 512, 512, 0});     // layer 2 forward
    b->Args({backend, 784, 512, 64, 1});     // layer 1 weight gradient
    b->Args({backend, 1024, 1024, 1024, 0});
  }
}
BENCHMARK(BM_BlasGemm)->Apply(Shapes)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace opkit
