// Built-in float MatMul through the eager API against the same Eigen
// contraction called directly on the same thread pool. The ratio of the two
// items per size is the eager overhead.
//
//   build/bench/bench/matmul_bench --benchmark_repetitions=5
//       --benchmark_report_aggregates_only=true
//
// Both sides use the same inputs (the same Tensors), the same allocator and
// alignment (64 bytes), the same Eigen::ThreadPoolDevice (the eager
// context's intra-op pool, one thread per core) and the same expression as
// the kernel: `out.device(d) = a.contract(b, dims)` over const TensorMaps of
// the inputs. The direct call writes into one preallocated output, while
// eager allocates its output on every call (that is part of what is
// measured).
//
// On a shared machine prefer BM_MatMulRatio: each iteration runs one eager
// call and one direct call back to back (the order flips every iteration),
// so that both see the same load, and it reports the median GFLOP/s of each
// and `ratio` = eager throughput / direct throughput (the issue 4 goal is
// ratio >= 0.95 at 1024 and 2048).
#ifndef EIGEN_USE_THREADS
#define EIGEN_USE_THREADS
#endif
#include <algorithm>
#include <chrono>
#include <memory>
#include <vector>

#include "benchmark/benchmark.h"
#include "opkit/device/device.h"
#include "opkit/runtime/eager_context.h"
#include "opkit/core/eigen.h"

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

double Gflop(int64_t n) { return 2.0 * n * n * n / 1e9; }

void SetFlops(benchmark::State& state, int64_t n) {
  state.counters["GFLOP/s"] = benchmark::Counter(
      Gflop(n) * state.iterations(), benchmark::Counter::kIsRate);
}

// The direct call: what MatMulOp<float> evaluates, on the same device.
void DirectContraction(const Eigen::ThreadPoolDevice& device, const Tensor& a,
                       const Tensor& b, Tensor* c) {
  Eigen::array<Eigen::IndexPair<Eigen::DenseIndex>, 1> dims = {
      Eigen::IndexPair<Eigen::DenseIndex>(1, 0)};
  c->matrix<float>().device(device) =
      a.matrix<float>().contract(b.matrix<float>(), dims);
}

const Eigen::ThreadPoolDevice& EigenDevice() {
  return *Context().device()->eigen_cpu_device();
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
    if (!s.ok()) {
      state.SkipWithError(s.ToString().c_str());
      break;
    }
  }
  SetFlops(state, n);
}
BENCHMARK(BM_EagerMatMul)->Arg(1024)->Arg(2048)->Unit(benchmark::kMillisecond)->UseRealTime();

// BatchMatMulV2 with a batch of one: with fewer products than threads each
// product runs on the whole pool, so this should track BM_EagerMatMul.
void BM_EagerBatchMatMulBatchOfOne(benchmark::State& state) {
  const int64_t n = state.range(0);
  auto bmm = Context().Prepare("BatchMatMulV2", {DT_FLOAT, DT_FLOAT});
  if (!bmm.ok()) {
    state.SkipWithError(bmm.status().ToString().c_str());
    return;
  }
  Tensor a(DT_FLOAT, TensorShape({1, n, n})), b(DT_FLOAT, TensorShape({1, n, n}));
  a.flat<float>().setRandom();
  b.flat<float>().setRandom();
  std::vector<Tensor> inputs = {a, b};
  std::vector<Tensor> out;
  for (auto _ : state) {
    Status s = (*bmm)->Run(inputs, &out);
    if (!s.ok()) {
      state.SkipWithError(s.ToString().c_str());
      break;
    }
  }
  SetFlops(state, n);
}
BENCHMARK(BM_EagerBatchMatMulBatchOfOne)
    ->Arg(1024)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void BM_DirectEigenContraction(benchmark::State& state) {
  const int64_t n = state.range(0);
  const Eigen::ThreadPoolDevice& device = EigenDevice();
  const Tensor a = Random(n, n), b = Random(n, n);
  Tensor c(DT_FLOAT, TensorShape({n, n}));
  for (auto _ : state) {
    DirectContraction(device, a, b, &c);
    benchmark::DoNotOptimize(c.data());
  }
  SetFlops(state, n);
}
BENCHMARK(BM_DirectEigenContraction)->Arg(1024)->Arg(2048)->Unit(benchmark::kMillisecond)->UseRealTime();

// Eager and direct on the same inputs, interleaved (see the file comment).
void BM_MatMulRatio(benchmark::State& state) {
  const int64_t n = state.range(0);
  auto matmul = Context().Prepare("MatMul", {DT_FLOAT, DT_FLOAT});
  if (!matmul.ok()) {
    state.SkipWithError(matmul.status().ToString().c_str());
    return;
  }
  const Eigen::ThreadPoolDevice& device = EigenDevice();
  const std::vector<Tensor> inputs = {Random(n, n), Random(n, n)};
  Tensor c(DT_FLOAT, TensorShape({n, n}));
  std::vector<Tensor> out;
  std::vector<double> eager_s;
  std::vector<double> direct_s;
  using Clock = std::chrono::steady_clock;
  Status failure;
  auto run_eager = [&] {
    const auto start = Clock::now();
    Status s = (*matmul)->Run(inputs, &out);
    if (!s.ok()) failure = s;
    eager_s.push_back(std::chrono::duration<double>(Clock::now() - start).count());
  };
  auto run_direct = [&] {
    const auto start = Clock::now();
    DirectContraction(device, inputs[0], inputs[1], &c);
    benchmark::DoNotOptimize(c.data());
    direct_s.push_back(std::chrono::duration<double>(Clock::now() - start).count());
  };
  bool eager_first = false;
  for (auto _ : state) {
    if (!failure.ok()) {
      state.SkipWithError(failure.ToString().c_str());
      break;
    }
    if (eager_first) {
      run_eager();
      run_direct();
    } else {
      run_direct();
      run_eager();
    }
    eager_first = !eager_first;
  }
  auto median = [](std::vector<double> v) {
    if (v.empty()) return 0.0;
    std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
    return v[v.size() / 2];
  };
  const double e = median(eager_s);
  const double d = median(direct_s);
  state.counters["eager_GFLOPs"] = e > 0 ? Gflop(n) / e : 0;
  state.counters["direct_GFLOPs"] = d > 0 ? Gflop(n) / d : 0;
  state.counters["ratio"] = e > 0 ? d / e : 0;
}
BENCHMARK(BM_MatMulRatio)
    ->Arg(1024)
    ->Arg(2048)
    ->MinTime(2.0)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace opkit
