// Fuzz target for the graph path: a GraphDef in text format, then random
// feeds, through parsing, validation and placement (Session::Create), shape
// inference (ShapeRefiner) and one Run. No input may crash, hang or trip a
// sanitizer; errors are fine.
//
// Input format: the text of a GraphDef, optionally followed by a line
// "#feeds" and raw bytes. For every Placeholder / PlaceholderWithDefault of
// the graph, in node order, the feed bytes give: one byte for the rank (% 5),
// one per dim (% 5), then the element bytes (zero when the input runs out),
// in the placeholder's dtype (numeric types and bool only; others are not
// fed). Every node's outputs are fetched and every node but the fed ones is a
// target.
//
// Limits that keep one input fast, and why they are not a weakness:
//   - at most 64 nodes, and every Placeholder's fed tensor has at most 4^4
//     elements;
//   - every Run has a 20 ms timeout (RunOptions::timeout_in_ms), so a while
//     loop whose condition never turns false ends with DeadlineExceeded
//     instead of running forever, as it would in TensorFlow without one;
//   - a huge tensor that a Fill/Tile/... asks for is an error Status (the
//     CPU allocator refuses sizes above its limit and posix_memalign
//     failures; kernels turn a null buffer into ResourceExhausted), so that
//     path is fuzzed too (run under ASan with allocator_may_return_null=1).
//
// Seeds: fuzz/corpus/graph_def/; dictionary: fuzz/graph_def.dict. With
// OPKIT_FUZZ_VERBOSE=1 in the environment each stage prints its Status, to
// check that a new seed gets as far as Run.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "opkit/op/op_registry.h"
#include "opkit/tensor/tensor.h"
#include "opkit/graph.pb.h"
#include "opkit/graph/graph.h"
#include "opkit/graph/shape_refiner.h"
#include "opkit/runtime/session.h"

namespace {

using namespace opkit;  // NOLINT

constexpr int kMaxNodes = 64;

class Bytes {
 public:
  explicit Bytes(std::string_view data) : data_(data) {}
  uint8_t Next() {
    return pos_ < data_.size() ? static_cast<uint8_t>(data_[pos_++]) : 0;
  }

 private:
  std::string_view data_;
  size_t pos_ = 0;
};

bool Feedable(DataType dt) {
  switch (dt) {
    case DT_FLOAT: case DT_DOUBLE: case DT_INT32: case DT_INT64:
    case DT_INT8: case DT_INT16: case DT_UINT8: case DT_UINT16:
    case DT_BOOL: case DT_HALF: case DT_BFLOAT16:
      return true;
    default:
      return false;
  }
}

Tensor MakeFeed(DataType dt, Bytes* bytes) {
  const int rank = bytes->Next() % 5;
  TensorShape shape;
  for (int i = 0; i < rank; ++i) shape.AddDim(bytes->Next() % 5);
  Tensor t(dt, shape);
  const size_t n = t.TotalBytes();
  auto* p = static_cast<uint8_t*>(t.data());
  for (size_t i = 0; i < n; ++i) p[i] = bytes->Next();
  if (dt == DT_BOOL) {
    for (size_t i = 0; i < n; ++i) p[i] &= 1;  // a bool is 0 or 1
  }
  return t;
}

bool Verbose() {
  static const bool verbose = [] {
    const char* v = std::getenv("OPKIT_FUZZ_VERBOSE");
    return v != nullptr && v[0] == '1';
  }();
  return verbose;
}

const Status& Report(const char* stage, const Status& s) {
  if (Verbose()) std::fprintf(stderr, "%s: %s\n", stage, s.ToString().c_str());
  return s;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  std::string_view text = input, feed_bytes;
  const size_t split = input.find("\n#feeds\n");
  if (split != std::string_view::npos) {
    text = input.substr(0, split);
    feed_bytes = input.substr(split + 8);
  }
  GraphDef graph_def;
  if (!Report("parse", ParseGraphDefText(text, &graph_def)).ok()) return 0;
  if (graph_def.node_size() > kMaxNodes) return 0;

  // Shape inference on its own, as a tool would run it.
  ShapeRefiner refiner(graph_def.versions().producer(), OpRegistry::Global());
  (void)Report("shapes", refiner.InferShapes(graph_def));

  auto session = Session::New();
  if (!session.ok()) return 0;
  if (!Report("create", (*session)->Create(graph_def)).ok()) return 0;

  std::vector<std::pair<std::string, Tensor>> feeds;
  std::vector<std::string> fetches, targets;
  Bytes bytes(feed_bytes);
  for (const NodeDef& node : graph_def.node()) {
    bool fed = false;
    if (node.op() == "Placeholder" || node.op() == "PlaceholderWithDefault") {
      auto it = node.attr().find("dtype");
      if (it != node.attr().end() && Feedable(it->second.type())) {
        feeds.emplace_back(node.name() + ":0",
                           MakeFeed(it->second.type(), &bytes));
        fed = true;
      }
    }
    // A fed Placeholder named as a target would run its own kernel, which
    // fails for want of a feed (as in TensorFlow) before anything else runs.
    if (!fed) targets.push_back(node.name());
    fetches.push_back(node.name() + ":0");
  }
  RunOptions options;
  options.timeout_in_ms = 20;
  std::vector<Tensor> outputs;
  // Fetching outputs that do not exist (a NoOp's) is itself an error path
  // worth running; then run again with targets only.
  (void)Report("run fetches", (*session)->Run(options, feeds, fetches, {},
                                              &outputs, nullptr));
  (void)Report("run targets", (*session)->Run(options, feeds, {}, targets,
                                              &outputs, nullptr));
  return 0;
}
