// The optimizer's shared helpers (internal/graph_view.h).
#include "opkit/optimizer/internal/graph_view.h"

#include <cstdlib>
#include <deque>

#include "opkit/core/str_util.h"

namespace opkit {
namespace internal {

InputRef ParseInput(std::string_view input) {
  InputRef ref;
  if (!input.empty() && input[0] == '^') {
    ref.control = true;
    ref.index = -1;
    ref.node = std::string(input.substr(1));
    return ref;
  }
  const size_t colon = input.rfind(':');
  if (colon != std::string_view::npos && colon + 1 < input.size()) {
    bool digits = true;
    for (size_t i = colon + 1; i < input.size(); ++i) {
      if (input[i] < '0' || input[i] > '9') digits = false;
    }
    if (digits && input.size() - colon - 1 <= 9) {
      ref.node = std::string(input.substr(0, colon));
      ref.index = std::atoi(std::string(input.substr(colon + 1)).c_str());
      return ref;
    }
  }
  ref.node = std::string(input);
  return ref;
}

std::string OutputName(const std::string& node, int index) {
  return index == 0 ? node : StrCat(node, ":", index);
}

std::string NodeNameOf(std::string_view tensor_or_node) {
  return ParseInput(tensor_or_node).node;
}

GraphView::GraphView(const GraphDef& graph)
    : graph_(graph), consumers_(graph.node_size()) {
  for (int i = 0; i < graph.node_size(); ++i) {
    by_name_.emplace(graph.node(i).name(), i);
  }
  for (int i = 0; i < graph.node_size(); ++i) {
    const NodeDef& n = graph.node(i);
    for (int j = 0; j < n.input_size(); ++j) {
      const InputRef ref = ParseInput(n.input(j));
      const int src = Find(ref.node);
      if (src < 0) continue;
      Consumer c;
      c.node = i;
      c.input = ref.control ? -1 : j;
      c.output = ref.control ? -1 : ref.index;
      consumers_[src].push_back(c);
    }
  }
}

int GraphView::Find(const std::string& name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? -1 : it->second;
}

int GraphView::NumDataConsumers(int i, int output) const {
  int n = 0;
  for (const Consumer& c : consumers_[i]) {
    if (c.input >= 0 && c.output == output) ++n;
  }
  return n;
}

bool GraphView::HasControlConsumers(int i) const {
  for (const Consumer& c : consumers_[i]) {
    if (c.input < 0) return true;
  }
  return false;
}

std::set<std::string> NeededNodes(const GraphDef& graph,
                                  const PassContext& ctx) {
  std::set<std::string> needed;
  if (ctx.roots.empty()) {
    for (const NodeDef& n : graph.node()) needed.insert(n.name());
    return needed;
  }
  GraphView view(graph);
  std::deque<int> queue;
  for (const std::string& root : ctx.roots) {
    const int i = view.Find(root);
    if (i >= 0 && needed.insert(root).second) queue.push_back(i);
  }
  while (!queue.empty()) {
    const NodeDef& n = view.node(queue.front());
    queue.pop_front();
    for (const std::string& input : n.input()) {
      const std::string name = ParseInput(input).node;
      const int src = view.Find(name);
      if (src >= 0 && needed.insert(name).second) queue.push_back(src);
    }
  }
  return needed;
}

void RemoveNodes(const std::set<std::string>& doomed, GraphDef* graph) {
  if (doomed.empty()) return;
  GraphDef kept;
  for (NodeDef& n : *graph->mutable_node()) {
    if (doomed.count(n.name()) == 0) *kept.add_node() = std::move(n);
  }
  graph->mutable_node()->Swap(kept.mutable_node());
}

std::string UniqueName(const GraphView& view, const std::string& base,
                       std::set<std::string>* taken) {
  std::string name = base;
  for (int i = 1; view.Find(name) >= 0 || taken->count(name) > 0; ++i) {
    name = StrCat(base, "_", i);
  }
  taken->insert(name);
  return name;
}

}  // namespace internal
}  // namespace opkit
