// opkit.GradientTape's recording and backward pass in C++ (tape.cc); the
// Python class (python/opkit/backprop.py) keeps the API and its state is a
// _opkit._Tape.
//
//   if (TapesRecording()) {                      // in a FastOp call
//     ... run the op, outputs as EagerTensorType() arrays ...
//     if (!RecordOperation(call, result)) return nullptr;
//   }
//
// Note [C++ tape]: a Python tape recorded each op call through the graph
// hook and walked its records backwards in Python, paying a few
// microseconds of interpreter work per forward op and per gradient node,
// which in a training step of a small network came to more than the
// kernels of its smaller layers. Here a FastOp call on a thread whose tapes
// record goes straight to RecordOperation, which keeps the op function,
// its attr values and its inputs and outputs (strong references) on every
// tape watching an input. The backward pass (_Tape.gradient) walks the
// records in C++; an op whose gradient comes from the C++ registry runs as
// a GradientProgram: the gradient's nodes (BuildGradientNodes, built once
// per op signature and value of small integer inputs) with their kernels
// prepared, run in one call without the interpreter. Ops with a
// Python-registered gradient, with none, or whose gradient must itself be
// recorded (another tape records on the thread: nested tapes give higher
// derivatives) go to the Python callback, which applies the gradient
// through the op functions as before.
#ifndef OPKIT_PYTHON_SRC_TAPE_H_
#define OPKIT_PYTHON_SRC_TAPE_H_

#include <Python.h>

#include <memory>
#include <string>
#include <vector>

#include "opkit/runtime/eager_context.h"
#include "opkit/tensor/tensor.h"
#include "opkit/tensor/types.h"

namespace opkit {
namespace internal {

// The gradient programs of one forward op signature (op, input dtypes,
// attrs as given), shared by the records of its calls.
class GradientCache;

std::shared_ptr<GradientCache> NewGradientCache(const std::string& op,
                                                const DataTypeVector& dtypes,
                                                const EagerAttrs& attrs);

// Whether a GradientTape records on this thread (needs the GIL).
bool TapesRecording();

// The array type op functions return while a tape records (opkit's
// EagerTensor, set by backprop.py), or null before it is set.
PyTypeObject* EagerTensorType();

// One finished op call, as RecordOperation takes it (all borrowed).
struct RecordedCall {
  PyObject* fn = nullptr;          // the FastOp
  const std::string* op = nullptr;
  PyObject* const* args = nullptr; // inputs, then attr values, as run
  int num_inputs = 0;              // input args (a list input is one)
  int num_args = 0;
  const std::vector<bool>* input_is_list = nullptr;
  PyObject* const* flat_inputs = nullptr;
  size_t num_flat_inputs = 0;
  // Creates the op signature's GradientCache on first use.
  std::shared_ptr<GradientCache>* cache = nullptr;
  const DataTypeVector* dtypes = nullptr;
  const EagerAttrs* attrs = nullptr;
  // The Tensors the kernel ran on and made (one per flat input / output),
  // or null.
  const std::vector<Tensor>* input_tensors = nullptr;
  const std::vector<Tensor>* output_tensors = nullptr;
};

// Records `call` with its `result` (what the op function returns) on every
// tape recording on this thread that watches one of its inputs. False with
// an exception set on failure.
bool RecordOperation(const RecordedCall& call, PyObject* result);

}  // namespace internal
}  // namespace opkit

#endif  // OPKIT_PYTHON_SRC_TAPE_H_
