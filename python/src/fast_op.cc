// opkit._opkit.FastOp: the callable behind every generated op function.
//
//   op = _opkit.FastOp("AddV2", ("T",), converter, None)
//   op(x, y, None)   # inputs positionally, then every attr value (None: unset)
//
//   # As a public function: with `params` it binds arguments itself.
//   add_v2 = _opkit.FastOp("AddV2", ("T",), converter, None,
//                          [("x", 0, REQUIRED, False), ("y", 1, REQUIRED, False),
//                           ("name", -1, None, False), ("T", 2, None, True)],
//                          "add_v2")
//   add_v2(x, y=y)
//
// A vectorcall CPython type rather than a pybind11 function or a Python
// wrapper: pybind11's dispatcher costs hundreds of nanoseconds per call, and
// a Python frame around the call most of a hundred, more than the rest of a
// small op together. The call:
//   0. with params, binds positional and keyword arguments to them as
//      Python binds a function's (same TypeErrors), defaults filled in;
//   1. takes the inputs as they are when each is a numpy array (a list or
//      tuple of arrays for a list input); otherwise it hands all arguments
//      to `converter` (Python, opkit/_op_gen.py), which applies TensorFlow's
//      conversion rules and returns them as arrays;
//   2. finds a PreparedOp in a small per-op cache keyed by the input dtypes
//      and the attr values (compared without running Python code), or
//      prepares one (EagerContext::Prepare; it re-selects its kernel when the
//      kernel registry changes);
//   3. wraps the inputs as Tensors (zero-copy when large and 64-byte
//      aligned; small ones are copied into buffers kept from the previous
//      call), runs, and returns the outputs as numpy arrays over the
//      Tensors' buffers.
#include "common.h"

#include <cstddef>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "opkit/op/op_registry.h"
#include "fast_op.h"
#include "tape.h"

namespace opkit {
namespace internal {
namespace {

// Distinct (dtypes, attrs) combinations kept per op.
constexpr size_t kMaxCacheEntries = 16;
// Copied inputs up to this size are kept between calls and copied into
// again when the next call's array has the same dtype and shape, which
// saves two allocations per input of a small op.
constexpr size_t kKeepInputBytes = 1024;

// Copies `array` into `*t` when `*t` is a kept input of the same dtype and
// shape that nothing else references; false when it cannot.
bool ReuseInput(PyArrayObject* array, DataType dtype, Tensor* t) {
  if (t->dtype() != dtype || dtype == DT_STRING || !t->IsInitialized() ||
      t->data() == nullptr || !t->RefCountIsOne()) {
    return false;
  }
  const int nd = PyArray_NDIM(array);
  if (t->dims() != nd || !PyArray_IS_C_CONTIGUOUS(array) ||
      !PyArray_ISNOTSWAPPED(array)) {
    return false;
  }
  const npy_intp* dims = PyArray_DIMS(array);
  for (int i = 0; i < nd; ++i) {
    if (t->dim_size(i) != static_cast<int64_t>(dims[i])) return false;
  }
  std::memcpy(t->data(), PyArray_DATA(array), t->TotalBytes());
  if (dtype == DT_BOOL) CanonicalizeBools(t->data(), t->TotalBytes());
  return true;
}

struct CacheEntry {
  DataTypeVector dtypes;
  std::vector<PyObject*> attrs;  // owned references (None: attr not given)
  EagerAttrs eager_attrs;
  std::unique_ptr<PreparedOp> op;
  // Per output arg: -1 for a single tensor, else the list's length.
  std::vector<int> out_lens;
  // Reused by the call holding `busy`, so the hot path does not allocate.
  std::vector<Tensor> inputs;
  std::vector<Tensor> outputs;
  bool busy = false;
  // The gradients of this signature, made when a tape first records it.
  std::shared_ptr<GradientCache> gradients;

  ~CacheEntry() {
    for (PyObject* a : attrs) Py_XDECREF(a);
  }
};

// One Python parameter of a FastOp used as the op's public function.
struct Param {
  PyObject* name = nullptr;     // owned, interned str
  int slot = -1;                // index among inputs+attrs; -1: ignored (`name`)
  PyObject* fallback = nullptr; // owned default; null when required
  bool keyword_only = false;
};

struct FastOpState {
  std::string op_name;
  // The public function's parameters, in signature order (empty: the
  // FastOp takes exactly num_args positional values).
  std::vector<Param> params;
  std::string function_name;
  int max_positional = 0;
  OpDef op_def;
  std::vector<bool> input_is_list;
  std::vector<const OpDef::AttrDef*> attr_defs;  // point into op_def
  int num_args = 0;
  PyObject* converter = nullptr;     // owned
  PyObject* output_class = nullptr;  // owned; None for one output
  std::vector<std::unique_ptr<CacheEntry>> cache;

  ~FastOpState() {
    Py_XDECREF(converter);
    Py_XDECREF(output_class);
    for (Param& p : params) {
      Py_XDECREF(p.name);
      Py_XDECREF(p.fallback);
    }
  }
};

struct FastOpObject {
  PyObject_HEAD
  vectorcallfunc vectorcall;
  FastOpState* state;
  // __name__, __doc__, __signature__, ... of the public function.
  PyObject* dict;
};

// The marker for "no default" in FastOp params (opkit._opkit.REQUIRED).
PyObject* RequiredMarker() {
  static PyObject* marker = PyObject_CallNoArgs(
      reinterpret_cast<PyObject*>(&PyBaseObject_Type));
  return marker;
}

// numpy arrays, and opkit.ResourceTensors / opkit.VariantTensors for
// DT_RESOURCE / DT_VARIANT inputs.
using FlatArrays = absl::InlinedVector<PyObject*, 8>;
using FlatTypes = absl::InlinedVector<DataType, 8>;

// Whether `a` and `b` are equal attr values, decided without running Python
// code (no __eq__ of user classes): identity, equal builtin scalars and
// strings, element-wise equal lists/tuples of those.
bool SafeEqual(PyObject* a, PyObject* b) {
  if (a == b) return true;
  if (Py_TYPE(a) != Py_TYPE(b)) return false;
  if (PyLong_CheckExact(a) || PyFloat_CheckExact(a) ||
      PyUnicode_CheckExact(a) || PyBytes_CheckExact(a)) {
    int eq = PyObject_RichCompareBool(a, b, Py_EQ);
    if (eq < 0) {
      PyErr_Clear();
      return false;
    }
    return eq == 1;
  }
  if (PyList_CheckExact(a) || PyTuple_CheckExact(a)) {
    const Py_ssize_t n = PySequence_Fast_GET_SIZE(a);
    if (n != PySequence_Fast_GET_SIZE(b)) return false;
    for (Py_ssize_t i = 0; i < n; ++i) {
      if (!SafeEqual(PySequence_Fast_GET_ITEM(a, i),
                     PySequence_Fast_GET_ITEM(b, i))) {
        return false;
      }
    }
    return true;
  }
  return false;
}

// Collects the inputs as arrays; false (no exception) when one is not a
// numpy array of a dtype opkit has.
bool ParseInputs(const FastOpState& st, PyObject* const* args,
                 FlatArrays* arrays, FlatTypes* dtypes) {
  const int n = static_cast<int>(st.input_is_list.size());
  for (int i = 0; i < n; ++i) {
    PyObject* a = args[i];
    if (!st.input_is_list[i]) {
      if (IsOpaqueTensor(a)) {
        arrays->push_back(a);
        dtypes->push_back(UnwrapOpaqueTensor(a).dtype());
        continue;
      }
      if (!PyArray_Check(a)) return false;
      PyArrayObject* arr = reinterpret_cast<PyArrayObject*>(a);
      DataType dt = NumpyToDataType(PyArray_DESCR(arr));
      if (dt == DT_INVALID) return false;
      arrays->push_back(a);
      dtypes->push_back(dt);
      continue;
    }
    if (!PyList_Check(a) && !PyTuple_Check(a)) return false;
    const Py_ssize_t m = PySequence_Fast_GET_SIZE(a);
    for (Py_ssize_t j = 0; j < m; ++j) {
      PyObject* e = PySequence_Fast_GET_ITEM(a, j);
      if (IsOpaqueTensor(e)) {
        arrays->push_back(e);
        dtypes->push_back(UnwrapOpaqueTensor(e).dtype());
        continue;
      }
      if (!PyArray_Check(e)) return false;
      PyArrayObject* arr = reinterpret_cast<PyArrayObject*>(e);
      DataType dt = NumpyToDataType(PyArray_DESCR(arr));
      if (dt == DT_INVALID) return false;
      arrays->push_back(e);
      dtypes->push_back(dt);
    }
  }
  return true;
}

// Name of the input arg holding flat input `index`, for messages.
const char* InputName(const FastOpState& st, PyObject* const* args,
                      size_t index) {
  size_t flat = 0;
  for (size_t i = 0; i < st.input_is_list.size(); ++i) {
    size_t count = 1;
    if (st.input_is_list[i]) {
      PyObject* a = args[i];
      count = (PyList_Check(a) || PyTuple_Check(a))
                  ? static_cast<size_t>(PySequence_Fast_GET_SIZE(a))
                  : 1;
    }
    if (index < flat + count) return st.op_def.input_arg(i).name().c_str();
    flat += count;
  }
  return "?";
}

CacheEntry* FindEntry(const FastOpState& st, PyObject* const* attr_args,
                      const FlatTypes& dtypes) {
  for (const auto& e : st.cache) {
    if (e->dtypes.size() != dtypes.size()) continue;
    bool same = true;
    for (size_t i = 0; i < dtypes.size() && same; ++i) {
      same = e->dtypes[i] == dtypes[i];
    }
    for (size_t j = 0; j < e->attrs.size() && same; ++j) {
      same = SafeEqual(e->attrs[j], attr_args[j]);
    }
    if (same) return e.get();
  }
  return nullptr;
}

std::vector<int> OutputLengths(const OpDef& op_def, const NodeDef& node) {
  std::vector<int> lens;
  for (const auto& arg : op_def.output_arg()) {
    int len = -1;
    if (!arg.number_attr().empty()) {
      auto it = node.attr().find(arg.number_attr());
      len = it == node.attr().end() ? 0 : static_cast<int>(it->second.i());
    } else if (!arg.type_list_attr().empty()) {
      auto it = node.attr().find(arg.type_list_attr());
      len = it == node.attr().end() ? 0
                                    : it->second.list().type_size();
    }
    lens.push_back(len);
  }
  return lens;
}

// Prepares and caches the op for these dtypes and attrs. Null with an
// exception set on failure.
CacheEntry* AddEntry(FastOpState* st, PyObject* const* attr_args,
                     const FlatTypes& dtypes) {
  EagerContext* ctx = PyEagerContext();
  if (ctx == nullptr) return nullptr;
  auto e = std::make_unique<CacheEntry>();
  for (size_t j = 0; j < st->attr_defs.size(); ++j) {
    PyObject* v = attr_args[j];
    // None leaves an attr to its default, except a shape's: None is the
    // unknown shape there (TensorFlow's shape=None).
    if (v == Py_None && st->attr_defs[j]->type() != "shape") continue;
    AttrValue value;
    Status s = PyToAttrValue(v, *st->attr_defs[j], &value);
    if (!s.ok()) {
      RaiseStatus(Status(s.code(), st->op_name + ": " + s.message()));
      return nullptr;
    }
    e->eager_attrs.emplace_back(st->attr_defs[j]->name(), std::move(value));
  }
  e->dtypes.assign(dtypes.begin(), dtypes.end());
  auto prepared = ctx->Prepare(st->op_name, e->dtypes, e->eager_attrs);
  if (!prepared.ok()) {
    RaiseStatus(prepared.status());
    return nullptr;
  }
  e->op = std::move(prepared).value();
  e->out_lens = OutputLengths(st->op_def, e->op->node_def());
  for (size_t j = 0; j < st->attr_defs.size(); ++j) {
    Py_INCREF(attr_args[j]);
    e->attrs.push_back(attr_args[j]);
  }
  if (st->cache.size() >= kMaxCacheEntries) {
    // Evict the oldest entry no call is using (entries of calls running
    // with the GIL released stay).
    for (auto it = st->cache.begin(); it != st->cache.end(); ++it) {
      if (!(*it)->busy) {
        st->cache.erase(it);
        break;
      }
    }
  }
  st->cache.push_back(std::move(e));
  return st->cache.back().get();
}

PyObject* BuildResult(const FastOpState& st, const std::vector<int>& lens,
                      std::vector<Tensor>* outputs,
                      const absl::InlinedVector<Tensor, 4>& zero_copy_inputs,
                      PyTypeObject* subtype) {
  size_t total = 0;
  for (int len : lens) total += len < 0 ? 1 : static_cast<size_t>(len);
  if (total != outputs->size()) {
    PyErr_Format(PyExc_RuntimeError,
                 "%s produced %zu outputs where its OpDef declares %zu",
                 st.op_name.c_str(), outputs->size(), total);
    return nullptr;
  }
  auto to_array = [&](const Tensor& t) -> PyObject* {
    // A result sharing memory with a caller's array (Identity, Reshape) is
    // a read-only view, so that writing to it cannot change the input.
    bool readonly = false;
    for (const Tensor& in : zero_copy_inputs) {
      if (t.SharesBufferWith(in)) readonly = true;
    }
    return TensorToNdarray(t, readonly, subtype);
  };
  if (lens.empty()) Py_RETURN_NONE;
  size_t next = 0;
  auto one_arg = [&](int len) -> PyObject* {
    if (len < 0) return to_array((*outputs)[next++]);
    PyRef list(PyList_New(len));
    if (!list) return nullptr;
    for (int k = 0; k < len; ++k) {
      PyObject* a = to_array((*outputs)[next++]);
      if (a == nullptr) return nullptr;
      PyList_SET_ITEM(list.get(), k, a);
    }
    return list.release();
  };
  if (lens.size() == 1) return one_arg(lens[0]);
  PyRef tuple(PyTuple_New(static_cast<Py_ssize_t>(lens.size())));
  if (!tuple) return nullptr;
  for (size_t i = 0; i < lens.size(); ++i) {
    PyObject* item = one_arg(lens[i]);
    if (item == nullptr) return nullptr;
    PyTuple_SET_ITEM(tuple.get(), static_cast<Py_ssize_t>(i), item);
  }
  if (st.output_class == nullptr || st.output_class == Py_None) {
    return tuple.release();
  }
  return PyObject_Call(st.output_class, tuple.get(), nullptr);
}

// What a recorded call keeps of a run besides its result: the cache entry
// it ran (valid until the next call of this op) and its input and output
// Tensors (for the tape's backward pass, which then converts nothing).
struct RunRecord {
  CacheEntry* entry = nullptr;
  std::vector<Tensor> inputs;
  std::vector<Tensor> outputs;
};

// Runs the op on its converted inputs; the results are arrays of
// `subtype` (null: plain ndarrays). `*record`, when given, gets what a
// tape keeps.
PyObject* RunOp(FastOpState* st, PyObject* const* args,
                const FlatArrays& arrays, const FlatTypes& dtypes,
                PyTypeObject* subtype = nullptr, RunRecord* record = nullptr) {
  PyObject* const* attr_args = args + st->input_is_list.size();
  CacheEntry* e = FindEntry(*st, attr_args, dtypes);
  if (e == nullptr) {
    e = AddEntry(st, attr_args, dtypes);
    if (e == nullptr) return nullptr;
  }
  if (record != nullptr) record->entry = e;
  // A call already running this entry (another thread, with the GIL
  // released) owns its PreparedOp: run through the thread-safe context.
  const bool own = !e->busy;
  std::vector<Tensor> local_inputs, local_outputs;
  std::vector<Tensor>& inputs = own ? e->inputs : local_inputs;
  std::vector<Tensor>& outputs = own ? e->outputs : local_outputs;
  std::vector<int> lens = own ? std::vector<int>() : e->out_lens;
  const std::vector<int>& out_lens = own ? e->out_lens : lens;
  EagerAttrs attrs_copy;
  if (!own) attrs_copy = e->eager_attrs;
  if (own) e->busy = true;
  // Inputs wrapping the caller's arrays, and their slots in `inputs`.
  absl::InlinedVector<Tensor, 4> zero_copy;
  absl::InlinedVector<size_t, 4> zero_copy_slots;
  struct Release {
    CacheEntry* e;
    bool own;
    std::vector<Tensor>* in;
    std::vector<Tensor>* out;
    const absl::InlinedVector<size_t, 4>* zero_copy_slots;
    ~Release() {
      out->clear();
      if (!own) {
        in->clear();
        return;
      }
      // Never keep a caller's buffer: the next call would copy into it.
      for (size_t slot : *zero_copy_slots) (*in)[slot] = Tensor();
      // Small copied inputs stay for the next call to copy into (see
      // ReuseInput); anything else is let go now.
      for (Tensor& t : *in) {
        if (t.dtype() == DT_STRING || t.dtype() == DT_RESOURCE ||
            t.dtype() == DT_VARIANT ||
            t.TotalBytes() > kKeepInputBytes ||
            !t.RefCountIsOne()) {
          t = Tensor();
        }
      }
      e->busy = false;
    }
  } release{e, own, &inputs, &outputs, &zero_copy_slots};

  if (inputs.size() != arrays.size()) inputs.resize(arrays.size());
  size_t bytes = 0;
  for (size_t i = 0; i < arrays.size(); ++i) {
    if (dtypes[i] == DT_RESOURCE || dtypes[i] == DT_VARIANT) {
      // Handles and variants are shared as they are (a kernel never writes
      // to its inputs; TensorListSetItem copies a list it does not own).
      inputs[i] = UnwrapOpaqueTensor(arrays[i]);
      continue;
    }
    PyArrayObject* array = reinterpret_cast<PyArrayObject*>(arrays[i]);
    if (own && ReuseInput(array, dtypes[i], &inputs[i])) {
      bytes += inputs[i].TotalBytes();
      continue;
    }
    bool zc = false;
    if (!NdarrayToTensor(array, InputName(*st, args, i), &inputs[i], &zc)) {
      return nullptr;
    }
    // A second reference keeps a kernel from forwarding (and writing into)
    // the caller's buffer: forwarding needs a reference count of one.
    if (zc) {
      zero_copy.push_back(inputs[i]);
      zero_copy_slots.push_back(i);
    }
    bytes += inputs[i].TotalBytes();
  }
  Status s;
  if (bytes >= kReleaseGilBytes) {
    Py_BEGIN_ALLOW_THREADS
    s = own ? e->op->Run(inputs, &outputs)
            : PyEagerContext()->Run(st->op_name, inputs, attrs_copy, &outputs);
    Py_END_ALLOW_THREADS
  } else {
    s = own ? e->op->Run(inputs, &outputs)
            : PyEagerContext()->Run(st->op_name, inputs, attrs_copy, &outputs);
  }
  if (!s.ok()) return RaiseStatus(s);
  if (record != nullptr) {
    record->inputs = inputs;
    record->outputs = outputs;
  }
  return BuildResult(*st, out_lens, &outputs, zero_copy, subtype);
}

// Binds positional and keyword arguments to the parameters as Python
// would for the generated signature, filling `slots` (inputs then attrs,
// borrowed references). False with TypeError set on a binding error.
bool BindArguments(const FastOpState& st, PyObject* const* args,
                   Py_ssize_t nargs, PyObject* kwnames, PyObject** slots,
                   PyObject** name) {
  const char* fn = st.function_name.c_str();
  if (nargs > st.max_positional) {
    PyErr_Format(PyExc_TypeError,
                 "%s() takes at most %d positional arguments (%zd given)", fn,
                 st.max_positional, nargs);
    return false;
  }
  const size_t n = st.params.size();
  absl::InlinedVector<PyObject*, 16> bound(n, nullptr);
  for (Py_ssize_t i = 0; i < nargs; ++i) bound[i] = args[i];
  const Py_ssize_t nkw = kwnames == nullptr ? 0 : PyTuple_GET_SIZE(kwnames);
  for (Py_ssize_t k = 0; k < nkw; ++k) {
    PyObject* key = PyTuple_GET_ITEM(kwnames, k);
    size_t found = n;
    for (size_t p = 0; p < n && found == n; ++p) {
      if (st.params[p].name == key) found = p;
    }
    for (size_t p = 0; p < n && found == n; ++p) {
      if (PyUnicode_Compare(st.params[p].name, key) == 0) found = p;
    }
    if (PyErr_Occurred()) return false;
    if (found == n) {
      PyErr_Format(PyExc_TypeError,
                   "%s() got an unexpected keyword argument '%U'", fn, key);
      return false;
    }
    if (bound[found] != nullptr) {
      PyErr_Format(PyExc_TypeError,
                   "%s() got multiple values for argument '%U'", fn, key);
      return false;
    }
    bound[found] = args[nargs + k];
  }
  for (size_t p = 0; p < n; ++p) {
    const Param& param = st.params[p];
    PyObject* v = bound[p];
    if (v == nullptr) {
      if (param.fallback == nullptr) {
        PyErr_Format(PyExc_TypeError,
                     "%s() missing required argument: '%U'", fn, param.name);
        return false;
      }
      v = param.fallback;
    }
    if (param.slot >= 0) {
      slots[param.slot] = v;
    } else {
      *name = v;
    }
  }
  return true;
}

// Note [Graph hook]: null unless some thread builds a graph
// (opkit.Graph.as_default sets it, the last context's exit clears it), so
// an eager call pays one pointer test for graph mode. While set, every call
// goes to it as hook(fast_op, (inputs..., attrs...), name); it returns
// NotImplemented when the calling thread has no default graph, and the call
// then runs eagerly.
PyObject* graph_hook = nullptr;

PyObject* CallGraphHook(PyObject* self, PyObject* const* args,
                        Py_ssize_t nargs, PyObject* name) {
  PyRef tuple(PyTuple_New(nargs));
  if (!tuple) return nullptr;
  for (Py_ssize_t i = 0; i < nargs; ++i) {
    Py_INCREF(args[i]);
    PyTuple_SET_ITEM(tuple.get(), i, args[i]);
  }
  // The hook may clear itself (a context exiting on another thread).
  PyRef hook(graph_hook);
  Py_INCREF(graph_hook);
  PyObject* call_args[] = {self, tuple.get(), name};
  return PyObject_Vectorcall(hook.get(), call_args, 3, nullptr);
}

PyObject* RunSlots(FastOpState* st, PyObject* const* args, Py_ssize_t nargs);
PyObject* RecordSlots(PyObject* self, FastOpState* st, PyObject* const* args,
                      Py_ssize_t nargs);

PyObject* FastOpVectorcall(PyObject* self, PyObject* const* args,
                           size_t nargsf, PyObject* kwnames) {
  FastOpState* st = reinterpret_cast<FastOpObject*>(self)->state;
  Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
  absl::InlinedVector<PyObject*, 16> slots;
  PyObject* name = Py_None;
  if (!st->params.empty()) {
    slots.assign(st->num_args, nullptr);
    if (!BindArguments(*st, args, nargs, kwnames, slots.data(), &name)) {
      return nullptr;
    }
    args = slots.data();
    nargs = st->num_args;
  } else {
    if (kwnames != nullptr && PyTuple_GET_SIZE(kwnames) > 0) {
      PyErr_Format(PyExc_TypeError,
                   "FastOp(%s) without parameters takes positional arguments "
                   "only",
                   st->op_name.c_str());
      return nullptr;
    }
    if (nargs != st->num_args) {
      PyErr_Format(PyExc_TypeError,
                   "FastOp(%s) takes %d arguments (inputs then attrs), got %zd",
                   st->op_name.c_str(), st->num_args, nargs);
      return nullptr;
    }
  }
  if (graph_hook != nullptr) {  // Note [Graph hook]
    PyObject* built = CallGraphHook(self, args, nargs, name);
    if (built != Py_NotImplemented) return built;
    Py_DECREF(built);
  }
  if (TapesRecording()) return RecordSlots(self, st, args, nargs);
  return RunSlots(st, args, nargs);
}

// fast_op._run_eager(inputs..., attrs...): runs the op now on its slots
// (inputs then attr values, as the hook receives them), never calling the
// hook: what GradientTape's hook calls to run an op it records.
PyObject* FastOpRunEager(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  FastOpState* st = reinterpret_cast<FastOpObject*>(self)->state;
  if (nargs != st->num_args) {
    PyErr_Format(PyExc_TypeError,
                 "%s._run_eager takes %d arguments (inputs then attrs), got %zd",
                 st->op_name.c_str(), st->num_args, nargs);
    return nullptr;
  }
  return RunSlots(st, args, nargs);
}

// The call's slots with every input an array (or opaque tensor), listed
// in `arrays`/`dtypes`: `args` itself, or the items of `*converted`. Null
// with an exception set when they cannot be converted.
PyObject* const* ConvertSlots(FastOpState* st, PyObject* const* args,
                              Py_ssize_t nargs, PyRef* converted,
                              FlatArrays* arrays, FlatTypes* dtypes) {
  if (ParseInputs(*st, args, arrays, dtypes)) return args;
  // Python values, numpy scalars, ...: TensorFlow's conversion rules live in
  // the Python converter.
  converted->reset(PyObject_Vectorcall(st->converter, args, nargs, nullptr));
  if (!*converted) return nullptr;
  if (!PyTuple_Check(converted->get()) ||
      PyTuple_GET_SIZE(converted->get()) != nargs) {
    PyErr_Format(PyExc_TypeError,
                 "the converter of %s must return a tuple of %zd values",
                 st->op_name.c_str(), nargs);
    return nullptr;
  }
  PyObject* const* cargs = &PyTuple_GET_ITEM(converted->get(), 0);
  arrays->clear();
  dtypes->clear();
  if (!ParseInputs(*st, cargs, arrays, dtypes)) {
    PyErr_Format(PyExc_TypeError,
                 "%s: the inputs could not be converted to numpy arrays of "
                 "a supported dtype",
                 st->op_name.c_str());
    return nullptr;
  }
  return cargs;
}

PyObject* RunSlots(FastOpState* st, PyObject* const* args, Py_ssize_t nargs) {
  FlatArrays arrays;
  FlatTypes dtypes;
  PyRef converted;
  PyObject* const* used =
      ConvertSlots(st, args, nargs, &converted, &arrays, &dtypes);
  if (used == nullptr) return nullptr;
  return RunOp(st, used, arrays, dtypes);
}

// A call while a GradientTape records on this thread (Note [C++ tape] in
// tape.h): runs the op, returns its results as EagerTensors and records
// it on the tapes watching an input.
PyObject* RecordSlots(PyObject* self, FastOpState* st, PyObject* const* args,
                      Py_ssize_t nargs) {
  FlatArrays arrays;
  FlatTypes dtypes;
  PyRef converted;
  PyObject* const* used =
      ConvertSlots(st, args, nargs, &converted, &arrays, &dtypes);
  if (used == nullptr) return nullptr;
  RunRecord run;
  PyRef result(RunOp(st, used, arrays, dtypes, EagerTensorType(), &run));
  if (!result) return nullptr;
  CacheEntry* entry = run.entry;
  RecordedCall call;
  call.fn = self;
  call.op = &st->op_name;
  call.args = used;
  call.num_inputs = static_cast<int>(st->input_is_list.size());
  call.num_args = static_cast<int>(nargs);
  call.input_is_list = &st->input_is_list;
  call.flat_inputs = arrays.data();
  call.num_flat_inputs = arrays.size();
  call.cache = &entry->gradients;
  call.dtypes = &entry->dtypes;
  call.attrs = &entry->eager_attrs;
  call.input_tensors = &run.inputs;
  call.output_tensors = &run.outputs;
  if (!RecordOperation(call, result.get())) return nullptr;
  return result.release();
}

// params: a sequence of (name, slot, default, keyword_only) with `default`
// the REQUIRED marker for a parameter without one; every slot in
// [0, num_args) must appear exactly once.
bool ParseParams(PyObject* params, FastOpState* st) {
  PyRef seq(PySequence_Fast(params, "params must be a sequence"));
  if (!seq) return false;
  std::vector<int> seen(st->num_args, 0);
  bool keyword_only_seen = false;
  for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(seq.get()); ++i) {
    PyObject* item = PySequence_Fast_GET_ITEM(seq.get(), i);
    PyObject *name, *fallback;
    int slot, keyword_only;
    if (!PyTuple_Check(item) ||
        !PyArg_ParseTuple(item, "UiOp", &name, &slot, &fallback,
                          &keyword_only)) {
      if (!PyErr_Occurred()) {
        PyErr_SetString(PyExc_TypeError,
                        "params entries are (name, slot, default, keyword_only)");
      }
      return false;
    }
    if (slot < -1 || slot >= st->num_args || (slot >= 0 && seen[slot]++)) {
      PyErr_Format(PyExc_ValueError, "param %U has a bad or repeated slot %d",
                   name, slot);
      return false;
    }
    Param p;
    Py_INCREF(name);
    PyUnicode_InternInPlace(&name);
    p.name = name;
    p.slot = slot;
    p.keyword_only = keyword_only != 0;
    if (fallback != RequiredMarker()) {
      Py_INCREF(fallback);
      p.fallback = fallback;
    }
    if (p.keyword_only) {
      keyword_only_seen = true;
    } else if (keyword_only_seen) {
      PyErr_SetString(PyExc_ValueError,
                      "positional params must come before keyword-only ones");
      Py_DECREF(p.name);
      Py_XDECREF(p.fallback);
      return false;
    } else {
      ++st->max_positional;
    }
    st->params.push_back(p);
  }
  for (int i = 0; i < st->num_args; ++i) {
    if (!seen[i]) {
      PyErr_Format(PyExc_ValueError, "no param fills slot %d", i);
      return false;
    }
  }
  return true;
}

PyObject* FastOpNew(PyTypeObject* type, PyObject* args, PyObject* kwds) {
  const char* op_name = nullptr;
  PyObject* attr_names = nullptr;
  PyObject* converter = nullptr;
  PyObject* output_class = nullptr;
  PyObject* params = nullptr;
  const char* function_name = nullptr;
  static const char* kwlist[] = {"op_name", "attr_names", "converter",
                                 "output_class", "params", "function_name",
                                 nullptr};
  if (!PyArg_ParseTupleAndKeywords(args, kwds, "sOOO|Oz",
                                   const_cast<char**>(kwlist), &op_name,
                                   &attr_names, &converter, &output_class,
                                   &params, &function_name)) {
    return nullptr;
  }
  if (!PyCallable_Check(converter)) {
    PyErr_SetString(PyExc_TypeError, "converter must be callable");
    return nullptr;
  }
  const OpRegistrationData* reg = OpRegistry::Global()->LookUp(op_name);
  if (reg == nullptr) {
    Status s;
    const OpRegistrationData* unused = nullptr;
    s = OpRegistry::Global()->LookUp(std::string(op_name), &unused);
    return RaiseStatus(s);
  }
  auto st = std::make_unique<FastOpState>();
  st->op_name = op_name;
  st->op_def = reg->op_def;
  for (const auto& arg : st->op_def.input_arg()) {
    st->input_is_list.push_back(!arg.number_attr().empty() ||
                                !arg.type_list_attr().empty());
  }
  PyRef names(PySequence_Fast(attr_names, "attr_names must be a sequence"));
  if (!names) return nullptr;
  for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(names.get()); ++i) {
    const char* name = PyUnicode_AsUTF8(PySequence_Fast_GET_ITEM(names.get(), i));
    if (name == nullptr) return nullptr;
    const OpDef::AttrDef* found = nullptr;
    for (const auto& a : st->op_def.attr()) {
      if (a.name() == name) found = &a;
    }
    if (found == nullptr) {
      PyErr_Format(PyExc_ValueError, "op %s has no attr '%s'", op_name, name);
      return nullptr;
    }
    st->attr_defs.push_back(found);
  }
  st->num_args = static_cast<int>(st->input_is_list.size() + st->attr_defs.size());
  st->function_name = function_name != nullptr ? function_name : op_name;
  if (params != nullptr && params != Py_None &&
      !ParseParams(params, st.get())) {
    return nullptr;
  }
  Py_INCREF(converter);
  st->converter = converter;
  Py_INCREF(output_class);
  st->output_class = output_class;
  PyObject* self = type->tp_alloc(type, 0);
  if (self == nullptr) return nullptr;
  auto* obj = reinterpret_cast<FastOpObject*>(self);
  obj->vectorcall = &FastOpVectorcall;
  obj->state = st.release();
  obj->dict = nullptr;
  return self;
}

void FastOpDealloc(PyObject* self) {
  Py_CLEAR(reinterpret_cast<FastOpObject*>(self)->dict);
  delete reinterpret_cast<FastOpObject*>(self)->state;
  Py_TYPE(self)->tp_free(self);
}

PyObject* FastOpRepr(PyObject* self) {
  const FastOpState* st = reinterpret_cast<FastOpObject*>(self)->state;
  return PyUnicode_FromFormat("<opkit op function %s (op %s)>",
                              st->function_name.c_str(), st->op_name.c_str());
}

PyObject* FastOpCacheSize(PyObject* self, PyObject*) {
  return PyLong_FromSize_t(
      reinterpret_cast<FastOpObject*>(self)->state->cache.size());
}

PyObject* FastOpSelectedKernel(PyObject* self, PyObject*) {
  // The kernel class of the most recently prepared entry (for tests and
  // diagnostics); None before the first call.
  FastOpState* st = reinterpret_cast<FastOpObject*>(self)->state;
  if (st->cache.empty()) Py_RETURN_NONE;
  return PyUnicode_FromString(st->cache.back()->op->kernel_class_name().c_str());
}

PyMethodDef kFastOpMethods[] = {
    {"_run_eager", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(FastOpRunEager)),
     METH_FASTCALL,
     "Runs the op now on (inputs..., attrs...), bypassing the graph hook."},
    {"cache_size", FastOpCacheSize, METH_NOARGS,
     "Number of prepared (dtypes, attrs) combinations cached."},
    {"last_kernel_class", FastOpSelectedKernel, METH_NOARGS,
     "Kernel class of the most recently prepared combination, or None."},
    {nullptr, nullptr, 0, nullptr}};

// Filled in by InitFastOpType (field by field: the type's header macro
// leaves most members to aggregate initialisation).
PyTypeObject FastOpType{};

}  // namespace

PyObject* FastOpRequiredMarker() { return RequiredMarker(); }

void SetFastOpGraphHook(PyObject* hook) {
  PyObject* old = graph_hook;
  if (hook == Py_None) hook = nullptr;
  Py_XINCREF(hook);
  graph_hook = hook;
  Py_XDECREF(old);
}

PyTypeObject* InitFastOpType() {
  // What PyVarObject_HEAD_INIT would set: one reference that is never
  // dropped (a static type must not be deallocated); PyType_Ready sets the
  // metatype.
  Py_SET_REFCNT(reinterpret_cast<PyObject*>(&FastOpType), 1);
  FastOpType.tp_name = "opkit._opkit.FastOp";
  FastOpType.tp_basicsize = sizeof(FastOpObject);
  FastOpType.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL;
  FastOpType.tp_doc =
      "FastOp(op_name, attr_names, converter, output_class): calls one op "
      "with inputs then attr values, positionally.";
  FastOpType.tp_new = FastOpNew;
  FastOpType.tp_dealloc = FastOpDealloc;
  FastOpType.tp_repr = FastOpRepr;
  FastOpType.tp_call = PyVectorcall_Call;
  FastOpType.tp_vectorcall_offset = offsetof(FastOpObject, vectorcall);
  FastOpType.tp_methods = kFastOpMethods;
  FastOpType.tp_dictoffset = offsetof(FastOpObject, dict);
  if (PyType_Ready(&FastOpType) < 0) return nullptr;
  return &FastOpType;
}

}  // namespace internal
}  // namespace opkit
