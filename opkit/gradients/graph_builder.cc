// GraphBuilder: unique names, inferred type and number attrs, validation.
#include "opkit/gradients/graph_builder.h"

#include <memory>

#include "opkit/core/errors.h"
#include "opkit/core/str_util.h"
#include "opkit/op/node_def_util.h"
#include "opkit/op_def.pb.h"

namespace opkit {

std::string Output::name() const {
  return index == 0 ? node : StrCat(node, ":", index);
}

GraphBuilder::GraphBuilder(GraphDef* graph, const OpRegistryInterface* registry,
                           std::string prefix)
    : GraphBuilder(graph, registry, std::move(prefix), std::make_shared<Shared>()) {
  for (const NodeDef& n : graph->node()) shared_->names.insert(n.name());
}

GraphBuilder::GraphBuilder(GraphDef* graph, const OpRegistryInterface* registry,
                           std::string prefix, std::shared_ptr<Shared> shared)
    : graph_(graph),
      registry_(registry),
      prefix_(std::move(prefix)),
      shared_(std::move(shared)),
      status_(std::make_shared<Status>()) {}

GraphBuilder GraphBuilder::WithPrefix(std::string_view sub) const {
  return GraphBuilder(graph_, registry_,
                      prefix_.empty() ? std::string(sub) : StrCat(prefix_, "/", sub),
                      shared_);
}

void GraphBuilder::Fail(Status s) {
  if (status_->ok() && !s.ok()) *status_ = std::move(s);
}

std::string GraphBuilder::UniqueName(std::string_view op) {
  const std::string base = prefix_.empty() ? std::string(op) : StrCat(prefix_, "/", op);
  std::string name = base;
  for (int i = 1; shared_->names.count(name) > 0; ++i) name = StrCat(base, "_", i);
  shared_->names.insert(name);
  return name;
}

namespace {

// Sets the attrs of `arg` that `given` (its input tensors) determine, unless
// the caller set them.
Status InferArgAttrs(const OpDef::ArgDef& arg, const Input& given, NodeDef* node) {
  auto& attrs = *node->mutable_attr();
  const bool list_arg = !arg.number_attr().empty() || !arg.type_list_attr().empty();
  if (list_arg != given.is_list) {
    return errors::InvalidArgument(
        "input '", arg.name(), "' of ", node->op(), " takes ",
        list_arg ? "a list of tensors" : "one tensor", " but was given ",
        given.is_list ? "a list" : "one tensor");
  }
  for (const Output& t : given.tensors) {
    if (!t.valid()) {
      return errors::InvalidArgument("input '", arg.name(), "' of ", node->op(),
                                     " was given no tensor (an undefined gradient?)");
    }
  }
  if (!arg.number_attr().empty() && attrs.count(arg.number_attr()) == 0) {
    attrs[arg.number_attr()] = Attr(static_cast<int64_t>(given.tensors.size()));
  }
  if (!arg.type_attr().empty() && attrs.count(arg.type_attr()) == 0 &&
      !given.tensors.empty()) {
    attrs[arg.type_attr()] = Attr(given.tensors[0].dtype);
  }
  if (!arg.type_list_attr().empty() && attrs.count(arg.type_list_attr()) == 0) {
    std::vector<DataType> types;
    for (const Output& t : given.tensors) types.push_back(t.dtype);
    attrs[arg.type_list_attr()] = Attr(types);
  }
  return OkStatus();
}

}  // namespace

std::vector<Output> GraphBuilder::AddN(std::string_view op, std::vector<Input> inputs,
                                       std::vector<std::pair<std::string, AttrValue>> attrs) {
  std::string name;
  std::vector<Output> outputs;
  AddNode(op, std::move(inputs), std::move(attrs), &name, &outputs);
  return outputs;
}

std::string GraphBuilder::AddTarget(std::string_view op, std::vector<Input> inputs,
                                    std::vector<std::pair<std::string, AttrValue>> attrs) {
  std::string name;
  std::vector<Output> outputs;
  return AddNode(op, std::move(inputs), std::move(attrs), &name, &outputs) ? name
                                                                           : std::string();
}

bool GraphBuilder::AddNode(std::string_view op, std::vector<Input> inputs,
                           std::vector<std::pair<std::string, AttrValue>> attrs,
                           std::string* name, std::vector<Output>* outputs_out) {
  if (!status_->ok()) return false;
  const OpDef* op_def = nullptr;
  Status s = registry_->LookUpOpDef(std::string(op), &op_def);
  if (!s.ok()) {
    Fail(s);
    return false;
  }
  if (static_cast<int>(inputs.size()) != op_def->input_arg_size()) {
    Fail(errors::InvalidArgument("cannot add ", op, " under '", prefix_, "': it takes ",
                                 op_def->input_arg_size(), " inputs, given ", inputs.size()));
    return false;
  }
  NodeDef node;
  node.set_name(UniqueName(op));
  node.set_op(std::string(op));
  for (auto& [name, value] : attrs) (*node.mutable_attr())[name] = std::move(value);
  for (int i = 0; i < op_def->input_arg_size(); ++i) {
    s = InferArgAttrs(op_def->input_arg(i), inputs[i], &node);
    if (!s.ok()) {
      Fail(errors::InvalidArgument("cannot add ", node.name(), ": ", s.message()));
      return false;
    }
    for (const Output& t : inputs[i].tensors) node.add_input(t.name());
  }
  AddDefaultsToNodeDef(*op_def, &node);
  s = ValidateNodeDef(node, *op_def);
  DataTypeVector out_types;
  if (s.ok()) s = OutputTypesForNode(node, *op_def, &out_types);
  if (!s.ok()) {
    Fail(errors::InvalidArgument("cannot add ", node.name(), ": ", s.message()));
    return false;
  }
  std::vector<Output> outputs;
  for (size_t k = 0; k < out_types.size(); ++k) {
    outputs.push_back(Output{node.name(), static_cast<int>(k), out_types[k]});
  }
  *name = node.name();
  *outputs_out = std::move(outputs);
  *graph_->add_node() = std::move(node);
  return true;
}

Output GraphBuilder::Add(std::string_view op, std::vector<Input> inputs,
                         std::vector<std::pair<std::string, AttrValue>> attrs) {
  std::vector<Output> outs = AddN(op, std::move(inputs), std::move(attrs));
  if (outs.empty()) {
    if (status_->ok()) Fail(errors::InvalidArgument(op, " has no outputs"));
    return Output();
  }
  return outs[0];
}

Output GraphBuilder::Const(const Tensor& value) {
  return Add("Const", {}, {{"value", Attr(value)}, {"dtype", Attr(value.dtype())}});
}

Output GraphBuilder::ConstInt(const std::vector<int32_t>& values) {
  Tensor t(DT_INT32, TensorShape({static_cast<int64_t>(values.size())}));
  for (size_t i = 0; i < values.size(); ++i) t.flat<int32_t>()(i) = values[i];
  return Const(t);
}

Output GraphBuilder::ScalarInt(int32_t value) {
  Tensor t(DT_INT32, TensorShape({}));
  t.scalar<int32_t>()() = value;
  return Const(t);
}

Output GraphBuilder::Scalar(DataType dtype, double value) {
  Tensor t(DT_DOUBLE, TensorShape({}));
  t.scalar<double>()() = value;
  Output d = Const(t);
  if (dtype == DT_DOUBLE) return d;
  return Add("Cast", {d}, {{"DstT", Attr(dtype)}});
}

Output GraphBuilder::Sum(const std::vector<Output>& terms) {
  if (terms.size() == 1) return terms[0];
  if (terms.empty()) {
    Fail(errors::Internal("GraphBuilder::Sum of no terms"));
    return Output();
  }
  return Add("AddN", {Input(terms)});
}

Status GraphBuilder::OutputType(const GraphDef& graph, const OpRegistryInterface& registry,
                                std::string_view tensor_name, DataType* dtype) {
  *dtype = DT_INVALID;
  const TensorId id = ParseTensorName(tensor_name);
  for (const NodeDef& node : graph.node()) {
    if (node.name() != id.first) continue;
    const OpDef* op_def = nullptr;
    OPKIT_RETURN_IF_ERROR(registry.LookUpOpDef(node.op(), &op_def));
    NodeDef with_defaults = node;
    AddDefaultsToNodeDef(*op_def, &with_defaults);
    DataTypeVector types;
    OPKIT_RETURN_IF_ERROR(OutputTypesForNode(with_defaults, *op_def, &types));
    if (id.second < 0 || id.second >= static_cast<int>(types.size())) {
      return errors::InvalidArgument("tensor '", tensor_name, "': node ", node.name(),
                                     " (", node.op(), ") has ", types.size(), " outputs");
    }
    *dtype = types[id.second];
    return OkStatus();
  }
  return errors::NotFound("tensor '", tensor_name, "': the graph has no node '",
                          id.first, "'");
}

}  // namespace opkit
