// ResizeBilinear and ResizeNearestNeighbor as a segmentation head uses them
// (a [1, 128, 128, 21] score map upsampled 4x, half_pixel_centers), through
// the eager API on one intra-op thread. The baseline is the textbook loop
// that works out the source coordinates and weights for every output
// element, as a port of the formula would; the kernel computes them once
// per output row and column.
//
//   build/bench/bench/resize_bench
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

#include "benchmark/benchmark.h"
#include "opkit/runtime/eager_context.h"

namespace opkit {
namespace {

constexpr int64_t kIn = 128;
constexpr int64_t kOut = 512;
constexpr int64_t kChannels = 21;

std::unique_ptr<EagerContext> MakeContext() {
  EagerContext::Options options;
  options.intra_op_threads = 1;
  auto ctx = EagerContext::Create(options);
  if (!ctx.ok()) std::abort();
  return std::move(ctx).value();
}

Tensor Image() {
  Tensor t(DT_FLOAT, TensorShape({1, kIn, kIn, kChannels}));
  auto f = t.flat<float>();
  for (int64_t i = 0; i < f.size(); ++i) f(i) = static_cast<float>(i % 97) * 0.25f;
  return t;
}

Tensor Size() {
  Tensor t(DT_INT32, TensorShape({2}));
  t.flat<int32>()(0) = kOut;
  t.flat<int32>()(1) = kOut;
  return t;
}

void RunOp(benchmark::State& state, const char* op) {
  auto ctx = MakeContext();
  AttrValue yes;
  yes.set_b(true);
  const EagerAttrs attrs = {{"half_pixel_centers", yes}};
  const std::vector<Tensor> inputs = {Image(), Size()};
  std::vector<Tensor> out;
  for (auto _ : state) {
    Status s = ctx->Run(op, inputs, attrs, &out);
    if (!s.ok()) {
      state.SkipWithError(s.ToString().c_str());
      return;
    }
    benchmark::DoNotOptimize(out[0].data());
  }
  state.SetItemsProcessed(state.iterations() * kOut * kOut * kChannels);
}

void BM_ResizeBilinear(benchmark::State& state) { RunOp(state, "ResizeBilinear"); }
BENCHMARK(BM_ResizeBilinear)->Unit(benchmark::kMillisecond);

void BM_ResizeNearestNeighbor(benchmark::State& state) {
  RunOp(state, "ResizeNearestNeighbor");
}
BENCHMARK(BM_ResizeNearestNeighbor)->Unit(benchmark::kMillisecond);

// Baseline: the same half-pixel bilinear result, coordinates recomputed per
// output element.
void BM_NaiveBilinearBaseline(benchmark::State& state) {
  const Tensor image = Image();
  const float* in = image.flat<float>().data();
  std::vector<float> out(kOut * kOut * kChannels);
  const float scale = static_cast<float>(kIn) / static_cast<float>(kOut);
  for (auto _ : state) {
    for (int64_t y = 0; y < kOut; ++y) {
      for (int64_t x = 0; x < kOut; ++x) {
        for (int64_t c = 0; c < kChannels; ++c) {
          const float sy = (static_cast<float>(y) + 0.5f) * scale - 0.5f;
          const float sx = (static_cast<float>(x) + 0.5f) * scale - 0.5f;
          const int64_t y0 = std::max<int64_t>(static_cast<int64_t>(std::floor(sy)), 0);
          const int64_t y1 = std::min<int64_t>(static_cast<int64_t>(std::ceil(sy)), kIn - 1);
          const int64_t x0 = std::max<int64_t>(static_cast<int64_t>(std::floor(sx)), 0);
          const int64_t x1 = std::min<int64_t>(static_cast<int64_t>(std::ceil(sx)), kIn - 1);
          const float ly = sy - std::floor(sy);
          const float lx = sx - std::floor(sx);
          auto at = [&](int64_t yy, int64_t xx) { return in[(yy * kIn + xx) * kChannels + c]; };
          const float top = at(y0, x0) + (at(y0, x1) - at(y0, x0)) * lx;
          const float bottom = at(y1, x0) + (at(y1, x1) - at(y1, x0)) * lx;
          out[(y * kOut + x) * kChannels + c] = top + (bottom - top) * ly;
        }
      }
    }
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations() * kOut * kOut * kChannels);
}
BENCHMARK(BM_NaiveBilinearBaseline)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace opkit
