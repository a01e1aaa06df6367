// numpy <-> Tensor and Python <-> AttrValue conversion, Status -> exception
// mapping and the process-wide eager context of the opkit extension.
#include "common.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "opkit/core/errors.h"
#include "opkit/tensor/allocator.h"
#include "opkit/op/attr_value_util.h"
#include "opkit/tensor/tensor_shape.h"

namespace opkit {
namespace internal {
namespace {

// Smallest input taken without copying.
constexpr npy_intp kZeroCopyMinBytes = 1024;

// opkit.errors classes indexed by error code; empty until opkit.errors
// registers them.
PyObject* g_error_classes[error::UNAUTHENTICATED + 1] = {};

// repr(value), shortened for messages.
std::string ShortRepr(PyObject* value) {
  PyRef r(PyObject_Repr(value));
  if (!r) {
    PyErr_Clear();
    return "<unprintable>";
  }
  const char* s = PyUnicode_AsUTF8(r.get());
  if (s == nullptr) {
    PyErr_Clear();
    return "<unprintable>";
  }
  std::string out(s);
  if (out.size() > 80) out = out.substr(0, 77) + "...";
  return out;
}

std::string TypeName(PyObject* value) { return Py_TYPE(value)->tp_name; }

// Hands a numpy array's buffer to one Tensor without copying. Made for one
// Tensor::Allocate call: AllocateRaw returns the array's data, and
// DeallocateRaw (when the tensor buffer dies, possibly on another thread)
// drops the array reference under the GIL and deletes the allocator.
class NumpyBufferAllocator final : public Allocator {
 public:
  explicit NumpyBufferAllocator(PyArrayObject* array) : array_(array) {
    Py_INCREF(array_);
  }
  std::string Name() override { return "numpy_buffer"; }
  void* AllocateRaw(size_t alignment, size_t num_bytes) override {
    (void)alignment;
    (void)num_bytes;
    used_ = true;
    return PyArray_DATA(array_);
  }
  void DeallocateRaw(void* ptr) override {
    (void)ptr;
    Release();
    delete this;
  }
  bool used() const { return used_; }
  // For a failed Allocate that never took the buffer.
  void Discard() {
    Release();
    delete this;
  }

 private:
  ~NumpyBufferAllocator() override = default;
  void Release() {
    // At interpreter shutdown the array is leaked rather than touched.
    if (!Py_IsInitialized() || _Py_IsFinalizing()) return;
    PyGILState_STATE gil = PyGILState_Ensure();
    Py_DECREF(array_);
    PyGILState_Release(gil);
  }
  PyArrayObject* const array_;
  bool used_ = false;
};

bool ShapeOf(PyArrayObject* array, const char* arg_name, TensorShape* shape) {
  const int nd = PyArray_NDIM(array);
  const npy_intp* dims = PyArray_DIMS(array);
  int64_t sizes[NPY_MAXDIMS];
  for (int i = 0; i < nd; ++i) sizes[i] = static_cast<int64_t>(dims[i]);
  Status s = TensorShape::BuildTensorShape(sizes, nd, shape);
  if (!s.ok()) {
    PyRef message(MessageToPy(s.message()));
    if (message) {
      PyErr_Format(PyExc_ValueError, "Argument '%s': %U", arg_name,
                   message.get());
    }
    return false;
  }
  return true;
}

// One Python string element (str or bytes) into `*out`.
bool StringElement(PyObject* item, const char* arg_name, tstring* out) {
  if (PyBytes_Check(item)) {
    out->assign(PyBytes_AS_STRING(item), PyBytes_GET_SIZE(item));
    return true;
  }
  if (PyUnicode_Check(item)) {
    Py_ssize_t n = 0;
    const char* s = PyUnicode_AsUTF8AndSize(item, &n);
    if (s == nullptr) return false;
    out->assign(s, n);
    return true;
  }
  PyErr_Format(PyExc_TypeError,
               "Argument '%s': a string tensor needs str or bytes elements, "
               "got %s of type %s",
               arg_name, ShortRepr(item).c_str(), TypeName(item).c_str());
  return false;
}

bool StringArrayToTensor(PyArrayObject* array, const char* arg_name,
                         Tensor* out) {
  TensorShape shape;
  if (!ShapeOf(array, arg_name, &shape)) return false;
  Tensor t;
  Status s = Tensor::Allocate(DT_STRING, shape, &t);
  if (!s.ok()) {
    RaiseStatus(s);
    return false;
  }
  PyRef contiguous(reinterpret_cast<PyObject*>(PyArray_GETCONTIGUOUS(array)));
  if (!contiguous) return false;
  PyArrayObject* c = reinterpret_cast<PyArrayObject*>(contiguous.get());
  const int64_t n = t.NumElements();
  char* data = static_cast<char*>(PyArray_DATA(c));
  const npy_intp itemsize = PyArray_ITEMSIZE(c);
  tstring* dst = static_cast<tstring*>(t.data());
  for (int64_t i = 0; i < n; ++i) {
    PyRef item(PyArray_GETITEM(c, data + i * itemsize));
    if (!item) return false;
    if (!StringElement(item.get(), arg_name, &dst[i])) return false;
  }
  *out = std::move(t);
  return true;
}

bool CopyArrayToTensor(PyArrayObject* array, DataType dtype,
                       const char* arg_name, Tensor* out) {
  TensorShape shape;
  if (!ShapeOf(array, arg_name, &shape)) return false;
  Tensor t;
  Status s = Tensor::Allocate(dtype, shape, &t);
  if (!s.ok()) {
    RaiseStatus(s);
    return false;
  }
  if (t.NumElements() > 0) {
    if (PyArray_IS_C_CONTIGUOUS(array) && PyArray_ISNOTSWAPPED(array)) {
      std::memcpy(t.data(), PyArray_DATA(array), t.TotalBytes());
    } else {
      // numpy does the strided / byte-swapping copy into our buffer.
      npy_intp dims[NPY_MAXDIMS];
      const int nd = PyArray_NDIM(array);
      std::copy(PyArray_DIMS(array), PyArray_DIMS(array) + nd, dims);
      PyArray_Descr* descr = PyArray_DescrFromType(DataTypeToNumpy(dtype));
      if (descr == nullptr) return false;
      PyRef view(PyArray_NewFromDescr(&PyArray_Type, descr, nd, dims, nullptr,
                                      t.data(), NPY_ARRAY_CARRAY, nullptr));
      if (!view) return false;
      if (PyArray_CopyInto(reinterpret_cast<PyArrayObject*>(view.get()),
                           array) != 0) {
        return false;
      }
    }
  }
  *out = std::move(t);
  return true;
}

}  // namespace

bool HasNonCanonicalBools(const void* data, size_t n) {
  const unsigned char* bytes = static_cast<const unsigned char*>(data);
  unsigned char any = 0;
  for (size_t i = 0; i < n; ++i) any |= bytes[i];
  return (any & 0xFE) != 0;
}

void CanonicalizeBools(void* data, size_t n) {
  unsigned char* bytes = static_cast<unsigned char*>(data);
  for (size_t i = 0; i < n; ++i) bytes[i] = bytes[i] != 0 ? 1 : 0;
}

namespace {

bool ConvertArray(PyArrayObject* array, const char* arg_name, Tensor* out,
                  bool allow_zero_copy, bool* zero_copy) {
  if (zero_copy != nullptr) *zero_copy = false;
  const DataType dtype = NumpyToDataType(PyArray_DESCR(array));
  if (dtype == DT_INVALID) {
    PyRef dt(PyObject_Repr(reinterpret_cast<PyObject*>(PyArray_DESCR(array))));
    PyErr_Format(PyExc_TypeError,
                 "Argument '%s': numpy dtype %s has no opkit equivalent; "
                 "convert it first (e.g. with .astype(np.float32))",
                 arg_name, dt ? PyUnicode_AsUTF8(dt.get()) : "?");
    return false;
  }
  if (dtype == DT_STRING) return StringArrayToTensor(array, arg_name, out);
  // Below kZeroCopyMinBytes a copy (into a kept buffer, see fast_op.cc) is
  // cheaper than the one-shot allocator and the GIL dance at release.
  // Note [Bool bytes]: numpy calls any non-zero byte of a bool array True
  // (a view of other bytes, np.frombuffer), kernels assume 0 or 1; such an
  // array is copied and its bools made 0/1, the caller's left as it is.
  if (allow_zero_copy && PyArray_NBYTES(array) >= kZeroCopyMinBytes &&
      PyArray_IS_C_CONTIGUOUS(array) &&
      PyArray_ISNOTSWAPPED(array) && PyArray_SIZE(array) > 0 &&
      reinterpret_cast<uintptr_t>(PyArray_DATA(array)) % kAllocatorAlignment ==
          0 &&
      !(dtype == DT_BOOL && HasNonCanonicalBools(PyArray_DATA(array),
                                                 PyArray_NBYTES(array)))) {
    TensorShape shape;
    if (!ShapeOf(array, arg_name, &shape)) return false;
    auto* allocator = new NumpyBufferAllocator(array);
    Tensor t;
    Status s = Tensor::Allocate(dtype, shape, &t, allocator);
    if (!s.ok()) {
      if (!allocator->used()) allocator->Discard();
      RaiseStatus(s);
      return false;
    }
    if (!allocator->used()) allocator->Discard();  // defensive: no buffer
    *out = std::move(t);
    if (zero_copy != nullptr) *zero_copy = true;
    return true;
  }
  if (!CopyArrayToTensor(array, dtype, arg_name, out)) return false;
  if (dtype == DT_BOOL && out->NumElements() > 0) {
    CanonicalizeBools(out->data(), out->TotalBytes());
  }
  return true;
}

// The base object of a result array: keeps the Tensor (and so its buffer)
// alive as long as the array. One allocation, unlike a capsule around a
// heap-allocated Tensor.
struct TensorHolder {
  PyObject_HEAD
  Tensor tensor;
};

void TensorHolderDealloc(PyObject* self) {
  reinterpret_cast<TensorHolder*>(self)->tensor.~Tensor();
  Py_TYPE(self)->tp_free(self);
}

PyTypeObject* TensorHolderType() {
  static PyTypeObject* type = [] {
    static PyTypeObject t{};
    Py_SET_REFCNT(reinterpret_cast<PyObject*>(&t), 1);  // never freed
    t.tp_name = "opkit._opkit.TensorBuffer";
    t.tp_basicsize = sizeof(TensorHolder);
    t.tp_flags = Py_TPFLAGS_DEFAULT;
    t.tp_doc = "Owns the opkit Tensor behind a result array.";
    t.tp_dealloc = TensorHolderDealloc;
    return PyType_Ready(&t) < 0 ? nullptr : &t;
  }();
  return type;
}

PyObject* NewTensorHolder(const Tensor& tensor) {
  PyTypeObject* type = TensorHolderType();
  if (type == nullptr) return nullptr;
  TensorHolder* h = PyObject_New(TensorHolder, type);
  if (h == nullptr) return nullptr;
  new (&h->tensor) Tensor(tensor);
  return reinterpret_cast<PyObject*>(h);
}

Status BadAttr(const OpDef::AttrDef& attr, const char* expected,
               PyObject* value) {
  return errors::InvalidArgument("Attr '", attr.name(), "' expects ", expected,
                                 ", got ", ShortRepr(value), " of type ",
                                 TypeName(value));
}

// Fetches and clears the pending Python error as text.
std::string TakePyError() {
  PyObject *type, *value, *tb;
  PyErr_Fetch(&type, &value, &tb);
  std::string msg = value != nullptr ? ShortRepr(value) : "unknown error";
  Py_XDECREF(type);
  Py_XDECREF(value);
  Py_XDECREF(tb);
  return msg;
}

Status ScalarAttr(PyObject* value, const std::string& type,
                  const OpDef::AttrDef& attr, AttrValue* out);

Status PyToDataType(PyObject* value, const OpDef::AttrDef& attr,
                    DataType* dtype) {
  if (PyLong_Check(value) && !PyBool_Check(value)) {
    long v = PyLong_AsLong(value);
    if (v == -1 && PyErr_Occurred()) {
      PyErr_Clear();
      return BadAttr(attr, "a dtype", value);
    }
    if (v <= 0 || v > INT32_MAX || !DataTypeIsValid(static_cast<int>(v))) {
      return BadAttr(attr, "a dtype (a valid DataType number)", value);
    }
    *dtype = static_cast<DataType>(v);
    return Status();
  }
  if (PyUnicode_Check(value)) {
    // TensorFlow's names ("float", "DT_FLOAT", "tf.float32") as the command
    // line reads them; numpy's ("f4", "<f4") below.
    const char* s = PyUnicode_AsUTF8(value);
    if (s == nullptr) {
      PyErr_Clear();
      return BadAttr(attr, "a dtype", value);
    }
    AttrValue parsed;
    if (ParseAttrValue("type", s, AttrTextSyntax::kShorthand, &parsed).ok()) {
      *dtype = parsed.type();
      return Status();
    }
  }
  PyArray_Descr* descr = nullptr;
  if (PyArray_DescrConverter2(value, &descr) && descr != nullptr) {
    *dtype = NumpyToDataType(descr);
    Py_DECREF(descr);
    if (*dtype != DT_INVALID) return Status();
  }
  PyErr_Clear();
  return BadAttr(attr, "a dtype (a numpy dtype, a dtype name such as "
                       "'float32', or a DataType number)", value);
}

Status PyToShape(PyObject* value, const OpDef::AttrDef& attr,
                 TensorShapeProto* shape) {
  if (value == Py_None) {
    shape->set_unknown_rank(true);
    return Status();
  }
  if (!PyList_Check(value) && !PyTuple_Check(value)) {
    return BadAttr(attr, "a shape (a list of ints, None for unknown dims)",
                   value);
  }
  PyRef seq(PySequence_Fast(value, "shape"));
  if (!seq) return errors::Internal(TakePyError());
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(seq.get());
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* d = PySequence_Fast_GET_ITEM(seq.get(), i);
    int64_t size = -1;
    if (d != Py_None) {
      if (!PyIndex_Check(d) || PyBool_Check(d)) {
        return BadAttr(attr, "a shape (a list of ints, None for unknown dims)",
                       value);
      }
      size = PyLong_AsLongLong(d);
      if (size == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        return BadAttr(attr, "dimension sizes that fit in int64", value);
      }
      if (size < -1) {
        return BadAttr(attr, "dimension sizes >= -1", value);
      }
    }
    shape->add_dim()->set_size(size);
  }
  return Status();
}

Status ScalarAttr(PyObject* value, const std::string& type,
                  const OpDef::AttrDef& attr, AttrValue* out) {
  if (type == "int") {
    if (PyBool_Check(value) || !PyIndex_Check(value)) {
      return BadAttr(attr, "an int", value);
    }
    PyRef index(PyNumber_Index(value));
    long long v = index ? PyLong_AsLongLong(index.get()) : -1;
    if (PyErr_Occurred()) {
      PyErr_Clear();
      return BadAttr(attr, "an int that fits in int64", value);
    }
    out->set_i(v);
    return Status();
  }
  if (type == "float") {
    if (PyBool_Check(value) || !(PyFloat_Check(value) || PyIndex_Check(value) ||
                                 PyArray_IsScalar(value, Floating))) {
      return BadAttr(attr, "a float", value);
    }
    double v = PyFloat_AsDouble(value);
    if (v == -1.0 && PyErr_Occurred()) {
      PyErr_Clear();
      return BadAttr(attr, "a float", value);
    }
    out->set_f(static_cast<float>(v));
    return Status();
  }
  if (type == "bool") {
    if (PyBool_Check(value)) {
      out->set_b(value == Py_True);
      return Status();
    }
    if (PyArray_IsScalar(value, Bool)) {
      out->set_b(PyObject_IsTrue(value) == 1);
      return Status();
    }
    return BadAttr(attr, "a bool", value);
  }
  if (type == "string" || type == "func") {
    std::string s;
    if (PyBytes_Check(value)) {
      s.assign(PyBytes_AS_STRING(value), PyBytes_GET_SIZE(value));
    } else if (PyUnicode_Check(value)) {
      Py_ssize_t n = 0;
      const char* p = PyUnicode_AsUTF8AndSize(value, &n);
      if (p == nullptr) {
        PyErr_Clear();
        return BadAttr(attr, "a UTF-8 string", value);
      }
      s.assign(p, n);
    } else {
      return BadAttr(attr, "a string (str or bytes)", value);
    }
    if (type == "func") {
      out->mutable_func()->set_name(s);
    } else {
      out->set_s(s);
    }
    return Status();
  }
  if (type == "type") {
    DataType dt;
    OPKIT_RETURN_IF_ERROR(PyToDataType(value, attr, &dt));
    out->set_type(dt);
    return Status();
  }
  if (type == "shape") return PyToShape(value, attr, out->mutable_shape());
  if (type == "tensor") {
    PyRef array(PyArray_FROM_O(value));
    if (!array) {
      return errors::InvalidArgument("Attr '", attr.name(),
                                     "' expects a tensor value: ",
                                     TakePyError());
    }
    Tensor t;
    if (!NdarrayToTensorCopy(reinterpret_cast<PyArrayObject*>(array.get()),
                             attr.name().c_str(), &t)) {
      return errors::InvalidArgument("Attr '", attr.name(),
                                     "' expects a tensor value: ",
                                     TakePyError());
    }
    if (t.dtype() == DT_STRING) {
      t.AsProtoField(out->mutable_tensor());
    } else {
      t.AsProtoTensorContent(out->mutable_tensor());
    }
    return Status();
  }
  return errors::Unimplemented("Attr '", attr.name(), "' has type '", type,
                               "', which opkit's Python binding cannot set");
}

}  // namespace

namespace {
// Set through opkit.config.threading before the context exists; read
// under the GIL, as PyEagerContext is called.
int g_eager_intra_op_threads = 0;
bool g_eager_context_initialized = false;
}  // namespace

bool PyEagerContextInitialized() { return g_eager_context_initialized; }

Status SetPyEagerIntraOpThreads(int threads) {
  if (threads < 0) {
    return errors::InvalidArgument(
        "intra_op_parallelism_threads is ", threads,
        "; pass 0 for one thread per CPU or a positive count to pin it");
  }
  if (g_eager_context_initialized && threads != g_eager_intra_op_threads) {
    return errors::FailedPrecondition(
        "Intra op parallelism cannot be modified after initialization.");
  }
  g_eager_intra_op_threads = threads;
  return OkStatus();
}

EagerContext* PyEagerContext() {
  static EagerContext* context = nullptr;
  static Status* error = nullptr;
  if (context == nullptr && error == nullptr) {
    g_eager_context_initialized = true;
    EagerContext::Options options;
    options.intra_op_threads = g_eager_intra_op_threads;
    auto created = EagerContext::Create(options);
    if (created.ok()) {
      context = std::move(created).value().release();
    } else {
      error = new Status(created.status());
    }
  }
  if (context == nullptr) RaiseStatus(*error);
  return context;
}

PyObject* MessageToPy(const std::string& message) {
  // A message may quote bytes from a file or a caller (an attr value, a
  // node name): NULs and bytes that are not UTF-8 are shown escaped, as
  // \x00 and \xff, instead of cutting the text or failing to decode it.
  std::string text;
  text.reserve(message.size());
  for (char c : message) {
    if (c == '\0') {
      text += "\\x00";
    } else {
      text += c;
    }
  }
  return PyUnicode_DecodeUTF8(text.data(), static_cast<Py_ssize_t>(text.size()),
                              "backslashreplace");
}

PyObject* RaiseStatus(const Status& status) {
  const int code = static_cast<int>(status.code());
  PyObject* cls = nullptr;
  if (code > 0 && code <= error::UNAUTHENTICATED) cls = g_error_classes[code];
  if (cls == nullptr) cls = PyExc_RuntimeError;
  PyRef message(MessageToPy(status.message()));
  if (!message) return nullptr;  // MemoryError is set
  PyErr_SetObject(cls, message.get());
  return nullptr;
}

PyObject* RegisterErrorClasses(PyObject* classes) {
  PyRef seq(PySequence_Fast(classes, "expected a sequence of classes"));
  if (!seq) return nullptr;
  if (PySequence_Fast_GET_SIZE(seq.get()) != error::UNAUTHENTICATED + 1) {
    PyErr_SetString(PyExc_ValueError,
                    "expected 17 entries, one per error code");
    return nullptr;
  }
  for (int i = 1; i <= error::UNAUTHENTICATED; ++i) {
    PyObject* cls = PySequence_Fast_GET_ITEM(seq.get(), i);
    if (!PyType_Check(cls) ||
        !PyType_IsSubtype(reinterpret_cast<PyTypeObject*>(cls),
                          reinterpret_cast<PyTypeObject*>(PyExc_Exception))) {
      PyErr_Format(PyExc_TypeError, "entry %d is not an exception class", i);
      return nullptr;
    }
  }
  for (int i = 1; i <= error::UNAUTHENTICATED; ++i) {
    PyObject* cls = PySequence_Fast_GET_ITEM(seq.get(), i);
    Py_INCREF(cls);
    Py_XDECREF(g_error_classes[i]);
    g_error_classes[i] = cls;
  }
  Py_RETURN_NONE;
}

int DataTypeToNumpy(DataType dtype) {
  switch (dtype) {
    case DT_FLOAT: return NPY_FLOAT32;
    case DT_DOUBLE: return NPY_FLOAT64;
    case DT_HALF: return NPY_FLOAT16;
    case DT_INT8: return NPY_INT8;
    case DT_INT16: return NPY_INT16;
    case DT_INT32: return NPY_INT32;
    case DT_INT64: return NPY_INT64;
    case DT_UINT8: return NPY_UINT8;
    case DT_UINT16: return NPY_UINT16;
    case DT_UINT32: return NPY_UINT32;
    case DT_UINT64: return NPY_UINT64;
    case DT_BOOL: return NPY_BOOL;
    case DT_COMPLEX64: return NPY_COMPLEX64;
    case DT_COMPLEX128: return NPY_COMPLEX128;
    case DT_STRING: return NPY_OBJECT;
    default: return -1;
  }
}

DataType NumpyToDataType(PyArray_Descr* descr) {
  const int size = static_cast<int>(descr->elsize);
  switch (descr->kind) {
    case 'f':
      return size == 2 ? DT_HALF : size == 4 ? DT_FLOAT
                                 : size == 8 ? DT_DOUBLE : DT_INVALID;
    case 'i':
      return size == 1 ? DT_INT8 : size == 2 ? DT_INT16
             : size == 4 ? DT_INT32 : size == 8 ? DT_INT64 : DT_INVALID;
    case 'u':
      return size == 1 ? DT_UINT8 : size == 2 ? DT_UINT16
             : size == 4 ? DT_UINT32 : size == 8 ? DT_UINT64 : DT_INVALID;
    case 'b':
      return size == 1 ? DT_BOOL : DT_INVALID;
    case 'c':
      return size == 8 ? DT_COMPLEX64 : size == 16 ? DT_COMPLEX128 : DT_INVALID;
    case 'O':
    case 'S':
    case 'U':
      return DT_STRING;
    default:
      return DT_INVALID;
  }
}

bool NdarrayToTensor(PyArrayObject* array, const char* arg_name, Tensor* out,
                     bool* zero_copy) {
  return ConvertArray(array, arg_name, out, /*allow_zero_copy=*/true,
                      zero_copy);
}

bool NdarrayToTensorCopy(PyArrayObject* array, const char* arg_name,
                         Tensor* out) {
  return ConvertArray(array, arg_name, out, /*allow_zero_copy=*/false, nullptr);
}

PyObject* TensorToNdarray(const Tensor& tensor, bool readonly,
                          PyTypeObject* subtype) {
  if (tensor.dtype() == DT_RESOURCE || tensor.dtype() == DT_VARIANT) {
    return WrapOpaqueTensor(tensor);
  }
  if (subtype != nullptr && subtype != &PyArray_Type &&
      (tensor.dtype() == DT_STRING || tensor.NumElements() == 0)) {
    PyRef plain(TensorToNdarray(tensor, readonly));
    if (!plain) return nullptr;
    return PyArray_View(reinterpret_cast<PyArrayObject*>(plain.get()), nullptr,
                        subtype);
  }
  const int typenum = DataTypeToNumpy(tensor.dtype());
  if (typenum < 0) {
    PyErr_Format(PyExc_TypeError,
                 "A result of dtype %s has no numpy equivalent; cast it in "
                 "the graph or op first (e.g. with Cast)",
                 DataTypeString(tensor.dtype()).c_str());
    return nullptr;
  }
  if (!tensor.IsInitialized()) {
    PyErr_SetString(PyExc_RuntimeError,
                    "An op returned a tensor without storage");
    return nullptr;
  }
  npy_intp dims[NPY_MAXDIMS];
  const int nd = tensor.dims();
  if (nd > NPY_MAXDIMS) {
    PyErr_Format(PyExc_ValueError,
                 "A result has rank %d; numpy supports at most %d dimensions",
                 nd, NPY_MAXDIMS);
    return nullptr;
  }
  for (int i = 0; i < nd; ++i) dims[i] = static_cast<npy_intp>(tensor.dim_size(i));
  if (tensor.dtype() == DT_STRING) {
    PyRef array(PyArray_SimpleNew(nd, dims, NPY_OBJECT));
    if (!array) return nullptr;
    PyObject** dst = static_cast<PyObject**>(
        PyArray_DATA(reinterpret_cast<PyArrayObject*>(array.get())));
    const tstring* src = static_cast<const tstring*>(tensor.data());
    const int64_t n = tensor.NumElements();
    for (int64_t i = 0; i < n; ++i) {
      PyObject* b = PyBytes_FromStringAndSize(src[i].data(), src[i].size());
      if (b == nullptr) return nullptr;
      Py_XDECREF(dst[i]);
      dst[i] = b;
    }
    return array.release();
  }
  if (tensor.NumElements() == 0 || tensor.data() == nullptr) {
    return PyArray_SimpleNew(nd, dims, typenum);
  }
  PyRef capsule(NewTensorHolder(tensor));
  if (!capsule) return nullptr;
  PyRef array(PyArray_New(subtype != nullptr ? subtype : &PyArray_Type, nd,
                          dims, typenum, nullptr,
                          tensor.data(), 0,
                          readonly ? (NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED)
                                   : NPY_ARRAY_CARRAY,
                          nullptr));
  if (!array) return nullptr;
  if (PyArray_SetBaseObject(reinterpret_cast<PyArrayObject*>(array.get()),
                            capsule.release()) != 0) {
    return nullptr;
  }
  return array.release();
}

Status PyToAttrValue(PyObject* value, const OpDef::AttrDef& attr,
                     AttrValue* out) {
  const std::string& type = attr.type();
  out->Clear();
  if (type.rfind("list(", 0) == 0 && type.back() == ')') {
    const std::string elem = type.substr(5, type.size() - 6);
    if (PyUnicode_Check(value) || PyBytes_Check(value) ||
        !(PyList_Check(value) || PyTuple_Check(value))) {
      return BadAttr(attr, ("a list of " + elem).c_str(), value);
    }
    AttrValue::ListValue* list = out->mutable_list();
    PyRef seq(PySequence_Fast(value, "list"));
    if (!seq) return errors::Internal(TakePyError());
    const Py_ssize_t n = PySequence_Fast_GET_SIZE(seq.get());
    for (Py_ssize_t i = 0; i < n; ++i) {
      AttrValue one;
      OPKIT_RETURN_IF_ERROR(
          ScalarAttr(PySequence_Fast_GET_ITEM(seq.get(), i), elem, attr, &one));
      if (elem == "int") list->add_i(one.i());
      else if (elem == "float") list->add_f(one.f());
      else if (elem == "bool") list->add_b(one.b());
      else if (elem == "string") list->add_s(one.s());
      else if (elem == "type") list->add_type(one.type());
      else if (elem == "shape") *list->add_shape() = one.shape();
      else if (elem == "tensor") *list->add_tensor() = one.tensor();
      else if (elem == "func") *list->add_func() = one.func();
    }
    return Status();
  }
  return ScalarAttr(value, type, attr, out);
}

namespace {

PyObject* ShapeToPy(const TensorShapeProto& shape) {
  if (shape.unknown_rank()) Py_RETURN_NONE;
  PyRef list(PyList_New(shape.dim_size()));
  if (!list) return nullptr;
  for (int i = 0; i < shape.dim_size(); ++i) {
    PyObject* d;
    if (shape.dim(i).size() < 0) {
      Py_INCREF(Py_None);
      d = Py_None;
    } else {
      d = PyLong_FromLongLong(shape.dim(i).size());
      if (d == nullptr) return nullptr;
    }
    PyList_SET_ITEM(list.get(), i, d);
  }
  return list.release();
}

PyObject* BytesToPy(const std::string& s) {
  PyObject* u = PyUnicode_DecodeUTF8(s.data(), s.size(), nullptr);
  if (u != nullptr) return u;
  PyErr_Clear();
  return PyBytes_FromStringAndSize(s.data(), s.size());
}

PyObject* TensorProtoToPy(const TensorProto& proto) {
  Tensor t;
  Status s = Tensor::BuildFromProto(proto, &t);
  if (!s.ok()) return RaiseStatus(s);
  return TensorToNdarray(t, /*readonly=*/false);
}

}  // namespace

PyObject* AttrValueToPy(const AttrValue& value, const std::string& type) {
  if (type.rfind("list(", 0) == 0) {
    const AttrValue::ListValue& l = value.list();
    PyRef out(PyList_New(0));
    if (!out) return nullptr;
    auto append = [&](PyObject* item) {
      if (item == nullptr) return false;
      int rc = PyList_Append(out.get(), item);
      Py_DECREF(item);
      return rc == 0;
    };
    for (auto v : l.i()) if (!append(PyLong_FromLongLong(v))) return nullptr;
    for (auto v : l.f()) if (!append(PyFloat_FromDouble(v))) return nullptr;
    for (auto v : l.b()) if (!append(PyBool_FromLong(v))) return nullptr;
    for (const auto& v : l.s()) if (!append(BytesToPy(v))) return nullptr;
    for (auto v : l.type()) if (!append(PyLong_FromLong(v))) return nullptr;
    for (const auto& v : l.shape()) if (!append(ShapeToPy(v))) return nullptr;
    for (const auto& v : l.tensor())
      if (!append(TensorProtoToPy(v))) return nullptr;
    for (const auto& v : l.func())
      if (!append(PyUnicode_FromString(v.name().c_str()))) return nullptr;
    return out.release();
  }
  switch (value.value_case()) {
    case AttrValue::kI: return PyLong_FromLongLong(value.i());
    case AttrValue::kF: return PyFloat_FromDouble(value.f());
    case AttrValue::kB: return PyBool_FromLong(value.b());
    case AttrValue::kS: return BytesToPy(value.s());
    case AttrValue::kType: return PyLong_FromLong(value.type());
    case AttrValue::kShape: return ShapeToPy(value.shape());
    case AttrValue::kTensor: return TensorProtoToPy(value.tensor());
    case AttrValue::kFunc: return PyUnicode_FromString(value.func().name().c_str());
    case AttrValue::kList: return PyList_New(0);
    default: Py_RETURN_NONE;
  }
}

}  // namespace internal
}  // namespace opkit
