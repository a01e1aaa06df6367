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

// See the file comment. `inputs` has one entry per input arg of the op: a
// DataType number, or a list of them for a list input; `consts` maps flat
// input indices to numpy values.
py::object GradientGraph(const std::string& op, const py::dict& attrs,
                         const py::list& inputs, const py::dict& consts) {
  const OpRegistrationData* reg = nullptr;
  ThrowIfError(OpRegistry::Global()->LookUp(op, &reg));
  const OpDef& op_def = reg->op_def;
  GradFunc fn;
  ThrowIfError(GradientRegistry::Global()->Lookup(op, &fn));
  if (!fn) return py::none();
  if (static_cast<int>(py::len(inputs)) != op_def.input_arg_size()) {
    ThrowIfError(errors::InvalidArgument(op, " takes ", op_def.input_arg_size(),
                                         " input args, given ", py::len(inputs)));
  }

  GraphDef graph;
  std::map<std::string, py::tuple> refs;  // stand-in node name -> its ref
  std::vector<Input> forward_inputs;
  int flat = 0;
  auto add_input = [&](py::handle dtype) {
    const std::string name = StrCat("input_", flat);
    NodeDef* n = graph.add_node();
    n->set_name(name);
    const DataType dt = DataTypeFromPy(dtype);
    py::object value = consts.contains(py::int_(flat)) ? consts[py::int_(flat)]
                                                       : py::object(py::none());
    if (!value.is_none() && DataTypeToNumpy(dt) >= 0) {
      PyObject* arr = PyArray_FROM_OTF(value.ptr(), DataTypeToNumpy(dt), NPY_ARRAY_IN_ARRAY);
      if (arr == nullptr) throw py::error_already_set();
      PyRef owner(arr);
      Tensor t;
      if (!NdarrayToTensorCopy(reinterpret_cast<PyArrayObject*>(arr), name.c_str(), &t)) {
        throw py::error_already_set();
      }
      n->set_op("Const");
      (*n->mutable_attr())["dtype"] = Attr(dt);
      t.AsProtoTensorContent((*n->mutable_attr())["value"].mutable_tensor());
    } else {
      n->set_op("Placeholder");
      (*n->mutable_attr())["dtype"] = Attr(dt);
    }
    refs[name] = py::make_tuple("input", flat);
    ++flat;
    return Output{name, 0, dt};
  };
  for (py::handle arg : inputs) {
    if (py::isinstance<py::list>(arg) || py::isinstance<py::tuple>(arg)) {
      std::vector<Output> list;
      for (py::handle dt : arg) list.push_back(add_input(dt));
      forward_inputs.emplace_back(std::move(list));
    } else {
      forward_inputs.emplace_back(add_input(arg));
    }
  }
  std::vector<std::pair<std::string, AttrValue>> attr_values;
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
  GraphBuilder forward_builder(&graph, OpRegistry::Global(), "forward");
  std::vector<Output> outputs =
      forward_builder.AddN(op, std::move(forward_inputs), std::move(attr_values));
  ThrowIfError(forward_builder.status());
  const int forward_index = graph.node_size() - 1;
  std::vector<Output> dy;
  for (size_t k = 0; k < outputs.size(); ++k) {
    refs[outputs[k].name()] = py::make_tuple("output", static_cast<int>(k));
    if (k == 0) refs[outputs[k].node + ":0"] = py::make_tuple("output", 0);
    const std::string name = StrCat("output_grad_", k);
    NodeDef* n = graph.add_node();
    n->set_name(name);
    n->set_op("Placeholder");
    (*n->mutable_attr())["dtype"] = Attr(outputs[k].dtype);
    refs[name] = py::make_tuple("grad", static_cast<int>(k));
    dy.push_back(Output{name, 0, outputs[k].dtype});
  }
  for (int i = 0; i < flat; ++i) {
    refs[StrCat("input_", i, ":0")] = refs[StrCat("input_", i)];
  }
  for (size_t k = 0; k < outputs.size(); ++k) {
    refs[StrCat("output_grad_", k, ":0")] = refs[StrCat("output_grad_", k)];
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
  if (!s.ok()) {
    ThrowIfError(Status(s.code(), StrCat("gradient of ", op, ": ", s.message())));
  }
  if (static_cast<int>(dx.size()) != flat) {
    ThrowIfError(errors::Internal("the gradient function of ", op, " returned ",
                                  dx.size(), " gradients for ", flat, " inputs"));
  }

  py::list nodes;
  for (int j = first_new; j < graph.node_size(); ++j) {
    const NodeDef& n = graph.node(j);
    const int index = j - first_new;
    const OpRegistrationData* node_reg = nullptr;
    ThrowIfError(OpRegistry::Global()->LookUp(n.op(), &node_reg));
    DataTypeVector out_types;
    ThrowIfError(OutputTypesForNode(n, node_reg->op_def, &out_types));
    for (size_t k = 0; k < out_types.size(); ++k) {
      py::tuple ref = py::make_tuple("node", index, static_cast<int>(k));
      refs[StrCat(n.name(), ":", k)] = ref;
      if (k == 0) refs[n.name()] = ref;
    }
    py::list node_inputs;
    for (const std::string& in : n.input()) {
      if (!in.empty() && in[0] == '^') continue;  // order is Python's
      auto it = refs.find(in);
      if (it == refs.end()) {
        ThrowIfError(errors::Internal("gradient of ", op, ": node ", n.name(),
                                      " reads '", in, "', which is not known"));
      }
      node_inputs.append(it->second);
    }
    py::dict node;
    node["name"] = n.name();
    node["op"] = n.op();
    node["inputs"] = node_inputs;
    node["attrs"] = AttrsToPy(node_reg->op_def, n);
    nodes.append(node);
  }
  py::list grads;
  for (const Output& g : dx) {
    if (!g.valid()) {
      grads.append(py::none());
      continue;
    }
    auto it = refs.find(g.name());
    if (it == refs.end()) it = refs.find(StrCat(g.node, ":", g.index));
    if (it == refs.end()) {
      ThrowIfError(errors::Internal("gradient of ", op, ": result '", g.name(),
                                    "' is not a known tensor"));
    }
    grads.append(it->second);
  }
  py::dict result;
  result["nodes"] = nodes;
  result["grads"] = grads;
  result["forward_attrs"] = AttrsToPy(op_def, graph.node(forward_index));
  py::list out_types;
  for (const Output& o : outputs) out_types.append(static_cast<int>(o.dtype));
  result["output_types"] = out_types;
  return result;
}

}  // namespace

void BindGradients(py::module_& m) {
  m.def("_gradient_kind", &GradientKind, py::arg("op"));
  m.def("_gradient_graph", &GradientGraph, py::arg("op"), py::arg("attrs"),
        py::arg("inputs"), py::arg("consts"));
}

}  // namespace internal
}  // namespace opkit
