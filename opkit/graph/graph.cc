// Graph: building and validating a GraphDef.
#include "opkit/graph/graph.h"

#include <cstdint>
#include <deque>
#include <filesystem>
#include <utility>

#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/text_format.h"
#include "opkit/core/env.h"
#include "opkit/core/errors.h"
#include "opkit/graph/control_flow.h"
#include "opkit/graph/tfjs_model.h"
#include "opkit/op/node_def_util.h"
#include "opkit/op/op_registry.h"

namespace opkit {
namespace {

// Collects the text parser's first error with its position.
class FirstErrorCollector : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, google::protobuf::io::ColumnNumber column,
                const std::string& message) override {
    if (!error_.empty()) return;
    error_ = StrCat("line ", line + 1, ", column ", column + 1, ": ", message);
  }
  void AddWarning(int, google::protobuf::io::ColumnNumber,
                  const std::string&) override {}
  const std::string& error() const { return error_; }

 private:
  std::string error_;
};

bool LooksLikeText(std::string_view data) {
  for (unsigned char c : data) {
    if (c == '\n' || c == '\r' || c == '\t') continue;
    if (c < 0x20 || c == 0x7f) return false;
  }
  return true;
}

// "float" / "float_ref" as TensorFlow prints types in edge errors.
std::string TypeName(DataType t) { return DataTypeString(t); }

// A ref output may feed a non-ref input of the same base type (the consumer
// reads the current value); a non-ref output cannot feed a ref input.
bool EdgeTypeFits(DataType out, DataType in) {
  return out == in || (IsRefType(out) && !IsRefType(in) &&
                       RemoveRefType(out) == in);
}

}  // namespace

Status ParseGraphDefText(std::string_view text, GraphDef* graph_def) {
  google::protobuf::TextFormat::Parser parser;
  FirstErrorCollector errors_seen;
  parser.RecordErrorsTo(&errors_seen);
  graph_def->Clear();
  if (text.size() > static_cast<size_t>(INT32_MAX)) {
    return errors::InvalidArgument("The GraphDef text is ", text.size(),
                                   " bytes; at most 2 GiB can be parsed");
  }
  google::protobuf::io::ArrayInputStream input(text.data(),
                                               static_cast<int>(text.size()));
  if (!parser.Parse(&input, graph_def)) {
    graph_def->Clear();
    return errors::InvalidArgument(
        "Could not parse the GraphDef text: ",
        errors_seen.error().empty() ? "unknown parser error" : errors_seen.error(),
        ". Check the text against proto/opkit/graph.proto");
  }
  return OkStatus();
}

Status ParseGraphDefBinary(std::string_view bytes, GraphDef* graph_def) {
  graph_def->Clear();
  if (bytes.size() > static_cast<size_t>(INT32_MAX) ||
      !graph_def->ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    graph_def->Clear();
    return errors::InvalidArgument(
        "Could not parse ", bytes.size(),
        " bytes as a binary GraphDef; is it a serialized opkit/TensorFlow "
        "GraphDef (not a SavedModel or a text file)?");
  }
  return OkStatus();
}

Status ParseGraphDef(std::string_view data, GraphDef* graph_def) {
  if (LooksLikeText(data)) return ParseGraphDefText(data, graph_def);
  return ParseGraphDefBinary(data, graph_def);
}

Status ReadGraphDefFromFile(const std::string& path, GraphDef* graph_def) {
  return ReadGraphDefFromFile(path, graph_def, nullptr);
}

Status ReadGraphDefFromFile(const std::string& path, GraphDef* graph_def,
                            TfjsSignature* signature) {
  if (signature != nullptr) *signature = TfjsSignature();
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    // A folder is a TF.js model's (a SavedModel folder is not read here).
    return ReadTfjsGraphModel(path, graph_def, signature);
  }
  std::string data;
  OPKIT_RETURN_IF_ERROR(ReadFileToString(path, &data));
  if (LooksLikeTfjsModelJson(data)) {
    const std::string dir = std::filesystem::path(path).parent_path().string();
    return ParseTfjsGraphModel(data, dir, path, graph_def, signature);
  }
  Status s = ParseGraphDef(data, graph_def);
  if (!s.ok()) return errors::AppendToMessage(s, " (file ", path, ")");
  return OkStatus();
}

const Node* Graph::FindNode(std::string_view name) const {
  auto it = by_name_.find(std::string(name));
  return it == by_name_.end() ? nullptr : nodes_[it->second].get();
}

StatusOr<std::unique_ptr<Graph>> Graph::Create(
    const GraphDef& graph_def, const OpRegistryInterface* op_registry) {
  if (op_registry == nullptr) op_registry = OpRegistry::Global();
  std::unique_ptr<Graph> graph(new Graph());
  OPKIT_RETURN_IF_ERROR(graph->Build(graph_def, *op_registry));
  return graph;
}

Status Graph::Build(const GraphDef& graph_def,
                    const OpRegistryInterface& registry) {
  version_ = graph_def.versions().producer();
  const int n = graph_def.node_size();
  nodes_.reserve(n);
  by_name_.reserve(n);

  // Nodes: names, ops, attrs, types.
  for (int i = 0; i < n; ++i) {
    const NodeDef& given = graph_def.node(i);
    if (given.name().empty()) {
      return errors::InvalidArgument("Node ", i,
                                     " of the GraphDef has no name; give every "
                                     "node a unique name");
    }
    if (!by_name_.emplace(given.name(), i).second) {
      return errors::InvalidArgument(
          "Node '", given.name(), "' is not unique: two nodes of the GraphDef "
          "have this name ", FormatNodeNameForError(given.name()));
    }
    OPKIT_RETURN_IF_ERROR(AttachDef(ValidateExternalNodeDefSyntax(given), given));
    const OpRegistrationData* op_data = nullptr;
    Status s = registry.LookUp(given.op(), &op_data);
    if (!s.ok()) return AttachDef(s, given);
    // Adds the op's defaults and validates the node, once (Note [Validate
    // once] in node_def_util.h).
    std::shared_ptr<const NodeProperties> props;
    s = NodeProperties::CreateFromNodeDef(given, op_data->op_def, &props);
    if (!s.ok()) return AttachDef(s, given);
    auto node = std::unique_ptr<Node>(new Node());
    node->id_ = i;
    node->props_ = std::move(props);
    nodes_.push_back(std::move(node));
  }

  // Edges.
  for (int i = 0; i < n; ++i) {
    Node& dst = *nodes_[i];
    const NodeDef& def = dst.def();
    int data_inputs = 0;
    for (int k = 0; k < def.input_size(); ++k) {
      TensorId id;
      OPKIT_RETURN_IF_ERROR(AttachDef(ParseTensorName(def.input(k), &id), def));
      auto it = by_name_.find(std::string(id.node()));
      if (it == by_name_.end()) {
        return errors::InvalidArgument(
            "Node '", def.name(), "': Unknown input node '", def.input(k),
            "' ", FormatNodeNameForError(def.name()));
      }
      Node& src = *nodes_[it->second];
      GraphEdge e;
      e.src = src.id_;
      e.dst = i;
      if (id.index() == kControlSlot) {
        e.src_output = kControlSlot;
        e.dst_input = kControlSlot;
      } else {
        if (id.index() >= src.num_outputs()) {
          return errors::InvalidArgument(
              "Node '", def.name(), "': Connecting to invalid output ",
              id.index(), " of source node ", src.name(), " which has ",
              src.num_outputs(), " outputs. ",
              FormatNodeNameForError(def.name()));
        }
        const int input = data_inputs++;
        // ValidateNodeDef has checked the count of data inputs.
        if (input >= dst.num_inputs()) {
          return errors::InvalidArgument(
              "Node '", def.name(), "' has more data inputs than its op ",
              def.op(), " takes (", dst.num_inputs(), ") ",
              FormatNodeNameForError(def.name()));
        }
        const DataType out_type = src.output_type(id.index());
        const DataType in_type = dst.input_type(input);
        if (!EdgeTypeFits(out_type, in_type)) {
          return errors::InvalidArgument(
              "Input ", input, " of node ", def.name(), " was passed ",
              TypeName(out_type), " from ", src.name(), ":", id.index(),
              " incompatible with expected ", TypeName(in_type), ". ",
              FormatNodeNameForError(def.name()));
        }
        e.src_output = id.index();
        e.dst_input = input;
      }
      const int edge_id = static_cast<int>(edges_.size());
      edges_.push_back(e);
      dst.in_edges_.push_back(edge_id);
      src.out_edges_.push_back(edge_id);
    }
    if (data_inputs != dst.num_inputs()) {
      return errors::InvalidArgument(
          "Node '", def.name(), "' has ", data_inputs,
          " data inputs, but its op ", def.op(), " takes ", dst.num_inputs(),
          " ", FormatNodeNameForError(def.name()));
    }
  }

  // Topological order (Kahn), not counting loop back edges.
  std::vector<int> pending(n, 0);
  for (const GraphEdge& e : edges_) {
    if (!nodes_[e.src]->IsNextIteration()) ++pending[e.dst];
  }
  std::deque<int> ready;
  for (int i = 0; i < n; ++i) {
    if (pending[i] == 0) ready.push_back(i);
  }
  topo_order_.reserve(n);
  while (!ready.empty()) {
    const int id = ready.front();
    ready.pop_front();
    topo_order_.push_back(id);
    if (nodes_[id]->IsNextIteration()) continue;
    for (int edge_id : nodes_[id]->out_edges_) {
      const int dst = edges_[edge_id].dst;
      if (--pending[dst] == 0) ready.push_back(dst);
    }
  }
  if (static_cast<int>(topo_order_.size()) != n) {
    std::string names;
    int count = 0;
    for (int i = 0; i < n; ++i) {
      if (pending[i] == 0) continue;
      if (++count <= 5) names += StrCat(count > 1 ? ", " : "", nodes_[i]->name());
    }
    int first = 0;
    while (pending[first] == 0) ++first;
    return errors::InvalidArgument(
        "Graph is invalid, contains a cycle with ", count,
        " nodes, including: ", names,
        ". Only loops through a NextIteration node (tf.while_loop) may form "
        "cycles ", FormatNodeNameForError(nodes_[first]->name()));
  }
  return ValidateControlFlow(*this);
}

}  // namespace opkit
