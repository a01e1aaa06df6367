// Python call overhead of a 1-element float32 AddV2: through
// opkit.raw_ops.AddV2(x=, y=), through the generated wrapper
// opkit.ops.add_v2(x, y), and numpy's np.add(x, y) on the same arrays, in
// one run. Embeds /usr/bin/python3's interpreter and imports opkit from the
// build tree; each loop iteration is one PyObject_Call.
//
//   build/<dir>/bench/python_call_bench
#include <pybind11/embed.h>

#include <cstdio>
#include <string>

#include "benchmark/benchmark.h"

namespace py = pybind11;

namespace {

// Set up in main() before the benchmarks run; the interpreter outlives them.
PyObject* g_raw_add = nullptr;      // opkit.raw_ops.AddV2
PyObject* g_wrapper_add = nullptr;  // opkit.ops.add_v2
PyObject* g_numpy_add = nullptr;    // numpy.add
PyObject* g_args = nullptr;         // (x, y)
PyObject* g_kwargs = nullptr;       // {"x": x, "y": y}
PyObject* g_empty = nullptr;        // ()

void Loop(benchmark::State& state, PyObject* callable, PyObject* args,
          PyObject* kwargs) {
  for (auto _ : state) {
    PyObject* r = PyObject_Call(callable, args, kwargs);
    if (r == nullptr) {
      PyErr_Print();
      state.SkipWithError("the call raised");
      return;
    }
    Py_DECREF(r);
  }
}

void BM_RawOpsAddV2(benchmark::State& state) {
  Loop(state, g_raw_add, g_empty, g_kwargs);
}
BENCHMARK(BM_RawOpsAddV2);

void BM_GeneratedWrapperAddV2(benchmark::State& state) {
  Loop(state, g_wrapper_add, g_args, nullptr);
}
BENCHMARK(BM_GeneratedWrapperAddV2);

void BM_NumpyAdd(benchmark::State& state) {
  Loop(state, g_numpy_add, g_args, nullptr);
}
BENCHMARK(BM_NumpyAdd);

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  py::scoped_interpreter interpreter;
  try {
    py::module_::import("sys").attr("path").attr("insert")(0, OPKIT_PYTHON_DIR);
    py::module_ np = py::module_::import("numpy");
    py::module_ opkit = py::module_::import("opkit");
    py::object x = np.attr("array")(py::make_tuple(1.0f), "float32");
    py::object y = np.attr("array")(py::make_tuple(2.0f), "float32");
    py::object raw = opkit.attr("raw_ops").attr("AddV2");
    py::object wrapper = opkit.attr("ops").attr("add_v2");
    py::object add = np.attr("add");
    py::dict kwargs;
    kwargs["x"] = x;
    kwargs["y"] = y;
    // Check the three agree before timing them.
    py::object expected = add(x, y);
    for (py::object r : {raw(**kwargs), wrapper(x, y)}) {
      if (!np.attr("array_equal")(r, expected).cast<bool>()) {
        std::fprintf(stderr, "opkit's AddV2 disagrees with np.add\n");
        return 1;
      }
    }
    g_raw_add = raw.release().ptr();
    g_wrapper_add = wrapper.release().ptr();
    g_numpy_add = add.release().ptr();
    g_args = py::make_tuple(x, y).release().ptr();
    g_kwargs = kwargs.release().ptr();
    g_empty = py::tuple().release().ptr();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "setting up Python failed: %s\n", e.what());
    return 1;
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
