// Conv2D's gradients against Conv2D itself, through the eager API: float,
// NHWC, batch 1, 3x3 filters, stride 1, SAME, on ResNet-like layer shapes.
//
//   build/default/bench/conv_grad_bench --benchmark_repetitions=3
//       --benchmark_report_aggregates_only=true
//
// Arguments: rows (= cols), input channels, output channels. The GFLOP/s
// counter counts 2 * rows * cols * 9 * in * out operations per call (the
// same for all three ops).
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "opkit/op/attr_value_util.h"
#include "opkit/runtime/eager_context.h"

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

template <typename V>
AttrValue Attr(const V& v) {
  AttrValue a;
  SetAttrValue(v, &a);
  return a;
}

Tensor Random(const TensorShape& shape) {
  Tensor t(DT_FLOAT, shape);
  t.flat<float>().setRandom();
  return t;
}

Tensor Sizes(std::vector<int32> v) {
  Tensor t(DT_INT32, TensorShape({static_cast<int64_t>(v.size())}));
  for (size_t i = 0; i < v.size(); ++i) t.flat<int32>()(i) = v[i];
  return t;
}

enum class Which { kForward, kInput, kFilter };

void Run(benchmark::State& state, Which which) {
  const int32 size = static_cast<int32>(state.range(0));
  const int32 in = static_cast<int32>(state.range(1));
  const int32 out = static_cast<int32>(state.range(2));
  Tensor x = Random(TensorShape({1, size, size, in}));
  Tensor w = Random(TensorShape({3, 3, in, out}));
  Tensor dy = Random(TensorShape({1, size, size, out}));
  const char* op = nullptr;
  std::vector<Tensor> inputs;
  switch (which) {
    case Which::kForward:
      op = "Conv2D";
      inputs = {x, w};
      break;
    case Which::kInput:
      op = "Conv2DBackpropInput";
      inputs = {Sizes({1, size, size, in}), w, dy};
      break;
    case Which::kFilter:
      op = "Conv2DBackpropFilter";
      inputs = {x, Sizes({3, 3, in, out}), dy};
      break;
  }
  DataTypeVector types;
  for (const Tensor& t : inputs) types.push_back(t.dtype());
  EagerAttrs attrs = {{"strides", Attr(std::vector<int32>{1, 1, 1, 1})},
                      {"padding", Attr(std::string("SAME"))}};
  auto prepared = Context().Prepare(op, types, attrs);
  if (!prepared.ok()) {
    state.SkipWithError(prepared.status().ToString().c_str());
    return;
  }
  std::vector<Tensor> result;
  for (auto _ : state) {
    Status s = (*prepared)->Run(inputs, &result);
    if (!s.ok()) {
      state.SkipWithError(s.ToString().c_str());
      break;
    }
  }
  const double flop = 2.0 * size * size * 9 * in * out;
  state.counters["GFLOP/s"] = benchmark::Counter(
      flop * state.iterations() / 1e9, benchmark::Counter::kIsRate);
}

void BM_Conv2D(benchmark::State& state) { Run(state, Which::kForward); }
void BM_Conv2DBackpropInput(benchmark::State& state) { Run(state, Which::kInput); }
void BM_Conv2DBackpropFilter(benchmark::State& state) { Run(state, Which::kFilter); }

void Layers(benchmark::internal::Benchmark* b) {
  b->Args({56, 64, 64})
      ->Args({28, 128, 128})
      ->Args({14, 256, 256})
      ->ArgNames({"rows", "in", "out"})
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime();
}
BENCHMARK(BM_Conv2D)->Apply(Layers);
BENCHMARK(BM_Conv2DBackpropInput)->Apply(Layers);
BENCHMARK(BM_Conv2DBackpropFilter)->Apply(Layers);

}  // namespace
}  // namespace opkit
