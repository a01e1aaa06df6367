// Graph: a validated, indexed form of a GraphDef — nodes with their op
// definitions and input/output types, data and control edges, and a
// topological order — that the placer and the executor work on.
//
//   GraphDef def;
//   OPKIT_RETURN_IF_ERROR(ParseGraphDef(text_or_binary_bytes, &def));
//   OPKIT_ASSIGN_OR_RETURN(std::unique_ptr<Graph> graph,
//                          Graph::Create(def, OpRegistry::Global()));
//   for (int id : graph->topological_order()) {
//     const Node& n = graph->node(id);   // n.name(), n.op(), n.in_edges() ...
//   }
//
// Graph::Create checks the whole GraphDef and returns the first fault as a
// Status naming the node ("{{node n}}"): duplicate node names, an op that is
// not registered, attrs that are missing or do not fit the op
// (ValidateNodeDef), an input that names no node or an output the node does
// not have, a wrong number of inputs, an edge whose type does not fit the
// input (a ref output may feed a non-ref input, not the other way round), and
// a cycle that does not pass through a NextIteration node (the back edge of a
// v1 while loop), and an ill-formed loop frame structure (ValidateControlFlow
// in control_flow.h: a back edge in the root frame, an Exit outside a loop).
//
// Immutable after Create except for placement (Node::set_assigned_device,
// set by the placer before the graph is shared); thread-safe to read.
#ifndef OPKIT_GRAPH_GRAPH_H_
#define OPKIT_GRAPH_GRAPH_H_

#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "opkit/core/export.h"
#include "opkit/core/status.h"
#include "opkit/core/statusor.h"
#include "opkit/kernel/op_kernel_construction.h"
#include "opkit/tensor/types.h"
#include "opkit/graph.pb.h"

namespace opkit {

class OpRegistryInterface;
struct TfjsSignature;

// Parses a GraphDef from `data`: the protobuf text format when `data` looks
// like text (printable characters only), the binary wire format otherwise.
// InvalidArgument with the parser's line and column (text) or a hint (binary)
// when it does not parse.
OPKIT_EXPORT Status ParseGraphDef(std::string_view data, GraphDef* graph_def);
// The same, from the text format only / the binary format only.
OPKIT_EXPORT Status ParseGraphDefText(std::string_view text, GraphDef* graph_def);
OPKIT_EXPORT Status ParseGraphDefBinary(std::string_view bytes,
                                        GraphDef* graph_def);
// Reads a file and parses it with ParseGraphDef. The file's errors (NotFound,
// ...) as Env reports them. A TensorFlow.js graph model is read too: a folder
// holding model.json, or a file whose content is a JSON object (see
// tfjs_model.h, ReadTfjsGraphModel).
OPKIT_EXPORT Status ReadGraphDefFromFile(const std::string& path,
                                         GraphDef* graph_def);
// The same, and when the file is a TF.js graph model, its signature (inputs
// and outputs) in `*signature`; for other files `*signature` is cleared.
OPKIT_EXPORT Status ReadGraphDefFromFile(const std::string& path,
                                         GraphDef* graph_def,
                                         TfjsSignature* signature);

// One edge. A data edge connects output `src_output` of `src` to input
// `dst_input` of `dst`; a control edge has both set to kControlSlot (-1).
struct GraphEdge {
  int src = -1;
  int src_output = 0;
  int dst = -1;
  int dst_input = 0;
  bool IsControl() const { return src_output < 0; }
};

// One node of a Graph. Borrowed from the Graph; valid while it lives.
class OPKIT_EXPORT Node {
 public:
  int id() const { return id_; }
  const std::string& name() const { return props_->node_def.name(); }
  const std::string& op() const { return props_->node_def.op(); }
  // The NodeDef as given, with the op's attr defaults added.
  const NodeDef& def() const { return props_->node_def; }
  const OpDef& op_def() const { return props_->op_def; }
  // What kernels are built from (shared with them).
  const std::shared_ptr<const NodeProperties>& properties() const {
    return props_;
  }
  int num_inputs() const { return static_cast<int>(props_->input_types.size()); }
  int num_outputs() const {
    return static_cast<int>(props_->output_types.size());
  }
  DataType input_type(int i) const { return props_->input_types[i]; }
  DataType output_type(int i) const { return props_->output_types[i]; }
  const DataTypeVector& input_types() const { return props_->input_types; }
  const DataTypeVector& output_types() const { return props_->output_types; }

  // Indices into Graph::edges(): data edges in input order, then control
  // edges (in_edges); every edge leaving the node (out_edges).
  const std::vector<int>& in_edges() const { return in_edges_; }
  const std::vector<int>& out_edges() const { return out_edges_; }

  // The device the NodeDef asked for ("" if none).
  const std::string& requested_device() const { return props_->node_def.device(); }
  // Set by the placer: the full name of the device the node runs on, and
  // which of the placer's devices that is (-1 before placement).
  const std::string& assigned_device_name() const { return assigned_device_; }
  int assigned_device_index() const { return assigned_device_index_; }
  void set_assigned_device(std::string name, int index) {
    assigned_device_ = std::move(name);
    assigned_device_index_ = index;
  }
  // Set by the placer from the kernel's HostMemory args: which inputs and
  // outputs stay in host memory (empty before placement).
  const std::vector<bool>& input_in_host_memory() const { return input_host_; }
  const std::vector<bool>& output_in_host_memory() const { return output_host_; }
  void set_host_memory(std::vector<bool> inputs, std::vector<bool> outputs) {
    input_host_ = std::move(inputs);
    output_host_ = std::move(outputs);
  }

  // v1 control-flow roles, by op name.
  bool IsSwitch() const { return op() == "Switch" || op() == "RefSwitch"; }
  bool IsMerge() const { return op() == "Merge" || op() == "RefMerge"; }
  bool IsEnter() const { return op() == "Enter" || op() == "RefEnter"; }
  bool IsExit() const { return op() == "Exit" || op() == "RefExit"; }
  bool IsNextIteration() const {
    return op() == "NextIteration" || op() == "RefNextIteration";
  }
  bool IsLoopCond() const { return op() == "LoopCond"; }

 private:
  friend class Graph;
  int id_ = -1;
  std::shared_ptr<const NodeProperties> props_;
  std::vector<int> in_edges_;
  std::vector<int> out_edges_;
  std::string assigned_device_;
  int assigned_device_index_ = -1;
  std::vector<bool> input_host_;
  std::vector<bool> output_host_;
};

class OPKIT_EXPORT Graph {
 public:
  // Builds and validates the graph of `graph_def` against `op_registry`
  // (borrowed for the call only; OpRegistry::Global() when null). Errors:
  // see the file comment; each names the offending node.
  static StatusOr<std::unique_ptr<Graph>> Create(
      const GraphDef& graph_def, const OpRegistryInterface* op_registry);

  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  int num_nodes() const { return static_cast<int>(nodes_.size()); }
  // Node `id` (0 <= id < num_nodes(), in GraphDef order).
  const Node& node(int id) const { return *nodes_[id]; }
  Node* mutable_node(int id) { return nodes_[id].get(); }
  // The node named `name`, or null.
  const Node* FindNode(std::string_view name) const;
  const std::vector<GraphEdge>& edges() const { return edges_; }
  const GraphEdge& edge(int i) const { return edges_[i]; }

  // Node ids such that every node comes after the sources of its in-edges,
  // except edges leaving a NextIteration node (loop back edges).
  const std::vector<int>& topological_order() const { return topo_order_; }

  // The GraphDef's producer version (versions.producer; 0 when unset).
  int version() const { return version_; }

 private:
  Graph() = default;
  Status Build(const GraphDef& graph_def, const OpRegistryInterface& registry);

  std::vector<std::unique_ptr<Node>> nodes_;
  std::vector<GraphEdge> edges_;
  std::unordered_map<std::string, int> by_name_;
  std::vector<int> topo_order_;
  int version_ = 0;
};

}  // namespace opkit

#endif  // OPKIT_GRAPH_GRAPH_H_
