// The C++ side of opkit.GradientTape (Note [C++ tape] in tape.h):
//
//   state = _opkit._Tape()
//   _opkit._tape_push(state)          # the tape records on this thread
//   state.watch(x)
//   y = opkit.ops.mul(x, x)           # recorded: x is watched
//   _opkit._tape_pop(state)
//   state.gradient([y], [seed], [x], fallback, aggregate, zeros_like,
//                  run_programs=True, release=True)
#include "common.h"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "bindings.h"
#include "gradients.h"
#include "opkit/core/errors.h"
#include "opkit/core/str_util.h"
#include "opkit/gradients/gradient_registry.h"
#include "tape.h"

namespace py = pybind11;

namespace opkit {
namespace internal {

namespace {

// Small integer inputs whose value a gradient function may read
// (GradientOp::ConstantInput: an axis, a permutation); as
// gradient_registry.py's _MAX_CONST_ELEMENTS.
constexpr npy_intp kMaxConstElements = 16;
// Programs kept per op signature before they are dropped.
constexpr size_t kMaxPrograms = 64;

PyTypeObject* eager_tensor_type = nullptr;  // owned
PyObject* python_gradients = nullptr;       // owned dict: op -> fn or None
// Diagnostics (_opkit._count_gradient_nodes): how many nodes of each op type
// gradient programs ran while counting is on.
bool count_nodes = false;
std::map<std::string, int64_t> node_counts;

// Whether gradients flow into `o` (floating and complex arrays).
bool Trainable(PyObject* o) {
  if (!PyArray_Check(o)) return false;
  const char kind = PyArray_DESCR(reinterpret_cast<PyArrayObject*>(o))->kind;
  return kind == 'f' || kind == 'c';
}

bool SmallIntArray(PyObject* o) {
  if (!PyArray_Check(o)) return false;
  auto* a = reinterpret_cast<PyArrayObject*>(o);
  const char kind = PyArray_DESCR(a)->kind;
  return (kind == 'i' || kind == 'u') && PyArray_SIZE(a) <= kMaxConstElements;
}

PyRef NewRef(PyObject* o) {
  Py_INCREF(o);
  return PyRef(o);
}

struct TapeRecord {
  PyRef fn;
  std::string op;
  PyRef attrs;               // tuple of the call's attr values
  std::vector<int> lengths;  // per input arg: -1 single, else list length
  std::vector<PyRef> inputs;
  std::vector<PyRef> outputs;
  // The Tensors behind `inputs` and `outputs` as the kernel had them
  // (empty when not known): a gradient program converts nothing.
  std::vector<Tensor> input_tensors;
  std::vector<Tensor> output_tensors;
  std::shared_ptr<GradientCache> cache;
};

// Note [Shape-only gradient nodes] (gradient_registry.py): a node whose
// value depends only on the shapes of the forward op's inputs, outputs and
// output gradients (and on its constant inputs, part of the program's
// key) is computed once per shape signature: Shape, Size or Rank of any
// value, or a deterministic op of kShapeArithmetic on such nodes and
// constant inputs. A node returned as a gradient always runs.
const char* const kShapeOf[] = {"Shape", "Size", "Rank"};
const char* const kShapeArithmetic[] = {
    "Const", "Identity", "Reshape", "Cast", "Add", "AddV2", "Sub", "Mul",
    "RealDiv", "Div", "FloorDiv", "FloorMod", "Maximum", "Minimum", "Neg",
    "Greater", "GreaterEqual", "Less", "LessEqual", "Equal", "NotEqual",
    "SelectV2", "Select", "OneHot", "Sum", "Prod", "OnesLike", "ZerosLike",
    "Fill", "ExpandDims", "Squeeze", "Pack", "ConcatV2", "Range", "GatherV2",
    "StridedSlice", "Slice", "Transpose", "InvertPermutation",
    "BroadcastGradientArgs", "BroadcastTo", "Tile"};
// Shape signatures kept per program before they are dropped.
constexpr size_t kMaxShapeSignatures = 64;

bool OneOf(const std::string& op, const char* const* names, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    if (op == names[i]) return true;
  }
  return false;
}

// One node of a GradientProgram.
struct ProgramNode {
  std::string op;
  EagerAttrs attrs;
  std::vector<GradientRef> inputs;
  std::unique_ptr<PreparedOp> prepared;
};

struct GradientProgram {
  std::vector<ProgramNode> nodes;
  std::vector<GradientRef> grads;
  // Note [Shape-only gradient nodes]: which nodes are, and their values
  // per shape signature of the inputs, outputs and output gradients.
  std::vector<bool> shape_only;
  std::map<std::vector<int64_t>, std::vector<std::vector<Tensor>>> shape_values;
  // Per set of needed inputs, which nodes their gradients read.
  std::map<std::vector<bool>, std::vector<bool>> plans;
  // Calls running it (with the GIL released, several threads may): the
  // first owns the prepared kernels, and a program in use is not evicted.
  int users = 0;

  const std::vector<bool>& Plan(const std::vector<bool>& needed) {
    auto it = plans.find(needed);
    if (it != plans.end()) return it->second;
    std::vector<bool> plan(nodes.size(), false);
    std::vector<GradientRef> stack;
    for (size_t i = 0; i < grads.size() && i < needed.size(); ++i) {
      if (needed[i]) stack.push_back(grads[i]);
    }
    while (!stack.empty()) {
      const GradientRef ref = stack.back();
      stack.pop_back();
      if (ref.kind != GradientRef::kNode || plan[ref.index]) continue;
      plan[ref.index] = true;
      for (const GradientRef& in : nodes[ref.index].inputs) stack.push_back(in);
    }
    return plans.emplace(needed, std::move(plan)).first->second;
  }
};

}  // namespace

class GradientCache {
 public:
  GradientCache(std::string op, DataTypeVector dtypes, EagerAttrs attrs)
      : op_(std::move(op)), dtypes_(std::move(dtypes)), attrs_(std::move(attrs)) {}

  // The program for `record` (built on first use), or null with `*status`
  // set when its gradient cannot be built (or left OK with a Python
  // exception set).
  GradientProgram* Get(const TapeRecord& record, Status* status) {
    // The key: the list lengths, then per small integer input its index,
    // type, shape and bytes, all as raw bytes (this runs for every
    // recorded op of every backward pass).
    std::string key;
    auto put = [&key](int64_t v) {
      key.append(reinterpret_cast<const char*>(&v), sizeof(v));
    };
    for (int len : record.lengths) put(len);
    std::vector<size_t> const_inputs;
    for (size_t i = 0; i < record.inputs.size(); ++i) {
      PyObject* o = record.inputs[i].get();
      if (!SmallIntArray(o)) continue;
      auto* a = reinterpret_cast<PyArrayObject*>(o);
      put(-1);
      put(static_cast<int64_t>(i));
      put(PyArray_TYPE(a));
      put(PyArray_NDIM(a));
      for (int d = 0; d < PyArray_NDIM(a); ++d) put(PyArray_DIM(a, d));
      const size_t item = static_cast<size_t>(PyArray_ITEMSIZE(a));
      for (npy_intp e = 0; e < PyArray_SIZE(a); ++e) {
        // Element by element: the array may be strided.
        npy_intp index[NPY_MAXDIMS];
        npy_intp rest = e;
        for (int d = PyArray_NDIM(a) - 1; d >= 0; --d) {
          index[d] = rest % PyArray_DIM(a, d);
          rest /= PyArray_DIM(a, d);
        }
        key.append(static_cast<const char*>(PyArray_GetPtr(a, index)), item);
      }
      const_inputs.push_back(i);
    }
    auto it = programs_.find(key);
    if (it != programs_.end()) return it->second.get();
    std::map<int, Tensor> consts;
    for (size_t i : const_inputs) {
      Tensor t;
      if (!NdarrayToTensorCopy(
              reinterpret_cast<PyArrayObject*>(record.inputs[i].get()),
              "constant input", &t)) {
        return nullptr;  // the Python exception says why
      }
      consts.emplace(static_cast<int>(i), std::move(t));
    }
    std::vector<GradientInputArg> args;
    size_t flat = 0;
    for (int len : record.lengths) {
      GradientInputArg arg;
      arg.is_list = len >= 0;
      const size_t n = len < 0 ? 1 : static_cast<size_t>(len);
      for (size_t k = 0; k < n && flat < dtypes_.size(); ++k) {
        arg.dtypes.push_back(dtypes_[flat++]);
      }
      args.push_back(std::move(arg));
    }
    GradientNodes g;
    bool defined = false;
    *status = BuildGradientNodes(op_, attrs_, args, consts, &g, &defined);
    if (!status->ok()) return nullptr;
    if (!defined) {
      *status = errors::NotFound("no gradient function for ", op_);
      return nullptr;
    }
    auto program = std::make_unique<GradientProgram>();
    for (size_t j = 0; j < g.nodes.size(); ++j) {
      ProgramNode node;
      node.op = g.nodes[j].op();
      for (const auto& [name, value] : g.nodes[j].attr()) {
        node.attrs.emplace_back(name, value);
      }
      node.inputs = g.node_inputs[j];
      program->nodes.push_back(std::move(node));
    }
    program->grads = g.grads;
    for (const ProgramNode& node : program->nodes) {
      bool shape_only = false;
      if (OneOf(node.op, kShapeOf, std::size(kShapeOf))) {
        shape_only = true;
        for (const GradientRef& in : node.inputs) {
          if (in.kind == GradientRef::kNode && !program->shape_only[in.index]) {
            shape_only = false;
          }
        }
      } else if (OneOf(node.op, kShapeArithmetic, std::size(kShapeArithmetic))) {
        shape_only = true;
        for (const GradientRef& in : node.inputs) {
          const bool ok =
              (in.kind == GradientRef::kNode && program->shape_only[in.index]) ||
              (in.kind == GradientRef::kInput && consts.count(in.index) != 0);
          if (!ok) shape_only = false;
        }
      }
      program->shape_only.push_back(shape_only);
    }
    for (const GradientRef& ref : program->grads) {
      if (ref.kind == GradientRef::kNode) program->shape_only[ref.index] = false;
    }
    if (programs_.size() >= kMaxPrograms) {
      for (auto p = programs_.begin(); p != programs_.end(); ++p) {
        if (p->second->users == 0) {
          programs_.erase(p);
          break;
        }
      }
    }
    return programs_.emplace(std::move(key), std::move(program))
        .first->second.get();
  }

 private:
  const std::string op_;
  const DataTypeVector dtypes_;
  const EagerAttrs attrs_;
  std::map<std::string, std::unique_ptr<GradientProgram>> programs_;
};

std::shared_ptr<GradientCache> NewGradientCache(const std::string& op,
                                                const DataTypeVector& dtypes,
                                                const EagerAttrs& attrs) {
  return std::make_shared<GradientCache>(op, dtypes, attrs);
}

PyTypeObject* EagerTensorType() { return eager_tensor_type; }

namespace {

// Appends the rank and dims of `o` (an array) to `*signature`, or -1 for
// anything else (a resource handle).
void ShapeOf(PyObject* o, std::vector<int64_t>* signature) {
  if (!PyArray_Check(o)) {
    signature->push_back(-1);
    return;
  }
  auto* a = reinterpret_cast<PyArrayObject*>(o);
  const int nd = PyArray_NDIM(a);
  signature->push_back(nd);
  for (int i = 0; i < nd; ++i) signature->push_back(PyArray_DIM(a, i));
}

// Runs `program` for `record`: the gradients of the inputs flagged in
// `needed` (None for the others), given one gradient per output in
// `out_grads` (none missing). A new list, or null with an exception set.
PyObject* RunProgram(GradientProgram* program, const TapeRecord& record,
                     const std::vector<PyObject*>& out_grads,
                     const std::vector<bool>& needed) {
  const std::vector<bool>& plan = program->Plan(needed);
  std::vector<Tensor> values_in(record.inputs.size());
  std::vector<Tensor> values_out(record.outputs.size());
  std::vector<Tensor> values_grad(out_grads.size());
  std::vector<bool> have_in(record.inputs.size()), have_out(record.outputs.size()),
      have_grad(out_grads.size());
  size_t bytes = 0;
  auto convert = [&](PyObject* o, Tensor* t) {
    if (IsOpaqueTensor(o)) {
      *t = UnwrapOpaqueTensor(o);
      return true;
    }
    if (!PyArray_Check(o)) {
      PyErr_Format(PyExc_TypeError,
                   "gradient of %s: a recorded value is a %s, not an array",
                   record.op.c_str(), Py_TYPE(o)->tp_name);
      return false;
    }
    if (!NdarrayToTensor(reinterpret_cast<PyArrayObject*>(o), "gradient input",
                         t, nullptr)) {
      return false;
    }
    bytes += t->TotalBytes();
    return true;
  };
  auto fetch = [&](const GradientRef& ref) -> bool {
    switch (ref.kind) {
      case GradientRef::kInput:
        if (ref.index >= static_cast<int>(values_in.size())) break;
        if (!have_in[ref.index]) {
          if (record.input_tensors.size() == values_in.size()) {
            values_in[ref.index] = record.input_tensors[ref.index];
            bytes += values_in[ref.index].TotalBytes();
          } else if (!convert(record.inputs[ref.index].get(),
                              &values_in[ref.index])) {
            return false;
          }
          have_in[ref.index] = true;
        }
        return true;
      case GradientRef::kOutput:
        if (ref.index >= static_cast<int>(values_out.size())) break;
        if (!have_out[ref.index]) {
          if (record.output_tensors.size() == values_out.size()) {
            values_out[ref.index] = record.output_tensors[ref.index];
            bytes += values_out[ref.index].TotalBytes();
          } else if (!convert(record.outputs[ref.index].get(),
                              &values_out[ref.index])) {
            return false;
          }
          have_out[ref.index] = true;
        }
        return true;
      case GradientRef::kGrad:
        if (ref.index >= static_cast<int>(values_grad.size())) break;
        if (!have_grad[ref.index]) {
          if (!convert(out_grads[ref.index], &values_grad[ref.index])) return false;
          have_grad[ref.index] = true;
        }
        return true;
      case GradientRef::kNode:
      case GradientRef::kNone:
        return true;
    }
    PyErr_Format(PyExc_RuntimeError,
                 "gradient of %s: a node reads a value the op does not have",
                 record.op.c_str());
    return false;
  };
  const size_t n = program->nodes.size();
  // Note [Shape-only gradient nodes]: their values for these shapes, when
  // a call computed them before.
  std::vector<std::vector<Tensor>> values(n);
  std::vector<int64_t> signature;
  for (const auto* group : {&record.inputs, &record.outputs}) {
    for (const PyRef& o : *group) ShapeOf(o.get(), &signature);
  }
  for (PyObject* g : out_grads) ShapeOf(g, &signature);
  auto cached = program->shape_values.find(signature);
  std::vector<bool> known(n, false);
  if (cached != program->shape_values.end()) {
    for (size_t j = 0; j < n; ++j) {
      if (program->shape_only[j]) {
        values[j] = cached->second[j];
        known[j] = true;
      }
    }
  }
  for (size_t j = 0; j < n; ++j) {
    if (!plan[j] || known[j]) continue;
    for (const GradientRef& ref : program->nodes[j].inputs) {
      if (!fetch(ref)) return nullptr;
    }
  }

  EagerContext* ctx = PyEagerContext();
  if (ctx == nullptr) return nullptr;
  // A call already running this program (another thread, with the GIL
  // released) owns its prepared kernels: run through the context.
  const bool own = program->users == 0;
  const bool was_cached = cached != program->shape_values.end();
  Status status;
  auto run = [&] {
    std::vector<Tensor> inputs;
    DataTypeVector dtypes;
    for (size_t j = 0; j < n && status.ok(); ++j) {
      if (!plan[j] || known[j]) continue;
      ProgramNode& node = program->nodes[j];
      inputs.clear();
      dtypes.clear();
      for (const GradientRef& ref : node.inputs) {
        const Tensor* t = nullptr;
        switch (ref.kind) {
          case GradientRef::kInput: t = &values_in[ref.index]; break;
          case GradientRef::kOutput: t = &values_out[ref.index]; break;
          case GradientRef::kGrad: t = &values_grad[ref.index]; break;
          case GradientRef::kNode:
            if (static_cast<size_t>(ref.output) < values[ref.index].size()) {
              t = &values[ref.index][ref.output];
            }
            break;
          case GradientRef::kNone: break;
        }
        if (t == nullptr) {
          status = errors::Internal("node ", node.op, " reads a value not computed");
          break;
        }
        inputs.push_back(*t);
        dtypes.push_back(t->dtype());
      }
      if (!status.ok()) break;
      if (!own) {
        status = ctx->Run(node.op, inputs, node.attrs, &values[j]);
        continue;
      }
      if (node.prepared == nullptr) {
        auto prepared = ctx->Prepare(node.op, dtypes, node.attrs);
        if (!prepared.ok()) {
          status = prepared.status();
          break;
        }
        node.prepared = std::move(prepared).value();
      }
      status = node.prepared->Run(inputs, &values[j]);
      if (errors::IsInvalidArgument(status)) {
        // Inputs of other types than the node was prepared for (a list
        // input of another length): prepare again once.
        auto prepared = ctx->Prepare(node.op, dtypes, node.attrs);
        if (prepared.ok()) {
          node.prepared = std::move(prepared).value();
          status = node.prepared->Run(inputs, &values[j]);
        }
      }
    }
  };
  ++program->users;
  if (bytes >= kReleaseGilBytes) {
    Py_BEGIN_ALLOW_THREADS
    run();
    Py_END_ALLOW_THREADS
  } else {
    run();
  }
  --program->users;
  if (count_nodes) {
    for (size_t j = 0; j < n; ++j) {
      if (plan[j] && !known[j]) ++node_counts[program->nodes[j].op];
    }
  }
  if (!status.ok()) {
    return RaiseStatus(Status(status.code(),
                              StrCat("gradient of ", record.op, ": ", status.message())));
  }
  if (!was_cached) {
    // Kept only when every shape-only node ran (the plan may skip some).
    bool complete = true;
    std::vector<std::vector<Tensor>> keep(n);
    for (size_t j = 0; j < n; ++j) {
      if (!program->shape_only[j]) continue;
      if (!plan[j]) complete = false;
      keep[j] = values[j];
    }
    if (complete) {
      if (program->shape_values.size() >= kMaxShapeSignatures) {
        program->shape_values.clear();
      }
      program->shape_values.emplace(std::move(signature), std::move(keep));
    }
  }

  PyRef result(PyList_New(static_cast<Py_ssize_t>(program->grads.size())));
  if (!result) return nullptr;
  for (size_t i = 0; i < program->grads.size(); ++i) {
    const GradientRef& ref = program->grads[i];
    PyObject* item = nullptr;
    if (i >= needed.size() || !needed[i] || ref.kind == GradientRef::kNone) {
      item = Py_None;
      Py_INCREF(item);
    } else if (ref.kind == GradientRef::kInput) {
      item = record.inputs[ref.index].get();
      Py_INCREF(item);
    } else if (ref.kind == GradientRef::kOutput) {
      item = record.outputs[ref.index].get();
      Py_INCREF(item);
    } else if (ref.kind == GradientRef::kGrad) {
      item = out_grads[ref.index];
      Py_INCREF(item);
    } else {
      const Tensor& t = values[ref.index][ref.output];
      // A gradient sharing memory with a recorded array (an Identity of
      // it) is a read-only view, so that writing to it changes nothing.
      bool readonly = false;
      for (const auto* group : {&values_in, &values_out, &values_grad}) {
        for (const Tensor& v : *group) {
          if (v.IsInitialized() && t.SharesBufferWith(v)) readonly = true;
        }
      }
      item = TensorToNdarray(t, readonly);
      if (item == nullptr) return nullptr;
    }
    PyList_SET_ITEM(result.get(), static_cast<Py_ssize_t>(i), item);
  }
  return result.release();
}

class Tape {
 public:
  // Whether `value` was not watched before.
  bool Watch(py::handle value) {
    if (tracked_.count(value.ptr()) != 0) return false;
    tracked_.emplace(value.ptr(), NewRef(value.ptr()));
    return true;
  }
  bool IsTracked(py::handle value) const {
    return tracked_.count(value.ptr()) != 0;
  }
  bool WatchesAny(PyObject* const* values, size_t n) const {
    if (tracked_.empty()) return false;
    for (size_t i = 0; i < n; ++i) {
      if (tracked_.count(values[i]) != 0) return true;
    }
    return false;
  }
  void Record(const std::shared_ptr<const TapeRecord>& record) {
    records_.push_back(record);
    for (const PyRef& o : record->outputs) {
      if (Trainable(o.get())) Watch(o.get());
    }
  }
  void Reset() {
    records_.clear();
    tracked_.clear();
  }
  size_t NumTracked() const { return tracked_.size(); }
  std::vector<std::string> OpTypes() const {
    std::vector<std::string> out;
    for (const auto& r : records_) {
      if (r != nullptr) out.push_back(r->op);
    }
    return out;
  }

  // See the file comment: the gradients of `targets` (seeded with `seeds`,
  // None for a target that is not watched) with respect to `sources`.
  // `release` (a tape used once) drops each record once its gradient is
  // applied, as the walk goes, so that the values only it kept are freed
  // during the backward pass (and their memory reused by it).
  py::list Gradient(const py::list& targets, const py::list& seeds,
                    const py::list& sources, const py::object& fallback,
                    const py::object& aggregate, const py::object& zeros_like,
                    bool run_programs, bool release);

 private:
  py::object Apply(const TapeRecord& record, const std::vector<PyObject*>& out_grads,
                   const std::vector<bool>& needed, const py::object& fallback,
                   const py::object& zeros_like, bool run_programs) const;

  absl::flat_hash_map<PyObject*, PyRef> tracked_;
  std::vector<std::shared_ptr<const TapeRecord>> records_;
};

// The sum of `terms` (Python's aggregate for more than one); None for none.
py::object Sum(std::vector<py::object>* terms, const py::object& aggregate) {
  if (terms == nullptr || terms->empty()) return py::none();
  if (terms->size() == 1) return (*terms)[0];
  py::list list;
  for (const py::object& t : *terms) list.append(t);
  py::object sum = aggregate(list);
  terms->assign(1, sum);
  return sum;
}

py::object Tape::Apply(const TapeRecord& record,
                       const std::vector<PyObject*>& out_grads,
                       const std::vector<bool>& needed,
                       const py::object& fallback, const py::object& zeros_like,
                       bool run_programs) const {
  bool program_path = run_programs && record.cache != nullptr;
  if (program_path && python_gradients != nullptr) {
    PyObject* found = PyDict_GetItemString(python_gradients, record.op.c_str());
    if (found != nullptr) program_path = false;
  }
  GradFunc fn;
  if (program_path &&
      (!GradientRegistry::Global()->Lookup(record.op, &fn).ok() || !fn)) {
    program_path = false;  // Python raises TensorFlow's error, or gives None
  }
  if (program_path) {
    Status s;
    GradientProgram* program = record.cache->Get(record, &s);
    if (program == nullptr) {
      ThrowIfError(s);
      throw py::error_already_set();  // set by the conversion that failed
    }
    // A missing output gradient is zeros, as the Python path makes it.
    std::vector<py::object> zeros;
    std::vector<PyObject*> grads = out_grads;
    for (size_t k = 0; k < grads.size(); ++k) {
      if (grads[k] != Py_None) continue;
      zeros.push_back(zeros_like(py::handle(record.outputs[k].get())));
      grads[k] = zeros.back().ptr();
    }
    PyObject* result = RunProgram(program, record, grads, needed);
    if (result == nullptr) throw py::error_already_set();
    return py::reinterpret_steal<py::object>(result);
  }
  py::list lengths, inputs, outputs, grads, flags;
  for (int len : record.lengths) lengths.append(len);
  for (const PyRef& o : record.inputs) inputs.append(py::handle(o.get()));
  for (const PyRef& o : record.outputs) outputs.append(py::handle(o.get()));
  for (PyObject* g : out_grads) grads.append(py::handle(g));
  for (bool b : needed) flags.append(py::bool_(b));
  return fallback(py::handle(record.fn.get()), py::handle(record.attrs.get()),
                  lengths, inputs, outputs, grads, flags);
}

py::list Tape::Gradient(const py::list& targets, const py::list& seeds,
                        const py::list& sources, const py::object& fallback,
                        const py::object& aggregate,
                        const py::object& zeros_like, bool run_programs,
                        bool release) {
  if (py::len(seeds) != py::len(targets)) {
    ThrowIfError(errors::InvalidArgument("one seed per target is needed"));
  }
  // The values gradients flow into: the watched sources and, in recording
  // order, the trainable outputs of every op reading one.
  absl::flat_hash_set<PyObject*> reach;
  absl::flat_hash_set<PyObject*> source_set;
  reach.reserve(records_.size() + py::len(sources));
  for (py::handle s : sources) {
    source_set.insert(s.ptr());
    if (tracked_.count(s.ptr()) != 0) reach.insert(s.ptr());
  }
  std::vector<size_t> relevant;
  for (size_t k = 0; k < records_.size(); ++k) {
    if (records_[k] == nullptr) continue;  // released by a failed walk
    const TapeRecord& r = *records_[k];
    bool reads = false;
    for (const PyRef& x : r.inputs) reads = reads || reach.count(x.get()) != 0;
    if (!reads) continue;
    relevant.push_back(k);
    for (const PyRef& o : r.outputs) {
      if (Trainable(o.get())) reach.insert(o.get());
    }
  }
  absl::flat_hash_map<PyObject*, std::vector<py::object>> grads;
  grads.reserve(relevant.size() * 2 + py::len(targets));
  for (size_t i = 0; i < py::len(targets); ++i) {
    PyObject* t = py::handle(targets[i]).ptr();
    py::object seed = seeds[i];
    if (reach.count(t) == 0 || seed.is_none()) continue;
    grads[t].push_back(seed);
  }
  std::vector<PyObject*> out_grads;
  std::vector<bool> needed;
  for (auto it = relevant.rbegin(); it != relevant.rend(); ++it) {
    // Held here: `release` may drop the tape's reference below.
    const std::shared_ptr<const TapeRecord> record = records_[*it];
    const TapeRecord& r = *record;
    std::vector<py::object> sums;
    out_grads.clear();
    bool any = false;
    for (const PyRef& o : r.outputs) {
      auto found = grads.find(o.get());
      sums.push_back(Sum(found == grads.end() ? nullptr : &found->second, aggregate));
      out_grads.push_back(sums.back().ptr());
      any = any || !sums.back().is_none();
    }
    // Every consumer of an output was recorded after it, so its gradient
    // is complete now and nothing adds to it later: it is let go (unless
    // it is asked for).
    for (const PyRef& o : r.outputs) {
      if (source_set.count(o.get()) == 0) grads.erase(o.get());
    }
    if (release) {
      for (const PyRef& o : r.outputs) tracked_.erase(o.get());
      records_[*it].reset();
    }
    if (!any) continue;
    needed.clear();
    for (const PyRef& x : r.inputs) needed.push_back(reach.count(x.get()) != 0);
    py::object in_grads = Apply(r, out_grads, needed, fallback, zeros_like,
                                run_programs);
    py::list list = py::list(in_grads);
    if (py::len(list) != r.inputs.size()) {
      ThrowIfError(errors::Internal("the gradient of ", r.op, " gave ",
                                    py::len(list), " values for ",
                                    r.inputs.size(), " inputs"));
    }
    for (size_t i = 0; i < r.inputs.size(); ++i) {
      py::object g = list[i];
      if (g.is_none() || !needed[i]) continue;
      grads[r.inputs[i].get()].push_back(g);
    }
  }
  py::list out;
  for (py::handle s : sources) {
    auto found = grads.find(s.ptr());
    out.append(Sum(found == grads.end() ? nullptr : &found->second, aggregate));
  }
  if (release) records_.clear();
  return out;
}

// The tapes recording on this thread, innermost last, each with a strong
// reference to its Python object (never released at thread exit: the GIL
// may not be held then; a thread ends inside a `with` block only by
// crashing).
struct Recording {
  PyObject* object;
  Tape* tape;
};
thread_local std::vector<Recording> recording;

void Push(py::object tape) {
  Tape* t = tape.cast<Tape*>();
  recording.push_back(Recording{tape.release().ptr(), t});
}

bool Pop(py::handle tape) {
  for (size_t i = recording.size(); i-- > 0;) {
    if (recording[i].object == tape.ptr()) {
      PyObject* o = recording[i].object;
      recording.erase(recording.begin() + static_cast<std::ptrdiff_t>(i));
      Py_DECREF(o);
      return true;
    }
  }
  return false;
}

}  // namespace

bool TapesRecording() { return !recording.empty(); }

bool RecordOperation(const RecordedCall& call, PyObject* result) {
  std::shared_ptr<TapeRecord> record;
  // Tapes may be pushed or popped by Python code run below (none is, but
  // the list is copied to be safe from that).
  const std::vector<Recording> tapes = recording;
  for (const Recording& r : tapes) {
    if (!r.tape->WatchesAny(call.flat_inputs, call.num_flat_inputs)) continue;
    if (record == nullptr) {
      record = std::make_shared<TapeRecord>();
      record->fn = NewRef(call.fn);
      record->op = *call.op;
      PyRef attrs(PyTuple_New(call.num_args - call.num_inputs));
      if (!attrs) return false;
      for (int j = call.num_inputs; j < call.num_args; ++j) {
        Py_INCREF(call.args[j]);
        PyTuple_SET_ITEM(attrs.get(), j - call.num_inputs, call.args[j]);
      }
      record->attrs = std::move(attrs);
      for (int i = 0; i < call.num_inputs; ++i) {
        record->lengths.push_back(
            (*call.input_is_list)[i]
                ? static_cast<int>(PySequence_Fast_GET_SIZE(call.args[i]))
                : -1);
      }
      for (size_t i = 0; i < call.num_flat_inputs; ++i) {
        record->inputs.push_back(NewRef(call.flat_inputs[i]));
      }
      if (call.input_tensors != nullptr &&
          call.input_tensors->size() == call.num_flat_inputs) {
        record->input_tensors = *call.input_tensors;
      }
      auto add_output = [&](PyObject* o) { record->outputs.push_back(NewRef(o)); };
      if (result == Py_None) {
      } else if (PyList_Check(result) || PyTuple_Check(result)) {
        const Py_ssize_t m = PySequence_Fast_GET_SIZE(result);
        for (Py_ssize_t k = 0; k < m; ++k) {
          PyObject* item = PySequence_Fast_GET_ITEM(result, k);
          if (PyList_Check(item)) {
            for (Py_ssize_t e = 0; e < PyList_GET_SIZE(item); ++e) {
              add_output(PyList_GET_ITEM(item, e));
            }
          } else {
            add_output(item);
          }
        }
      } else {
        add_output(result);
      }
      if (call.output_tensors != nullptr &&
          call.output_tensors->size() == record->outputs.size()) {
        record->output_tensors = *call.output_tensors;
      }
      if (*call.cache == nullptr) {
        *call.cache = NewGradientCache(*call.op, *call.dtypes, *call.attrs);
      }
      record->cache = *call.cache;
    }
    r.tape->Record(record);
  }
  return true;
}

void BindTape(py::module_& m) {
  py::class_<Tape>(m, "_Tape", "The recorded state of one GradientTape.")
      .def(py::init<>())
      .def("watch", &Tape::Watch, py::arg("value"),
           "Watches `value`; whether it was not watched before.")
      .def("is_tracked", &Tape::IsTracked, py::arg("value"))
      .def("reset", &Tape::Reset)
      .def("num_tracked", &Tape::NumTracked)
      .def("op_types", &Tape::OpTypes,
           "The op types recorded, in order (for tests).")
      .def("gradient", &Tape::Gradient, py::arg("targets"), py::arg("seeds"),
           py::arg("sources"), py::arg("fallback"), py::arg("aggregate"),
           py::arg("zeros_like"), py::arg("run_programs"), py::arg("release"));
  m.def("_tape_push", &Push, py::arg("tape"),
        "Makes a _Tape record on this thread (innermost).");
  m.def("_tape_pop", &Pop, py::arg("tape"),
        "Stops a _Tape recording on this thread; whether it was.");
  m.def("_set_eager_tensor_type", [](py::object type) {
    if (!PyType_Check(type.ptr()) ||
        !PyType_IsSubtype(reinterpret_cast<PyTypeObject*>(type.ptr()),
                          &PyArray_Type)) {
      throw py::type_error("the eager tensor type must subclass numpy.ndarray");
    }
    PyTypeObject* old = eager_tensor_type;
    eager_tensor_type = reinterpret_cast<PyTypeObject*>(type.release().ptr());
    Py_XDECREF(reinterpret_cast<PyObject*>(old));
  });
  // Note [Shape-only gradient nodes]: gradient_registry.py's Python path
  // uses the same op lists.
  m.attr("_SHAPE_OF_OPS") = py::cast(
      std::vector<std::string>(std::begin(kShapeOf), std::end(kShapeOf)));
  m.attr("_SHAPE_ARITHMETIC_OPS") = py::cast(std::vector<std::string>(
      std::begin(kShapeArithmetic), std::end(kShapeArithmetic)));
  m.def("_count_gradient_nodes", [](bool on) {
    count_nodes = on;
    node_counts.clear();
  }, py::arg("on"),
        "Starts (or stops) counting the nodes gradient programs run, per op "
        "type, from zero.");
  m.def("_gradient_node_counts", [] { return node_counts; },
        "The counts _count_gradient_nodes started: {op type: nodes run}.");
  m.def("_set_python_gradients", [](py::dict registry) {
    PyObject* old = python_gradients;
    python_gradients = registry.release().ptr();
    Py_XDECREF(old);
  }, "The dict of Python-registered gradients (op type -> function or None).");
}

}  // namespace internal
}  // namespace opkit
