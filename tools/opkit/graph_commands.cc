// The commands about graphs: run (a GraphDef through Session, .npy in and
// out) and shapes (shape inference over a GraphDef); tensor printing.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstring>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "opkit/core/errors.h"
#include "opkit/core/str_util.h"
#include "opkit/tensor/numeric_types.h"
#include "opkit/tensor/types.h"
#include "opkit/graph/graph.h"
#include "opkit/graph/shape_refiner.h"
#include "opkit/runtime/session.h"
#include "tools/opkit/commands.h"
#include "tools/opkit/npy.h"

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

// Normalizes "x" to "x:0"; "x:1" stays.
std::string TensorName(const std::string& name) {
  return name.find(':') == std::string::npos ? name + ":0" : name;
}

std::string TensorShapeText(const TensorShape& s) {
  return ShapeText(PartialTensorShape(s));
}

// Redraws only when the shown percentage changes, so that a million fast
// runs do not spend their time writing to the terminal.
void ProgressBar(int64_t done, int64_t total) {
  constexpr int64_t width = 30;
  static int64_t last_percent = -1;
  const int64_t percent = total > 0 ? done * 100 / total : 100;
  if (percent == last_percent && done != total) return;
  last_percent = percent;
  const int64_t filled = total > 0 ? done * width / total : width;
  std::cerr << "\r[" << std::string(filled, '#') << std::string(width - filled, '.')
            << "] " << done << "/" << total << std::flush;
  if (done == total) std::cerr << "\n";
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

}  // namespace

// --- Shapes and tensors ---------------------------------------------------

Status ParseShapeText(std::string_view flag, std::string_view text,
                      PartialTensorShape* out) {
  std::string t;
  for (char c : text) {
    if (c != ' ') t += c;
  }
  if (t == "?" || t == "*") {
    *out = PartialTensorShape();
    return OkStatus();
  }
  auto bad = [&](const std::string& why) {
    return errors::InvalidArgument("--", flag, " shape '", text, "' ", why,
                                   "; write e.g. [2,3], [1,?,3], [] or ?");
  };
  if (t.size() < 2 || t.front() != '[' || t.back() != ']') {
    return bad("is not in brackets");
  }
  std::vector<int64_t> dims;
  std::string body = t.substr(1, t.size() - 2);
  if (!body.empty()) {
    size_t start = 0;
    while (true) {
      size_t comma = body.find(',', start);
      std::string item = body.substr(start, comma == std::string::npos ? std::string::npos
                                                                        : comma - start);
      if (item == "?" || item == "-1") {
        dims.push_back(-1);
      } else {
        int64_t v = 0;
        auto res = std::from_chars(item.data(), item.data() + item.size(), v);
        if (item.empty() || res.ec != std::errc() || res.ptr != item.data() + item.size()) {
          return bad("has a dimension '" + item + "' that is not a number or ?");
        }
        if (v < 0) return bad("has a negative dimension " + std::to_string(v));
        dims.push_back(v);
      }
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  Status s = PartialTensorShape::BuildPartialTensorShape(dims, out);
  if (!s.ok()) return bad("is invalid: " + s.message());
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

std::string FormatTensorValues(const Tensor& tensor, int64_t threshold) {
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

CommandSpec RunCommandSpec() {
  CommandSpec spec;
  spec.name = "run";
  spec.usage =
      "opkit run GRAPH [--feed NAME=FILE.npy]... (--fetch NAME | --target NAME)...\n"
      "                [--out DIR] [--repeat N] [--profile] [--threads N] [--timeout MS]\n"
      "                [--json]";
  spec.summary = "Run a GraphDef with .npy inputs and print or save the fetched tensors.";
  spec.description =
      "GRAPH is a GraphDef in protobuf text or binary format. NAME is a tensor\n"
      "name, 'node' or 'node:index'. Feeds are .npy files (format 1.0-3.0,\n"
      "C order, little- or big-endian; bool, int8-64, uint8-64, float16/32/64,\n"
      "complex64/128). Without --out each fetched tensor is printed (large ones\n"
      "elided, as numpy does); with --out DIR each is written to DIR/NAME.npy,\n"
      "':' and '/' in NAME replaced by '_'.\n"
      "--repeat N runs the graph N times and reports the mean and minimum time\n"
      "per run (a progress bar shows on a terminal, or with --progress).\n"
      "--profile reports per-node times, summed over the runs, largest first.\n"
      "--timeout MS stops a run that takes longer (a while loop that never\n"
      "ends) with an error instead of waiting forever.";
  spec.flags = {{"feed", "NAME=FILE.npy", true, "feed tensor NAME from a .npy file (repeatable)"},
                {"fetch", "NAME", true, "fetch tensor NAME (repeatable)"},
                {"target", "NAME", true, "run node NAME for its effects (repeatable)"},
                {"out", "DIR", false, "write each fetched tensor to DIR/NAME.npy"},
                {"repeat", "N", false, "run N times (default 1) and report times"},
                {"profile", "", false, "report per-node timings"},
                {"threads", "N", false, "inter- and intra-op threads (default 1)"},
                {"timeout", "MS", false, "fail a run that takes longer than MS milliseconds"},
                {"progress", "", false, "show a progress bar even when stderr is not a terminal"},
                {"json", "", false, "print results as JSON"}};
  spec.min_positional = 1;
  spec.max_positional = 1;
  spec.positional_name = "GRAPH (a GraphDef file, .pbtxt or .pb)";
  return spec;
}

int RunRun(const ParsedArgs& args) {
  const CommandSpec spec = RunCommandSpec();
  const bool as_json = args.Has("json");
  const std::vector<std::string>& fetches = args.GetAll("fetch");
  const std::vector<std::string>& targets = args.GetAll("target");
  if (fetches.empty() && targets.empty()) {
    return ReportUsageError(spec, "give at least one --fetch NAME or --target NAME");
  }
  int64_t repeat = 1, threads = 1;
  Status s;
  if (args.Has("repeat")) {
    s = ParseInt("repeat", args.Get("repeat"), 1, 1000000000, &repeat);
    if (!s.ok()) return ReportError(s);
  }
  if (args.Has("threads")) {
    s = ParseInt("threads", args.Get("threads"), 1, 1024, &threads);
    if (!s.ok()) return ReportError(s);
  }
  int64_t timeout_ms = 0;
  if (args.Has("timeout")) {
    s = ParseInt("timeout", args.Get("timeout"), 1, int64_t{1} << 40, &timeout_ms);
    if (!s.ok()) return ReportError(s);
  }
  // Feeds.
  std::vector<std::pair<std::string, Tensor>> feeds;
  for (const std::string& f : args.GetAll("feed")) {
    std::string name, path;
    if (f.find('=') == std::string::npos || f[0] == '=') {
      return ReportUsageError(spec, "--feed value '" + f + "' is not of the form NAME=FILE.npy");
    }
    s = SplitNameValue("feed", f, &name, &path);
    if (!s.ok()) return ReportUsageError(spec, s.message());
    StatusOr<Tensor> t = ReadNpyFile(path);
    if (!t.ok()) return ReportError(StrCat("--feed ", f, ": ", t.status().message()));
    feeds.emplace_back(TensorName(name), *std::move(t));
  }
  GraphDef graph;
  s = ReadGraphDefFromFile(args.positional[0], &graph);
  if (!s.ok()) {
    return ReportError(StrCat("cannot read GraphDef '", args.positional[0], "': ", s.message()));
  }
  SessionOptions options;
  options.inter_op_threads = static_cast<int>(threads);
  options.intra_op_threads = static_cast<int>(threads);
  StatusOr<std::unique_ptr<Session>> session = Session::New(options);
  if (!session.ok()) return ReportError(session.status());
  s = (*session)->Create(graph);
  if (!s.ok()) return ReportError(StrCat("invalid graph '", args.positional[0], "': ", s.message()));

  std::vector<std::string> fetch_names;
  for (const std::string& f : fetches) fetch_names.push_back(TensorName(f));
  RunOptions run_options;
  run_options.collect_step_stats = args.Has("profile");
  run_options.timeout_in_ms = timeout_ms;
  const bool progress = !as_json && repeat > 1 && (args.Has("progress") || isatty(2));
  std::vector<Tensor> outputs;
  double total_ms = 0, min_ms = 0;
  // node -> {op, count, total ns}
  struct NodeTime {
    std::string op;
    int64_t count = 0;
    int64_t total_ns = 0;
  };
  std::map<std::string, NodeTime> profile;
  for (int64_t i = 0; i < repeat; ++i) {
    RunMetadata metadata;
    outputs.clear();
    auto start = std::chrono::steady_clock::now();
    s = (*session)->Run(run_options, feeds, fetch_names, targets, &outputs, &metadata);
    auto end = std::chrono::steady_clock::now();
    if (!s.ok()) {
      if (progress) std::cerr << "\n";
      return ReportError(StrCat("run ", i + 1, " of ", repeat, " failed: ", s.message()));
    }
    const double ms = std::chrono::duration<double, std::milli>(end - start).count();
    total_ms += ms;
    min_ms = i == 0 ? ms : std::min(min_ms, ms);
    for (const NodeExecStats& st : metadata.step_stats) {
      NodeTime& nt = profile[st.node_name];
      nt.op = st.op;
      ++nt.count;
      nt.total_ns += std::max<int64_t>(0, st.end_ns - st.start_ns);
    }
    if (progress) ProgressBar(i + 1, repeat);
  }
  if (outputs.size() != fetch_names.size()) {
    return ReportError(StrCat("the session returned ", outputs.size(), " tensors for ",
                              fetch_names.size(), " fetches"));
  }
  const double mean = total_ms / static_cast<double>(repeat);
  const double min = min_ms;
  std::vector<std::pair<std::string, NodeTime>> rows(profile.begin(), profile.end());
  std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
    return a.second.total_ns > b.second.total_ns;
  });

  const std::string out_dir = args.Get("out");
  if (args.Has("out")) {
    if (out_dir.empty()) return ReportError("--out value is empty; give a directory");
    s = MakeDir(out_dir);
    if (!s.ok()) return ReportError(s);
  }
  json jfetches = json::array();
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Tensor& t = outputs[i];
    if (args.Has("out")) {
      const std::string path = out_dir + "/" + SanitizeFileName(fetches[i]) + ".npy";
      s = WriteNpyFile(t, path);
      if (!s.ok()) return ReportError(StrCat("--fetch ", fetches[i], ": ", s.message()));
      if (as_json) {
        jfetches.push_back({{"name", fetches[i]},
                            {"dtype", DataTypeString(t.dtype())},
                            {"shape", TensorToJson(t)["shape"]},
                            {"file", path}});
      } else {
        std::cout << "wrote " << path << " (" << NumpyDtypeName(t.dtype()) << " "
                  << TensorShapeText(t.shape()) << ")\n";
      }
    } else if (as_json) {
      json j = TensorToJson(t);
      j["name"] = fetches[i];
      jfetches.push_back(j);
    } else {
      std::cout << fetches[i] << ": " << NumpyDtypeName(t.dtype()) << " "
                << TensorShapeText(t.shape()) << "\n"
                << FormatTensorValues(t) << "\n";
    }
  }
  if (as_json) {
    json out{{"fetches", jfetches}, {"runs", repeat}};
    out["time_ms"] = {{"mean", mean}, {"min", min}};
    if (args.Has("profile")) {
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
  if (args.Has("repeat")) {
    std::cout << StrCat("time per run: mean ", FloatText(std::round(mean * 1000) / 1000),
                        " ms, min ", FloatText(std::round(min * 1000) / 1000), " ms over ",
                        repeat, " runs\n");
  }
  if (args.Has("profile")) {
    std::cout << "profile (" << repeat << (repeat == 1 ? " run" : " runs")
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
  return kExitOk;
}

// --- shapes ---------------------------------------------------------------

CommandSpec ShapesCommandSpec() {
  CommandSpec spec;
  spec.name = "shapes";
  spec.usage = "opkit shapes GRAPH [--feed-shape NAME=SHAPE]... [--json]";
  spec.summary = "Infer the shape of every node's outputs in a GraphDef.";
  spec.description =
      "Runs each op's shape function over the graph in topological order.\n"
      "SHAPE pins a tensor's shape: [1,?,3] (? or -1: unknown dimension),\n"
      "[] (a scalar), ? or * (unknown rank). Output: one line per node,\n"
      "'name (Op): shape, shape...'.";
  spec.flags = {{"feed-shape", "NAME=SHAPE", true, "the shape of tensor NAME (repeatable)"},
                {"json", "", false, "print a JSON array of {node, op, shapes}"}};
  spec.min_positional = 1;
  spec.max_positional = 1;
  spec.positional_name = "GRAPH (a GraphDef file, .pbtxt or .pb)";
  return spec;
}

int RunShapes(const ParsedArgs& args) {
  const CommandSpec spec = ShapesCommandSpec();
  std::map<std::string, PartialTensorShape> feeds;
  for (const std::string& f : args.GetAll("feed-shape")) {
    if (f.find('=') == std::string::npos || f[0] == '=') {
      return ReportUsageError(spec, "--feed-shape value '" + f + "' is not of the form NAME=SHAPE");
    }
    std::string name, text;
    Status s = SplitNameValue("feed-shape", f, &name, &text);
    if (!s.ok()) return ReportUsageError(spec, s.message());
    PartialTensorShape shape;
    s = ParseShapeText("feed-shape", text, &shape);
    if (!s.ok()) return ReportError(s);
    feeds[name] = shape;
  }
  GraphDef graph;
  Status s = ReadGraphDefFromFile(args.positional[0], &graph);
  if (!s.ok()) {
    return ReportError(StrCat("cannot read GraphDef '", args.positional[0], "': ", s.message()));
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
  if (args.Has("json")) {
    PrintJson(out);
  } else {
    for (const std::string& line : lines) std::cout << line << "\n";
  }
  if (!inferred.ok()) {
    return ReportError(StrCat("shape inference failed: ", inferred.message()));
  }
  return kExitOk;
}

}  // namespace cli
}  // namespace opkit
