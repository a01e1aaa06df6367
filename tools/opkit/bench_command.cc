// `opkit bench`: times a model the way TensorFlow's benchmark_model does. The
// graph's Placeholders are fed random values, its sinks (or --fetch) are
// fetched; after warm-up runs the latency of each Session::Run is recorded,
// and the executor's per-node step stats (the same ones `run --profile`
// reads, profile.h) give a table per op type, the slowest nodes and,
// with --trace, a Chrome trace-event file.
//
// `bench MODEL --load LIB` times the model three times in one process: with
// the kernels registered before (the built-in ones), with LIB loaded, and
// after unloading LIB again; it says which nodes LIB's kernels took over and
// compares the outputs of the last two phases with the first.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "CLI/CLI.hpp"
#include "nlohmann/json.hpp"
#include "opkit/core/machine_resources.h"
#include "opkit/core/errors.h"
#include "opkit/core/str_util.h"
#include "opkit/device/device_type.h"
#include "opkit/graph/graph.h"
#include "opkit/graph/tfjs_model.h"
#include "opkit/kernel/kernel_selection.h"
#include "opkit/optimizer/graph_optimizer.h"
#include "opkit/runtime/library.h"
#include "opkit/runtime/session.h"
#include "opkit/tensor/numeric_types.h"
#include "opkit/tensor/tensor.h"
#include "opkit/tensor/types.h"
#include "tools/opkit/commands.h"
#include "tools/opkit/profile.h"

namespace opkit {
namespace cli {
namespace {

using nlohmann::json;

// The largest input bench makes up (a typo such as 1,2240,2240,3 should
// fail with a message, not exhaust memory).
constexpr int64_t kMaxInputBytes = int64_t{1} << 32;

// `v` with `decimals` digits after the point.
std::string Fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*f", decimals, v);
  return buf;
}

std::string Percent(double share) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.1f%%", share * 100);
  return buf;
}

// min / median / mean / p90 / max of a non-empty sample.
struct Latency {
  double min = 0, median = 0, mean = 0, p90 = 0, max = 0;
};

Latency Summarize(std::vector<double> ms) {
  std::sort(ms.begin(), ms.end());
  const size_t n = ms.size();
  Latency l;
  l.min = ms.front();
  l.max = ms.back();
  l.median = n % 2 == 1 ? ms[n / 2] : (ms[n / 2 - 1] + ms[n / 2]) / 2;
  double sum = 0;
  for (double v : ms) sum += v;
  l.mean = sum / static_cast<double>(n);
  // Nearest rank: the smallest value with at least 90% of the sample at or
  // below it.
  const size_t rank = static_cast<size_t>(std::ceil(0.9 * static_cast<double>(n)));
  l.p90 = ms[std::max<size_t>(rank, 1) - 1];
  return l;
}

// `shape` with its unknown dimensions as 1, as --input-shape takes it
// ("1,8,8,3"); "1,224,224,3" for an unknown rank.
std::string ExampleShape(const PartialTensorShape& shape) {
  if (shape.unknown_rank()) return "1,224,224,3";
  std::vector<std::string> dims;
  for (int64_t d : shape.dim_sizes()) dims.push_back(std::to_string(d < 0 ? 1 : d));
  return StrJoin(dims, ",");
}

template <typename T, typename Make>
void Fill(Tensor* t, Make make) {
  auto flat = t->flat<T>();
  for (int64_t i = 0; i < flat.size(); ++i) flat(i) = make();
}

// Random values of t's dtype: reals uniform in [-1, 1), integers in [0, 8)
// (small and non-negative, so that an input used as an index or a size is
// likely valid), bools either way.
Status FillRandom(const std::string& input, std::mt19937_64& rng, Tensor* t) {
  std::uniform_real_distribution<double> real(-1.0, 1.0);
  std::uniform_int_distribution<int> small(0, 7);
  auto r = [&] { return real(rng); };
  auto i = [&] { return small(rng); };
  switch (t->dtype()) {
    case DT_FLOAT: Fill<float>(t, [&] { return static_cast<float>(r()); }); break;
    case DT_DOUBLE: Fill<double>(t, r); break;
    case DT_HALF: Fill<half>(t, [&] { return static_cast<half>(static_cast<float>(r())); }); break;
    case DT_BFLOAT16:
      Fill<bfloat16>(t, [&] { return static_cast<bfloat16>(static_cast<float>(r())); });
      break;
    case DT_COMPLEX64:
      Fill<complex64>(t, [&] {
        const float re = static_cast<float>(r());
        return complex64(re, static_cast<float>(r()));
      });
      break;
    case DT_COMPLEX128:
      Fill<complex128>(t, [&] {
        const double re = r();
        return complex128(re, r());
      });
      break;
    case DT_INT8: Fill<int8>(t, [&] { return static_cast<int8>(i()); }); break;
    case DT_INT16: Fill<int16>(t, [&] { return static_cast<int16>(i()); }); break;
    case DT_INT32: Fill<int32>(t, [&] { return static_cast<int32>(i()); }); break;
    case DT_INT64: Fill<int64>(t, [&] { return static_cast<int64>(i()); }); break;
    case DT_UINT8: Fill<uint8>(t, [&] { return static_cast<uint8>(i()); }); break;
    case DT_UINT16: Fill<uint16>(t, [&] { return static_cast<uint16>(i()); }); break;
    case DT_UINT32: Fill<uint32>(t, [&] { return static_cast<uint32>(i()); }); break;
    case DT_UINT64: Fill<uint64>(t, [&] { return static_cast<uint64>(i()); }); break;
    case DT_BOOL: Fill<bool>(t, [&] { return i() % 2 == 1; }); break;
    default:
      return errors::InvalidArgument(
          "input '", input, "' has dtype ", DataTypeString(t->dtype()),
          ", which bench cannot fill with random values (it fills numbers and bools); "
          "give --fetch names that do not depend on it");
  }
  return OkStatus();
}

// One input the benchmark feeds.
struct Input {
  std::string name;
  DataType dtype = DT_INVALID;
  TensorShape shape;
};

// One run's node timings and when the run started, for --trace.
struct TracedRun {
  int64_t offset_ns = 0;  // since the first timed run started
  std::vector<NodeExecStats> stats;
};

// One timed phase: the runs of one Session over the kernels registered
// while it ran.
struct Phase {
  std::string name;
  std::vector<double> warmup_ms;
  std::vector<double> run_ms;
  NodeProfile profile;
  // The fetched tensors of the first run.
  std::vector<Tensor> outputs;
  std::vector<TracedRun> traced;
};

// How a phase's outputs compare with the built-in phase's.
struct Comparison {
  // The largest |value - built-in value| over every compared element.
  double max_abs_diff = 0;
  bool pass = true;
  // Why it failed (the first fetch and element outside the tolerance, or a
  // dtype or shape that differs); empty when it passed.
  std::string failure;
};

// The elements of a numeric tensor as doubles (a complex number as its real
// and imaginary parts), with *exact set for integers and bools, which are
// compared for equality; false for other dtypes.
bool ToDoubles(const Tensor& t, std::vector<double>* out, bool* exact) {
  out->clear();
  *exact = true;
  auto copy = [&](auto tag) {
    using T = decltype(tag);
    auto flat = t.flat<T>();
    for (int64_t i = 0; i < flat.size(); ++i) out->push_back(static_cast<double>(flat(i)));
  };
  auto copy_complex = [&](auto tag) {
    using T = decltype(tag);
    auto flat = t.flat<T>();
    for (int64_t i = 0; i < flat.size(); ++i) {
      out->push_back(static_cast<double>(flat(i).real()));
      out->push_back(static_cast<double>(flat(i).imag()));
    }
  };
  switch (t.dtype()) {
    case DT_FLOAT: *exact = false; copy(float{}); return true;
    case DT_DOUBLE: *exact = false; copy(double{}); return true;
    case DT_HALF:
      *exact = false;
      for (int64_t i = 0; i < t.NumElements(); ++i) {
        out->push_back(static_cast<double>(static_cast<float>(t.flat<half>()(i))));
      }
      return true;
    case DT_BFLOAT16:
      *exact = false;
      for (int64_t i = 0; i < t.NumElements(); ++i) {
        out->push_back(static_cast<double>(static_cast<float>(t.flat<bfloat16>()(i))));
      }
      return true;
    case DT_COMPLEX64: *exact = false; copy_complex(complex64{}); return true;
    case DT_COMPLEX128: *exact = false; copy_complex(complex128{}); return true;
    case DT_INT8: copy(int8{}); return true;
    case DT_INT16: copy(int16{}); return true;
    case DT_INT32: copy(int32{}); return true;
    case DT_INT64: copy(int64{}); return true;
    case DT_UINT8: copy(uint8{}); return true;
    case DT_UINT16: copy(uint16{}); return true;
    case DT_UINT32: copy(uint32{}); return true;
    case DT_UINT64: copy(uint64{}); return true;
    case DT_BOOL: copy(bool{}); return true;
    default: return false;
  }
}

// Compares `got` with `want` fetch by fetch: reals within
// tolerance * (1 + |want|), integers and bools equal, NaN only against NaN;
// tensors of other dtypes (strings, resources, variants) are not compared.
Comparison Compare(const std::vector<Tensor>& got, const std::vector<Tensor>& want,
                   const std::vector<std::string>& fetches, double tolerance) {
  Comparison c;
  auto fail = [&c](std::string why) {
    if (c.pass) c.failure = std::move(why);
    c.pass = false;
  };
  for (size_t f = 0; f < fetches.size() && f < got.size() && f < want.size(); ++f) {
    const Tensor& a = got[f];
    const Tensor& b = want[f];
    if (a.dtype() != b.dtype() || a.shape() != b.shape()) {
      fail(StrCat(fetches[f], " is ", DataTypeString(a.dtype()), " ", ShapeText(a.shape()),
                  " instead of ", DataTypeString(b.dtype()), " ", ShapeText(b.shape())));
      continue;
    }
    std::vector<double> va, vb;
    bool exact = true;
    if (!ToDoubles(a, &va, &exact) || !ToDoubles(b, &vb, &exact)) continue;
    for (size_t i = 0; i < va.size(); ++i) {
      const bool nan_a = std::isnan(va[i]), nan_b = std::isnan(vb[i]);
      if (nan_a || nan_b) {
        if (nan_a != nan_b) {
          fail(StrCat(fetches[f], " element ", i, " is ", va[i], " instead of ", vb[i]));
          c.max_abs_diff = INFINITY;
        }
        continue;
      }
      const double diff = va[i] == vb[i] ? 0.0 : std::fabs(va[i] - vb[i]);
      c.max_abs_diff = std::max(c.max_abs_diff, diff);
      const double allowed = exact ? 0.0 : tolerance * (1.0 + std::fabs(vb[i]));
      if (!(diff <= allowed)) {
        fail(StrCat(fetches[f], " element ", i, " is ", va[i], " instead of ", vb[i],
                    " (difference ", diff, ", allowed ", allowed, ")"));
      }
    }
  }
  return c;
}

// `v` as "2.1e-06", or "0".
std::string Scientific(double v) {
  if (v == 0) return "0";
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.2g", v);
  return buf;
}

class BenchCommand : public Command {
 public:
  BenchCommand()
      : Command({"bench",
                 "opkit bench MODEL [--input-shape NAME=SHAPE]... [--fetch NAME]...\n"
                 "                  [--threads N] [--inter-op-threads N] [--runs N] "
                 "[--warmup N]\n"
                 "                  [--top N] [--seed N] [--trace FILE] [--json]\n"
                 "                  [--load LIB]... [--tolerance X]",
                 "Time a model: latency statistics, time per op type, slowest nodes.",
                 "MODEL is a GraphDef (.pbtxt or .pb) or a TF.js graph model (its\n"
                 "model.json, or the folder holding it). Every Placeholder the fetched\n"
                 "tensors depend on is fed random values of its dtype and shape (reals in\n"
                 "[-1, 1), integers in [0, 8)); a dimension the graph leaves unknown comes\n"
                 "from --input-shape NAME=1,224,224,3 (or NAME=[1,224,224,3]). Without\n"
                 "--fetch, a TF.js model's signature outputs are fetched, or else the\n"
                 "graph's sinks (nodes none of whose outputs is consumed).\n"
                 "After --warmup runs (default 2, not counted), --runs runs (default 50)\n"
                 "are timed: the min, median, mean, p90 and max latency of a run, the time\n"
                 "per op type (summed over its nodes, mean per run, with its share of the\n"
                 "summed node time), and the --top slowest nodes (default 10). Node times\n"
                 "come from the executor's step stats, collected in every timed run.\n"
                 "Times print in us when the median run takes under 1 ms, in ms\n"
                 "otherwise; --json always gives ms.\n"
                 "--threads sets the intra-op threads (Eigen, Shard), --inter-op-threads\n"
                 "the threads that run independent nodes (both default 0: one per CPU\n"
                 "the process may use; 1 runs every node on the calling thread).\n"
                 "--trace FILE writes the timed runs as Chrome trace events (open the\n"
                 "file in https://ui.perfetto.dev or chrome://tracing): one event per\n"
                 "node per run, on the thread that ran it.\n"
                 "--load LIB compares kernels: the model is timed with the kernels\n"
                 "registered so far (the built-in ones), then with the op library LIB\n"
                 "loaded, then with LIB unloaded again, each phase with its own warm-up\n"
                 "and runs. It reports each phase's median and p90 latency and speed-up,\n"
                 "the nodes LIB's kernels run (op type and count), and the largest\n"
                 "absolute difference of the loaded and unloaded outputs from the built-in\n"
                 "ones; they pass when every element is within X * (1 + |built-in value|)\n"
                 "(--tolerance, default 1e-4; integers must be equal). A failed comparison\n"
                 "exits with status 1 after the report. The per-op-type table then has one\n"
                 "column per phase, and --trace records the loaded phase. A library the\n"
                 "model needs to run at all goes before the command: opkit --load LIB\n"
                 "bench MODEL.",
                 "MODEL (a GraphDef file, .pbtxt or .pb, or a TF.js model.json)"}) {}

  void AddOptions(CLI::App& app) override {
    app.add_option("MODEL", model_path_, "a GraphDef file")->required();
    AddRepeatable(app, "input-shape", &input_shapes_, "NAME=SHAPE",
                  "the shape of input NAME, e.g. x=1,224,224,3 (repeatable)");
    AddRepeatable(app, "fetch", &fetches_, "NAME",
                  "fetch tensor NAME instead of the sinks (repeatable)");
    AddInt(app, "threads", &threads_, 0, 1024, "N",
           "intra-op threads (default 0: one per CPU)");
    AddInt(app, "inter-op-threads", &inter_op_threads_, 0, 1024, "N",
           "inter-op threads (default 0: one per CPU)");
    AddInt(app, "runs", &runs_, 1, 100000000, "N", "timed runs (default 50)");
    AddInt(app, "warmup", &warmup_, 0, 100000000, "N", "untimed runs first (default 2)");
    AddInt(app, "top", &top_, 0, 1000000, "N", "show the N slowest nodes (default 10)");
    AddInt(app, "seed", &seed_, 0, INT64_MAX, "N", "seed of the random inputs (default 1)");
    AddValue(app, "trace", &trace_path_, "FILE", "write a Chrome trace-event JSON file");
    AddFlag(app, "progress", &progress_,
            "show a progress bar even when stderr is not a terminal");
    AddFlag(app, "json", &json_, "print the results as JSON");
    AddFlag(app, "no-optimize", &no_optimize_,
            "time the graph as it is, without the graph optimizer");
    AddRepeatable(app, "load", &compare_libraries_, "LIB",
                  "time the model without, with and again without op library LIB, "
                  "comparing outputs (repeatable: loaded together)");
    AddValue(app, "tolerance", &tolerance_text_, "X",
             "--load's output tolerance, relative to 1 + |value| (default 1e-4)");
  }

  int Run() override;

 private:
  // Reads --input-shape into *shapes; `usage` tells a malformed option
  // (bad usage) from a bad shape (a bad value).
  Status ParseInputShapes(std::map<std::string, PartialTensorShape>* shapes, bool* usage) const;
  // The Placeholders the fetches depend on, with their full shapes.
  Status FindInputs(const Graph& graph, const std::vector<std::string>& fetches,
                    const std::map<std::string, PartialTensorShape>& shapes,
                    std::vector<Input>* inputs) const;
  Status WriteTrace(std::ofstream& out, const std::vector<TracedRun>& runs) const;
  // Times one phase in a new Session; `done` and `total` count runs for
  // the progress bar.
  Status RunPhase(const GraphDef& graph_def,
                  const std::vector<std::pair<std::string, Tensor>>& feeds,
                  const std::vector<std::string>& fetches, bool traced, bool progress,
                  int64_t* done, int64_t total, Phase* phase) const;
  // With the libraries of --load loaded: the nodes of the graph as it runs
  // (optimised unless --no-optimize) whose selected kernel comes from one
  // of them, counted by op type.
  std::map<std::string, int64_t> LibraryKernels(const GraphDef& graph_def,
                                                const std::vector<Input>& inputs,
                                                const std::vector<std::string>& fetches,
                                                const std::vector<OpLibrary>& libs) const;
  int Report(const Graph& graph, const std::vector<Input>& inputs,
             const std::vector<std::string>& fetches, const std::vector<double>& warmup_ms,
             const std::vector<double>& run_ms, const NodeProfile& profile) const;
  // What both reports open with: the model, its inputs, the fetches and the
  // thread counts, as JSON fields and as text lines.
  json HeaderJson(const Graph& graph, const std::vector<Input>& inputs,
                  const std::vector<std::string>& fetches) const;
  void PrintHeader(const Graph& graph, const std::vector<Input>& inputs,
                   const std::vector<std::string>& fetches) const;
  // --load's report: the phases side by side.
  int ReportPhases(const Graph& graph, const std::vector<Input>& inputs,
                   const std::vector<std::string>& fetches, const std::vector<Phase>& phases,
                   const std::vector<OpLibrary>& libs,
                   const std::map<std::string, int64_t>& taken_over, double tolerance) const;

  std::string model_path_;
  std::vector<std::string> input_shapes_;
  std::vector<std::string> fetches_;
  int64_t threads_ = 0;
  int64_t inter_op_threads_ = 0;
  int64_t runs_ = 50;
  int64_t warmup_ = 2;
  int64_t top_ = 10;
  int64_t seed_ = 1;
  std::string trace_path_;
  bool progress_ = false;
  bool json_ = false;
  bool no_optimize_ = false;
  std::vector<std::string> compare_libraries_;
  std::string tolerance_text_;
};

Status BenchCommand::ParseInputShapes(std::map<std::string, PartialTensorShape>* shapes,
                                      bool* usage) const {
  for (const std::string& option : input_shapes_) {
    std::string name, text;
    *usage = true;
    OPKIT_RETURN_IF_ERROR(SplitNameValue("input-shape", "NAME=SHAPE", option, &name, &text));
    *usage = false;
    // "1,224,224,3" is the short form of "[1,224,224,3]".
    if (!text.empty() && text.front() != '[' && text != "?" && text != "*") {
      text = "[" + text + "]";
    }
    PartialTensorShape shape;
    OPKIT_RETURN_IF_ERROR(ParseShapeText("input-shape", text, &shape));
    if (!shape.IsFullyDefined()) {
      return errors::InvalidArgument("--input-shape ", option, " leaves ",
                                     shape.unknown_rank() ? "the rank" : "a dimension",
                                     " unknown; give every dimension, e.g. ", name, "=",
                                     ExampleShape(shape));
    }
    if (!shapes->emplace(name, shape).second) {
      return errors::InvalidArgument("--input-shape names '", name, "' twice; give it once");
    }
  }
  return OkStatus();
}

Status BenchCommand::FindInputs(const Graph& graph, const std::vector<std::string>& fetches,
                                const std::map<std::string, PartialTensorShape>& shapes,
                                std::vector<Input>* inputs) const {
  std::vector<std::string> placeholders;
  for (int id = 0; id < graph.num_nodes(); ++id) {
    if (graph.node(id).op() == "Placeholder") placeholders.push_back(graph.node(id).name());
  }
  for (const auto& [name, shape] : shapes) {
    const Node* node = graph.FindNode(name);
    if (node == nullptr || node->op() != "Placeholder") {
      return errors::InvalidArgument(
          "--input-shape names '", name, "', which is not a Placeholder of the graph; ",
          placeholders.empty() ? std::string("it has none")
                               : "its Placeholders are: " + StrJoin(placeholders, ", "));
    }
  }
  // The nodes the fetches need, through data and control edges.
  std::vector<bool> needed(graph.num_nodes(), false);
  std::vector<int> stack;
  for (const std::string& fetch : fetches) {
    const Node* node = graph.FindNode(fetch.substr(0, fetch.rfind(':')));
    if (node == nullptr) {
      return errors::InvalidArgument("--fetch ", fetch, " names no node of the graph");
    }
    stack.push_back(node->id());
  }
  while (!stack.empty()) {
    const int id = stack.back();
    stack.pop_back();
    if (needed[id]) continue;
    needed[id] = true;
    for (int e : graph.node(id).in_edges()) stack.push_back(graph.edge(e).src);
  }
  for (int id = 0; id < graph.num_nodes(); ++id) {
    const Node& node = graph.node(id);
    if (!needed[id] || node.op() != "Placeholder") continue;
    PartialTensorShape declared;
    auto it = node.def().attr().find("shape");
    if (it != node.def().attr().end()) {
      OPKIT_RETURN_IF_ERROR(PartialTensorShape::FromProto(it->second.shape(), &declared));
    }
    PartialTensorShape shape = declared;
    auto given = shapes.find(node.name());
    if (given != shapes.end()) {
      if (!declared.IsCompatibleWith(given->second)) {
        return errors::InvalidArgument("--input-shape ", node.name(), "=",
                                       ShapeText(given->second), " does not fit input '",
                                       node.name(), "' of shape ", ShapeText(declared),
                                       "; give a shape that matches its known dimensions");
      }
      shape = given->second;
    }
    Input input;
    input.name = node.name();
    input.dtype = node.output_type(0);
    if (!shape.AsTensorShape(&input.shape)) {
      return errors::InvalidArgument("input '", node.name(), "' has shape ", ShapeText(shape),
                                     ", with ",
                                     shape.unknown_rank() ? "an unknown rank"
                                                          : "an unknown dimension",
                                     "; pass --input-shape ", node.name(), "=", ExampleShape(shape),
                                     " (every dimension known)");
    }
    const int64_t bytes = input.shape.num_elements() * DataTypeSize(input.dtype);
    if (bytes > kMaxInputBytes || bytes < 0) {
      return errors::InvalidArgument("input '", node.name(), "' of shape ",
                                     ShapeText(input.shape), " would take ", bytes,
                                     " bytes; bench makes inputs of at most 4 GiB");
    }
    inputs->push_back(std::move(input));
  }
  return OkStatus();
}

int BenchCommand::Run() {
  std::map<std::string, PartialTensorShape> shapes;
  bool usage = false;
  Status s = ParseInputShapes(&shapes, &usage);
  if (!s.ok()) return usage ? UsageError(s.message()) : ReportError(s);
  GraphDef graph_def;
  TfjsSignature signature;
  s = ReadGraphDefFromFile(model_path_, &graph_def, &signature);
  if (!s.ok()) {
    return ReportError(StrCat("cannot read GraphDef '", model_path_, "': ", s.message()));
  }
  StatusOr<std::unique_ptr<Graph>> graph = Graph::Create(graph_def, nullptr);
  if (!graph.ok()) {
    return ReportError(
        StrCat("invalid graph '", model_path_, "': ", graph.status().message()));
  }

  // Fetch what --fetch names, else a TF.js model's signature outputs, else
  // the sinks: nodes with outputs, none of them consumed.
  std::vector<std::string> fetches;
  for (const std::string& f : fetches_) fetches.push_back(TensorName(f));
  if (fetches.empty()) {
    for (const TfjsTensorInfo& t : signature.outputs) fetches.push_back(TensorName(t.tensor_name));
  }
  if (fetches.empty()) {
    for (int id = 0; id < (*graph)->num_nodes(); ++id) {
      const Node& node = (*graph)->node(id);
      if (node.num_outputs() == 0 || node.op() == "Placeholder") continue;
      bool consumed = false;
      for (int e : node.out_edges()) consumed |= !(*graph)->edge(e).IsControl();
      if (!consumed) fetches.push_back(node.name() + ":0");
    }
    if (fetches.empty()) {
      return ReportError(StrCat("graph '", model_path_,
                                "' has no node whose outputs go unused; give --fetch NAME"));
    }
  }
  std::vector<Input> inputs;
  s = FindInputs(**graph, fetches, shapes, &inputs);
  if (!s.ok()) return ReportError(s);
  std::mt19937_64 rng(static_cast<uint64_t>(seed_));
  std::vector<std::pair<std::string, Tensor>> feeds;
  for (const Input& input : inputs) {
    Tensor t(input.dtype, input.shape);
    s = FillRandom(input.name, rng, &t);
    if (!s.ok()) return ReportError(s);
    feeds.emplace_back(input.name + ":0", std::move(t));
  }

  std::ofstream trace;
  if (!trace_path_.empty()) {
    trace.open(trace_path_, std::ios::out | std::ios::trunc);
    if (!trace) {
      return ReportError(StrCat("cannot write the --trace file '", trace_path_,
                                "'; check that its folder exists and is writable"));
    }
  }

  double tolerance = 1e-4;
  if (!tolerance_text_.empty()) {
    char* end = nullptr;
    tolerance = std::strtod(tolerance_text_.c_str(), &end);
    if (end == tolerance_text_.c_str() || *end != '\0' || !(tolerance >= 0) ||
        std::isinf(tolerance)) {
      return ReportError(StrCat("--tolerance value '", tolerance_text_,
                                "' is not a number >= 0; use e.g. --tolerance 1e-4"));
    }
    if (compare_libraries_.empty()) {
      return UsageError("--tolerance applies to --load's comparison; give --load LIB too");
    }
  }

  // The report gives the counts 0 resolved to (one per CPU).
  if (threads_ == 0) threads_ = NumSchedulableCpus();
  if (inter_op_threads_ == 0) inter_op_threads_ = NumSchedulableCpus();

  const bool progress = !json_ && (progress_ || isatty(2));
  const bool compare = !compare_libraries_.empty();
  const int64_t total_runs = (warmup_ + runs_) * (compare ? 3 : 1);
  int64_t done = 0;
  std::vector<Phase> phases(compare ? 3 : 1);
  phases[0].name = "built-in";
  s = RunPhase(graph_def, feeds, fetches, trace.is_open() && !compare, progress, &done,
               total_runs, &phases[0]);
  std::vector<OpLibrary> libs;
  std::map<std::string, int64_t> taken_over;
  if (s.ok() && compare) {
    const std::vector<OpLibrary> before = LoadedOpLibraries();
    for (const std::string& path : compare_libraries_) {
      StatusOr<OpLibrary> lib = LoadOpLibrary(path);
      if (!lib.ok()) {
        if (progress) std::cerr << "\n";
        return ReportError(lib.status());
      }
      // Loading a loaded library returns it as it is: the built-in phase
      // already ran with it, and unloading it would take it from the user.
      if (std::find(before.begin(), before.end(), *lib) != before.end() ||
          std::find(libs.begin(), libs.end(), *lib) != libs.end()) {
        if (progress) std::cerr << "\n";
        return ReportError(StrCat("bench --load ", path,
                                  ": the library is already loaded (by opkit --load before the "
                                  "command, or an earlier bench --load), so the built-in phase "
                                  "ran with it; give it once, after bench"));
      }
      libs.push_back(*lib);
    }
    taken_over = LibraryKernels(graph_def, inputs, fetches, libs);
    phases[1].name = "loaded";
    s = RunPhase(graph_def, feeds, fetches, trace.is_open(), progress, &done, total_runs,
                 &phases[1]);
    for (OpLibrary& lib : libs) {
      if (!s.ok()) break;
      s = lib.Unload();
    }
    phases[2].name = "unloaded";
    if (s.ok()) {
      s = RunPhase(graph_def, feeds, fetches, false, progress, &done, total_runs, &phases[2]);
    }
  }
  if (!s.ok()) {
    if (progress) std::cerr << "\n";
    if (trace.is_open()) {  // no half-written trace
      trace.close();
      std::remove(trace_path_.c_str());
    }
    return ReportError(s);
  }
  if (trace.is_open()) {
    s = WriteTrace(trace, phases[compare ? 1 : 0].traced);
    if (!s.ok()) return ReportError(s);
  }
  if (compare) {
    return ReportPhases(**graph, inputs, fetches, phases, libs, taken_over, tolerance);
  }
  return Report(**graph, inputs, fetches, phases[0].warmup_ms, phases[0].run_ms,
                phases[0].profile);
}

Status BenchCommand::RunPhase(const GraphDef& graph_def,
                              const std::vector<std::pair<std::string, Tensor>>& feeds,
                              const std::vector<std::string>& fetches, bool traced,
                              bool progress, int64_t* done, int64_t total, Phase* phase) const {
  // Errors name the phase when there are several.
  const std::string where =
      compare_libraries_.empty() ? "" : StrCat("the ", phase->name, " phase: ");
  SessionOptions options;
  options.intra_op_threads = static_cast<int>(threads_);
  options.inter_op_threads = static_cast<int>(inter_op_threads_);
  options.optimize = !no_optimize_;
  StatusOr<std::unique_ptr<Session>> session = Session::New(options);
  if (!session.ok()) return session.status();
  Status s = (*session)->Create(graph_def);
  if (!s.ok()) {
    return errors::InvalidArgument(where, "invalid graph '", model_path_, "': ", s.message());
  }
  std::chrono::steady_clock::time_point first_start;
  std::vector<Tensor> outputs;
  for (int64_t i = 0; i < warmup_ + runs_; ++i) {
    const bool timed = i >= warmup_;
    RunOptions run_options;
    run_options.collect_step_stats = timed;
    RunMetadata metadata;
    outputs.clear();
    const auto start = std::chrono::steady_clock::now();
    s = (*session)->Run(run_options, feeds, fetches, {}, &outputs, &metadata);
    const auto end = std::chrono::steady_clock::now();
    if (!s.ok()) {
      return errors::InvalidArgument(
          where,
          timed ? StrCat("run ", i - warmup_ + 1, " of ", runs_, " failed: ", s.message())
                : StrCat("warm-up run ", i + 1, " of ", warmup_, " failed: ", s.message()));
    }
    if (i == 0) phase->outputs = outputs;
    const double ms = std::chrono::duration<double, std::milli>(end - start).count();
    if (!timed) {
      phase->warmup_ms.push_back(ms);
    } else {
      if (i == warmup_) first_start = start;
      phase->run_ms.push_back(ms);
      AddStepStats(metadata.step_stats, &phase->profile);
      if (traced) {
        TracedRun run;
        run.offset_ns =
            std::chrono::duration_cast<std::chrono::nanoseconds>(start - first_start).count();
        run.stats = std::move(metadata.step_stats);
        phase->traced.push_back(std::move(run));
      }
    }
    ++*done;
    if (progress) ProgressBar(*done, total);
  }
  return OkStatus();
}

std::map<std::string, int64_t> BenchCommand::LibraryKernels(
    const GraphDef& graph_def, const std::vector<Input>& inputs,
    const std::vector<std::string>& fetches, const std::vector<OpLibrary>& libs) const {
  std::set<std::string> paths;
  for (const OpLibrary& lib : libs) paths.insert(lib.path());
  // The graph the session runs: optimised for this signature, as
  // Session::Run does (or as it is when the optimizer fails).
  const GraphDef* graph = &graph_def;
  GraphDef optimized;
  if (!no_optimize_) {
    GraphOptimizerOptions options;
    for (const Input& input : inputs) options.feeds.push_back(input.name + ":0");
    options.fetches = fetches;
    if (OptimizeGraph(graph_def, options, &optimized).ok()) graph = &optimized;
  }
  std::map<std::string, int64_t> by_op;
  for (const NodeDef& node : graph->node()) {
    const KernelSelectionExplanation ex = ExplainKernelSelection(DeviceType(DEVICE_CPU), node);
    if (ex.winner < 0) continue;
    if (paths.count(ex.candidates[ex.winner].origin.library) > 0) ++by_op[node.op()];
  }
  return by_op;
}

// Chrome's trace-event format (the JSON object form): one complete ("X")
// event per node per run, timestamps in microseconds since the first timed
// run, tid 0 for the calling thread and 1 + i for inter-op pool thread i,
// named by metadata ("M") events.
Status BenchCommand::WriteTrace(std::ofstream& out, const std::vector<TracedRun>& runs) const {
  std::set<int> threads;
  char buf[64];
  out << "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n";
  out << json{{"ph", "M"}, {"pid", 1}, {"name", "process_name"},
              {"args", {{"name", "opkit bench " + model_path_}}}}.dump();
  for (size_t r = 0; r < runs.size(); ++r) {
    for (const NodeExecStats& st : runs[r].stats) {
      const int tid = st.thread_id < 0 ? 0 : st.thread_id + 1;
      threads.insert(tid);
      std::snprintf(buf, sizeof(buf), "%.3f,\"dur\":%.3f",
                    static_cast<double>(runs[r].offset_ns + st.start_ns) / 1e3,
                    static_cast<double>(std::max<int64_t>(0, st.end_ns - st.start_ns)) / 1e3);
      out << ",\n{\"ph\":\"X\",\"pid\":1,\"tid\":" << tid << ",\"ts\":" << buf
          << ",\"name\":" << json(st.node_name).dump() << ",\"cat\":" << json(st.op).dump()
          << ",\"args\":{\"name\":" << json(st.node_name).dump()
          << ",\"op\":" << json(st.op).dump() << ",\"run\":" << r << "}}";
    }
  }
  for (int tid : threads) {
    out << ",\n"
        << json{{"ph", "M"}, {"pid", 1}, {"tid", tid}, {"name", "thread_name"},
                {"args", {{"name", tid == 0 ? std::string("caller")
                                            : StrCat("inter-op ", tid - 1)}}}}.dump();
  }
  out << "\n]}\n";
  out.close();
  if (!out) {
    return errors::InvalidArgument("cannot write the --trace file '", trace_path_,
                                   "'; check the disk space");
  }
  return OkStatus();
}

int BenchCommand::Report(const Graph& graph, const std::vector<Input>& inputs,
                         const std::vector<std::string>& fetches,
                         const std::vector<double>& warmup_ms,
                         const std::vector<double>& run_ms, const NodeProfile& profile) const {
  const Latency latency = Summarize(run_ms);
  const double runs = static_cast<double>(run_ms.size());
  // Per op type, from the per-node totals.
  struct OpTime {
    int64_t nodes = 0;
    int64_t total_ns = 0;
  };
  std::map<std::string, OpTime> by_op;
  int64_t node_ns = 0;
  for (const auto& [node, nt] : profile) {
    OpTime& ot = by_op[nt.op];
    ++ot.nodes;
    ot.total_ns += nt.total_ns;
    node_ns += nt.total_ns;
  }
  std::vector<std::pair<std::string, OpTime>> op_rows(by_op.begin(), by_op.end());
  std::stable_sort(op_rows.begin(), op_rows.end(), [](const auto& a, const auto& b) {
    return a.second.total_ns > b.second.total_ns;
  });
  std::vector<std::pair<std::string, NodeTime>> node_rows = SortByTotalTime(profile);
  if (node_rows.size() > static_cast<size_t>(top_)) node_rows.resize(top_);
  auto per_run_ms = [&](int64_t ns) { return static_cast<double>(ns) / 1e6 / runs; };
  auto share = [&](int64_t ns) {
    return node_ns > 0 ? static_cast<double>(ns) / static_cast<double>(node_ns) : 0.0;
  };

  if (json_) {
    json jops = json::array();
    for (const auto& [op, ot] : op_rows) {
      jops.push_back({{"op", op},
                      {"nodes", ot.nodes},
                      {"total_ms", per_run_ms(ot.total_ns)},
                      {"share", share(ot.total_ns)},
                      {"ms_per_node", per_run_ms(ot.total_ns) / static_cast<double>(ot.nodes)}});
    }
    json jnodes = json::array();
    for (const auto& [node, nt] : node_rows) {
      jnodes.push_back({{"node", node},
                        {"op", nt.op},
                        {"ms", per_run_ms(nt.total_ns)},
                        {"share", share(nt.total_ns)}});
    }
    json out = HeaderJson(graph, inputs, fetches);
    out.update(json{{"warmup_ms", warmup_ms},
                    {"runs", run_ms.size()},
                    {"run_ms", run_ms},
                    {"latency_ms",
                     {{"min", latency.min},
                      {"median", latency.median},
                      {"mean", latency.mean},
                      {"p90", latency.p90},
                      {"max", latency.max}}},
                    {"node_time_ms", per_run_ms(node_ns)},
                    {"op_types", jops},
                    {"slowest_nodes", jnodes}});
    if (!trace_path_.empty()) out["trace"] = trace_path_;
    PrintJson(out);
    return kExitOk;
  }

  // The text shows microseconds for a model that runs in under a
  // millisecond (JSON is always in milliseconds).
  const bool micro = latency.median < 1.0;
  const std::string unit = micro ? "us" : "ms";
  auto Ms = [micro](double ms) { return micro ? Fixed(ms * 1000, 1) : Fixed(ms, 3); };
  PrintHeader(graph, inputs, fetches);
  if (!warmup_ms.empty()) {
    std::vector<std::string> texts;
    for (double ms : warmup_ms) texts.push_back(Ms(ms));
    std::cout << "warm-up: " << warmup_ms.size() << (warmup_ms.size() == 1 ? " run" : " runs")
              << " (" << StrJoin(texts, ", ") << " " << unit << ")\n";
  }
  std::cout << "latency over " << run_ms.size() << (run_ms.size() == 1 ? " run" : " runs")
            << " (" << unit << "): min " << Ms(latency.min) << ", median " << Ms(latency.median)
            << ", mean " << Ms(latency.mean) << ", p90 " << Ms(latency.p90) << ", max "
            << Ms(latency.max) << "\n";

  std::cout << "\ntime per op type (mean per run; share of the summed node time, "
            << Ms(per_run_ms(node_ns)) << " " << unit << "):\n";
  std::vector<std::vector<std::string>> table = {
      {"op type", "nodes", unit, "share", unit + " per node"}};
  for (const auto& [op, ot] : op_rows) {
    table.push_back({op, std::to_string(ot.nodes), Ms(per_run_ms(ot.total_ns)),
                     Percent(share(ot.total_ns)),
                     Ms(per_run_ms(ot.total_ns) / static_cast<double>(ot.nodes))});
  }
  PrintTable(table, "  ");
  if (top_ > 0) {
    std::cout << "\nslowest " << node_rows.size() << (node_rows.size() == 1 ? " node" : " nodes")
              << " (mean per run):\n";
    table = {{"node", "op", unit, "share"}};
    for (const auto& [node, nt] : node_rows) {
      table.push_back({node, nt.op, Ms(per_run_ms(nt.total_ns)), Percent(share(nt.total_ns))});
    }
    PrintTable(table, "  ");
  }
  if (!trace_path_.empty()) std::cout << "\ntrace: " << trace_path_ << "\n";
  return kExitOk;
}

json BenchCommand::HeaderJson(const Graph& graph, const std::vector<Input>& inputs,
                              const std::vector<std::string>& fetches) const {
  json jinputs = json::array();
  for (const Input& in : inputs) {
    jinputs.push_back({{"name", in.name},
                       {"dtype", DataTypeString(in.dtype)},
                       {"shape", in.shape.dim_sizes()}});
  }
  return json{{"model", model_path_},
              {"nodes", graph.num_nodes()},
              {"inputs", jinputs},
              {"fetches", fetches},
              {"threads", {{"intra_op", threads_}, {"inter_op", inter_op_threads_}}},
              {"seed", seed_}};
}

void BenchCommand::PrintHeader(const Graph& graph, const std::vector<Input>& inputs,
                               const std::vector<std::string>& fetches) const {
  std::cout << "model: " << model_path_ << " (" << graph.num_nodes() << " nodes)\n";
  for (const Input& in : inputs) {
    std::cout << "input: " << in.name << " " << DataTypeString(in.dtype) << " "
              << ShapeText(in.shape) << " (random, seed " << seed_ << ")\n";
  }
  std::cout << "fetch: " << StrJoin(fetches, ", ") << "\n"
            << "threads: " << threads_ << " intra-op, " << inter_op_threads_ << " inter-op\n";
}

int BenchCommand::ReportPhases(const Graph& graph, const std::vector<Input>& inputs,
                               const std::vector<std::string>& fetches,
                               const std::vector<Phase>& phases,
                               const std::vector<OpLibrary>& libs,
                               const std::map<std::string, int64_t>& taken_over,
                               double tolerance) const {
  std::vector<Latency> latency;
  std::vector<Comparison> comparisons;
  for (const Phase& p : phases) {
    latency.push_back(Summarize(p.run_ms));
    comparisons.push_back(Compare(p.outputs, phases[0].outputs, fetches, tolerance));
  }
  bool pass = true;
  for (const Comparison& c : comparisons) pass &= c.pass;
  // Mean time per run of each op type, per phase.
  struct OpTimes {
    int64_t nodes = 0;
    std::vector<int64_t> total_ns;
  };
  std::map<std::string, OpTimes> by_op;
  for (size_t i = 0; i < phases.size(); ++i) {
    std::map<std::string, int64_t> nodes;
    for (const auto& [node, nt] : phases[i].profile) {
      OpTimes& ot = by_op[nt.op];
      ot.total_ns.resize(phases.size(), 0);
      ot.total_ns[i] += nt.total_ns;
      ++nodes[nt.op];
    }
    for (const auto& [op, n] : nodes) by_op[op].nodes = std::max(by_op[op].nodes, n);
  }
  std::vector<std::pair<std::string, OpTimes>> op_rows(by_op.begin(), by_op.end());
  std::stable_sort(op_rows.begin(), op_rows.end(), [](const auto& a, const auto& b) {
    return a.second.total_ns[0] > b.second.total_ns[0];
  });
  auto per_run_ms = [&](int64_t ns, size_t phase) {
    return static_cast<double>(ns) / 1e6 / static_cast<double>(phases[phase].run_ms.size());
  };
  std::vector<std::string> paths;
  for (const OpLibrary& lib : libs) paths.push_back(lib.path());

  if (json_) {
    json jkernels = json::array();
    for (const auto& [op, n] : taken_over) jkernels.push_back({{"op", op}, {"nodes", n}});
    json jphases = json::array();
    for (size_t i = 0; i < phases.size(); ++i) {
      json jops = json::array();
      for (const auto& [op, ot] : op_rows) {
        jops.push_back({{"op", op}, {"total_ms", per_run_ms(ot.total_ns[i], i)}});
      }
      json jp{{"phase", phases[i].name},
              {"warmup_ms", phases[i].warmup_ms},
              {"runs", phases[i].run_ms.size()},
              {"run_ms", phases[i].run_ms},
              {"latency_ms",
               {{"min", latency[i].min},
                {"median", latency[i].median},
                {"mean", latency[i].mean},
                {"p90", latency[i].p90},
                {"max", latency[i].max}}},
              {"speedup", latency[0].median / latency[i].median},
              {"op_types", jops}};
      if (i > 0) {
        jp["max_abs_diff"] = comparisons[i].max_abs_diff;
        jp["outputs_match"] = comparisons[i].pass;
        if (!comparisons[i].pass) jp["mismatch"] = comparisons[i].failure;
      }
      jphases.push_back(std::move(jp));
    }
    json out = HeaderJson(graph, inputs, fetches);
    out.update(json{{"libraries", paths},
                    {"library_kernels", jkernels},
                    {"tolerance", tolerance},
                    {"outputs_match", pass},
                    {"phases", jphases}});
    if (!trace_path_.empty()) out["trace"] = trace_path_;
    PrintJson(out);
  } else {
    const bool micro = latency[0].median < 1.0;
    const std::string unit = micro ? "us" : "ms";
    auto Ms = [micro](double ms) { return micro ? Fixed(ms * 1000, 1) : Fixed(ms, 3); };
    PrintHeader(graph, inputs, fetches);
    std::cout << "library: " << StrJoin(compare_libraries_, ", ") << "\n";  // as given
    std::vector<std::string> kernels;
    for (const auto& [op, n] : taken_over) {
      kernels.push_back(StrCat(op, " (", n, n == 1 ? " node)" : " nodes)"));
    }
    std::cout << "library kernels run: "
              << (kernels.empty() ? std::string("none (no node of the graph selects them)")
                                  : StrJoin(kernels, ", "))
              << "\n\n";
    std::vector<std::vector<std::string>> table = {
        {"phase", "runs", "median " + unit, "p90 " + unit, "speed-up", "max abs diff",
         "outputs (tolerance " + Scientific(tolerance) + ")"}};
    for (size_t i = 0; i < phases.size(); ++i) {
      table.push_back({phases[i].name, std::to_string(phases[i].run_ms.size()),
                       Ms(latency[i].median), Ms(latency[i].p90),
                       Fixed(latency[0].median / latency[i].median, 2) + "x",
                       i == 0 ? "-" : Scientific(comparisons[i].max_abs_diff),
                       i == 0 ? "reference" : comparisons[i].pass ? "match" : "DIFFER"});
    }
    PrintTable(table, "  ");
    std::cout << "\ntime per op type (mean per run, " << unit << "):\n";
    table = {{"op type", "nodes"}};
    for (const Phase& p : phases) table[0].push_back(p.name);
    for (const auto& [op, ot] : op_rows) {
      std::vector<std::string> row = {op, std::to_string(ot.nodes)};
      for (size_t i = 0; i < phases.size(); ++i) row.push_back(Ms(per_run_ms(ot.total_ns[i], i)));
      table.push_back(std::move(row));
    }
    PrintTable(table, "  ");
    if (!trace_path_.empty()) std::cout << "\ntrace (loaded phase): " << trace_path_ << "\n";
  }
  for (size_t i = 1; i < phases.size(); ++i) {
    if (!comparisons[i].pass) {
      return ReportError(StrCat("the outputs of the ", phases[i].name,
                                " phase differ from the built-in ones: ", comparisons[i].failure,
                                "; see the report above (--tolerance sets the tolerance)"));
    }
  }
  return kExitOk;
}

}  // namespace

std::unique_ptr<Command> MakeBenchCommand() { return std::make_unique<BenchCommand>(); }

}  // namespace cli
}  // namespace opkit
