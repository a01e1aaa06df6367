// A whole model through Session::Run: MobileNetV2 (bench/models), 224x224x3,
// batch 1, random weights, at 1 and 2 intra-op threads (one inter-op
// thread: the network is a chain, so intra-op threads are what helps).
//
//   build/bench/bench/model_bench
//
// Skips with a message naming the missing op when this build cannot run the
// graph (DepthwiseConv2dNative must be registered). The same figure, with a
// per-op breakdown, comes from `make_mobilenet_v2 m.pb && opkit bench m.pb`.
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "bench/models/mobilenet_v2.h"
#include "benchmark/benchmark.h"
#include "opkit/core/str_util.h"
#include "opkit/runtime/session.h"
#include "opkit/tensor/tensor.h"

namespace opkit {
namespace {

// arg 0: intra-op threads; arg 1: 1 for FusedBatchNormV3, 0 for BiasAdd
// (the graph after batch-norm folding).
void BM_MobileNetV2(benchmark::State& state) {
  bench::MobileNetV2Options options;
  options.batch_norm = state.range(1) != 0;
  GraphDef graph;
  Status s = bench::MakeMobileNetV2(options, &graph);
  SessionOptions session_options;
  session_options.intra_op_threads = static_cast<int>(state.range(0));
  StatusOr<std::unique_ptr<Session>> session = Session::New(session_options);
  if (s.ok()) s = session.status();
  if (s.ok()) s = (*session)->Create(graph);
  if (!s.ok()) {
    state.SkipWithError(StrCat("cannot run MobileNetV2 in this build (is every op it uses, "
                               "DepthwiseConv2dNative among them, registered?): ",
                               s.ToString()).c_str());
    return;
  }
  Tensor image(DT_FLOAT, TensorShape({options.batch, options.input_size, options.input_size, 3}));
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> pixel(-1.0f, 1.0f);
  for (int64_t i = 0; i < image.NumElements(); ++i) image.flat<float>()(i) = pixel(rng);
  const std::vector<std::pair<std::string, Tensor>> feeds = {{bench::kMobileNetV2Input, image}};
  const std::vector<std::string> fetches = {bench::kMobileNetV2Output};
  std::vector<Tensor> outputs;
  // The first run creates the kernels and sizes the buffers; it is not timed.
  s = (*session)->Run(feeds, fetches, {}, &outputs);
  if (!s.ok()) {
    state.SkipWithError(StrCat("MobileNetV2 failed to run: ", s.ToString()).c_str());
    return;
  }
  for (auto _ : state) {
    s = (*session)->Run(feeds, fetches, {}, &outputs);
    if (!s.ok()) {
      state.SkipWithError(StrCat("MobileNetV2 failed to run: ", s.ToString()).c_str());
      return;
    }
    benchmark::DoNotOptimize(outputs.data());
  }
  state.counters["images/s"] = benchmark::Counter(
      static_cast<double>(state.iterations() * options.batch), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_MobileNetV2)
    ->ArgNames({"intra_op_threads", "batch_norm"})
    ->Args({1, 1})
    ->Args({2, 1})
    ->Args({1, 0})
    ->Args({2, 0})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace opkit
