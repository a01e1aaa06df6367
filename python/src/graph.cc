// The C++ half of graph building from Python (opkit/framework.py):
//
//   node = _opkit._make_node("MatMul", "m", ["a:0", "b:0"],
//                            {"T": 1, "transpose_a": False})
//   node["output_types"]   # [1]; node["node_def"]: NodeDef bytes
//   _opkit._infer_shapes(graph_def_bytes)   # {"m": [(2, 3)], ...}
//   _opkit._set_graph_hook(hook)            # Note [Graph hook] (fast_op.cc)
//
// The node is checked against its OpDef (attr types, defaults added,
// ValidateNodeDef) as a graph's node is when a session loads it, so a bad
// call fails where it is written rather than at Session.run.
#include "common.h"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <string>
#include <vector>

#include "bindings.h"
#include "fast_op.h"
#include "opkit/core/errors.h"
#include "opkit/graph/graph.h"
#include "opkit/graph/shape_refiner.h"
#include "opkit/kernel/op_kernel_construction.h"
#include "opkit/op/node_def_util.h"
#include "opkit/op/op_registry.h"

namespace py = pybind11;

namespace opkit {
namespace internal {
namespace {

// Output arg lengths of a node: -1 for a single tensor, else the list's.
py::list OutputArgLengths(const OpDef& op_def, const NodeDef& node) {
  py::list lens;
  for (const auto& arg : op_def.output_arg()) {
    int len = -1;
    if (!arg.number_attr().empty()) {
      auto it = node.attr().find(arg.number_attr());
      len = it == node.attr().end() ? 0 : static_cast<int>(it->second.i());
    } else if (!arg.type_list_attr().empty()) {
      auto it = node.attr().find(arg.type_list_attr());
      len = it == node.attr().end() ? 0 : it->second.list().type_size();
    }
    lens.append(len);
  }
  return lens;
}

// A NodeDef of op `op` named `name` reading `inputs` with the attrs
// `attrs` (attr name -> Python value, as op functions take them), defaults
// added and validated. Returns {"node_def": bytes, "input_types",
// "output_types" (DataType numbers), "output_lens", "attrs" (every attr as
// a Python value), "device"}.
py::dict MakeNode(const std::string& op, const std::string& name,
                  const std::vector<std::string>& inputs, const py::dict& attrs,
                  const std::string& device) {
  const OpRegistrationData* reg = nullptr;
  ThrowIfError(OpRegistry::Global()->LookUp(op, &reg));
  const OpDef& op_def = reg->op_def;
  NodeDef node;
  node.set_name(name);
  node.set_op(op);
  node.set_device(device);
  for (const std::string& in : inputs) node.add_input(in);
  for (const auto& [key, value] : attrs) {
    const std::string attr_name = py::cast<std::string>(key);
    const OpDef::AttrDef* def = nullptr;
    for (const auto& a : op_def.attr()) {
      if (a.name() == attr_name) def = &a;
    }
    if (def == nullptr) {
      ThrowIfError(errors::InvalidArgument(
          "Op ", op, " has no attr '", attr_name, "' (node '", name,
          "'); its attrs are those of opkit.raw_ops.", op, ".__doc__"));
    }
    AttrValue v;
    Status s = PyToAttrValue(value.ptr(), *def, &v);
    if (!s.ok()) {
      ThrowIfError(Status(s.code(), op + " (node '" + name + "'): " +
                                        std::string(s.message())));
    }
    (*node.mutable_attr())[attr_name] = std::move(v);
  }
  std::shared_ptr<const NodeProperties> props;
  ThrowIfError(NodeProperties::CreateFromNodeDef(node, op_def, &props));
  py::dict out;
  std::string bytes;
  props->node_def.SerializeToString(&bytes);
  out["node_def"] = py::bytes(bytes);
  py::list in_types, out_types;
  for (DataType t : props->input_types) in_types.append(static_cast<int>(t));
  for (DataType t : props->output_types) out_types.append(static_cast<int>(t));
  out["input_types"] = in_types;
  out["output_types"] = out_types;
  out["output_lens"] = OutputArgLengths(op_def, props->node_def);
  py::dict attr_values;
  for (const auto& a : op_def.attr()) {
    auto it = props->node_def.attr().find(a.name());
    if (it == props->node_def.attr().end()) continue;
    attr_values[py::str(a.name())] = AttrToPy(it->second, a.type());
  }
  out["attrs"] = attr_values;
  return out;
}

py::object ShapeToPy(const PartialTensorShape& shape) {
  if (shape.unknown_rank()) return py::none();
  py::list dims;
  for (int i = 0; i < shape.dims(); ++i) {
    const int64_t d = shape.dim_size(i);
    if (d < 0) {
      dims.append(py::none());
    } else {
      dims.append(d);
    }
  }
  return py::tuple(dims);
}

// The output shapes of every node of a GraphDef (opkit's shape functions,
// ShapeRefiner): node name -> [shape per output], a shape a tuple with
// None for unknown dimensions, or None for an unknown rank. Nodes from the
// first failing one on are left out; `error` holds that failure's message.
py::dict InferShapes(const py::bytes& graph_def) {
  GraphDef def;
  ThrowIfError(ParseGraphDef(std::string(graph_def), &def));
  ShapeRefiner refiner(def.versions().producer(), nullptr);
  Status s = refiner.InferShapes(def);
  py::dict shapes;
  for (const NodeDef& n : def.node()) {
    std::vector<PartialTensorShape> out;
    if (!refiner.OutputShapes(n.name(), &out).ok()) continue;
    py::list l;
    for (const auto& shape : out) l.append(ShapeToPy(shape));
    shapes[py::str(n.name())] = l;
  }
  py::dict result;
  result["shapes"] = shapes;
  result["error"] = s.ok() ? py::object(py::none())
                           : py::object(py::str(std::string(s.message())));
  return result;
}

}  // namespace

void BindGraph(py::module_& m) {
  m.def("_make_node", &MakeNode, py::arg("op"), py::arg("name"),
        py::arg("inputs"), py::arg("attrs"), py::arg("device") = "");
  m.def("_infer_shapes", &InferShapes, py::arg("graph_def"));
  m.def("_set_graph_hook", [](py::handle hook) {
    SetFastOpGraphHook(hook.ptr());
  }, py::arg("hook"));
}

}  // namespace internal
}  // namespace opkit
