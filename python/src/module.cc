// opkit._opkit: the extension module under the `opkit` Python package.
// Op metadata and library loading here; the FastOp call path in
// fast_op.cc, the kernel registry in kernels.cc, Session in session.cc.
// Users import `opkit`, not this module.
#define OPKIT_PYTHON_IMPORT_ARRAY
#include "common.h"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "bindings.h"
#include "fast_op.h"
#include "opkit/core/env.h"
#include "opkit/op/op_registry.h"
#include "opkit/runtime/library.h"

namespace py = pybind11;

namespace opkit {
namespace internal {

void ThrowIfError(const Status& status) {
  if (status.ok()) return;
  RaiseStatus(status);
  throw py::error_already_set();
}

py::object AttrToPy(const AttrValue& value, const std::string& type) {
  PyObject* o = AttrValueToPy(value, type);
  if (o == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(o);
}

namespace {

py::dict ArgInfo(const OpDef::ArgDef& arg) {
  py::dict d;
  d["name"] = arg.name();
  d["description"] = arg.description();
  d["type"] = static_cast<int>(arg.type());
  d["type_attr"] = arg.type_attr();
  d["number_attr"] = arg.number_attr();
  d["type_list_attr"] = arg.type_list_attr();
  d["is_ref"] = arg.is_ref();
  return d;
}

// The OpDef of `name` as plain Python data, for the wrapper generator.
py::dict OpInfo(const std::string& name) {
  const OpRegistrationData* reg = nullptr;
  ThrowIfError(OpRegistry::Global()->LookUp(name, &reg));
  const OpDef& def = reg->op_def;
  py::dict d;
  d["name"] = def.name();
  d["summary"] = def.summary();
  d["description"] = def.description();
  py::list inputs, outputs, attrs;
  for (const auto& a : def.input_arg()) inputs.append(ArgInfo(a));
  for (const auto& a : def.output_arg()) outputs.append(ArgInfo(a));
  for (const auto& a : def.attr()) {
    py::dict ad;
    ad["name"] = a.name();
    ad["type"] = a.type();
    ad["description"] = a.description();
    ad["has_default"] = a.has_default_value();
    ad["default"] = a.has_default_value()
                        ? AttrToPy(a.default_value(), a.type())
                        : py::none();
    ad["has_minimum"] = a.has_minimum();
    ad["minimum"] = a.minimum();
    if (a.has_allowed_values()) {
      const std::string list_type =
          a.type().rfind("list(", 0) == 0 ? a.type()
                                          : "list(" + a.type() + ")";
      ad["allowed"] = AttrToPy(a.allowed_values(), list_type);
    } else {
      ad["allowed"] = py::none();
    }
    attrs.append(ad);
  }
  d["inputs"] = inputs;
  d["outputs"] = outputs;
  d["attrs"] = attrs;
  d["library"] = reg->origin.library;
  d["origin"] = reg->origin.ToString();
  return d;
}

std::vector<std::string> OpNames() {
  std::vector<OpDef> defs;
  OpRegistry::Global()->GetRegisteredOps(&defs);
  std::vector<std::string> names;
  names.reserve(defs.size());
  for (const OpDef& d : defs) names.push_back(d.name());
  return names;
}

py::dict LoadLibrary(const std::string& path) {
  StatusOr<OpLibrary> lib = LoadOpLibrary(path);
  ThrowIfError(lib.status());
  py::dict d;
  d["path"] = lib->path();
  py::list ops;
  for (const OpDef& op : lib->op_list().op()) ops.append(op.name());
  d["ops"] = ops;
  return d;
}

// Unloads the loaded library at `path` (as given to load, or resolved).
void UnloadLibrary(const std::string& path) {
  std::string resolved;
  if (!RealPath(path, &resolved).ok()) resolved = path;
  for (OpLibrary& lib : LoadedOpLibraries()) {
    if (lib.path() == resolved) {
      ThrowIfError(lib.Unload());
      return;
    }
  }
  ThrowIfError(errors::NotFound("No loaded op library at '", path,
                                "'; opkit.load_op_library(path) loads one"));
}

}  // namespace
}  // namespace internal
}  // namespace opkit

PYBIND11_MODULE(_opkit, m) {
  using namespace opkit::internal;  // NOLINT: module init only
  if (_import_array() < 0) throw py::error_already_set();
  m.doc() = "opkit's C++ runtime; use the `opkit` package instead.";
  m.def("_register_error_classes", [](py::object classes) {
    PyObject* r = RegisterErrorClasses(classes.ptr());
    if (r == nullptr) throw py::error_already_set();
    Py_DECREF(r);
  });
  m.def("op_names", &OpNames, "Names of every registered op, sorted.");
  m.def("op_info", &OpInfo, py::arg("name"),
        "The OpDef of `name` as a dict; NotFoundError for an unknown op.");
  m.def("load_library", &LoadLibrary, py::arg("path"),
        "Loads an op library; returns {'path': resolved path, 'ops': names}.");
  m.def("unload_library", &UnloadLibrary, py::arg("path"),
        "Removes a loaded library's ops and kernels (OpLibrary::Unload).");
  m.def("_raise_status", [](int code, const std::string& message) {
    ThrowIfError(opkit::Status(static_cast<opkit::error::Code>(code), message));
  }, "Raises the opkit.errors exception of `code` (for tests).");
  PyTypeObject* fast_op = InitFastOpType();
  if (fast_op == nullptr) throw py::error_already_set();
  Py_INCREF(fast_op);
  m.add_object("FastOp", py::reinterpret_steal<py::object>(
                             reinterpret_cast<PyObject*>(fast_op)));
  PyTypeObject* resource_tensor = InitResourceTensorType();
  if (resource_tensor == nullptr) throw py::error_already_set();
  Py_INCREF(resource_tensor);
  m.add_object("ResourceTensor",
               py::reinterpret_steal<py::object>(
                   reinterpret_cast<PyObject*>(resource_tensor)));
  PyTypeObject* variant_tensor = InitVariantTensorType();
  if (variant_tensor == nullptr) throw py::error_already_set();
  Py_INCREF(variant_tensor);
  m.add_object("VariantTensor",
               py::reinterpret_steal<py::object>(
                   reinterpret_cast<PyObject*>(variant_tensor)));
  m.attr("REQUIRED") = py::reinterpret_borrow<py::object>(FastOpRequiredMarker());
  BindKernels(m);
  BindSession(m);
  BindGraph(m);
  BindGradients(m);
  BindOpGenOverrides(m);
  BindTape(m);
}
