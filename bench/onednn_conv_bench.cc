// Float Conv2D on MobileNetV2's layers (224x224 input, batch 1) through the
// eager API: the built-in kernel, then examples/onednn_kernels loaded, in
// one run, and the ratio per layer.
//
//   OMP_WAIT_POLICY=passive build/default/bench/onednn_conv_bench
//       --benchmark_repetitions=3 --benchmark_enable_random_interleaving=true
//       --benchmark_report_aggregates_only=true [--intra_op_threads=1]
//
// OMP_WAIT_POLICY=passive: oneDNN runs on libgomp, whose threads otherwise
// spin while they wait and take the CPU from opkit's pool and, on a busy
// machine, from each other (examples/onednn_kernels/README.md, Threads).
//
// Layers: the 3x3/2 stem conv 3->32, the 1x1 expansion and projection
// convs, and the 3x3 depthwise convs, stride 1 and 2, from 112x112x32 down
// to 7x7x960. A depthwise layer runs as Conv2D with a [3, 3, 1, C] filter
// (C groups), the built-in kernel's form of it and the same oneDNN grouped
// convolution that the library's DepthwiseConv2dNative runs. Each pair of
// benchmarks uses one prepared op per kernel, so the oneDNN side runs with
// its primitive and reordered filter cached, as a model's steps would.
//
// After the benchmarks the program prints, per layer, the median time of
// each kernel and `speedup` = built-in time / oneDNN time.
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "opkit/op/attr_value_util.h"
#include "opkit/runtime/eager_context.h"
#include "opkit/runtime/library.h"

namespace opkit {
namespace {

struct Layer {
  const char* name;
  int64_t size;  // input height = width
  int64_t in_depth;
  int64_t out_depth;
  int64_t kernel;  // 1 or 3
  int stride;
  bool depthwise;
};

// MobileNetV2 (t, c, n, s) = (1,16,1,1) (6,24,2,2) (6,32,3,2) (6,64,4,2)
// (6,96,3,1) (6,160,3,2) (6,320,1,1): one of each distinct shape that the
// network runs, in order.
const Layer kLayers[] = {
    {"stem_3x3s2_224x3_32", 224, 3, 32, 3, 2, false},
    {"dw_3x3s1_112x32", 112, 32, 32, 3, 1, true},
    {"proj_1x1_112x32_16", 112, 32, 16, 1, 1, false},
    {"exp_1x1_112x16_96", 112, 16, 96, 1, 1, false},
    {"dw_3x3s2_112x96", 112, 96, 96, 3, 2, true},
    {"proj_1x1_56x96_24", 56, 96, 24, 1, 1, false},
    {"exp_1x1_56x24_144", 56, 24, 144, 1, 1, false},
    {"dw_3x3s1_56x144", 56, 144, 144, 3, 1, true},
    {"dw_3x3s2_56x144", 56, 144, 144, 3, 2, true},
    {"proj_1x1_28x144_32", 28, 144, 32, 1, 1, false},
    {"exp_1x1_28x32_192", 28, 32, 192, 1, 1, false},
    {"dw_3x3s1_28x192", 28, 192, 192, 3, 1, true},
    {"dw_3x3s2_28x192", 28, 192, 192, 3, 2, true},
    {"proj_1x1_14x192_64", 14, 192, 64, 1, 1, false},
    {"exp_1x1_14x64_384", 14, 64, 384, 1, 1, false},
    {"dw_3x3s1_14x384", 14, 384, 384, 3, 1, true},
    {"proj_1x1_14x384_96", 14, 384, 96, 1, 1, false},
    {"exp_1x1_14x96_576", 14, 96, 576, 1, 1, false},
    {"dw_3x3s1_14x576", 14, 576, 576, 3, 1, true},
    {"dw_3x3s2_14x576", 14, 576, 576, 3, 2, true},
    {"proj_1x1_7x576_160", 7, 576, 160, 1, 1, false},
    {"exp_1x1_7x160_960", 7, 160, 960, 1, 1, false},
    {"dw_3x3s1_7x960", 7, 960, 960, 3, 1, true},
    {"proj_1x1_7x960_320", 7, 960, 320, 1, 1, false},
    {"last_1x1_7x320_1280", 7, 320, 1280, 1, 1, false},
};

// --intra_op_threads=N (0: one per core) for both kernels.
int intra_op_threads = 0;

EagerContext& Context() {
  static EagerContext* ctx = [] {
    EagerContext::Options options;
    options.intra_op_threads = intra_op_threads;
    auto c = EagerContext::Create(options);
    if (!c.ok()) std::abort();
    return std::move(c).value().release();
  }();
  return *ctx;
}

// The library, loaded (true) or not (false).
Status UseOneDnn(bool loaded) {
  static OpLibrary* lib = new OpLibrary();
  if (loaded && !lib->loaded()) {
    OPKIT_ASSIGN_OR_RETURN(*lib, LoadOpLibrary(OPKIT_ONEDNN_KERNELS_LIB));
  } else if (!loaded && lib->loaded()) {
    OPKIT_RETURN_IF_ERROR(lib->Unload());
  }
  return OkStatus();
}

Tensor Random(const TensorShape& shape) {
  static std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  Tensor t(DT_FLOAT, shape);
  float* p = static_cast<float*>(t.data());
  for (int64_t i = 0; i < t.NumElements(); ++i) p[i] = dist(rng);
  return t;
}

AttrValue IntList(std::vector<int> v) {
  AttrValue a;
  SetAttrValue(v, &a);
  return a;
}

AttrValue String(const std::string& s) {
  AttrValue a;
  SetAttrValue(s, &a);
  return a;
}

void RunLayer(benchmark::State& state, const Layer& layer, bool onednn) {
  Status s = UseOneDnn(onednn);
  if (!s.ok()) {
    state.SkipWithError(s.ToString().c_str());
    return;
  }
  const EagerAttrs attrs = {{"strides", IntList({1, layer.stride, layer.stride, 1})},
                            {"padding", String("SAME")}};
  auto conv = Context().Prepare("Conv2D", {DT_FLOAT, DT_FLOAT}, attrs);
  if (!conv.ok()) {
    state.SkipWithError(conv.status().ToString().c_str());
    return;
  }
  state.SetLabel((*conv)->kernel_class_name());
  const std::vector<Tensor> inputs = {
      Random(TensorShape({1, layer.size, layer.size, layer.in_depth})),
      Random(TensorShape({layer.kernel, layer.kernel,
                          layer.depthwise ? 1 : layer.in_depth, layer.out_depth}))};
  std::vector<Tensor> out;
  for (auto _ : state) {
    Status r = (*conv)->Run(inputs, &out);
    if (!r.ok()) {
      state.SkipWithError(r.ToString().c_str());
      break;
    }
    benchmark::DoNotOptimize(out[0].data());
  }
}

// The console report, plus each benchmark's median (or, without
// repetitions, only) real time for the ratio table.
class RatioReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& run : runs) {
      if (run.error_occurred) continue;
      const std::string& name = run.run_name.function_name;
      if (run.run_type == Run::RT_Aggregate) {
        if (run.aggregate_name == "median") median_[name] = run.GetAdjustedRealTime();
      } else {
        single_[name] = run.GetAdjustedRealTime();
      }
    }
  }

  void PrintRatios() const {
    std::printf("\n%-24s %12s %12s %8s\n", "layer", "built-in ms", "oneDNN ms", "speedup");
    double builtin_total = 0, onednn_total = 0;
    for (const Layer& layer : kLayers) {
      const double b = Time(std::string("Builtin/") + layer.name);
      const double o = Time(std::string("OneDnn/") + layer.name);
      if (b <= 0 || o <= 0) continue;
      builtin_total += b;
      onednn_total += o;
      std::printf("%-24s %12.3f %12.3f %7.2fx\n", layer.name, b, o, b / o);
    }
    if (onednn_total > 0) {
      std::printf("%-24s %12.3f %12.3f %7.2fx\n", "sum of the layers", builtin_total,
                  onednn_total, builtin_total / onednn_total);
    }
  }

 private:
  double Time(const std::string& name) const {
    auto m = median_.find(name);
    if (m != median_.end()) return m->second;
    auto s = single_.find(name);
    return s == single_.end() ? 0 : s->second;
  }

  std::map<std::string, double> median_, single_;
};

}  // namespace
}  // namespace opkit

int main(int argc, char** argv) {
  using opkit::kLayers;
  // Our own flag, taken out before Google Benchmark sees the arguments.
  const std::string flag = "--intra_op_threads=";
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]).rfind(flag, 0) == 0) {
      opkit::intra_op_threads = std::atoi(argv[i] + flag.size());
    } else {
      argv[kept++] = argv[i];
    }
  }
  argc = kept;
  for (const opkit::Layer& layer : kLayers) {
    for (bool onednn : {false, true}) {
      benchmark::RegisterBenchmark(
          (std::string(onednn ? "OneDnn/" : "Builtin/") + layer.name).c_str(),
          [&layer, onednn](benchmark::State& state) {
            opkit::RunLayer(state, layer, onednn);
          })
          ->Unit(benchmark::kMillisecond)
          ->MinTime(0.2)
          ->UseRealTime();
    }
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  opkit::RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  reporter.PrintRatios();
  benchmark::Shutdown();
  return 0;
}
