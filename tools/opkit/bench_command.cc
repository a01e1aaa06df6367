// `opkit bench`: times a model the way TensorFlow's benchmark_model does. The
// graph's Placeholders are fed random values, its sinks (or --fetch) are
// fetched; after warm-up runs the latency of each Session::Run is recorded,
// and the executor's per-node step stats (the same ones `run --profile`
// reads, profile.h) give a table per op type, the slowest nodes and,
// with --trace, a Chrome trace-event file.
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
#include "opkit/core/errors.h"
#include "opkit/core/str_util.h"
#include "opkit/graph/graph.h"
#include "opkit/graph/tfjs_model.h"
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

class BenchCommand : public Command {
 public:
  BenchCommand()
      : Command({"bench",
                 "opkit bench MODEL [--input-shape NAME=SHAPE]... [--fetch NAME]...\n"
                 "                  [--threads N] [--inter-op-threads N] [--runs N] "
                 "[--warmup N]\n"
                 "                  [--top N] [--seed N] [--trace FILE] [--json]",
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
                 "node per run, on the thread that ran it.",
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
  int Report(const Graph& graph, const std::vector<Input>& inputs,
             const std::vector<std::string>& fetches, const std::vector<double>& warmup_ms,
             const std::vector<double>& run_ms, const NodeProfile& profile) const;

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

  SessionOptions options;
  options.intra_op_threads = static_cast<int>(threads_);
  options.inter_op_threads = static_cast<int>(inter_op_threads_);
  options.optimize = !no_optimize_;
  StatusOr<std::unique_ptr<Session>> session = Session::New(options);
  if (!session.ok()) return ReportError(session.status());
  // Report the counts 0 resolved to.
  threads_ = (*session)->options().intra_op_threads;
  inter_op_threads_ = (*session)->options().inter_op_threads;
  s = (*session)->Create(graph_def);
  if (!s.ok()) return ReportError(StrCat("invalid graph '", model_path_, "': ", s.message()));

  const bool progress = !json_ && (progress_ || isatty(2));
  const int64_t total_runs = warmup_ + runs_;
  std::vector<double> warmup_ms, run_ms;
  NodeProfile profile;
  std::vector<TracedRun> traced;
  std::chrono::steady_clock::time_point first_start;
  std::vector<Tensor> outputs;
  for (int64_t i = 0; i < total_runs; ++i) {
    const bool timed = i >= warmup_;
    RunOptions run_options;
    run_options.collect_step_stats = timed;
    RunMetadata metadata;
    outputs.clear();
    const auto start = std::chrono::steady_clock::now();
    s = (*session)->Run(run_options, feeds, fetches, {}, &outputs, &metadata);
    const auto end = std::chrono::steady_clock::now();
    if (!s.ok()) {
      if (progress) std::cerr << "\n";
      if (trace.is_open()) {  // no half-written trace
        trace.close();
        std::remove(trace_path_.c_str());
      }
      return ReportError(timed ? StrCat("run ", i - warmup_ + 1, " of ", runs_,
                                        " failed: ", s.message())
                               : StrCat("warm-up run ", i + 1, " of ", warmup_,
                                        " failed: ", s.message()));
    }
    const double ms = std::chrono::duration<double, std::milli>(end - start).count();
    if (!timed) {
      warmup_ms.push_back(ms);
    } else {
      if (i == warmup_) first_start = start;
      run_ms.push_back(ms);
      AddStepStats(metadata.step_stats, &profile);
      if (trace.is_open()) {
        TracedRun run;
        run.offset_ns =
            std::chrono::duration_cast<std::chrono::nanoseconds>(start - first_start).count();
        run.stats = std::move(metadata.step_stats);
        traced.push_back(std::move(run));
      }
    }
    if (progress) ProgressBar(i + 1, total_runs);
  }
  if (trace.is_open()) {
    s = WriteTrace(trace, traced);
    if (!s.ok()) return ReportError(s);
  }
  return Report(**graph, inputs, fetches, warmup_ms, run_ms, profile);
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
    json jinputs = json::array();
    for (const Input& in : inputs) {
      jinputs.push_back({{"name", in.name},
                         {"dtype", DataTypeString(in.dtype)},
                         {"shape", in.shape.dim_sizes()}});
    }
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
    json out{{"model", model_path_},
             {"nodes", graph.num_nodes()},
             {"inputs", jinputs},
             {"fetches", fetches},
             {"threads", {{"intra_op", threads_}, {"inter_op", inter_op_threads_}}},
             {"seed", seed_},
             {"warmup_ms", warmup_ms},
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
             {"slowest_nodes", jnodes}};
    if (!trace_path_.empty()) out["trace"] = trace_path_;
    PrintJson(out);
    return kExitOk;
  }

  // The text shows microseconds for a model that runs in under a
  // millisecond (JSON is always in milliseconds).
  const bool micro = latency.median < 1.0;
  const std::string unit = micro ? "us" : "ms";
  auto Ms = [micro](double ms) { return micro ? Fixed(ms * 1000, 1) : Fixed(ms, 3); };
  std::cout << "model: " << model_path_ << " (" << graph.num_nodes() << " nodes)\n";
  for (const Input& in : inputs) {
    std::cout << "input: " << in.name << " " << DataTypeString(in.dtype) << " "
              << ShapeText(in.shape) << " (random, seed " << seed_ << ")\n";
  }
  std::cout << "fetch: " << StrJoin(fetches, ", ") << "\n"
            << "threads: " << threads_ << " intra-op, " << inter_op_threads_ << " inter-op\n";
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

}  // namespace

std::unique_ptr<Command> MakeBenchCommand() { return std::make_unique<BenchCommand>(); }

}  // namespace cli
}  // namespace opkit
