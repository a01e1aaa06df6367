// The C++ gradient registry as Python's opkit.gradients and GradientTape
// use it (python/opkit/gradient_registry.py):
//
//   _opkit._gradient_kind("MatMul")      # "function", "none" or "missing"
//   g = _opkit._gradient_graph("MatMul", {"transpose_a": False},
//                              [1, 1], {})
//   g["nodes"]   # [{"name", "op", "inputs": [ref...], "attrs": {...}}]
//   g["grads"]   # one ref (or None) per flat input of the forward op
//
// The forward node is built on stand-ins: a Placeholder per input (a Const
// where `consts` gives the input's value, for GradientOp::ConstantInput) and
// a Placeholder per output gradient. The registered GradFunc then adds the
// gradient's nodes through a GraphBuilder, and each new node is returned
// with its inputs as refs that Python maps to its own values:
//   ("input", i)       flat input i of the forward op
//   ("output", k)      output k of the forward op
//   ("grad", k)        the gradient of output k
//   ("node", j, k)     output k of returned node j
// The result depends only on the arguments, so Python caches it per
// (op, attrs, dtypes, constant inputs).
#include "common.h"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "bindings.h"
#include "gradients.h"
#include "opkit/core/errors.h"
#include "opkit/core/str_util.h"
#include "opkit/gradients/gradient_registry.h"
#include "opkit/gradients/graph_builder.h"
#include "opkit/op/node_def_util.h"
#include "opkit/op/op_registry.h"

namespace py = pybind11;

namespace opkit {
namespace internal {
namespace {

std::string GradientKind(const std::string& op) {
  const GradientRegistry* registry = GradientRegistry::Global();
  if (!registry->Has(op)) return "missing";
  GradFunc fn;
  if (!registry->Lookup(op, &fn).ok()) return "missing";
  return fn ? "function" : "none";
}

const OpDef::AttrDef* FindAttr(const OpDef& op_def, const std::string& name) {
  for (const auto& a : op_def.attr()) {
    if (a.name() == name) return &a;
  }
  return nullptr;
}

py::dict AttrsToPy(const OpDef& op_def, const NodeDef& node) {
  py::dict out;
  for (const auto& a : op_def.attr()) {
    auto it = node.attr().find(a.name());
    if (it == node.attr().end()) continue;
    out[py::str(a.name())] = AttrToPy(it->second, a.type());
  }
  return out;
}

DataType DataTypeFromPy(py::handle h) {
  const int v = py::cast<int>(h);
  if (!DataType_IsValid(v) || v == DT_INVALID) {
    ThrowIfError(errors::InvalidArgument("not a DataType number: ", v));
  }
  return static_cast<DataType>(v);
}

// A gradient ref as Python's tuple (see the file comment).
py::object RefToPy(const GradientRef& ref) {
  switch (ref.kind) {
    case GradientRef::kInput:
      return py::make_tuple("input", ref.index);
    case GradientRef::kOutput:
      return py::make_tuple("output", ref.index);
    case GradientRef::kGrad:
      return py::make_tuple("grad", ref.index);
    case GradientRef::kNode:
      return py::make_tuple("node", ref.index, ref.output);
    case GradientRef::kNone:
      break;
  }
  return py::none();
}

// See the file comment. `inputs` has one entry per input arg of the op: a
// DataType number, or a list of them for a list input; `consts` maps flat
// input indices to numpy values.
py::object GradientGraph(const std::string& op, const py::dict& attrs,
                         const py::list& inputs, const py::dict& consts) {
  const OpRegistrationData* reg = nullptr;
  ThrowIfError(OpRegistry::Global()->LookUp(op, &reg));
  const OpDef& op_def = reg->op_def;
  std::vector<GradientInputArg> args;
  for (py::handle arg : inputs) {
    GradientInputArg a;
    if (py::isinstance<py::list>(arg) || py::isinstance<py::tuple>(arg)) {
      a.is_list = true;
      for (py::handle dt : arg) a.dtypes.push_back(DataTypeFromPy(dt));
    } else {
      a.dtypes.push_back(DataTypeFromPy(arg));
    }
    args.push_back(std::move(a));
  }
  std::map<int, Tensor> const_values;
  for (const auto& [key, value] : consts) {
    const int flat = py::cast<int>(key);
    PyObject* arr = PyArray_FROM_OF(value.ptr(), NPY_ARRAY_IN_ARRAY);
    if (arr == nullptr) throw py::error_already_set();
    PyRef owner(arr);
    Tensor t;
    const std::string name = StrCat("input_", flat);
    if (!NdarrayToTensorCopy(reinterpret_cast<PyArrayObject*>(arr),
                             name.c_str(), &t)) {
      throw py::error_already_set();
    }
    const_values.emplace(flat, std::move(t));
  }
  EagerAttrs attr_values;
  for (const auto& [key, value] : attrs) {
    const std::string name = py::cast<std::string>(key);
    const OpDef::AttrDef* def = FindAttr(op_def, name);
    if (def == nullptr) {
      ThrowIfError(errors::InvalidArgument("Op ", op, " has no attr '", name, "'"));
    }
    AttrValue v;
    ThrowIfError(PyToAttrValue(value.ptr(), *def, &v));
    attr_values.emplace_back(name, std::move(v));
  }
  GradientNodes g;
  bool defined = false;
  ThrowIfError(BuildGradientNodes(op, attr_values, args, const_values, &g,
                                  &defined));
  if (!defined) return py::none();

  py::list nodes;
  for (size_t j = 0; j < g.nodes.size(); ++j) {
    const NodeDef& n = g.nodes[j];
    const OpRegistrationData* node_reg = nullptr;
    ThrowIfError(OpRegistry::Global()->LookUp(n.op(), &node_reg));
    py::list node_inputs;
    for (const GradientRef& ref : g.node_inputs[j]) node_inputs.append(RefToPy(ref));
    py::dict node;
    node["name"] = n.name();
    node["op"] = n.op();
    node["inputs"] = node_inputs;
    node["attrs"] = AttrsToPy(node_reg->op_def, n);
    nodes.append(node);
  }
  py::list grads;
  for (const GradientRef& ref : g.grads) grads.append(RefToPy(ref));
  py::dict result;
  result["nodes"] = nodes;
  result["grads"] = grads;
  result["forward_attrs"] = AttrsToPy(op_def, g.forward);
  py::list out_types;
  for (DataType dt : g.output_types) out_types.append(static_cast<int>(dt));
  result["output_types"] = out_types;
  return result;
}

}  // namespace

Status BuildGradientNodes(const std::string& op, const EagerAttrs& attrs,
                          const std::vector<GradientInputArg>& args,
                          const std::map<int, Tensor>& consts,
                          GradientNodes* out, bool* defined) {
  *out = GradientNodes();
  *defined = false;
  const OpRegistrationData* reg = nullptr;
  OPKIT_RETURN_IF_ERROR(OpRegistry::Global()->LookUp(op, &reg));
  const OpDef& op_def = reg->op_def;
  GradFunc fn;
  OPKIT_RETURN_IF_ERROR(GradientRegistry::Global()->Lookup(op, &fn));
  if (!fn) return Status();
  if (static_cast<int>(args.size()) != op_def.input_arg_size()) {
    return errors::InvalidArgument(op, " takes ", op_def.input_arg_size(),
                                   " input args, given ", args.size());
  }

  GraphDef graph;
  std::map<std::string, GradientRef> refs;  // tensor name -> where it is from
  auto add_ref = [&refs](const std::string& node, GradientRef ref) {
    refs[node] = ref;
    refs[StrCat(node, ":0")] = ref;
  };
  std::vector<Input> forward_inputs;
  int flat = 0;
  auto add_input = [&](DataType dt) {
    const std::string name = StrCat("input_", flat);
    NodeDef* n = graph.add_node();
    n->set_name(name);
    (*n->mutable_attr())["dtype"] = Attr(dt);
    auto c = consts.find(flat);
    if (c != consts.end() && c->second.dtype() == dt) {
      n->set_op("Const");
      c->second.AsProtoTensorContent((*n->mutable_attr())["value"].mutable_tensor());
    } else {
      n->set_op("Placeholder");
    }
    add_ref(name, GradientRef{GradientRef::kInput, flat, 0});
    ++flat;
    return Output{name, 0, dt};
  };
  for (const GradientInputArg& arg : args) {
    if (arg.is_list) {
      std::vector<Output> list;
      for (DataType dt : arg.dtypes) list.push_back(add_input(dt));
      forward_inputs.emplace_back(std::move(list));
    } else {
      if (arg.dtypes.size() != 1) {
        return errors::InvalidArgument(op, ": a single input needs one dtype");
      }
      forward_inputs.emplace_back(add_input(arg.dtypes[0]));
    }
  }
  GraphBuilder forward_builder(&graph, OpRegistry::Global(), "forward");
  std::vector<Output> outputs = forward_builder.AddN(
      op, std::move(forward_inputs),
      std::vector<std::pair<std::string, AttrValue>>(attrs.begin(), attrs.end()));
  OPKIT_RETURN_IF_ERROR(forward_builder.status());
  const int forward_index = graph.node_size() - 1;
  std::vector<Output> dy;
  for (size_t k = 0; k < outputs.size(); ++k) {
    const GradientRef out_ref{GradientRef::kOutput, static_cast<int>(k), 0};
    refs[outputs[k].name()] = out_ref;
    if (k == 0) refs[outputs[k].node + ":0"] = out_ref;
    const std::string name = StrCat("output_grad_", k);
    NodeDef* n = graph.add_node();
    n->set_name(name);
    n->set_op("Placeholder");
    (*n->mutable_attr())["dtype"] = Attr(outputs[k].dtype);
    add_ref(name, GradientRef{GradientRef::kGrad, static_cast<int>(k), 0});
    dy.push_back(Output{name, 0, outputs[k].dtype});
  }

  GradientOp gop;
  gop.node = &graph.node(forward_index);
  gop.graph = &graph;
  for (int i = 0; i < flat; ++i) {
    const NodeDef& n = graph.node(i);
    gop.inputs.push_back(Output{n.name(), 0, n.attr().at("dtype").type()});
  }
  gop.outputs = outputs;
  const int first_new = graph.node_size();
  GraphBuilder builder(&graph, OpRegistry::Global(), "grad");
  std::vector<Output> dx;
  Status s = fn(builder, gop, dy, &dx);
  if (s.ok()) s = builder.status();
  if (!s.ok()) return Status(s.code(), StrCat("gradient of ", op, ": ", s.message()));
  if (static_cast<int>(dx.size()) != flat) {
    return errors::Internal("the gradient function of ", op, " returned ",
                            dx.size(), " gradients for ", flat, " inputs");
  }

  for (int j = first_new; j < graph.node_size(); ++j) {
    const NodeDef& n = graph.node(j);
    const int index = j - first_new;
    const OpRegistrationData* node_reg = nullptr;
    OPKIT_RETURN_IF_ERROR(OpRegistry::Global()->LookUp(n.op(), &node_reg));
    DataTypeVector out_types;
    OPKIT_RETURN_IF_ERROR(OutputTypesForNode(n, node_reg->op_def, &out_types));
    for (size_t k = 0; k < out_types.size(); ++k) {
      const GradientRef ref{GradientRef::kNode, index, static_cast<int>(k)};
      refs[StrCat(n.name(), ":", k)] = ref;
      if (k == 0) refs[n.name()] = ref;
    }
    std::vector<GradientRef> node_inputs;
    for (const std::string& in : n.input()) {
      if (!in.empty() && in[0] == '^') continue;  // nodes run in order
      auto it = refs.find(in);
      if (it == refs.end()) {
        return errors::Internal("gradient of ", op, ": node ", n.name(),
                                " reads '", in, "', which is not known");
      }
      node_inputs.push_back(it->second);
    }
    out->nodes.push_back(n);
    out->node_inputs.push_back(std::move(node_inputs));
    out->node_output_types.push_back(std::move(out_types));
  }
  for (const Output& g : dx) {
    if (!g.valid()) {
      out->grads.push_back(GradientRef());
      continue;
    }
    auto it = refs.find(g.name());
    if (it == refs.end()) it = refs.find(StrCat(g.node, ":", g.index));
    if (it == refs.end()) {
      return errors::Internal("gradient of ", op, ": result '", g.name(),
                              "' is not a known tensor");
    }
    out->grads.push_back(it->second);
  }
  out->forward = graph.node(forward_index);
  for (const Output& o : outputs) out->output_types.push_back(o.dtype);
  *defined = true;
  return Status();
}

void BindGradients(py::module_& m) {
  m.def("_gradient_kind", &GradientKind, py::arg("op"));
  m.def("_gradient_graph", &GradientGraph, py::arg("op"), py::arg("attrs"),
        py::arg("inputs"), py::arg("consts"));
}

}  // namespace internal
}  // namespace opkit
