// The pybind11 parts of opkit._opkit, each adding its functions to the
// module (called once from module.cc's PYBIND11_MODULE).
//
//   BindKernels(m);   // kernels_list, kernels_explain, ... (kernels.cc)
//   BindSession(m);   // the Session class (session.cc)
//   BindGraph(m);     // node building and shapes for Python graphs (graph.cc)
//   BindGradients(m); // the C++ gradient registry for Python (gradients.cc)
//   BindTape(m);      // GradientTape's recorded state (tape.cc)
#ifndef OPKIT_PYTHON_SRC_BINDINGS_H_
#define OPKIT_PYTHON_SRC_BINDINGS_H_

#include <pybind11/pybind11.h>

#include <string>

#include "opkit/attr_value.pb.h"
#include "opkit/core/status.h"

namespace opkit {
namespace internal {

void BindKernels(pybind11::module_& m);
void BindSession(pybind11::module_& m);
void BindGraph(pybind11::module_& m);
void BindGradients(pybind11::module_& m);
void BindOpGenOverrides(pybind11::module_& m);
void BindTape(pybind11::module_& m);

// Raises the opkit.errors exception of a non-OK `status` as a C++
// pybind11::error_already_set; does nothing for OK.
void ThrowIfError(const Status& status);
// AttrValueToPy as a pybind11 object (throws on failure).
pybind11::object AttrToPy(const AttrValue& value, const std::string& type);

}  // namespace internal
}  // namespace opkit

#endif  // OPKIT_PYTHON_SRC_BINDINGS_H_
