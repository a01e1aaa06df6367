// AddSymbolicGradients: reverse accumulation over the part of the graph
// between the xs and the ys.
#include "opkit/gradients/symbolic_gradients.h"

#include <deque>
#include <map>
#include <unordered_map>
#include <utility>

#include "opkit/core/errors.h"
#include "opkit/core/str_util.h"
#include "opkit/gradients/gradient_registry.h"
#include "opkit/gradients/graph_builder.h"
#include "opkit/op/node_def_util.h"
#include "opkit/op_def.pb.h"

namespace opkit {
namespace {

bool IsDifferentiable(DataType dt) {
  switch (dt) {
    case DT_FLOAT: case DT_DOUBLE: case DT_HALF: case DT_BFLOAT16:
    case DT_COMPLEX64: case DT_COMPLEX128:
      return true;
    default:
      return false;
  }
}

struct Edge {
  int node;
  int index;
};

// The graph as the algorithm sees it: nodes with defaults applied, their
// data inputs resolved to node indices, their output dtypes.
class GraphView {
 public:
  Status Init(const GraphDef& graph, const OpRegistryInterface& registry) {
    nodes_.reserve(graph.node_size());
    for (int i = 0; i < graph.node_size(); ++i) {
      const NodeDef& n = graph.node(i);
      if (!index_.emplace(n.name(), i).second) {
        return errors::InvalidArgument("the graph has two nodes named '", n.name(), "'");
      }
      nodes_.push_back(n);
    }
    inputs_.resize(nodes_.size());
    out_types_.resize(nodes_.size());
    consumers_.resize(nodes_.size());
    for (int i = 0; i < static_cast<int>(nodes_.size()); ++i) {
      NodeDef& n = nodes_[i];
      const OpDef* op_def = nullptr;
      OPKIT_RETURN_IF_ERROR(registry.LookUpOpDef(n.op(), &op_def));
      AddDefaultsToNodeDef(*op_def, &n);
      // Gradient functions index the inputs the OpDef promises: a node
      // with the wrong inputs or attrs is refused here, not indexed past.
      Status s = ValidateNodeDef(n, *op_def);
      if (s.ok()) s = OutputTypesForNode(n, *op_def, &out_types_[i]);
      if (!s.ok()) {
        return errors::InvalidArgument("node ", n.name(), " (", n.op(), "): ", s.message());
      }
      for (const std::string& in : n.input()) {
        const TensorId id = ParseTensorName(in);
        if (id.index() == kControlSlot) continue;
        auto it = index_.find(std::string(id.node()));
        if (it == index_.end()) {
          return errors::InvalidArgument("node ", n.name(), " has input '", in,
                                         "' but the graph has no node '", id.node(), "'");
        }
        inputs_[i].push_back(Edge{it->second, id.index()});
        consumers_[it->second].push_back(i);
      }
    }
    for (int i = 0; i < static_cast<int>(nodes_.size()); ++i) {
      for (const Edge& e : inputs_[i]) {
        if (e.index < 0 || e.index >= static_cast<int>(out_types_[e.node].size())) {
          return errors::InvalidArgument("node ", nodes_[i].name(), " reads output ", e.index,
                                         " of ", nodes_[e.node].name(), ", which has ",
                                         out_types_[e.node].size(), " outputs");
        }
      }
    }
    return OkStatus();
  }

  Status Resolve(const std::string& name, const char* what, Edge* out) const {
    const TensorId id = ParseTensorName(name);
    auto it = index_.find(std::string(id.node()));
    if (id.index() == kControlSlot || it == index_.end()) {
      return errors::InvalidArgument(what, " '", name, "' is not a tensor of the graph");
    }
    if (id.index() >= static_cast<int>(out_types_[it->second].size())) {
      return errors::InvalidArgument(what, " '", name, "': node ", id.node(), " has ",
                                     out_types_[it->second].size(), " outputs");
    }
    *out = Edge{it->second, id.index()};
    return OkStatus();
  }

  Output At(const Edge& e) const {
    return Output{nodes_[e.node].name(), e.index, out_types_[e.node][e.index]};
  }

  int size() const { return static_cast<int>(nodes_.size()); }
  const NodeDef& node(int i) const { return nodes_[i]; }
  const std::vector<Edge>& inputs(int i) const { return inputs_[i]; }
  const std::vector<int>& consumers(int i) const { return consumers_[i]; }
  int num_outputs(int i) const { return static_cast<int>(out_types_[i].size()); }

 private:
  std::vector<NodeDef> nodes_;
  std::unordered_map<std::string, int> index_;
  std::vector<std::vector<Edge>> inputs_;
  std::vector<DataTypeVector> out_types_;
  std::vector<std::vector<int>> consumers_;
};

}  // namespace

Status AddSymbolicGradients(GraphDef* graph, const std::vector<std::string>& ys,
                            const std::vector<std::string>& xs,
                            const std::vector<std::string>& grad_ys,
                            std::vector<std::string>* grad_xs,
                            const SymbolicGradientOptions& options) {
  grad_xs->clear();
  const OpRegistryInterface& op_registry =
      options.op_registry != nullptr ? *options.op_registry : *OpRegistry::Global();
  const GradientRegistry& registry =
      options.registry != nullptr ? *options.registry : *GradientRegistry::Global();
  if (!grad_ys.empty() && grad_ys.size() != ys.size()) {
    return errors::InvalidArgument("grad_ys has ", grad_ys.size(), " tensors but ys has ",
                                   ys.size(), "; give one gradient per y, or none");
  }
  GraphView view;
  OPKIT_RETURN_IF_ERROR(view.Init(*graph, op_registry));
  std::vector<Edge> y_edges(ys.size()), x_edges(xs.size()), gy_edges(grad_ys.size());
  for (size_t i = 0; i < ys.size(); ++i) OPKIT_RETURN_IF_ERROR(view.Resolve(ys[i], "y", &y_edges[i]));
  for (size_t i = 0; i < xs.size(); ++i) OPKIT_RETURN_IF_ERROR(view.Resolve(xs[i], "x", &x_edges[i]));
  for (size_t i = 0; i < grad_ys.size(); ++i) {
    OPKIT_RETURN_IF_ERROR(view.Resolve(grad_ys[i], "grad_y", &gy_edges[i]));
  }

  // The nodes on some path from an x to a y.
  const int n = view.size();
  std::vector<char> from_x(n, 0), to_y(n, 0);
  std::deque<int> work;
  for (const Edge& e : x_edges) {
    if (!from_x[e.node]) work.push_back(e.node);
    from_x[e.node] = 1;
  }
  while (!work.empty()) {
    const int i = work.front();
    work.pop_front();
    for (int c : view.consumers(i)) {
      if (!from_x[c]) {
        from_x[c] = 1;
        work.push_back(c);
      }
    }
  }
  for (const Edge& e : y_edges) {
    if (!to_y[e.node]) work.push_back(e.node);
    to_y[e.node] = 1;
  }
  while (!work.empty()) {
    const int i = work.front();
    work.pop_front();
    for (const Edge& e : view.inputs(i)) {
      if (!to_y[e.node]) {
        to_y[e.node] = 1;
        work.push_back(e.node);
      }
    }
  }
  std::vector<char> between(n, 0);
  std::vector<int> pending(n, 0);
  for (int i = 0; i < n; ++i) {
    between[i] = from_x[i] && to_y[i];
    if (between[i] && view.node(i).op() == "NextIteration") {
      return errors::Unimplemented("gradients through a while loop are not supported: node ",
                                   view.node(i).name(), " (NextIteration) is on a path from ",
                                   "an x to a y");
    }
  }
  for (int i = 0; i < n; ++i) {
    if (!between[i]) continue;
    for (const Edge& e : view.inputs(i)) {
      if (between[e.node]) ++pending[e.node];
    }
  }

  GraphDef out = *graph;
  GraphBuilder root(&out, &op_registry, options.name_prefix);
  std::map<std::pair<int, int>, std::vector<Output>> grads;
  for (size_t i = 0; i < ys.size(); ++i) {
    const Edge& y = y_edges[i];
    if (!between[y.node]) continue;
    const Output seed = grad_ys.empty() ? root.Add("OnesLike", {view.At(y)})
                                        : view.At(gy_edges[i]);
    grads[{y.node, y.index}].push_back(seed);
  }
  OPKIT_RETURN_IF_ERROR(root.status());

  // The summed gradient of each output, once all its terms are in.
  std::map<std::pair<int, int>, Output> summed;
  for (int i = 0; i < n; ++i) {
    if (between[i] && pending[i] == 0) work.push_back(i);
  }
  int processed = 0;
  while (!work.empty()) {
    const int i = work.front();
    work.pop_front();
    ++processed;
    const NodeDef& node = view.node(i);
    GraphBuilder b = root.WithPrefix(StrCat(node.name(), "_grad"));
    std::vector<Output> dy(view.num_outputs(i));
    bool any = false;
    for (int k = 0; k < view.num_outputs(i); ++k) {
      auto it = grads.find({i, k});
      if (it == grads.end()) continue;
      dy[k] = b.Sum(it->second);
      summed[{i, k}] = dy[k];
      any = true;
    }
    bool feeds_between = false;
    for (const Edge& e : view.inputs(i)) feeds_between |= between[e.node] != 0;
    if (any && feeds_between) {
      GradFunc fn = nullptr;
      Status s = registry.Lookup(node.op(), &fn);
      if (!s.ok()) {
        return errors::NotFound(s.message(), " (needed for node ", node.name(),
                                " on the path from the xs to the ys)");
      }
      if (fn != nullptr) {
        GradientOp op;
        op.node = &node;
        op.graph = graph;
        for (const Edge& e : view.inputs(i)) op.inputs.push_back(view.At(e));
        for (int k = 0; k < view.num_outputs(i); ++k) {
          op.outputs.push_back(view.At(Edge{i, k}));
          if (!dy[k].valid()) dy[k] = b.Add("ZerosLike", {op.outputs[k]});
        }
        std::vector<Output> dx;
        s = b.status();
        if (s.ok()) s = fn(b, op, dy, &dx);
        if (s.ok()) s = b.status();
        if (!s.ok()) {
          return Status(s.code(), StrCat("gradient of node ", node.name(), " (", node.op(),
                                         "): ", s.message()));
        }
        if (dx.size() != op.inputs.size()) {
          return errors::Internal("the gradient function of ", node.op(), " returned ",
                                  dx.size(), " gradients for node ", node.name(),
                                  ", which has ", op.inputs.size(), " inputs");
        }
        for (size_t j = 0; j < dx.size(); ++j) {
          const Edge& e = view.inputs(i)[j];
          if (!dx[j].valid() || !between[e.node]) continue;
          if (!IsDifferentiable(op.inputs[j].dtype)) continue;
          grads[{e.node, e.index}].push_back(dx[j]);
        }
      }
    }
    for (const Edge& e : view.inputs(i)) {
      if (between[e.node] && --pending[e.node] == 0) work.push_back(e.node);
    }
  }
  int in_between = 0;
  for (int i = 0; i < n; ++i) in_between += between[i];
  if (processed != in_between) {
    return errors::Unimplemented(
        "gradients through a cycle are not supported: ", in_between - processed,
        " nodes between the xs and the ys wait on each other");
  }

  for (size_t i = 0; i < xs.size(); ++i) {
    auto it = summed.find({x_edges[i].node, x_edges[i].index});
    if (it != summed.end()) {
      grad_xs->push_back(it->second.name());
    } else if (options.unconnected_zero) {
      grad_xs->push_back(root.Add("ZerosLike", {view.At(x_edges[i])}).name());
    } else {
      grad_xs->push_back("");
    }
  }
  if (!root.status().ok()) {
    grad_xs->clear();
    return root.status();
  }
  *graph = std::move(out);
  return OkStatus();
}

}  // namespace opkit
