// ShapeRefiner: every node's shape function run over a GraphDef in topological
// order, with constants, feeds and while loops.
#include "opkit/graph/shape_refiner.h"

#include <deque>
#include <limits>
#include <set>

#include "opkit/core/errors.h"
#include "opkit/core/str_util.h"
#include "opkit/op/node_def_util.h"
#include "opkit/tensor/types.h"

namespace opkit {

using shape_inference::InferenceContext;
using shape_inference::ShapeAndType;
using shape_inference::ShapeHandle;

struct ShapeRefiner::NodeInfo {
  NodeDef node_def;
  OpDef op_def;
  OpShapeInferenceFn shape_fn;
  // Data inputs in order: producer name and output index.
  std::vector<std::pair<std::string, int>> data_inputs;
  // Every producer (data and control), one entry per edge.
  std::vector<std::string> all_inputs;
  std::unique_ptr<InferenceContext> context;
  // Output shapes after feeds; filled once the node has been inferred.
  std::vector<PartialTensorShape> outputs;
  // Known values of outputs by index; map nodes are stable, so consumers
  // may hold pointers to the tensors.
  std::map<int, Tensor> constants;
  // Outputs that hold a shape whose rank (at least) is known.
  std::map<int, ShapeHandle> shapes_as_tensors;
};

namespace {

// Splits "n:k" / "n" into a node name and an output index.
Status ParseFeedName(const std::string& name, std::string* node, int* index) {
  TensorId id = ParseTensorName(name);
  if (id.index() < 0 || id.node().empty()) {
    return errors::InvalidArgument("Feed '", name,
                                   "' is not a tensor name; use 'node' or 'node:index'");
  }
  *node = std::string(id.node());
  *index = id.index();
  return Status::OK();
}

}  // namespace

ShapeRefiner::ShapeRefiner(int graph_def_version, const OpRegistryInterface* ops)
    : graph_def_version_(graph_def_version), ops_(ops != nullptr ? ops : OpRegistry::Global()) {}

ShapeRefiner::~ShapeRefiner() = default;

ShapeRefiner::NodeInfo* ShapeRefiner::Find(std::string_view node_name) const {
  auto it = nodes_.find(node_name);
  return it == nodes_.end() ? nullptr : it->second.get();
}

Status ShapeRefiner::InferShapes(const GraphDef& graph,
                                 const std::map<std::string, PartialTensorShape>& feeds) {
  nodes_.clear();

  // Index the nodes and parse their inputs.
  std::vector<NodeInfo*> order_in_graph;
  for (const NodeDef& node : graph.node()) {
    if (node.name().empty()) {
      return errors::InvalidArgument("GraphDef has a node without a name (op '", node.op(),
                                     "'); every node needs a unique name");
    }
    auto info = std::make_unique<NodeInfo>();
    info->node_def = node;
    bool seen_control = false;
    for (int i = 0; i < node.input_size(); ++i) {
      const std::string& input = node.input(i);
      TensorId id = ParseTensorName(input);
      if (id.node().empty()) {
        return AttachDef(errors::InvalidArgument("Node '", node.name(), "' has an empty input ",
                                                 i, " ('", input, "')"),
                         node);
      }
      info->all_inputs.emplace_back(id.node());
      if (id.index() == kControlSlot) {
        seen_control = true;
        continue;
      }
      if (seen_control) {
        return AttachDef(errors::InvalidArgument("Node '", node.name(), "': data input '", input,
                                                 "' follows a control input; all control "
                                                 "inputs must follow all data inputs"),
                         node);
      }
      info->data_inputs.emplace_back(std::string(id.node()), id.index());
    }
    NodeInfo* raw = info.get();
    if (!nodes_.emplace(node.name(), std::move(info)).second) {
      nodes_.clear();
      return errors::InvalidArgument("Node '", node.name(),
                                     "' appears more than once in the GraphDef; node names "
                                     "must be unique");
    }
    order_in_graph.push_back(raw);
  }

  // Every input must name a node of the graph.
  for (NodeInfo* info : order_in_graph) {
    for (size_t i = 0; i < info->all_inputs.size(); ++i) {
      if (Find(info->all_inputs[i]) == nullptr) {
        Status s = errors::InvalidArgument(
            "Node '", info->node_def.name(), "' has input '", info->node_def.input(i),
            "' from node '", info->all_inputs[i], "', which is not in the graph");
        const NodeDef node = info->node_def;
        nodes_.clear();
        return AttachDef(s, node);
      }
    }
  }

  // Feeds must name nodes of the graph.
  for (const auto& feed : feeds) {
    std::string node;
    int index = 0;
    OPKIT_RETURN_IF_ERROR(ParseFeedName(feed.first, &node, &index));
    if (Find(node) == nullptr) {
      return errors::InvalidArgument("Feed '", feed.first, "' names node '", node,
                                     "', which is not in the graph");
    }
  }

  // Topological order (Kahn), preferring the GraphDef's order. A loop's
  // back edge (NextIteration -> Merge) is left out: the Merge is inferred
  // before its NextIteration and sees that input as unknown (see InferNode),
  // which is what TensorFlow's refiner does on its first pass.
  std::map<std::string_view, int> pending;
  std::map<std::string_view, std::vector<NodeInfo*>> consumers;
  for (NodeInfo* info : order_in_graph) {
    int count = 0;
    for (const std::string& producer : info->all_inputs) {
      if (IsBackEdge(producer)) continue;
      ++count;
      consumers[producer].push_back(info);
    }
    pending[info->node_def.name()] = count;
  }
  std::deque<NodeInfo*> ready;
  for (NodeInfo* info : order_in_graph) {
    if (pending[info->node_def.name()] == 0) ready.push_back(info);
  }
  size_t processed = 0;
  while (!ready.empty()) {
    NodeInfo* info = ready.front();
    ready.pop_front();
    ++processed;
    OPKIT_RETURN_IF_ERROR(InferNode(info, feeds));
    auto it = consumers.find(info->node_def.name());
    if (it == consumers.end()) continue;
    for (NodeInfo* consumer : it->second) {
      if (--pending[consumer->node_def.name()] == 0) ready.push_back(consumer);
    }
  }

  if (processed != order_in_graph.size()) {
    // Walk back from a node that never became ready along inputs that never
    // became ready either; the first node seen twice is on a cycle.
    NodeInfo* start = nullptr;
    for (NodeInfo* info : order_in_graph) {
      if (pending[info->node_def.name()] > 0) {
        start = info;
        break;
      }
    }
    std::set<std::string_view> seen;
    NodeInfo* current = start;
    while (current != nullptr && seen.insert(current->node_def.name()).second) {
      NodeInfo* next = nullptr;
      for (const std::string& producer : current->all_inputs) {
        NodeInfo* p = Find(producer);
        if (p != nullptr && pending[p->node_def.name()] > 0) {
          next = p;
          break;
        }
      }
      current = next;
    }
    NodeInfo* on_cycle = current != nullptr ? current : start;
    return AttachDef(
        errors::InvalidArgument("Graph has a cycle through node '", on_cycle->node_def.name(),
                                "'; shapes can only be inferred for acyclic graphs (",
                                order_in_graph.size() - processed,
                                " nodes are on or after a cycle)"),
        on_cycle->node_def);
  }
  return Status::OK();
}

bool ShapeRefiner::IsBackEdge(std::string_view producer) const {
  const NodeInfo* p = Find(producer);
  return p != nullptr && p->node_def.op() == "NextIteration";
}

Status ShapeRefiner::InferNode(NodeInfo* info,
                               const std::map<std::string, PartialTensorShape>& feeds) {
  const std::string& name = info->node_def.name();
  const OpRegistrationData* reg = nullptr;
  Status lookup = ops_->LookUp(info->node_def.op(), &reg);
  if (!lookup.ok()) return AttachDef(lookup, info->node_def);
  info->op_def = reg->op_def;
  info->shape_fn = reg->shape_inference_fn;
  AddDefaultsToNodeDef(info->op_def, &info->node_def);

  // Gather what the producers know.
  std::vector<ShapeHandle> input_shapes;
  std::vector<const Tensor*> input_tensors;
  std::vector<ShapeHandle> input_tensors_as_shapes;
  std::vector<std::unique_ptr<std::vector<ShapeAndType>>> handle_data;
  bool any_handle_data = false;
  for (size_t i = 0; i < info->data_inputs.size(); ++i) {
    const auto& [producer_name, index] = info->data_inputs[i];
    NodeInfo* producer = Find(producer_name);
    if (IsBackEdge(producer_name) && producer->context == nullptr) {
      // Filled with an unknown shape once the context exists.
      input_shapes.emplace_back();
      input_tensors.push_back(nullptr);
      input_tensors_as_shapes.emplace_back();
      handle_data.emplace_back();
      continue;
    }
    if (producer == nullptr || producer->context == nullptr) {
      return AttachDef(errors::Internal("Input '", info->node_def.input(i), "' of node '", name,
                                        "' was not inferred before it"),
                       info->node_def);
    }
    InferenceContext* pc = producer->context.get();
    if (index >= pc->num_outputs()) {
      return AttachDef(
          errors::InvalidArgument("Node '", name, "' input ", i, " ('", info->node_def.input(i),
                                  "') refers to output ", index, " of node '", producer_name,
                                  "', which has ", pc->num_outputs(), " outputs"),
          info->node_def);
    }
    input_shapes.push_back(pc->output(index));
    auto c = producer->constants.find(index);
    input_tensors.push_back(c == producer->constants.end() ? nullptr : &c->second);
    auto s = producer->shapes_as_tensors.find(index);
    input_tensors_as_shapes.push_back(s == producer->shapes_as_tensors.end() ? ShapeHandle()
                                                                             : s->second);
    const std::vector<ShapeAndType>* hd = pc->output_handle_shapes_and_types(index);
    if (hd != nullptr) {
      any_handle_data = true;
      handle_data.push_back(std::make_unique<std::vector<ShapeAndType>>(*hd));
    } else {
      handle_data.emplace_back();
    }
  }
  if (!any_handle_data) handle_data.clear();

  info->context = std::make_unique<InferenceContext>(
      graph_def_version_, info->node_def, info->op_def, input_shapes, input_tensors,
      input_tensors_as_shapes, std::move(handle_data));
  InferenceContext* c = info->context.get();
  if (!c->construction_status().ok()) {
    return AttachDef(c->construction_status(), info->node_def);
  }
  for (int i = 0; i < c->num_inputs(); ++i) {
    if (!c->input(i).IsSet()) c->SetInput(i, c->UnknownShape());
  }
  if (info->shape_fn) {
    OPKIT_RETURN_IF_ERROR(c->Run(info->shape_fn));
  }
  for (int k = 0; k < c->num_outputs(); ++k) {
    if (!c->output(k).IsSet()) c->set_output(k, c->UnknownShape());
  }

  // Pin fed outputs.
  for (const auto& feed : feeds) {
    std::string node;
    int index = 0;
    OPKIT_RETURN_IF_ERROR(ParseFeedName(feed.first, &node, &index));
    if (node != name) continue;
    if (index >= c->num_outputs()) {
      return AttachDef(errors::InvalidArgument("Feed '", feed.first, "' names output ", index,
                                               " of node '", name, "', which has ",
                                               c->num_outputs(), " outputs"),
                       info->node_def);
    }
    ShapeHandle fed;
    OPKIT_RETURN_IF_ERROR(c->MakeShapeFromPartialTensorShape(feed.second, &fed));
    ShapeHandle merged;
    Status s = c->Merge(c->output(index), fed, &merged);
    if (!s.ok()) {
      return AttachDef(errors::InvalidArgument("Feed '", feed.first, "' of shape ",
                                               feed.second.DebugString(),
                                               " is incompatible with the inferred shape ",
                                               c->DebugString(c->output(index)), " of node '",
                                               name, "': ", s.message()),
                       info->node_def);
    }
    c->set_output(index, merged);
  }

  info->outputs.clear();
  for (int k = 0; k < c->num_outputs(); ++k) {
    info->outputs.push_back(c->ShapeHandleToPartialTensorShape(c->output(k)));
  }
  RecordConstants(info);
  return Status::OK();
}

void ShapeRefiner::RecordConstants(NodeInfo* info) {
  InferenceContext* c = info->context.get();
  const std::string& op = info->node_def.op();
  if (op == "Const" && c->num_outputs() >= 1) {
    Tensor value;
    if (GetNodeAttr(info->node_def, "value", &value).ok()) {
      info->constants.emplace(0, value);
    }
    return;
  }
  if (op == "Shape" && c->num_inputs() >= 1 && c->num_outputs() >= 1) {
    const ShapeHandle in = c->input(0);
    if (!InferenceContext::RankKnown(in)) return;
    info->shapes_as_tensors.emplace(0, in);
    if (!c->FullyDefined(in)) return;
    DataType out_type = DT_INT32;
    if (!GetNodeAttr(info->node_def, "out_type", &out_type).ok()) out_type = DT_INT32;
    if (out_type != DT_INT32 && out_type != DT_INT64) return;
    const int rank = InferenceContext::Rank(in);
    Tensor t(out_type, TensorShape({rank}));
    for (int i = 0; i < rank; ++i) {
      const int64_t v = InferenceContext::Value(InferenceContext::DimKnownRank(in, i));
      if (out_type == DT_INT32) {
        if (v > std::numeric_limits<int32>::max()) return;  // would not fit: no constant
        t.flat<int32>()(i) = static_cast<int32>(v);
      } else {
        t.flat<int64>()(i) = v;
      }
    }
    info->constants.emplace(0, t);
  }
}

Status ShapeRefiner::OutputShapes(std::string_view node_name,
                                  std::vector<PartialTensorShape>* out) const {
  NodeInfo* info = Find(node_name);
  if (info == nullptr || info->context == nullptr) {
    return errors::NotFound("No shapes inferred for node '", node_name, "'");
  }
  *out = info->outputs;
  return Status::OK();
}

Status ShapeRefiner::OutputShape(std::string_view tensor_name, PartialTensorShape* out) const {
  TensorId id = ParseTensorName(tensor_name);
  if (id.index() < 0) {
    return errors::InvalidArgument("'", tensor_name,
                                   "' is not a tensor name; use 'node' or 'node:index'");
  }
  NodeInfo* info = Find(id.node());
  if (info == nullptr || info->context == nullptr) {
    return errors::NotFound("No shapes inferred for node '", id.node(), "'");
  }
  if (id.index() >= static_cast<int>(info->outputs.size())) {
    return errors::InvalidArgument("Node '", id.node(), "' has ", info->outputs.size(),
                                   " outputs; there is no output ", id.index());
  }
  *out = info->outputs[id.index()];
  return Status::OK();
}

Status ShapeRefiner::OutputShapeProto(std::string_view tensor_name,
                                      TensorShapeProto* out) const {
  PartialTensorShape shape;
  OPKIT_RETURN_IF_ERROR(OutputShape(tensor_name, &shape));
  shape.AsProto(out);
  return Status::OK();
}

InferenceContext* ShapeRefiner::GetContext(std::string_view node_name) const {
  NodeInfo* info = Find(node_name);
  return info == nullptr ? nullptr : info->context.get();
}

const Tensor* ShapeRefiner::ConstantValue(std::string_view tensor_name) const {
  TensorId id = ParseTensorName(tensor_name);
  NodeInfo* info = Find(id.node());
  if (info == nullptr || id.index() < 0) return nullptr;
  auto it = info->constants.find(id.index());
  return it == info->constants.end() ? nullptr : &it->second;
}

}  // namespace opkit
