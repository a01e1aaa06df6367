// Built-in float MatMul through the eager API against the same Eigen
// contraction called directly on the same thread pool. The ratio of the two
// items per size is the eager overhead.
//
//   build/bench/bench/matmul_bench
#define EIGEN_USE_THREADS
#include <memory>
#include <vector>

#include "benchmark/benchmark.h"
#include "opkit/framework/device.h"
#include "opkit/runtime/eager_context.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace opkit {
namespace {

EagerContext& Context() {
  static EagerContext* ctx = [] {
    auto c = EagerContext::Create();  // intra-op pool: one thread per core
    if (!c.ok()) std::abort();
    return std::move(c).value().release();
  }();
  return *ctx;
}

Tensor Random(int64_t rows, int64_t cols) {
  Tensor t(DT_FLOAT, TensorShape({rows, cols}));
  t.flat<float>().setRandom();
  return t;
}

void SetFlops(benchmark::State& state, int64_t n) {
  state.counters["GFLOP/s"] = benchmark::Counter(
      2.0 * n * n * n * state.iterations() / 1e9, benchmark::Counter::kIsRate);
}

void BM_EagerMatMul(benchmark::State& state) {
  const int64_t n = state.range(0);
  auto matmul = Context().Prepare("MatMul", {DT_FLOAT, DT_FLOAT});
  if (!matmul.ok()) {
    state.SkipWithError(matmul.status().ToString().c_str());
    return;
  }
  std::vector<Tensor> inputs = {Random(n, n), Random(n, n)};
  std::vector<Tensor> out;
  for (auto _ : state) {
    Status s = (*matmul)->Run(inputs, &out);
    benchmark::DoNotOptimize(s);
  }
  SetFlops(state, n);
}
BENCHMARK(BM_EagerMatMul)->Arg(1024)->Arg(2048)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_DirectEigenContraction(benchmark::State& state) {
  const int64_t n = state.range(0);
  const Eigen::ThreadPoolDevice& device =
      *Context().device()->eigen_cpu_device();
  Tensor a = Random(n, n), b = Random(n, n), c(DT_FLOAT, TensorShape({n, n}));
  Eigen::array<Eigen::IndexPair<Eigen::DenseIndex>, 1> dims = {
      Eigen::IndexPair<Eigen::DenseIndex>(1, 0)};
  for (auto _ : state) {
    c.matrix<float>().device(device) =
        a.matrix<float>().contract(b.matrix<float>(), dims);
    benchmark::DoNotOptimize(c.data());
  }
  SetFlops(state, n);
}
BENCHMARK(BM_DirectEigenContraction)->Arg(1024)->Arg(2048)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace opkit
