// opkit.ResourceTensor and opkit.VariantTensor: DT_RESOURCE and DT_VARIANT
// tensors in Python. Opaque: each holds the opkit Tensor an op returned
// (resource handles; variants such as a TensorList) and goes back into ops
// as it is (never through numpy), so a handle from VarHandleOp reaches
// ReadVariableOp unchanged and a list from TensorListReserve reaches
// TensorListSetItem. A ResourceTensor shows the first handle's names, a
// VariantTensor the first value's type.
#include "common.h"

#include <cstring>
#include <new>
#include <string>

#include "opkit/tensor/resource_handle.h"
#include "opkit/tensor/variant.h"

namespace opkit {
namespace internal {
namespace {

struct ResourceTensorObject {
  PyObject_HEAD
  Tensor* tensor;  // Owned; a DT_RESOURCE or DT_VARIANT tensor.
};

void Dealloc(PyObject* self) {
  delete reinterpret_cast<ResourceTensorObject*>(self)->tensor;
  Py_TYPE(self)->tp_free(self);
}

const ResourceHandle* First(PyObject* self) {
  const Tensor& t = *reinterpret_cast<ResourceTensorObject*>(self)->tensor;
  if (t.NumElements() == 0 || !t.IsInitialized()) return nullptr;
  return &t.flat<ResourceHandle>()(0);
}

PyObject* Repr(PyObject* self) {
  const Tensor& t = *reinterpret_cast<ResourceTensorObject*>(self)->tensor;
  const ResourceHandle* h = First(self);
  std::string s = "<opkit.ResourceTensor shape=" + t.shape().DebugString();
  if (h != nullptr) {
    s += " container='" + h->container() + "' name='" + h->name() + "'";
  }
  s += ">";
  return PyUnicode_FromString(s.c_str());
}

// The first handle's field, or None without one.
template <const std::string& (ResourceHandle::*Field)() const>
PyObject* GetField(PyObject* self, void*) {
  const ResourceHandle* h = First(self);
  if (h == nullptr) Py_RETURN_NONE;
  const std::string& v = (h->*Field)();
  return PyUnicode_FromStringAndSize(v.data(), static_cast<Py_ssize_t>(v.size()));
}

PyObject* GetShape(PyObject* self, void*) {
  const Tensor& t = *reinterpret_cast<ResourceTensorObject*>(self)->tensor;
  PyRef shape(PyTuple_New(t.dims()));
  if (!shape) return nullptr;
  for (int i = 0; i < t.dims(); ++i) {
    PyObject* d = PyLong_FromLongLong(t.dim_size(i));
    if (d == nullptr) return nullptr;
    PyTuple_SET_ITEM(shape.get(), i, d);
  }
  return shape.release();
}

PyObject* GetDtype(PyObject*, void*) { return PyUnicode_FromString("resource"); }

PyGetSetDef kGetSet[] = {
    {"name", GetField<&ResourceHandle::name>, nullptr,
     "The resource's name (of the first handle).", nullptr},
    {"container", GetField<&ResourceHandle::container>, nullptr,
     "The resource's container (of the first handle).", nullptr},
    {"device", GetField<&ResourceHandle::device>, nullptr,
     "The device holding the resource (of the first handle).", nullptr},
    {"shape", GetShape, nullptr, "The shape of the handle tensor.", nullptr},
    {"dtype", GetDtype, nullptr, "Always 'resource'.", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr}};

PyTypeObject* g_type = nullptr;

PyObject* VariantRepr(PyObject* self) {
  const Tensor& t = *reinterpret_cast<ResourceTensorObject*>(self)->tensor;
  std::string s = "<opkit.VariantTensor shape=" + t.shape().DebugString();
  if (t.IsInitialized() && t.NumElements() > 0) {
    s += " type='" + t.flat<Variant>()(0).TypeName() + "'";
  }
  s += ">";
  return PyUnicode_FromString(s.c_str());
}

PyObject* GetVariantDtype(PyObject*, void*) { return PyUnicode_FromString("variant"); }

PyObject* GetTypeName(PyObject* self, void*) {
  const Tensor& t = *reinterpret_cast<ResourceTensorObject*>(self)->tensor;
  if (!t.IsInitialized() || t.NumElements() == 0) Py_RETURN_NONE;
  const std::string name = t.flat<Variant>()(0).TypeName();
  return PyUnicode_FromStringAndSize(name.data(), static_cast<Py_ssize_t>(name.size()));
}

PyGetSetDef kVariantGetSet[] = {
    {"type_name", GetTypeName, nullptr,
     "The type of the first value (e.g. 'TensorList'), or None when empty.", nullptr},
    {"shape", GetShape, nullptr, "The shape of the variant tensor.", nullptr},
    {"dtype", GetVariantDtype, nullptr, "Always 'variant'.", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr}};

PyTypeObject* g_variant_type = nullptr;

// A zero-filled type object with the fields an opaque tensor type sets (a
// brace initializer naming only the header trips
// -Wmissing-field-initializers).
PyTypeObject OpaqueTensorType(const char* name, const char* doc, reprfunc repr,
                              PyGetSetDef* getset) {
  PyTypeObject t;
  std::memset(&t, 0, sizeof(t));
  Py_SET_REFCNT(&t, 1);
  t.tp_name = name;
  t.tp_basicsize = sizeof(ResourceTensorObject);
  t.tp_flags = Py_TPFLAGS_DEFAULT;
  t.tp_doc = doc;
  t.tp_dealloc = Dealloc;
  t.tp_repr = repr;
  t.tp_getset = getset;
  return t;
}

// Readies `type` once; the type, or nullptr with a Python error set.
PyTypeObject* ReadyOnce(PyTypeObject* type, PyTypeObject** ready) {
  if (*ready == nullptr) {
    if (PyType_Ready(type) < 0) return nullptr;
    *ready = type;
  }
  return *ready;
}

}  // namespace

PyTypeObject* InitResourceTensorType() {
  static PyTypeObject type = OpaqueTensorType(
      "opkit.ResourceTensor",
      "A resource tensor (handles to variables, tables, ...) returned by an "
      "op. Opaque: pass it to the ops that use the resource.",
      Repr, kGetSet);
  return ReadyOnce(&type, &g_type);
}

PyTypeObject* InitVariantTensorType() {
  static PyTypeObject type = OpaqueTensorType(
      "opkit.VariantTensor",
      "A variant tensor (a TensorList, ...) returned by an op. Opaque: pass "
      "it to the ops that take it (TensorListSetItem, TensorListStack, ...).",
      VariantRepr, kVariantGetSet);
  return ReadyOnce(&type, &g_variant_type);
}

bool IsOpaqueTensor(PyObject* o) {
  return (g_type != nullptr && Py_TYPE(o) == g_type) ||
         (g_variant_type != nullptr && Py_TYPE(o) == g_variant_type);
}

PyObject* WrapOpaqueTensor(const Tensor& tensor) {
  PyTypeObject* type = tensor.dtype() == DT_VARIANT ? InitVariantTensorType()
                                                     : InitResourceTensorType();
  if (type == nullptr) return nullptr;
  ResourceTensorObject* o = PyObject_New(ResourceTensorObject, type);
  if (o == nullptr) return nullptr;
  o->tensor = new (std::nothrow) Tensor(tensor);
  if (o->tensor == nullptr) {
    Py_DECREF(o);
    return PyErr_NoMemory();
  }
  return reinterpret_cast<PyObject*>(o);
}

const Tensor& UnwrapOpaqueTensor(PyObject* o) {
  return *reinterpret_cast<ResourceTensorObject*>(o)->tensor;
}

}  // namespace internal
}  // namespace opkit
