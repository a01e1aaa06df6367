// DepthwiseConv2dNative (float, NHWC, 3x3, SAME, batch 1) on the depthwise
// layers of MobileNetV2 at 224x224, through the eager API, against the same
// layer as a grouped Conv2D (one group per channel), the path a model had
// before the depthwise kernel existed.
//
//   build/default/bench/depthwise_conv_bench --benchmark_repetitions=3
//       --benchmark_report_aggregates_only=true
//
// Arguments: input rows (= cols), channels, stride. The GFLOP/s counter
// counts 2 * out_rows * out_cols * channels * 9 operations per call.
#include <algorithm>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "opkit/kernels/depthwise_conv_op.h"
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

void Run(benchmark::State& state, const char* op, bool grouped_filter) {
  const int64_t size = state.range(0);
  const int64_t channels = state.range(1);
  const int32 stride = static_cast<int32>(state.range(2));
  EagerAttrs attrs = {{"strides", Attr(std::vector<int32>{1, stride, stride, 1})},
                      {"padding", Attr(std::string("SAME"))}};
  auto prepared = Context().Prepare(op, {DT_FLOAT, DT_FLOAT}, attrs);
  if (!prepared.ok()) {
    state.SkipWithError(prepared.status().ToString().c_str());
    return;
  }
  // Depthwise: [3, 3, C, 1]; grouped Conv2D: [3, 3, 1, C] (C groups).
  const TensorShape filter_shape = grouped_filter
                                       ? TensorShape({3, 3, 1, channels})
                                       : TensorShape({3, 3, channels, 1});
  std::vector<Tensor> inputs = {Random(TensorShape({1, size, size, channels})),
                                Random(filter_shape)};
  std::vector<Tensor> out;
  for (auto _ : state) {
    Status s = (*prepared)->Run(inputs, &out);
    if (!s.ok()) {
      state.SkipWithError(s.ToString().c_str());
      break;
    }
  }
  const int64_t out_size = (size + stride - 1) / stride;
  const double flop = 2.0 * out_size * out_size * channels * 9;
  state.counters["GFLOP/s"] = benchmark::Counter(
      flop * state.iterations() / 1e9, benchmark::Counter::kIsRate);
}

void BM_DepthwiseConv2dNative(benchmark::State& state) {
  Run(state, "DepthwiseConv2dNative", /*grouped_filter=*/false);
}
void BM_GroupedConv2D(benchmark::State& state) {
  Run(state, "Conv2D", /*grouped_filter=*/true);
}

// The computation alone (DepthwiseConv2DNHWC) on the calling thread: the
// per-core speed of the kernel, without the eager call or the thread pool.
void BM_DepthwiseSingleThread(benchmark::State& state) {
  const int64_t size = state.range(0);
  const int64_t channels = state.range(1);
  const int64_t stride = state.range(2);
  DepthwiseArgs a;
  a.batch = 1;
  a.in_rows = a.in_cols = size;
  a.in_depth = a.out_depth = channels;
  a.filter_rows = a.filter_cols = 3;
  a.depth_multiplier = 1;
  a.stride_rows = a.stride_cols = stride;
  a.out_rows = a.out_cols = (size + stride - 1) / stride;
  // SAME: total padding (out - 1) * stride + 3 - size, the odd unit after.
  a.pad_top = a.pad_left = std::max<int64_t>(0, (a.out_rows - 1) * stride + 3 - size) / 2;
  Tensor in = Random(TensorShape({1, size, size, channels}));
  Tensor filter = Random(TensorShape({3, 3, channels, 1}));
  Tensor out(DT_FLOAT, TensorShape({1, a.out_rows, a.out_cols, channels}));
  for (auto _ : state) {
    DepthwiseConv2DNHWC(nullptr, a, in.flat<float>().data(),
                        filter.flat<float>().data(), out.flat<float>().data());
    benchmark::ClobberMemory();
  }
  const double flop = 2.0 * a.out_rows * a.out_cols * channels * 9;
  state.counters["GFLOP/s"] = benchmark::Counter(
      flop * state.iterations() / 1e9, benchmark::Counter::kIsRate);
}

// MobileNetV2's depthwise layers (224x224 input): rows, channels, stride.
void MobileNetV2Layers(benchmark::internal::Benchmark* b) {
  b->Args({112, 32, 1})
      ->Args({112, 96, 2})
      ->Args({56, 144, 1})
      ->Args({56, 144, 2})
      ->Args({28, 192, 1})
      ->Args({28, 192, 2})
      ->Args({14, 384, 1})
      ->Args({14, 576, 1})
      ->Args({14, 576, 2})
      ->Args({7, 960, 1})
      ->ArgNames({"rows", "channels", "stride"})
      ->Unit(benchmark::kMicrosecond)
      ->UseRealTime();
}
BENCHMARK(BM_DepthwiseConv2dNative)->Apply(MobileNetV2Layers);
BENCHMARK(BM_GroupedConv2D)->Apply(MobileNetV2Layers);
BENCHMARK(BM_DepthwiseSingleThread)->Apply(MobileNetV2Layers);

}  // namespace
}  // namespace opkit
