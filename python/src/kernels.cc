// The kernel registry from Python: listing, explaining selection,
// unregistering (with restore) and scoped overrides. opkit/kernels.py
// shapes these into the public opkit.kernels API.
#include "common.h"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bindings.h"
#include "opkit/core/errors.h"
#include "opkit/device/device_type.h"
#include "opkit/kernel/kernel_registry.h"
#include "opkit/op/op_registry.h"

namespace py = pybind11;

namespace opkit {
namespace internal {
namespace {

py::dict KernelDefInfo(const KernelDef& def, const std::string& class_name,
                       const RegistrationOrigin& origin) {
  py::dict d;
  d["op"] = def.op();
  d["device"] = def.device_type();
  d["label"] = def.label();
  d["priority"] = def.priority();
  d["kernel_class"] = class_name;
  d["origin"] = origin.ToString();
  d["library"] = origin.library;
  py::dict constraints;
  for (const auto& c : def.constraint()) {
    const AttrValue& v = c.allowed_values();
    const AttrValue::ListValue& l = v.list();
    std::string type = "list(type)";
    if (l.s_size() > 0) type = "list(string)";
    else if (l.i_size() > 0) type = "list(int)";
    else if (l.b_size() > 0) type = "list(bool)";
    constraints[py::str(c.name())] = AttrToPy(v, type);
  }
  d["constraints"] = constraints;
  py::list host;
  for (const auto& h : def.host_memory_arg()) host.append(h);
  d["host_memory_args"] = host;
  return d;
}

py::list ListKernels(std::optional<std::string> op) {
  std::vector<std::string> ops;
  if (op.has_value()) {
    ops.push_back(*op);
  } else {
    std::vector<OpDef> defs;
    OpRegistry::Global()->GetRegisteredOps(&defs);
    for (const OpDef& d : defs) ops.push_back(d.name());
  }
  py::list out;
  for (const std::string& name : ops) {
    for (const KernelRegistration& r :
         KernelRegistry::Global()->GetRegistrationsForOp(name)) {
      out.append(KernelDefInfo(r.def, r.kernel_class_name, r.origin));
    }
  }
  return out;
}

const OpDef::AttrDef* FindAttr(const OpDef& def, const std::string& name) {
  for (const auto& a : def.attr()) {
    if (a.name() == name) return &a;
  }
  return nullptr;
}

// A NodeDef of `op` with `attrs` converted by the op's attr types; "_kernel"
// is the label.
NodeDef BuildNode(const std::string& op, const py::dict& attrs) {
  const OpDef* def = nullptr;
  ThrowIfError(OpRegistry::Global()->LookUpOpDef(op, &def));
  NodeDef node;
  node.set_name("explain_" + op);
  node.set_op(op);
  for (auto item : attrs) {
    const std::string name = py::cast<std::string>(py::str(item.first));
    OpDef::AttrDef label_def;
    const OpDef::AttrDef* attr = FindAttr(*def, name);
    if (name == "_kernel") {
      label_def.set_name("_kernel");
      label_def.set_type("string");
      attr = &label_def;
    }
    if (attr == nullptr) {
      std::string names;
      for (const auto& a : def->attr()) names += (names.empty() ? "" : ", ") + a.name();
      ThrowIfError(errors::InvalidArgument(
          "Op ", op, " has no attr '", name, "'; its attrs are: [", names,
          "] (pass the kernel label as _kernel=...)"));
    }
    AttrValue value;
    ThrowIfError(PyToAttrValue(item.second.ptr(), *attr, &value));
    (*node.mutable_attr())[name] = value;
  }
  return node;
}

py::dict Explain(const std::string& op, const std::string& device,
                 const py::dict& attrs) {
  NodeDef node = BuildNode(op, attrs);
  KernelSelectionExplanation e = KernelRegistry::Global()->ExplainKernelSelection(
      DeviceType(device), node);
  py::dict d;
  d["op"] = e.op;
  d["device"] = e.device_type;
  d["label"] = e.label;
  py::list candidates;
  for (const KernelCandidate& c : e.candidates) {
    py::dict cd = KernelDefInfo(c.def, c.kernel_class_name, c.origin);
    cd["matched"] = c.matched;
    cd["reason"] = c.reason;
    candidates.append(cd);
  }
  d["candidates"] = candidates;
  d["winner"] = e.winner;
  d["error_code"] = static_cast<int>(e.status.code());
  auto text = [](const std::string& message) {
    PyObject* o = MessageToPy(message);
    if (o == nullptr) throw py::error_already_set();
    return py::reinterpret_steal<py::object>(o);
  };
  d["error_message"] = text(e.status.message());
  d["text"] = text(e.ToString());
  return d;
}

DataType ToDataType(py::handle value, const std::string& attr_name) {
  OpDef::AttrDef def;
  def.set_name(attr_name);
  def.set_type("type");
  AttrValue v;
  ThrowIfError(PyToAttrValue(value.ptr(), def, &v));
  return v.type();
}

KernelFilter BuildFilter(const py::dict& spec) {
  KernelFilter f;
  for (auto item : spec) {
    const std::string key = py::cast<std::string>(py::str(item.first));
    if (item.second.is_none()) continue;
    if (key == "op") f.Op(py::cast<std::string>(item.second));
    else if (key == "device") f.Device(py::cast<std::string>(item.second));
    else if (key == "label") f.Label(py::cast<std::string>(item.second));
    else if (key == "kernel_class") f.KernelClass(py::cast<std::string>(item.second));
    else if (key == "library") f.Library(py::cast<std::string>(item.second));
    else if (key == "types") {
      for (auto t : py::cast<py::dict>(item.second)) {
        const std::string attr = py::cast<std::string>(py::str(t.first));
        f.Type(attr, ToDataType(t.second, attr));
      }
    } else {
      throw py::value_error("unknown kernel filter field '" + key + "'");
    }
  }
  return f;
}

// Owns what Unregister() hid.
class PyUnregistration {
 public:
  explicit PyUnregistration(KernelRegistrationHandle h) : handle_(std::move(h)) {}
  void Restore() { ThrowIfError(handle_.Restore()); }
  bool pending_restore() const { return handle_.pending_restore(); }
  py::list Kernels() const {
    py::list out;
    for (const KernelDef* d : handle_.kernels()) {
      out.append(KernelDefInfo(*d, "", RegistrationOrigin()));
    }
    return out;
  }

 private:
  KernelRegistrationHandle handle_;
};

// Owns the ScopedKernelOverrides of one opkit.kernels.override().
class PyOverride {
 public:
  explicit PyOverride(std::vector<std::unique_ptr<ScopedKernelOverride>> o)
      : overrides_(std::move(o)) {}
  void Close() { overrides_.clear(); }
  bool active() const { return !overrides_.empty(); }
  py::list Kernels() const {
    py::list out;
    for (const auto& o : overrides_) {
      out.append(KernelDefInfo(o->kernel_def(), "", RegistrationOrigin()));
    }
    return out;
  }

 private:
  std::vector<std::unique_ptr<ScopedKernelOverride>> overrides_;
};

std::unique_ptr<PyUnregistration> Unregister(const py::dict& spec) {
  KernelFilter f = BuildFilter(spec);
  auto handle = KernelRegistry::Global()->Unregister(f);
  ThrowIfError(handle.status());
  return std::make_unique<PyUnregistration>(std::move(handle).value());
}

// Registers, for the handle's lifetime, a copy of every kernel of `op`
// passing the filter, unlabelled and outranking the kernels it overlaps:
// e.g. a labelled or library kernel then wins for ordinary nodes.
std::unique_ptr<PyOverride> Override(const py::dict& spec) {
  KernelFilter f = BuildFilter(spec);
  if (f.op.empty()) throw py::value_error("override() needs op=");
  KernelRegistry* registry = KernelRegistry::Global();
  std::vector<KernelRegistration> regs = registry->GetRegistrationsForOp(f.op);
  std::vector<KernelRegistration> chosen;
  for (KernelRegistration& r : regs) {
    if (f.Matches(r)) chosen.push_back(std::move(r));
  }
  if (chosen.empty()) {
    ThrowIfError(errors::NotFound(
        "No registered kernel passes the filter ", f.DebugString(),
        "; the kernels of ", f.op, " are:\n",
        registry->KernelsRegisteredForOp(f.op),
        "Check the device, label, kernel_class or library given."));
  }
  std::vector<std::unique_ptr<ScopedKernelOverride>> overrides;
  for (KernelRegistration& r : chosen) {
    r.def.clear_label();
    r.def.set_priority(0);
    auto o = ScopedKernelOverride::Create(registry, std::move(r));
    ThrowIfError(o.status());
    overrides.push_back(std::move(o).value());
  }
  return std::make_unique<PyOverride>(std::move(overrides));
}

}  // namespace

void BindKernels(py::module_& m) {
  m.def("kernels_list", &ListKernels, py::arg("op") = py::none());
  m.def("kernels_explain", &Explain, py::arg("op"), py::arg("device"),
        py::arg("attrs"));
  py::class_<PyUnregistration>(m, "_Unregistration")
      .def("restore", &PyUnregistration::Restore)
      .def_property_readonly("pending_restore",
                             &PyUnregistration::pending_restore)
      .def_property_readonly("kernels", &PyUnregistration::Kernels);
  py::class_<PyOverride>(m, "_Override")
      .def("close", &PyOverride::Close)
      .def_property_readonly("active", &PyOverride::active)
      .def_property_readonly("kernels", &PyOverride::Kernels);
  m.def("kernels_unregister", &Unregister, py::arg("spec"));
  m.def("kernels_override", &Override, py::arg("spec"));
  m.def("as_datatype", [](py::handle v) {
    return static_cast<int>(ToDataType(v, "dtype"));
  }, "The DataType number of a numpy dtype, dtype name or DataType number.");
  m.def("datatype_name", [](int dt) {
    if (!DataTypeIsValid(dt)) throw py::value_error("invalid DataType number");
    return DataTypeString(static_cast<DataType>(dt));
  });
  m.def("numpy_typenum", [](int dt) {
    return DataTypeToNumpy(static_cast<DataType>(dt));
  });
}

}  // namespace internal
}  // namespace opkit
