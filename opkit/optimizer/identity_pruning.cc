// Identity pruning: an Identity between two nodes is bypassed -- its
// consumers read its input directly -- and removed.
//
// Not when the Identity is protected (fed, fetched or a target), has
// control inputs (its consumers would stop waiting for them), reads a
// reference (it takes a snapshot of a variable there), sits between two
// devices (it is the copy), or touches v1 control flow (a Switch's output
// or a Merge / NextIteration input is where deadness and frames are
// decided). Control consumers of the Identity wait for its input's node
// instead (so not when that node is fed).
#include <memory>
#include <set>
#include <string>

#include "opkit/graph/graph.h"
#include "opkit/optimizer/internal/graph_view.h"

namespace opkit {
namespace internal {
namespace {

bool IsControlFlow(const std::string& op) {
  static const std::set<std::string>* kOps = new std::set<std::string>{
      "Switch", "RefSwitch", "Merge", "RefMerge", "Enter", "RefEnter",
      "Exit", "RefExit", "NextIteration", "RefNextIteration", "LoopCond"};
  return kOps->count(op) > 0;
}

}  // namespace

Status PruneIdentities(const PassContext& ctx, GraphDef* graph, int* removed) {
  OPKIT_ASSIGN_OR_RETURN(std::unique_ptr<Graph> g,
                         Graph::Create(*graph, ctx.op_registry));
  // In topological order a node gains consumers (from a bypass) only after
  // it has been visited, so one view built up front stays right for every
  // node still to visit; inputs are read from the live GraphDef.
  GraphView view(*graph);
  std::set<std::string> doomed;
  for (int id : g->topological_order()) {
    const Node& node = g->node(id);
    if (node.op() != "Identity" ||
        ctx.protected_nodes.count(node.name()) > 0 ||
        node.def().input_size() != 1 || IsRefType(node.input_type(0))) {
      continue;
    }
    const int self = view.Find(node.name());
    const InputRef in = ParseInput(view.node(self).input(0));
    if (in.control) continue;
    const int src = view.Find(in.node);
    if (src < 0 || doomed.count(in.node) > 0) continue;
    const NodeDef& src_def = view.node(src);
    if (IsControlFlow(src_def.op()) ||
        src_def.device() != view.node(self).device()) {
      continue;
    }
    // A control edge from a fed node makes the executor run that node
    // (a Placeholder then fails): do not create one.
    if (view.HasControlConsumers(self) && ctx.fed_nodes.count(in.node) > 0) {
      continue;
    }
    bool ok = true;
    for (const GraphView::Consumer& c : view.consumers(self)) {
      const NodeDef& consumer = view.node(c.node);
      if (IsControlFlow(consumer.op()) ||
          (c.input >= 0 && consumer.device() != view.node(self).device())) {
        ok = false;
      }
    }
    if (!ok) continue;
    const std::string replacement = OutputName(in.node, in.index);
    for (const GraphView::Consumer& c : view.consumers(self)) {
      NodeDef* consumer = graph->mutable_node(c.node);
      if (c.input < 0) {
        // "^identity" -> "^input", unless the consumer has it already.
        bool has = false;
        for (const std::string& i : consumer->input()) {
          if (i == "^" + in.node) has = true;
        }
        for (int j = 0; j < consumer->input_size(); ++j) {
          if (consumer->input(j) == "^" + node.name()) {
            if (has) {
              consumer->mutable_input()->erase(
                  consumer->mutable_input()->begin() + j);
            } else {
              consumer->set_input(j, "^" + in.node);
            }
            break;
          }
        }
      } else {
        consumer->set_input(c.input, replacement);
      }
    }
    doomed.insert(node.name());
  }
  RemoveNodes(doomed, graph);
  *removed += static_cast<int>(doomed.size());
  return OkStatus();
}

}  // namespace internal
}  // namespace opkit
