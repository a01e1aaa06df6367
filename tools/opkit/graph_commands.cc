// The commands about graphs: run (a GraphDef through Session, .npy in and
// out) and shapes (shape inference over a GraphDef); tensor printing.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "CLI/CLI.hpp"
#include "google/protobuf/text_format.h"
#include "nlohmann/json.hpp"
#include "opkit/core/env.h"
#include "opkit/core/errors.h"
#include "opkit/core/str_util.h"
#include "opkit/graph/graph.h"
#include "opkit/graph/shape_refiner.h"
#include "opkit/graph/tfjs_model.h"
#include "opkit/gradients/symbolic_gradients.h"
#include "opkit/op/attr_value_util.h"
#include "opkit/runtime/session.h"
#include "opkit/tensor/numeric_types.h"
#include "opkit/tensor/tensor.h"
#include "opkit/tensor/types.h"
#include "tools/opkit/commands.h"
#include "tools/opkit/npy.h"
#include "tools/opkit/profile.h"

namespace opkit {
namespace cli {
namespace {

using nlohmann::json;

std::string FloatText(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), v);
  std::string s(buf, res.ptr);
  if (s.find_first_of(".e") == std::string::npos) s += ".";
  return s;
}

std::string FloatText(float v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), v);
  std::string s(buf, res.ptr);
  if (s.find_first_of(".e") == std::string::npos) s += ".";
  return s;
}

// Element `i` of `t` as text, numpy-style; "?" for types it cannot show.
std::string ElementText(const Tensor& t, int64_t i) {
  switch (t.dtype()) {
    case DT_BOOL: return t.flat<bool>()(i) ? "True" : "False";
    case DT_INT8: return std::to_string(t.flat<int8>()(i));
    case DT_INT16: return std::to_string(t.flat<int16>()(i));
    case DT_INT32: return std::to_string(t.flat<int32>()(i));
    case DT_INT64: return std::to_string(t.flat<int64>()(i));
    case DT_UINT8: return std::to_string(t.flat<uint8>()(i));
    case DT_UINT16: return std::to_string(t.flat<uint16>()(i));
    case DT_UINT32: return std::to_string(t.flat<uint32>()(i));
    case DT_UINT64: return std::to_string(t.flat<uint64>()(i));
    case DT_HALF: return FloatText(static_cast<float>(t.flat<half>()(i)));
    case DT_BFLOAT16: return FloatText(static_cast<float>(t.flat<bfloat16>()(i)));
    case DT_FLOAT: return FloatText(t.flat<float>()(i));
    case DT_DOUBLE: return FloatText(t.flat<double>()(i));
    case DT_COMPLEX64: {
      complex64 c = t.flat<complex64>()(i);
      std::string im = FloatText(c.imag());
      return FloatText(c.real()) + (im[0] == '-' ? "" : "+") + im + "j";
    }
    case DT_COMPLEX128: {
      complex128 c = t.flat<complex128>()(i);
      std::string im = FloatText(c.imag());
      return FloatText(c.real()) + (im[0] == '-' ? "" : "+") + im + "j";
    }
    case DT_STRING: {
      const tstring& s = t.flat<tstring>()(i);
      return "'" + std::string(s.data(), s.size()) + "'";
    }
    default: return "?";
  }
}

json ElementJson(const Tensor& t, int64_t i) {
  switch (t.dtype()) {
    case DT_BOOL: return t.flat<bool>()(i);
    case DT_INT8: return t.flat<int8>()(i);
    case DT_INT16: return t.flat<int16>()(i);
    case DT_INT32: return t.flat<int32>()(i);
    case DT_INT64: return t.flat<int64>()(i);
    case DT_UINT8: return t.flat<uint8>()(i);
    case DT_UINT16: return t.flat<uint16>()(i);
    case DT_UINT32: return t.flat<uint32>()(i);
    case DT_UINT64: return t.flat<uint64>()(i);
    case DT_HALF: return static_cast<float>(t.flat<half>()(i));
    case DT_BFLOAT16: return static_cast<float>(t.flat<bfloat16>()(i));
    case DT_FLOAT: return t.flat<float>()(i);
    case DT_DOUBLE: return t.flat<double>()(i);
    case DT_COMPLEX64: {
      complex64 c = t.flat<complex64>()(i);
      return json::array({c.real(), c.imag()});
    }
    case DT_COMPLEX128: {
      complex128 c = t.flat<complex128>()(i);
      return json::array({c.real(), c.imag()});
    }
    case DT_STRING: {
      const tstring& s = t.flat<tstring>()(i);
      return std::string(s.data(), s.size());
    }
    default: return nullptr;
  }
}

std::string TensorShapeText(const TensorShape& s) {
  return ShapeText(PartialTensorShape(s));
}

Status MakeDir(const std::string& dir) {
  struct stat st;
  if (stat(dir.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return OkStatus();
    return errors::InvalidArgument("--out '", dir, "' exists and is not a directory");
  }
  if (mkdir(dir.c_str(), 0777) != 0) {
    return errors::InvalidArgument("cannot create the --out directory '", dir,
                                   "': ", std::strerror(errno));
  }
  return OkStatus();
}

// The tensor's values the way numpy prints an array ("[[1. 2.]\n [3. 4.]]"),
// with the middle of long dimensions elided ("...") when the tensor has
// more than `threshold` elements.
std::string FormatTensorValues(const Tensor& tensor, int64_t threshold = 1000) {
  const int rank = tensor.dims();
  if (rank == 0) return ElementText(tensor, 0);
  const bool summarize = tensor.NumElements() > threshold;
  constexpr int64_t kEdge = 3;
  // Strides of a C-order array.
  std::vector<int64_t> stride(rank, 1);
  for (int d = rank - 2; d >= 0; --d) stride[d] = stride[d + 1] * tensor.dim_size(d + 1);
  // First pass collects the texts to align them to one width, as numpy does.
  std::vector<std::string> texts;
  size_t width = 0;
  std::function<void(int, int64_t, bool)> walk = [&](int d, int64_t offset, bool emit) {
    const int64_t n = tensor.dim_size(d);
    for (int64_t k = 0; k < n; ++k) {
      if (summarize && n > 2 * kEdge && k == kEdge) k = n - kEdge;
      if (d + 1 == rank) {
        texts.push_back(ElementText(tensor, offset + k));
        width = std::max(width, texts.back().size());
      } else {
        walk(d + 1, offset + k * stride[d], emit);
      }
    }
  };
  if (tensor.NumElements() > 0) walk(0, 0, false);
  size_t next = 0;
  std::string out;
  std::function<void(int, int64_t)> print = [&](int d, int64_t offset) {
    out += "[";
    const int64_t n = tensor.dim_size(d);
    for (int64_t k = 0; k < n; ++k) {
      if (k > 0) {
        if (d + 1 == rank) {
          out += " ";
        } else {
          out += std::string(rank - d - 1, '\n') + std::string(d + 1, ' ');
        }
      }
      if (summarize && n > 2 * kEdge && k == kEdge) {
        out += "...";
        if (d + 1 == rank) {
          out += " ";
        } else {
          out += std::string(rank - d - 1, '\n') + std::string(d + 1, ' ');
        }
        k = n - kEdge;
      }
      if (d + 1 == rank) {
        const std::string& s = next < texts.size() ? texts[next] : std::string();
        ++next;
        out += std::string(width - std::min(width, s.size()), ' ') + s;
      } else {
        print(d + 1, offset + k * stride[d]);
      }
    }
    out += "]";
  };
  print(0, 0);
  return out;
}

// {"dtype": ..., "shape": [...], "values": [...]} with every element in
// C order (complex numbers as [re, im]; strings as strings).
json TensorToJson(const Tensor& tensor) {
  json shape = json::array();
  for (int i = 0; i < tensor.dims(); ++i) shape.push_back(tensor.dim_size(i));
  json values = json::array();
  for (int64_t i = 0; i < tensor.NumElements(); ++i) values.push_back(ElementJson(tensor, i));
  return json{{"dtype", DataTypeString(tensor.dtype())},
              {"numpy_dtype", NumpyDtypeName(tensor.dtype())},
              {"shape", shape},
              {"values", values}};
}

// --- run ------------------------------------------------------------------

class RunCommand : public Command {
 public:
  RunCommand()
      : Command({"run",
                 "opkit run GRAPH [--feed NAME=FILE.npy]... [--fetch NAME | --target NAME]...\n"
                 "                [--out DIR] [--repeat N] [--profile] [--threads N] "
                 "[--timeout MS]\n"
                 "                [--json]",
                 "Run a GraphDef with .npy inputs and print or save the fetched tensors.",
                 "GRAPH is a GraphDef in protobuf text or binary format, or a TensorFlow.js\n"
                 "graph model (its model.json, or the folder holding it); without --fetch\n"
                 "or --target a TF.js model fetches its signature's outputs. NAME is a tensor\n"
                 "name, 'node' or 'node:index'. Feeds are .npy files (format 1.0-3.0,\n"
                 "C order, little- or big-endian; bool, int8-64, uint8-64, float16/32/64,\n"
                 "complex64/128). Without --out each fetched tensor is printed (large ones\n"
                 "elided, as numpy does); with --out DIR each is written to DIR/NAME.npy,\n"
                 "':' and '/' in NAME replaced by '_'.\n"
                 "--repeat N runs the graph N times and reports the mean and minimum time\n"
                 "per run (a progress bar shows on a terminal, or with --progress).\n"
                 "--profile reports per-node times, summed over the runs, largest first.\n"
                 "--timeout MS stops a run that takes longer (a while loop that never\n"
                 "ends) with an error instead of waiting forever.\n"
                 "The graph is optimised before it runs (constant folding, Identity\n"
                 "pruning, fusion into _FusedConv2D / _FusedMatMul); --no-optimize runs\n"
                 "it as it is.",
                 "GRAPH (a GraphDef file, .pbtxt or .pb, or a TF.js model.json)"}) {}

  void AddOptions(CLI::App& app) override {
    app.add_option("GRAPH", graph_path_, "a GraphDef file")->required();
    AddRepeatable(app, "feed", &feeds_, "NAME=FILE.npy",
                  "feed tensor NAME from a .npy file (repeatable)");
    AddRepeatable(app, "fetch", &fetches_, "NAME", "fetch tensor NAME (repeatable)");
    AddRepeatable(app, "target", &targets_, "NAME", "run node NAME for its effects (repeatable)");
    out_option_ = AddValue(app, "out", &out_dir_, "DIR", "write each fetched tensor to DIR/NAME.npy");
    repeat_option_ = AddInt(app, "repeat", &repeat_, 1, 1000000000, "N",
                            "run N times (default 1) and report times");
    AddFlag(app, "profile", &profile_, "report per-node timings");
    AddInt(app, "threads", &threads_, 0, 1024, "N",
           "inter- and intra-op threads (default 0: one per CPU)");
    AddInt(app, "timeout", &timeout_ms_, 1, int64_t{1} << 40, "MS",
           "fail a run that takes longer than MS milliseconds");
    AddFlag(app, "progress", &progress_,
            "show a progress bar even when stderr is not a terminal");
    AddFlag(app, "json", &json_, "print results as JSON");
    AddFlag(app, "no-optimize", &no_optimize_,
            "run the graph as it is, without the graph optimizer");
  }

  int Run() override {
    GraphDef graph;
    bool graph_read = false;
    if (fetches_.empty() && targets_.empty()) {
      // A TF.js model's signature names its outputs; fetch those.
      TfjsSignature signature;
      Status s = ReadGraphDefFromFile(graph_path_, &graph, &signature);
      graph_read = s.ok();
      if (s.ok() && signature.outputs.empty()) s = errors::NotFound("no signature outputs");
      if (!s.ok()) {
        return UsageError(
            "give at least one --fetch NAME or --target NAME (only a TF.js model "
            "with a signature can do without)");
      }
      for (const TfjsTensorInfo& t : signature.outputs) fetches_.push_back(t.tensor_name);
    }
    std::vector<std::pair<std::string, Tensor>> feeds;
    for (const std::string& f : feeds_) {
      std::string name, path;
      Status s = SplitNameValue("feed", "NAME=FILE.npy", f, &name, &path);
      if (!s.ok()) return UsageError(s.message());
      StatusOr<Tensor> t = ReadNpyFile(path);
      if (!t.ok()) return ReportError(StrCat("--feed ", f, ": ", t.status().message()));
      feeds.emplace_back(TensorName(name), *std::move(t));
    }
    Status s = graph_read ? OkStatus() : ReadGraphDefFromFile(graph_path_, &graph);
    if (!s.ok()) {
      return ReportError(StrCat("cannot read GraphDef '", graph_path_, "': ", s.message()));
    }
    SessionOptions options;
    options.inter_op_threads = static_cast<int>(threads_);
    options.intra_op_threads = static_cast<int>(threads_);
    options.optimize = !no_optimize_;
    StatusOr<std::unique_ptr<Session>> session = Session::New(options);
    if (!session.ok()) return ReportError(session.status());
    s = (*session)->Create(graph);
    if (!s.ok()) return ReportError(StrCat("invalid graph '", graph_path_, "': ", s.message()));

    std::vector<std::string> fetch_names;
    for (const std::string& f : fetches_) fetch_names.push_back(TensorName(f));
    RunOptions run_options;
    run_options.collect_step_stats = profile_;
    run_options.timeout_in_ms = timeout_ms_;
    const bool progress = !json_ && repeat_ > 1 && (progress_ || isatty(2));
    std::vector<Tensor> outputs;
    double total_ms = 0, min_ms = 0;
    NodeProfile profile;
    for (int64_t i = 0; i < repeat_; ++i) {
      RunMetadata metadata;
      outputs.clear();
      auto start = std::chrono::steady_clock::now();
      s = (*session)->Run(run_options, feeds, fetch_names, targets_, &outputs, &metadata);
      auto end = std::chrono::steady_clock::now();
      if (!s.ok()) {
        if (progress) std::cerr << "\n";
        return ReportError(StrCat("run ", i + 1, " of ", repeat_, " failed: ", s.message()));
      }
      const double ms = std::chrono::duration<double, std::milli>(end - start).count();
      total_ms += ms;
      min_ms = i == 0 ? ms : std::min(min_ms, ms);
      AddStepStats(metadata.step_stats, &profile);
      if (progress) ProgressBar(i + 1, repeat_);
    }
    if (outputs.size() != fetch_names.size()) {
      return ReportError(StrCat("the session returned ", outputs.size(), " tensors for ",
                                fetch_names.size(), " fetches"));
    }
    return Report(outputs, total_ms / static_cast<double>(repeat_), min_ms,
                  SortByTotalTime(profile));
  }

 private:
  // Prints or writes the fetched tensors, then the times and the profile.
  int Report(const std::vector<Tensor>& outputs, double mean_ms, double min_ms,
             const std::vector<std::pair<std::string, NodeTime>>& rows) const {
    const bool to_files = out_option_->count() > 0;
    if (to_files) {
      if (out_dir_.empty()) return ReportError("--out value is empty; give a directory");
      Status s = MakeDir(out_dir_);
      if (!s.ok()) return ReportError(s);
    }
    json jfetches = json::array();
    for (size_t i = 0; i < outputs.size(); ++i) {
      const Tensor& t = outputs[i];
      if (to_files) {
        const std::string path = out_dir_ + "/" + SanitizeFileName(fetches_[i]) + ".npy";
        Status s = WriteNpyFile(t, path);
        if (!s.ok()) return ReportError(StrCat("--fetch ", fetches_[i], ": ", s.message()));
        if (json_) {
          jfetches.push_back({{"name", fetches_[i]},
                              {"dtype", DataTypeString(t.dtype())},
                              {"shape", TensorToJson(t)["shape"]},
                              {"file", path}});
        } else {
          std::cout << "wrote " << path << " (" << NumpyDtypeName(t.dtype()) << " "
                    << TensorShapeText(t.shape()) << ")\n";
        }
      } else if (json_) {
        json j = TensorToJson(t);
        j["name"] = fetches_[i];
        jfetches.push_back(j);
      } else {
        std::cout << fetches_[i] << ": " << NumpyDtypeName(t.dtype()) << " "
                  << TensorShapeText(t.shape()) << "\n"
                  << FormatTensorValues(t) << "\n";
      }
    }
    if (json_) {
      json out{{"fetches", jfetches}, {"runs", repeat_}};
      out["time_ms"] = {{"mean", mean_ms}, {"min", min_ms}};
      if (profile_) {
        json jp = json::array();
        for (const auto& [node, nt] : rows) {
          jp.push_back({{"node", node},
                        {"op", nt.op},
                        {"count", nt.count},
                        {"total_ms", static_cast<double>(nt.total_ns) / 1e6},
                        {"mean_ms", static_cast<double>(nt.total_ns) / 1e6 /
                                        static_cast<double>(std::max<int64_t>(1, nt.count))}});
        }
        out["profile"] = jp;
      }
      PrintJson(out);
      return kExitOk;
    }
    if (repeat_option_->count() > 0) {
      std::cout << StrCat("time per run: mean ", FloatText(std::round(mean_ms * 1000) / 1000),
                          " ms, min ", FloatText(std::round(min_ms * 1000) / 1000),
                          " ms over ", repeat_, " runs\n");
    }
    if (profile_) PrintProfile(rows);
    return kExitOk;
  }

  void PrintProfile(const std::vector<std::pair<std::string, NodeTime>>& rows) const {
    std::cout << "profile (" << repeat_ << (repeat_ == 1 ? " run" : " runs")
              << ", sorted by total time):\n";
    std::vector<std::vector<std::string>> table = {{"node", "op", "count", "total ms", "mean ms"}};
    char buf[64];
    for (const auto& [node, nt] : rows) {
      std::vector<std::string> row = {node, nt.op, std::to_string(nt.count)};
      std::snprintf(buf, sizeof(buf), "%.3f", static_cast<double>(nt.total_ns) / 1e6);
      row.push_back(buf);
      std::snprintf(buf, sizeof(buf), "%.3f",
                    static_cast<double>(nt.total_ns) / 1e6 /
                        static_cast<double>(std::max<int64_t>(1, nt.count)));
      row.push_back(buf);
      table.push_back(row);
    }
    std::vector<size_t> width(5, 0);
    for (const auto& row : table) {
      for (size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
    }
    for (const auto& row : table) {
      std::string line = "  ";
      for (size_t i = 0; i < row.size(); ++i) {
        std::string pad(width[i] - row[i].size(), ' ');
        line += i < 2 ? row[i] + pad : pad + row[i];
        if (i + 1 < row.size()) line += "  ";
      }
      std::cout << line << "\n";
    }
  }

  std::string graph_path_;
  std::vector<std::string> feeds_;
  std::vector<std::string> fetches_;
  std::vector<std::string> targets_;
  std::string out_dir_;
  CLI::Option* out_option_ = nullptr;
  int64_t repeat_ = 1;
  CLI::Option* repeat_option_ = nullptr;
  bool profile_ = false;
  bool no_optimize_ = false;
  int64_t threads_ = 0;
  int64_t timeout_ms_ = 0;
  bool progress_ = false;
  bool json_ = false;
};

// --- shapes ---------------------------------------------------------------

class ShapesCommand : public Command {
 public:
  ShapesCommand()
      : Command({"shapes", "opkit shapes GRAPH [--feed-shape NAME=SHAPE]... [--json]",
                 "Infer the shape of every node's outputs in a GraphDef.",
                 "Runs each op's shape function over the graph in topological order.\n"
                 "SHAPE pins a tensor's shape: [1,?,3] (? or -1: unknown dimension),\n"
                 "[] (a scalar), ? or * (unknown rank). Output: one line per node,\n"
                 "'name (Op): shape, shape...'.",
                 "GRAPH (a GraphDef file, .pbtxt or .pb, or a TF.js model.json)"}) {}

  void AddOptions(CLI::App& app) override {
    app.add_option("GRAPH", graph_path_, "a GraphDef file")->required();
    AddRepeatable(app, "feed-shape", &feed_shapes_, "NAME=SHAPE",
                  "the shape of tensor NAME (repeatable)");
    AddFlag(app, "json", &json_, "print a JSON array of {node, op, shapes}");
  }

  int Run() override {
    std::map<std::string, PartialTensorShape> feeds;
    for (const std::string& f : feed_shapes_) {
      std::string name, text;
      Status s = SplitNameValue("feed-shape", "NAME=SHAPE", f, &name, &text);
      if (!s.ok()) return UsageError(s.message());
      s = ParseShapeText("feed-shape", text, &feeds[name]);
      if (!s.ok()) return ReportError(s);
    }
    GraphDef graph;
    Status s = ReadGraphDefFromFile(graph_path_, &graph);
    if (!s.ok()) {
      return ReportError(StrCat("cannot read GraphDef '", graph_path_, "': ", s.message()));
    }
    ShapeRefiner refiner(graph.versions().producer(), nullptr);
    Status inferred = refiner.InferShapes(graph, feeds);
    json out = json::array();
    std::vector<std::string> lines;
    for (const NodeDef& node : graph.node()) {
      std::vector<PartialTensorShape> shapes;
      if (!refiner.OutputShapes(node.name(), &shapes).ok()) continue;
      // After a failure, a node left without shapes is one inference did not
      // finish (the failing node itself), not one without outputs.
      if (!inferred.ok() && shapes.empty()) continue;
      json js = json::array();
      std::vector<std::string> texts;
      for (const PartialTensorShape& shape : shapes) {
        texts.push_back(ShapeText(shape));
        if (shape.unknown_rank()) {
          js.push_back(nullptr);
        } else {
          json dims = json::array();
          for (int64_t d : shape.dim_sizes()) dims.push_back(d < 0 ? json(nullptr) : json(d));
          js.push_back(dims);
        }
      }
      out.push_back({{"node", node.name()}, {"op", node.op()}, {"shapes", js}});
      lines.push_back(node.name() + " (" + node.op() + "): " +
                      (texts.empty() ? std::string("no outputs") : StrJoin(texts, ", ")));
    }
    if (json_) {
      PrintJson(out);
    } else {
      for (const std::string& line : lines) std::cout << line << "\n";
    }
    if (!inferred.ok()) {
      return ReportError(StrCat("shape inference failed: ", inferred.message()));
    }
    return kExitOk;
  }

 private:
  std::string graph_path_;
  std::vector<std::string> feed_shapes_;
  bool json_ = false;
};

// `opkit gradients`: AddSymbolicGradients over a GraphDef file, from the
// command line: what a C++ program gets from the gradient registry, for a
// graph made elsewhere.
class GradientsCommand : public Command {
 public:
  GradientsCommand()
      : Command({"gradients",
                 "opkit gradients GRAPH --y NAME... --x NAME... [--grad-y NAME]...\n"
                 "                [--unconnected none|zero] [--output FILE] [--json]",
                 "Add the nodes computing d(ys)/d(xs) to a GraphDef.",
                 "Differentiates the sum of the --y tensors with respect to each --x\n"
                 "tensor with the registered gradient functions (tf.gradients' rules:\n"
                 "every path summed, StopGradient and integer outputs stop it), seeded\n"
                 "with ones or with the --grad-y tensors (one per --y). Prints one line\n"
                 "per x, 'x -> gradient tensor' ('none' where no y depends on x, unless\n"
                 "--unconnected zero); --output writes the graph with the new nodes\n"
                 "(.pb binary, otherwise text), ready for `opkit run --fetch`.",
                 "GRAPH (a GraphDef file, .pbtxt or .pb)"}) {}

  void AddOptions(CLI::App& app) override {
    app.add_option("GRAPH", graph_path_, "a GraphDef file")->required();
    AddRepeatable(app, "y", &ys_, "NAME", "a tensor to differentiate (repeatable)");
    AddRepeatable(app, "x", &xs_, "NAME", "a tensor to differentiate with respect to (repeatable)");
    AddRepeatable(app, "grad-y", &grad_ys_, "NAME",
                  "the gradient flowing into each --y, in order (default: ones)");
    AddValue(app, "unconnected", &unconnected_, "none|zero",
             "what an x no y depends on gets (default none)");
    AddValue(app, "output", &output_, "FILE", "write the graph with the gradient nodes");
    AddFlag(app, "json", &json_, "print a JSON object {x: gradient or null}");
  }

  int Run() override {
    if (ys_.empty() || xs_.empty()) return UsageError("give at least one --y and one --x");
    if (!grad_ys_.empty() && grad_ys_.size() != ys_.size()) {
      return UsageError(StrCat("give one --grad-y per --y (", ys_.size(), "), or none; got ",
                               grad_ys_.size()));
    }
    SymbolicGradientOptions options;
    if (unconnected_ == "zero") {
      options.unconnected_zero = true;
    } else if (!unconnected_.empty() && unconnected_ != "none") {
      return UsageError(StrCat("--unconnected must be none or zero, got '", unconnected_, "'"));
    }
    GraphDef graph;
    Status s = ReadGraphDefFromFile(graph_path_, &graph);
    if (!s.ok()) {
      return ReportError(StrCat("cannot read GraphDef '", graph_path_, "': ", s.message()));
    }
    std::vector<std::string> grads;
    s = AddSymbolicGradients(&graph, ys_, xs_, grad_ys_, &grads, options);
    if (!s.ok()) return ReportError(s);
    if (!output_.empty()) {
      std::string bytes;
      const bool binary = output_.size() > 3 && output_.compare(output_.size() - 3, 3, ".pb") == 0;
      const bool written = binary ? graph.SerializeToString(&bytes)
                                  : google::protobuf::TextFormat::PrintToString(graph, &bytes);
      if (!written) return ReportError("cannot serialize the graph with its gradients");
      s = WriteStringToFile(output_, bytes);
      if (!s.ok()) return ReportError(StrCat("cannot write '", output_, "': ", s.message()));
    }
    if (json_) {
      json out = json::object();
      for (size_t i = 0; i < xs_.size(); ++i) {
        out[xs_[i]] = grads[i].empty() ? json(nullptr) : json(grads[i]);
      }
      PrintJson(out);
    } else {
      for (size_t i = 0; i < xs_.size(); ++i) {
        std::cout << xs_[i] << " -> " << (grads[i].empty() ? "none" : grads[i]) << "\n";
      }
    }
    return kExitOk;
  }

 private:
  std::string graph_path_;
  std::vector<std::string> ys_, xs_, grad_ys_;
  std::string unconnected_;
  std::string output_;
  bool json_ = false;
};

}  // namespace

std::unique_ptr<Command> MakeGradientsCommand() {
  return std::make_unique<GradientsCommand>();
}
std::unique_ptr<Command> MakeRunCommand() { return std::make_unique<RunCommand>(); }
std::unique_ptr<Command> MakeShapesCommand() { return std::make_unique<ShapesCommand>(); }

// Normalizes "x" to "x:0"; "x:1" stays.
std::string TensorName(const std::string& name) {
  return name.find(':') == std::string::npos ? name + ":0" : name;
}

// A shape as users write it: "[2,3]", "[]", "[1,?,3]", "?" ... (the shape
// shorthand of ParseAttrValue). InvalidArgument naming `flag` otherwise.
Status ParseShapeText(std::string_view flag, std::string_view text,
                      PartialTensorShape* out) {
  AttrValue value;
  Status s = ParseAttrValue("shape", text, AttrTextSyntax::kShorthand, &value);
  if (!s.ok()) return errors::InvalidArgument("--", flag, " shape ", s.message());
  s = PartialTensorShape::FromProto(value.shape(), out);
  if (!s.ok()) return errors::InvalidArgument("--", flag, " shape '", text, "': ", s.message());
  return OkStatus();
}

std::string ShapeText(const PartialTensorShape& shape) {
  if (shape.unknown_rank()) return "?";
  std::string out = "[";
  for (int i = 0; i < shape.dims(); ++i) {
    if (i > 0) out += ",";
    int64_t d = shape.dim_size(i);
    out += d < 0 ? std::string("?") : std::to_string(d);
  }
  return out + "]";
}

}  // namespace cli
}  // namespace opkit
