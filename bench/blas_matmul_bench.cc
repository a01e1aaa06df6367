// Float MatMul through the eager API with the built-in (Eigen) kernel, then
// with examples/blas_matmul loaded (OpenBLAS's sgemm replacing it), and the
// raw cblas_sgemm call on the same matrices, in one run.
//
//   build/bench/bench/blas_matmul_bench --benchmark_repetitions=3
//       --benchmark_report_aggregates_only=true
//
// BM_ReplacedRatio is the issue 6 goal: each iteration runs one eager call
// (library loaded) and one raw call of the GEMM the library uses (oneDNN's
// sgemm when oneDNN is installed, else OpenBLAS's) back to back, in
// alternating order, so both see the same machine load; `ratio` = eager
// throughput / raw throughput from the medians (goal: >= 0.95).
// BM_RawSgemm (OpenBLAS) and BM_RawDnnlSgemm show why the library prefers
// oneDNN for float here.
#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <vector>

#include "benchmark/benchmark.h"
#include "opkit/runtime/eager_context.h"
#include "opkit/runtime/library.h"
#ifdef OPKIT_BENCH_HAVE_DNNL
#include "dnnl.h"
#endif

namespace opkit {
namespace {

EagerContext& Context() {
  static EagerContext* ctx = [] {
    auto c = EagerContext::Create();
    if (!c.ok()) std::abort();
    return std::move(c).value().release();
  }();
  return *ctx;
}

// The replacement library, loaded (true) or not (false).
Status UseBlasLibrary(bool loaded) {
  static OpLibrary* lib = new OpLibrary();
  if (loaded && !lib->loaded()) {
    OPKIT_ASSIGN_OR_RETURN(*lib, LoadOpLibrary(OPKIT_BLAS_MATMUL_LIB));
  } else if (!loaded && lib->loaded()) {
    OPKIT_RETURN_IF_ERROR(lib->Unload());
  }
  return OkStatus();
}

Tensor Random(int64_t n) {
  Tensor t(DT_FLOAT, TensorShape({n, n}));
  t.flat<float>().setRandom();
  return t;
}

double Gflop(int64_t n) { return 2.0 * n * n * n / 1e9; }

void RawSgemm(const Tensor& a, const Tensor& b, Tensor* c) {
  const int n = static_cast<int>(a.dim_size(0));
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f,
              a.flat<float>().data(), n, b.flat<float>().data(), n, 0.0f,
              c->flat<float>().data(), n);
}

void EagerMatMul(benchmark::State& state, bool replaced) {
  const int64_t n = state.range(0);
  Status s = UseBlasLibrary(replaced);
  if (!s.ok()) {
    state.SkipWithError(s.ToString().c_str());
    return;
  }
  auto matmul = Context().Prepare("MatMul", {DT_FLOAT, DT_FLOAT});
  if (!matmul.ok()) {
    state.SkipWithError(matmul.status().ToString().c_str());
    return;
  }
  state.SetLabel((*matmul)->kernel_class_name());
  const std::vector<Tensor> inputs = {Random(n), Random(n)};
  std::vector<Tensor> out;
  for (auto _ : state) {
    Status r = (*matmul)->Run(inputs, &out);
    benchmark::DoNotOptimize(r);
  }
  state.counters["GFLOP/s"] = benchmark::Counter(
      Gflop(n) * state.iterations(), benchmark::Counter::kIsRate);
}

void BM_EagerBuiltin(benchmark::State& state) { EagerMatMul(state, false); }
void BM_EagerReplaced(benchmark::State& state) { EagerMatMul(state, true); }

void BM_RawSgemm(benchmark::State& state) {
  const int64_t n = state.range(0);
  const Tensor a = Random(n), b = Random(n);
  Tensor c(DT_FLOAT, TensorShape({n, n}));
  for (auto _ : state) {
    RawSgemm(a, b, &c);
    benchmark::DoNotOptimize(c.data());
  }
  state.counters["GFLOP/s"] = benchmark::Counter(
      Gflop(n) * state.iterations(), benchmark::Counter::kIsRate);
}

#ifdef OPKIT_BENCH_HAVE_DNNL
void RawDnnlSgemm(const Tensor& a, const Tensor& b, Tensor* c) {
  const int64_t n = a.dim_size(0);
  dnnl_sgemm('N', 'N', n, n, n, 1.0f, a.flat<float>().data(), n,
             b.flat<float>().data(), n, 0.0f, c->flat<float>().data(), n);
}

void BM_RawDnnlSgemm(benchmark::State& state) {
  const int64_t n = state.range(0);
  const Tensor a = Random(n), b = Random(n);
  Tensor c(DT_FLOAT, TensorShape({n, n}));
  for (auto _ : state) {
    RawDnnlSgemm(a, b, &c);
    benchmark::DoNotOptimize(c.data());
  }
  state.counters["GFLOP/s"] = benchmark::Counter(
      Gflop(n) * state.iterations(), benchmark::Counter::kIsRate);
}
#endif

void BM_ReplacedRatio(benchmark::State& state) {
  const int64_t n = state.range(0);
  Status s = UseBlasLibrary(true);
  if (!s.ok()) {
    state.SkipWithError(s.ToString().c_str());
    return;
  }
  auto matmul = Context().Prepare("MatMul", {DT_FLOAT, DT_FLOAT});
  if (!matmul.ok()) {
    state.SkipWithError(matmul.status().ToString().c_str());
    return;
  }
  state.SetLabel((*matmul)->kernel_class_name());
  const std::vector<Tensor> inputs = {Random(n), Random(n)};
  Tensor c(DT_FLOAT, TensorShape({n, n}));
  std::vector<Tensor> out;
  std::vector<double> eager_s, raw_s;
  using Clock = std::chrono::steady_clock;
  auto time = [](std::vector<double>* into, auto&& fn) {
    const auto start = Clock::now();
    fn();
    into->push_back(std::chrono::duration<double>(Clock::now() - start).count());
  };
  bool eager_first = false;
  for (auto _ : state) {
    auto eager = [&] {
      Status r = (*matmul)->Run(inputs, &out);
      benchmark::DoNotOptimize(r);
    };
    auto raw = [&] {
#ifdef OPKIT_BENCH_HAVE_DNNL
      RawDnnlSgemm(inputs[0], inputs[1], &c);
#else
      RawSgemm(inputs[0], inputs[1], &c);
#endif
      benchmark::DoNotOptimize(c.data());
    };
    if (eager_first) {
      time(&eager_s, eager);
      time(&raw_s, raw);
    } else {
      time(&raw_s, raw);
      time(&eager_s, eager);
    }
    eager_first = !eager_first;
  }
  auto median = [](std::vector<double> v) {
    if (v.empty()) return 0.0;
    std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
    return v[v.size() / 2];
  };
  const double e = median(eager_s), r = median(raw_s);
  state.counters["eager_GFLOPs"] = e > 0 ? Gflop(n) / e : 0;
  state.counters["raw_GFLOPs"] = r > 0 ? Gflop(n) / r : 0;
  state.counters["ratio"] = e > 0 ? r / e : 0;
}

// Registered in the order they should run: built-in first, then replaced.
BENCHMARK(BM_EagerBuiltin)->Arg(1024)->Arg(2048)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_EagerReplaced)->Arg(1024)->Arg(2048)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_RawSgemm)->Arg(1024)->Arg(2048)->Unit(benchmark::kMillisecond)->UseRealTime();
#ifdef OPKIT_BENCH_HAVE_DNNL
BENCHMARK(BM_RawDnnlSgemm)->Arg(1024)->Arg(2048)->Unit(benchmark::kMillisecond)->UseRealTime();
#endif
BENCHMARK(BM_ReplacedRatio)
    ->Arg(1024)
    ->Arg(2048)
    ->MinTime(2.0)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace opkit
