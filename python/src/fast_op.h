// The FastOp type of opkit._opkit (see fast_op.cc): the one callable every
// generated op wrapper forwards its arguments to.
//
//   PyTypeObject* type = InitFastOpType();   // once, in the module init
//   PyModule_AddObject(module, "FastOp", (PyObject*)type);
#ifndef OPKIT_PYTHON_SRC_FAST_OP_H_
#define OPKIT_PYTHON_SRC_FAST_OP_H_

#include <Python.h>

namespace opkit {
namespace internal {

// Readies the FastOp type; null with an exception set on failure.
PyTypeObject* InitFastOpType();
// The object marking a FastOp parameter without default (borrowed).
PyObject* FastOpRequiredMarker();
// Sets the callable every FastOp call goes to first (None or null: none),
// see Note [Graph hook] in fast_op.cc. Needs the GIL.
void SetFastOpGraphHook(PyObject* hook);

}  // namespace internal
}  // namespace opkit

#endif  // OPKIT_PYTHON_SRC_FAST_OP_H_
