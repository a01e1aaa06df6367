// Shared pieces of the opkit._opkit extension: the process-wide eager
// context, Status -> Python exception mapping, and numpy <-> Tensor
// conversion. Every .cc of the extension includes this header first.
//
//   Tensor t;
//   if (!NdarrayToTensor(array, "x", &t, nullptr)) return nullptr;  // error set
//   PyObject* out = TensorToNdarray(t, /*readonly=*/false);         // new ref
//
// All functions here require the GIL.
#ifndef OPKIT_PYTHON_SRC_COMMON_H_
#define OPKIT_PYTHON_SRC_COMMON_H_

// Python.h must come before any standard header.
#include <Python.h>

#define PY_ARRAY_UNIQUE_SYMBOL opkit_python_ARRAY_API
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#ifndef OPKIT_PYTHON_IMPORT_ARRAY
#define NO_IMPORT_ARRAY
#endif
#include <numpy/arrayobject.h>

#include <cstddef>
#include <string>
#include <vector>

#include "opkit/attr_value.pb.h"
#include "opkit/core/status.h"
#include "opkit/tensor/tensor.h"
#include "opkit/tensor/types.h"
#include "opkit/op_def.pb.h"
#include "opkit/runtime/eager_context.h"

namespace opkit {
namespace internal {

// Kernels whose inputs hold at least this many bytes run with the GIL
// released (FastOp calls, gradient programs): below it, giving the GIL up
// and taking it back costs more than other threads gain.
constexpr size_t kReleaseGilBytes = size_t{1} << 17;

// The one EagerContext of the process (created on first use, never
// destroyed, so that no kernel outlives it at interpreter exit). Null with
// a Python exception set when it cannot be created.
EagerContext* PyEagerContext();
// Whether PyEagerContext has been called (its thread counts are fixed then).
bool PyEagerContextInitialized();
// The intra-op threads PyEagerContext will create its device with (0: one
// per CPU). InvalidArgument when negative; FailedPrecondition for a change
// once the context exists.
Status SetPyEagerIntraOpThreads(int threads);

// Sets the Python exception for a non-OK `status`: the opkit.errors class of
// its code (registered by opkit.errors through RegisterErrorClasses), or
// RuntimeError before registration. Returns nullptr for `return
// RaiseStatus(s);`.
PyObject* RaiseStatus(const Status& status);
// Note [Bool bytes] (convert.cc): whether any of `n` bool bytes is neither
// 0 nor 1, and making every non-zero byte 1.
bool HasNonCanonicalBools(const void* data, size_t n);
void CanonicalizeBools(void* data, size_t n);
// A Status message as a Python str (new reference; null with an exception
// set on failure): NULs and bytes that are not UTF-8 escaped as \xNN.
PyObject* MessageToPy(const std::string& message);
// Takes a sequence of 17 classes indexed by error code (index 0 unused).
PyObject* RegisterErrorClasses(PyObject* classes);

// numpy type number for `dtype` (NPY_OBJECT for DT_STRING); -1 when numpy
// has no equivalent (bfloat16, quantized, resource, variant).
int DataTypeToNumpy(DataType dtype);
// DataType of a numpy array's dtype; DT_INVALID when opkit has none.
DataType NumpyToDataType(PyArray_Descr* descr);

// Converts `array` into `*out`, copying, or zero-copy when the data is at
// least 1 KiB, 64-byte aligned, C-contiguous and in native byte order (then
// `*zero_copy` is set true, if not null; the Tensor keeps a reference to the
// array and drops it, with the GIL, when its buffer dies). Strings (object
// arrays of bytes/str, 'S' and 'U' arrays) are copied. On failure sets a
// Python exception naming `arg_name` and returns false.
bool NdarrayToTensor(PyArrayObject* array, const char* arg_name, Tensor* out,
                     bool* zero_copy);
// Same, copy only (for tensors handed to other threads, e.g. Session feeds).
bool NdarrayToTensorCopy(PyArrayObject* array, const char* arg_name,
                         Tensor* out);

// A numpy array over `tensor`'s buffer (zero-copy: the array's base owns a
// reference to the Tensor); DT_STRING becomes an object array of bytes, and
// DT_RESOURCE an opkit.ResourceTensor and DT_VARIANT an opkit.VariantTensor
// (not arrays: handles and variants are opaque).
// `readonly` clears the WRITEABLE flag; `subtype` (an ndarray subclass)
// makes the array one of that type. New reference, or nullptr with an
// exception set.
PyObject* TensorToNdarray(const Tensor& tensor, bool readonly,
                          PyTypeObject* subtype = nullptr);

// opkit.ResourceTensor and opkit.VariantTensor (resource_tensor.cc): the
// types, ready on first use (null with an exception if one cannot be);
// whether `o` is either; a new one holding `tensor` (a DT_RESOURCE tensor
// gives a ResourceTensor, a DT_VARIANT one a VariantTensor; new reference or
// null with an exception); the tensor inside one.
PyTypeObject* InitResourceTensorType();
PyTypeObject* InitVariantTensorType();
bool IsOpaqueTensor(PyObject* o);
PyObject* WrapOpaqueTensor(const Tensor& tensor);
const Tensor& UnwrapOpaqueTensor(PyObject* o);

// Converts a Python value into the AttrValue of `attr` (its "type" field
// decides: int, float, bool, string, type, shape, tensor, list(...)). On
// failure returns InvalidArgument naming the attr and the value.
Status PyToAttrValue(PyObject* value, const OpDef::AttrDef& attr,
                     AttrValue* out);
// The Python value of `value` for an attr of type `type` (dtypes as ints,
// shapes as lists with None for unknown dims / None for unknown rank,
// tensors as numpy arrays). New reference, or nullptr with an exception set.
PyObject* AttrValueToPy(const AttrValue& value, const std::string& type);

// A small RAII owner of a PyObject reference.
class PyRef {
 public:
  PyRef() = default;
  explicit PyRef(PyObject* o) : o_(o) {}
  PyRef(const PyRef&) = delete;
  PyRef& operator=(const PyRef&) = delete;
  PyRef(PyRef&& other) noexcept : o_(other.release()) {}
  PyRef& operator=(PyRef&& other) noexcept {
    reset(other.release());
    return *this;
  }
  ~PyRef() { Py_XDECREF(o_); }
  PyObject* get() const { return o_; }
  PyObject* release() {
    PyObject* o = o_;
    o_ = nullptr;
    return o;
  }
  void reset(PyObject* o = nullptr) {
    PyObject* old = o_;
    o_ = o;
    Py_XDECREF(old);
  }
  explicit operator bool() const { return o_ != nullptr; }

 private:
  PyObject* o_ = nullptr;
};

}  // namespace internal
}  // namespace opkit

#endif  // OPKIT_PYTHON_SRC_COMMON_H_
