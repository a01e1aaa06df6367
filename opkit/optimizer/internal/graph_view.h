// Internal to opkit/optimizer: what the passes share -- parsing a NodeDef's
// input strings, an index of a GraphDef's nodes and consumers, and the
// context every pass gets. Not a public API.
#ifndef OPKIT_OPTIMIZER_INTERNAL_GRAPH_VIEW_H_
#define OPKIT_OPTIMIZER_INTERNAL_GRAPH_VIEW_H_

#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "opkit/core/status.h"
#include "opkit/graph.pb.h"

namespace opkit {

class Device;
class KernelRegistry;
class OpRegistryInterface;

namespace internal {

// One NodeDef input: "node", "node:3" or "^node" (control).
struct InputRef {
  std::string node;
  int index = 0;
  bool control = false;
};

// Parses an input string; an index that is not a number reads as part of
// the name (Graph::Create has refused such graphs before any pass runs).
InputRef ParseInput(std::string_view input);

// "node" for output 0, "node:i" otherwise.
std::string OutputName(const std::string& node, int index);

// The node names of "node:i" / "node" / "^node" strings.
std::string NodeNameOf(std::string_view tensor_or_node);

// An index over a GraphDef that must outlive it and not change while it is
// used: nodes by name, and who consumes each node.
class GraphView {
 public:
  struct Consumer {
    int node = -1;   // index into the GraphDef's nodes
    int input = -1;  // which input of that node; -1 for a control input
    int output = 0;  // which output of the consumed node (data inputs)
  };

  explicit GraphView(const GraphDef& graph);

  // The index of the node named `name`, or -1.
  int Find(const std::string& name) const;
  const NodeDef& node(int i) const { return graph_.node(i); }
  // Every input naming node `i`, data and control.
  const std::vector<Consumer>& consumers(int i) const { return consumers_[i]; }
  // How many inputs read output `output` of node `i`.
  int NumDataConsumers(int i, int output) const;
  bool HasControlConsumers(int i) const;

 private:
  const GraphDef& graph_;
  std::unordered_map<std::string, int> by_name_;
  std::vector<std::vector<Consumer>> consumers_;
};

// What every pass gets.
struct PassContext {
  const OpRegistryInterface* op_registry = nullptr;
  const KernelRegistry* kernel_registry = nullptr;
  Device* device = nullptr;
  int64_t max_constant_bytes = 0;
  // Feeds, fetches and targets, by node name.
  std::set<std::string> protected_nodes;
  // Fed nodes: their outputs are not what the graph computes.
  std::set<std::string> fed_nodes;
  // Fetched tensors, as "node:i".
  std::set<std::string> fetched_tensors;
  // Fetches and targets, by node name; empty means every node is wanted.
  std::set<std::string> roots;
};

// The nodes the roots of `ctx` depend on (through data and control inputs),
// or every node when there are no roots.
std::set<std::string> NeededNodes(const GraphDef& graph, const PassContext& ctx);

// The passes. Each rewrites *graph in place and counts what it did; an
// error leaves *graph in an unspecified state (the caller keeps a copy).
Status PruneIdentities(const PassContext& ctx, GraphDef* graph, int* removed);
Status FoldConstants(const PassContext& ctx, GraphDef* graph, int* folded);
Status FoldBatchNorms(const PassContext& ctx, GraphDef* graph, int* folded);
Status FuseBiasAndActivation(const PassContext& ctx, GraphDef* graph,
                             int* fused);

// Removes the nodes whose names are in `doomed`, keeping the order of the
// others.
void RemoveNodes(const std::set<std::string>& doomed, GraphDef* graph);

// A node name not yet in `view` nor `taken`, made from `base`, added to
// `taken`.
std::string UniqueName(const GraphView& view, const std::string& base,
                       std::set<std::string>* taken);

}  // namespace internal
}  // namespace opkit

#endif  // OPKIT_OPTIMIZER_INTERNAL_GRAPH_VIEW_H_
