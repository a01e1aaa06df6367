// _opkit._op_gen_overrides(filenames, op_names): the OpGenOverrides of
// comma-separated text files (OpGenOverrideMap, opkit/op/op_gen_overrides.h)
// for the given registered ops, as the Python generator applies them
// (python/opkit/_op_gen.py): per op with an override, a dict of skip, hide,
// rename_to, aliases, input_renames / attr_renames / output_renames
// ({from: to}) and attr_defaults ({attr name: Python value}, converted by the
// attr's type in the registered OpDef).
#include "common.h"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "bindings.h"
#include "opkit/core/errors.h"
#include "opkit/op/op_gen_overrides.h"
#include "opkit/op/op_registry.h"

namespace py = pybind11;

namespace opkit {
namespace internal {
namespace {

py::dict Renames(const google::protobuf::RepeatedPtrField<OpGenOverride::Rename>& renames) {
  py::dict out;
  for (const auto& r : renames) out[py::str(r.from())] = r.to();
  return out;
}

py::dict OpGenOverrides(const std::string& filenames,
                        const std::vector<std::string>& op_names) {
  OpGenOverrideMap overrides;
  ThrowIfError(overrides.LoadFileList(filenames));
  py::dict result;
  for (const std::string& name : op_names) {
    const OpGenOverride* o = overrides.Find(name);
    if (o == nullptr) continue;
    const OpRegistrationData* reg = nullptr;
    ThrowIfError(OpRegistry::Global()->LookUp(name, &reg));
    py::dict entry;
    entry["skip"] = o->skip();
    entry["hide"] = o->hide();
    entry["rename_to"] = o->rename_to();
    entry["aliases"] = std::vector<std::string>(o->alias().begin(), o->alias().end());
    entry["input_renames"] = Renames(o->input_rename());
    entry["attr_renames"] = Renames(o->attr_rename());
    entry["output_renames"] = Renames(o->output_rename());
    py::dict defaults;
    for (const auto& d : o->attr_default()) {
      const OpDef::AttrDef* def = nullptr;
      for (const auto& a : reg->op_def.attr()) {
        if (a.name() == d.name()) def = &a;
      }
      if (def == nullptr) {
        ThrowIfError(errors::InvalidArgument(
            "OpGenOverrides for ", name, ": attr_default names '", d.name(),
            "', which the op does not have (", filenames,
            "); its attrs are those of opkit.raw_ops.", name, ".__doc__"));
      }
      defaults[py::str(d.name())] = AttrToPy(d.value(), def->type());
    }
    entry["attr_defaults"] = defaults;
    result[py::str(name)] = entry;
  }
  return result;
}

}  // namespace

void BindOpGenOverrides(py::module_& m) {
  m.def("_op_gen_overrides", &OpGenOverrides, py::arg("filenames"), py::arg("op_names"),
        "The OpGenOverrides of comma-separated text files for the given ops.");
}

}  // namespace internal
}  // namespace opkit
