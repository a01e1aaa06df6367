// One training step of an MLP 784-512-512-10 at batch 64, float32 (forward,
// gradients of the mean softmax cross-entropy, SGD update of every weight),
// in PyTorch from Debian (python3-torch) and in opkit's eager GradientTape
// and graph mode (opkit.gradients, one Session.run per step), each at 1 and
// 2 threads (one run per count, --threads=N); and the construction of the
// gradient graph (opkit.gradients over the MLP). The steps are bench/python/train_step.py's;
// before timing, every variant runs three steps from the same weights and
// must agree with a numpy reference step (and PyTorch) in losses and weights.
//
//   build/<dir>/bench/train_step_bench --threads=1
//   build/<dir>/bench/train_step_bench --threads=2
//
// PyTorch's kernels and OpenBLAS (which opkit's MatMul calls) each start
// their own threads: run with OMP_WAIT_POLICY=passive so that idle OpenMP
// workers do not spin against the other framework's threads. PyTorch
// missing is a skip with a message, not a failure.
#include <pybind11/embed.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "benchmark/benchmark.h"

namespace py = pybind11;

namespace {

py::module_* g_train_step = nullptr;  // bench/python/train_step.py
bool g_have_torch = false;

void Step(benchmark::State& state, const std::string& kind, int threads) {
  if (kind == "torch" && !g_have_torch) {
    state.SkipWithError("PyTorch is not installed (apt-get install python3-torch)");
    return;
  }
  py::object step;
  try {
    step = g_train_step->attr("make_step")(kind, threads);
    step();  // warm up: kernels selected, caches filled
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  PyObject* fn = step.ptr();
  for (auto _ : state) {
    PyObject* r = PyObject_CallNoArgs(fn);
    if (r == nullptr) {
      PyErr_Print();
      state.SkipWithError("the step raised");
      return;
    }
    Py_DECREF(r);
  }
}

// opkit.gradients over the MLP's loss, in a fresh graph each iteration
// (the graph's forward part is built outside the timed region).
void GradientGraphConstruction(benchmark::State& state) {
  py::module_ opkit = py::module_::import("opkit");
  for (auto _ : state) {
    double seconds = 0;
    try {
      py::tuple built = g_train_step->attr("build_graph")(opkit);
      seconds = built[6].cast<double>();
    } catch (const std::exception& e) {
      state.SkipWithError(e.what());
      return;
    }
    state.SetIterationTime(seconds);
  }
}

}  // namespace

int main(int argc, char** argv) {
  // --threads=N (default 1): opkit's eager thread count is fixed once the
  // eager context exists (as TensorFlow's), so each count is one run.
  int threads = 1;
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--threads=", 0) == 0) {
      threads = std::atoi(arg.c_str() + 10);
      if (threads < 1) {
        std::fprintf(stderr, "--threads must be >= 1, got %s\n", arg.c_str());
        return 1;
      }
    } else {
      argv[kept++] = argv[i];
    }
  }
  argc = kept;
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  for (const char* kind : {"torch", "opkit_tape", "opkit_graph"}) {
    const std::string name = std::string("BM_Step/") + kind + "/threads:" + std::to_string(threads);
    benchmark::RegisterBenchmark(name.c_str(), [kind, threads](benchmark::State& state) {
      Step(state, kind, threads);
    })->Unit(benchmark::kMillisecond)->UseRealTime();
  }
  benchmark::RegisterBenchmark("BM_OpkitGradientGraphConstruction", GradientGraphConstruction)
      ->UseManualTime()
      ->Unit(benchmark::kMillisecond);
  py::scoped_interpreter interpreter;
  static py::module_ train_step;
  try {
    py::module_ sys = py::module_::import("sys");
    sys.attr("path").attr("insert")(0, OPKIT_PYTHON_DIR);
    sys.attr("path").attr("insert")(0, OPKIT_BENCH_PYTHON_DIR);
    train_step = py::module_::import("train_step");
    g_train_step = &train_step;
    try {
      py::module_::import("torch");
      g_have_torch = true;
    } catch (const std::exception&) {
      std::fprintf(stderr, "PyTorch is not installed: its benchmarks are skipped\n");
    }
    train_step.attr("configure_opkit")(threads);
    train_step.attr("check_agreement")(3, threads);
    std::fprintf(stderr, "numpy%s and opkit (tape, graph) agree over three steps\n",
                 g_have_torch ? ", PyTorch" : "");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "setting up the training steps failed: %s\n", e.what());
    return 1;
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
