// OpKernelContext: what OpKernel::Compute sees of one call — the inputs,
// where the outputs go, the device and its Eigen device, the resource
// manager — and where the kernel reports an error. OpInputList and
// OpOutputList view the tensors of one list-valued argument (`N * T`,
// `list(type)`).
//
//   void Compute(OpKernelContext* ctx) override {
//     const Tensor& a = ctx->input(0);
//     OpInputList values;
//     OP_REQUIRES_OK(ctx, ctx->input_list("values", &values));
//     Tensor* out = nullptr;
//     OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output(
//                             {0}, 0, a.shape(), &out));
//     out->flat<float>().device(ctx->eigen_device<Eigen::ThreadPoolDevice>()) =
//         a.flat<float>() * 2.f;
//   }
//
// A runtime fills Params, builds a context on the stack, calls Compute, then
// reads status() and collects the outputs (release_output / mutable_output).
//
// Note [Context misuse]
// Nothing a kernel does through the context is undefined behaviour. A
// misuse — an input or output index out of range, an output allocated or set
// twice, an output of the wrong dtype, a name that is not an argument, a
// list call on a single-valued argument — is an error Status. Calls that
// return a Status return it *and* record it on the context (so a kernel that
// ignores it still fails); calls that cannot return one (input(int),
// set_output(int, ...), input_dtype(int), ...) record it and return a
// harmless value (an empty tensor, DT_INVALID, nullptr). Running out of
// memory is only returned, not recorded, so a kernel may fall back.
//
// Thread-compatible: one call uses one context. An async kernel may use it
// from another thread until it calls `done`, but not from two at once.
#ifndef OPKIT_KERNEL_OP_KERNEL_CONTEXT_H_
#define OPKIT_KERNEL_OP_KERNEL_CONTEXT_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "opkit/core/export.h"
#include "opkit/core/mutex.h"
#include "opkit/core/status.h"
#include "opkit/tensor/allocator.h"
#include "opkit/tensor/tensor.h"
#include "opkit/tensor/tensor_shape.h"
#include "opkit/tensor/types.h"

namespace Eigen {
struct ThreadPoolDevice;
struct DefaultDevice;
}  // namespace Eigen

namespace opkit {

class Allocator;
class DeviceBase;
class OpKernel;
class OpKernelContext;
class ResourceMgr;

// One input of a call: a tensor and, for a Ref input, the mutex guarding it.
// Borrows both.
struct TensorValue {
  TensorValue() = default;
  explicit TensorValue(Tensor* t) : tensor(t) {}
  TensorValue(mutex* mu, Tensor* t) : mutex_if_ref(mu), tensor(t) {}

  Tensor* operator->() const { return tensor; }
  bool is_ref() const { return mutex_if_ref != nullptr; }
  // The tensor's dtype, as a ref type for a ref input.
  DataType dtype() const {
    if (tensor == nullptr) return DT_INVALID;
    return is_ref() ? MakeRefType(tensor->dtype()) : tensor->dtype();
  }

  mutex* mutex_if_ref = nullptr;
  Tensor* tensor = nullptr;
};

// Walks a list argument (OpInputList, OpOutputList) by index; `Reference` is
// what the list's operator[] returns. TensorFlow's OpArgIterator.
template <typename ListType, typename Reference>
class OpArgIterator {
 public:
  using iterator_category = std::forward_iterator_tag;
  using value_type = std::remove_cv_t<std::remove_reference_t<Reference>>;
  using difference_type = std::ptrdiff_t;
  using pointer = std::remove_reference_t<Reference>*;
  using reference = Reference;

  OpArgIterator(const ListType* list, int i) : list_(list), i_(i) {}
  reference operator*() const { return (*list_)[i_]; }
  // Only for lists of references (OpInputList).
  pointer operator->() const { return &(*list_)[i_]; }
  OpArgIterator& operator++() {
    ++i_;
    return *this;
  }
  OpArgIterator operator++(int) {
    OpArgIterator old = *this;
    ++i_;
    return old;
  }
  bool operator==(const OpArgIterator& o) const {
    return list_ == o.list_ && i_ == o.i_;
  }
  bool operator!=(const OpArgIterator& o) const { return !(*this == o); }

 private:
  const ListType* list_;
  int i_;
};

// The tensors of one list-valued input, in order. A view into the context;
// valid while it is.
class OPKIT_EXPORT OpInputList {
 public:
  using Iterator = OpArgIterator<OpInputList, const Tensor&>;

  OpInputList() = default;
  OpInputList(OpKernelContext* ctx, int start, int stop)
      : ctx_(ctx), start_(start), stop_(stop) {}

  int size() const { return stop_ - start_; }
  // Element `i`; out of range (or an empty list) is an error recorded on
  // the context and an empty tensor (Note [Context misuse]).
  const Tensor& operator[](int i) const;
  Iterator begin() const { return Iterator(this, 0); }
  Iterator end() const { return Iterator(this, size()); }

 private:
  OpKernelContext* ctx_ = nullptr;
  int start_ = 0;
  int stop_ = 0;
};

// The outputs of one list-valued output argument. A view into the context;
// valid while it is.
class OPKIT_EXPORT OpOutputList {
 public:
  using Iterator = OpArgIterator<OpOutputList, Tensor*>;

  OpOutputList() = default;
  OpOutputList(OpKernelContext* ctx, int start, int stop)
      : ctx_(ctx), start_(start), stop_(stop) {}

  int size() const { return stop_ - start_; }
  // The output set or allocated at element `i`, or nullptr (not yet set; or
  // out of range, which is also recorded).
  Tensor* operator[](int i) const;
  // The dtype element `i` must have; DT_INVALID (recorded) out of range.
  DataType expected_output_dtype(int i) const;
  // allocate_output / set_output of element `i` (same errors, plus an index
  // out of the list's range).
  Status allocate(int i, const TensorShape& shape, Tensor** output);
  void set(int i, const Tensor& tensor);
  void set(int i, Tensor&& tensor);
  Iterator begin() const { return Iterator(this, 0); }
  Iterator end() const { return Iterator(this, size()); }

 private:
  // OK when 0 <= i < size(); else an error recorded on the context.
  Status CheckIndex(int i) const;

  OpKernelContext* ctx_ = nullptr;
  int start_ = 0;
  int stop_ = 0;
};

// Note [Step cancellation]
// A step (one Session::Run) owns a CancellationManager. An async kernel that
// waits registers a callback with a token; when the step fails (another node
// errs) the executor calls StartCancel(), which runs every registered callback
// once so that the waiting kernel can finish early (with any status; the
// step already has its error). Thread-safe.
//
//   CancellationToken t = cm->get_cancellation_token();
//   if (!cm->RegisterCallback(t, [&] { waiter.Cancel(); })) {
//     // Already cancelled: finish now.
//   }
//   ... later, when the work is done: cm->DeregisterCallback(t);
using CancellationToken = int64_t;

class OPKIT_EXPORT CancellationManager {
 public:
  CancellationManager();
  ~CancellationManager();
  CancellationManager(const CancellationManager&) = delete;
  CancellationManager& operator=(const CancellationManager&) = delete;

  // A fresh token for RegisterCallback.
  CancellationToken get_cancellation_token();
  // Registers `callback` under `token`; false (nothing registered) when
  // cancellation has already started, in which case the caller must cancel
  // itself.
  bool RegisterCallback(CancellationToken token, std::function<void()> callback);
  // Removes the callback; true if it was still registered (so it will not
  // run), false if it ran or is running (the caller may have to wait for
  // its effects).
  bool DeregisterCallback(CancellationToken token);
  // Runs every registered callback once (outside the lock); later calls do
  // nothing.
  void StartCancel();
  bool IsCancelled() const;

 private:
  mutable mutex mu_;
  bool cancelled_ OPKIT_GUARDED_BY(mu_) = false;
  CancellationToken next_token_ OPKIT_GUARDED_BY(mu_) = 0;
  std::vector<std::pair<CancellationToken, std::function<void()>>> callbacks_
      OPKIT_GUARDED_BY(mu_);
};

// Where a call runs in a graph with v1 control flow (Enter/Exit/NextIteration):
// the frame instance (0 for the root frame) and the iteration in it.
struct FrameAndIter {
  int64_t frame_id = 0;
  int64_t iter_id = 0;
};

class OPKIT_EXPORT OpKernelContext {
 public:
  // What the runtime supplies for one call. Everything is borrowed and must
  // outlive the context.
  struct Params {
    // forward_input's output_index when the forwarded tensor is not meant
    // for an output (a temporary). kNeverForward is TensorFlow's marker for
    // an input that must never be forwarded.
    static constexpr int kNeverForward = -2;
    static constexpr int kNoReservation = -1;

    // The step (graph run or eager call) this call belongs to.
    int64_t step_id = 0;
    // The kernel being run. Required: a context without one records an
    // error and has no inputs or outputs.
    OpKernel* op_kernel = nullptr;
    // The device; null means none (eigen_device() then falls back to a
    // process-wide single-thread device).
    DeviceBase* device = nullptr;
    // Allocator for outputs and temporaries; null means the device's
    // GetAllocator(), or cpu_allocator() without a device.
    Allocator* allocator = nullptr;
    // The inputs, one per kernel input, in order; must match the kernel's
    // input types (the context checks, recording an error). A non-ref input
    // whose buffer no other Tensor shares may be forwarded to an output and
    // overwritten (forward_input_or_allocate_output): pass a copy of a
    // tensor the caller still needs, which makes the buffer shared.
    const std::vector<TensorValue>* inputs = nullptr;
    // Resource manager for the call; null means the device's.
    ResourceMgr* resource_manager = nullptr;
    // Runs a closure later, on some thread (for async kernels that fan out
    // work); null if the runtime provides none.
    std::function<void(std::function<void()>)>* runner = nullptr;
    // Whether to count the bytes of outputs and temporaries allocated
    // through the context (output_memory_allocated(),
    // temp_memory_allocated()).
    bool track_allocations = false;
    // Whether forward_input_or_allocate_output may take over an input's
    // buffer at all. A runtime that passes tensors its caller still owns
    // (without copies that would make the buffers shared) sets it false.
    bool forward_inputs = true;

    // --- Graph execution (set by the executor; eager leaves the defaults) ---
    // Whether some input of this call is dead (v1 control flow). Only
    // kernels for control-flow ops (Merge) run with dead inputs.
    bool is_input_dead = false;
    // When true, an input whose TensorValue::tensor is null is accepted and
    // reads as absent (has_input() false): how Merge sees its dead inputs.
    bool allow_missing_inputs = false;
    // The frame and iteration of the call (0/0 outside loops).
    FrameAndIter frame_iter;
    // The step's cancellation manager; null when the runtime has none.
    CancellationManager* cancellation_manager = nullptr;
  };

  // Borrows `params` for the context's lifetime. Checks the inputs against
  // the kernel (count, dtypes, no null tensors) and records the first
  // mismatch as InvalidArgument; a runtime should not call Compute when
  // status() is not OK after construction.
  explicit OpKernelContext(Params* params);
  ~OpKernelContext();
  OpKernelContext(const OpKernelContext&) = delete;
  OpKernelContext& operator=(const OpKernelContext&) = delete;

  // --- The call -----------------------------------------------------------

  const OpKernel& op_kernel() const { return *params_->op_kernel; }
  int64_t step_id() const { return params_->step_id; }
  DeviceBase* device() const { return params_->device; }
  // The device's (or Params') resource manager; may be null.
  ResourceMgr* resource_manager() const { return resource_manager_; }
  // Never null.
  Allocator* allocator() const { return allocator_; }
  std::function<void(std::function<void()>)>* runner() const {
    return params_->runner;
  }
  const Params& params() const { return *params_; }

  // The Eigen device to evaluate tensor expressions on:
  // Eigen::ThreadPoolDevice (the device's intra-op pool; a process-wide
  // one-thread pool when the device has none) or Eigen::DefaultDevice (the
  // calling thread). The types must be complete where it is used: include
  // op_kernel.h, which defines EIGEN_USE_THREADS.
  template <typename EigenDeviceType>
  const EigenDeviceType& eigen_device() const;
  const Eigen::ThreadPoolDevice& eigen_cpu_device() const;

  // --- Inputs -------------------------------------------------------------

  int num_inputs() const { return num_inputs_; }
  // The dtype of input `index` (a ref type for a ref input); DT_INVALID,
  // recorded as an error, out of range.
  DataType input_dtype(int index) const;
  // The dtype of the single-valued input argument `name`.
  Status input_dtype(std::string_view name, DataType* dtype) const;
  // Whether input `index` is a Ref input (false out of range).
  bool input_is_ref(int index) const;
  // Whether input `index` exists and has a tensor.
  bool has_input(int index) const;

  // OK if the call's input dtypes (ref types where the inputs are refs) and
  // the kernel's output types are `expected_inputs` -> `expected_outputs` (a
  // ref type is accepted where its base type is expected); otherwise
  // InvalidArgument "Signature mismatch, have: float->float expected:
  // int32->int32" (TensorFlow's text), returned and not recorded.
  Status MatchSignature(const DataTypeVector& expected_inputs,
                        const DataTypeVector& expected_outputs);
  // True when every input has input 0's shape; otherwise records
  // InvalidArgument "Inputs to operation n of type Op must have the same
  // size and shape.  Input 0: [2] != input 1: [3]" (TensorFlow's text,
  // naming `op`'s node) and returns false.
  bool ValidateInputsAreSameShape(OpKernel* op);

  // Input `index`. Out of range: records an error and returns a reference
  // to a process-wide empty tensor (DT_FLOAT, no storage), so the kernel
  // must check status() or use OP_REQUIRES on it before trusting the data.
  const Tensor& input(int index) const;
  // The tensor of the single-valued input argument `name`; *tensor is null
  // on error: InvalidArgument "Unknown input name: x" or "OpKernel used
  // list-valued input name 'x' when single-valued input was expected" or,
  // for a ref input, "OpKernel used ref input name 'x' when non-ref input
  // was expected" (TensorFlow's texts).
  Status input(std::string_view name, const Tensor** tensor);
  // The tensors of the list-valued input argument `name` (`N * T` or a
  // `list(type)` attr). InvalidArgument for an unknown name or a
  // single-valued argument ("OpKernel used single-valued input name 'x'
  // when list-valued input was expected; use input()").
  Status input_list(std::string_view name, OpInputList* list);

  // A Ref input, sharing its buffer, so the kernel can update it in place.
  // Unless `lock_held`, the ref's mutex is held while the tensor is copied.
  // A non-ref input or an index out of range is an error recorded here and
  // an empty tensor.
  Tensor mutable_input(int index, bool lock_held);
  Status mutable_input(std::string_view name, Tensor* tensor, bool lock_held);

  // The mutex guarding Ref input `index`; null (recorded as an error) for a
  // non-ref input or an index out of range.
  mutex* input_ref_mutex(int index);
  // Makes Ref input `index` refer to a new value: assigns `tensor` (sharing
  // its buffer) to the tensor the ref points at, under the ref's mutex unless
  // `lock_held`. What Assign does when the shapes differ or the ref is
  // uninitialized. A non-ref input or bad index is recorded.
  void replace_ref_input(int index, const Tensor& tensor, bool lock_held);

  // --- Graph execution ------------------------------------------------------

  // Whether some input of the call is dead (Params::is_input_dead).
  bool is_input_dead() const { return params_->is_input_dead; }
  // Frame and iteration of the call (Params::frame_iter).
  FrameAndIter frame_iter() const { return params_->frame_iter; }
  // The step's cancellation manager, or null.
  CancellationManager* cancellation_manager() const {
    return params_->cancellation_manager;
  }

  // --- Outputs ------------------------------------------------------------

  int num_outputs() const { return num_outputs_; }
  // The dtype output `index` must have; DT_INVALID, recorded, out of range.
  DataType expected_output_dtype(int index) const;

  // Allocates output `index` with the expected dtype and `shape` and points
  // *tensor at it (null on error). Internal "allocate_output with bad
  // index=..." for an index out of range (TensorFlow's text); Internal for
  // an output already allocated or set, or a Ref output; Tensor::Allocate's
  // errors (ResourceExhausted when out of memory).
  Status allocate_output(int index, const TensorShape& shape, Tensor** tensor);
  // The same for the single-valued output argument `name`.
  Status allocate_output(std::string_view name, const TensorShape& shape,
                         Tensor** tensor);
  // The same with TensorFlow's allocator attributes. opkit's one device
  // keeps every tensor in host memory, which meets every attribute, so the
  // allocation is the one above.
  Status allocate_output(int index, const TensorShape& shape, Tensor** tensor,
                         AllocatorAttributes attr);
  Status allocate_output(std::string_view name, const TensorShape& shape,
                         Tensor** tensor, AllocatorAttributes attr);
  // A tensor for the kernel's own use during this call (with or without
  // allocator attributes, as allocate_output).
  Status allocate_temp(DataType type, const TensorShape& shape,
                       Tensor* out_temp);
  Status allocate_temp(DataType type, const TensorShape& shape,
                       Tensor* out_temp, AllocatorAttributes allocator_attr);

  // Makes `tensor` (sharing its buffer) output `index`. An index out of
  // range, an output already set or allocated, or a dtype other than
  // expected_output_dtype(index) is an error recorded here, and the output
  // is left as it was.
  void set_output(int index, const Tensor& tensor);
  void set_output(int index, Tensor&& tensor);
  // The same for the single-valued output argument `name`; the error is
  // also returned.
  Status set_output(std::string_view name, const Tensor& tensor);

  // The outputs of the list-valued output argument `name`.
  Status output_list(std::string_view name, OpOutputList* list);

  // Makes output `output_index` share input `input_index`'s buffer, viewed
  // with `output_shape`, whoever else shares it (what Identity and Reshape
  // do). Returns false (recording nothing) when the element counts differ;
  // a bad index, a dtype other than the expected output dtype, a ref input
  // or an output already set is recorded and returns false.
  [[nodiscard]] bool forward_input_to_output_with_shape(
      int input_index, int output_index, const TensorShape& output_shape,
      Tensor** output);
  // The same by argument names; InvalidArgument when it cannot forward.
  Status forward_input_to_output_with_shape(std::string_view input_name,
                                            std::string_view output_name,
                                            const TensorShape& output_shape,
                                            Tensor** output);

  // Output `output_index` as a reuse of the first candidate input whose
  // buffer can be taken over — not a Ref input, the expected output dtype,
  // `output_shape`'s element count, and no other Tensor sharing the buffer
  // (Tensor::RefCountIsOne) — else a new allocation (as allocate_output).
  // *forwarded_input (if not null) is the input used, or -1. A candidate
  // index out of range is an error, like an output index out of range.
  Status forward_input_or_allocate_output(
      std::initializer_list<int> candidate_input_indices, int output_index,
      const TensorShape& output_shape, Tensor** output,
      int* forwarded_input = nullptr);
  Status forward_input_or_allocate_output(
      const std::vector<int>& candidate_input_indices, int output_index,
      const TensorShape& output_shape, Tensor** output,
      int* forwarded_input = nullptr);
  // By argument names (each a single-valued argument; InvalidArgument
  // otherwise).
  Status forward_input_or_allocate_output(
      std::initializer_list<std::string_view> candidate_input_names,
      std::string_view output_name, const TensorShape& output_shape,
      Tensor** output);
  Status forward_input_or_allocate_output(const int* candidate_input_indices,
                                          size_t num_candidates,
                                          int output_index,
                                          const TensorShape& output_shape,
                                          Tensor** output,
                                          int* forwarded_input = nullptr);

  // TensorFlow's forward_input: a new Tensor sharing input `input_index`'s
  // buffer, viewed with `output_shape`, when that buffer can be taken over
  // -- forwarding is allowed (Params::forward_inputs), the input is present
  // and not a Ref, its dtype is `output_dtype`, the element counts are
  // equal, no other Tensor shares the buffer (Tensor::RefCountIsOne), the
  // buffer is aligned, and the input's allocator attributes (host memory)
  // meet `output_attr` -- else nullptr. When `output_index` is an output
  // (not Params::kNoReservation) its expected dtype must be `output_dtype`
  // too. The tensor is not made an output: set_output does that. Both
  // memory types are host memory here, so `output_memory_type` never
  // refuses. An index out of range is recorded and gives nullptr.
  std::unique_ptr<Tensor> forward_input(int input_index, int output_index,
                                        DataType output_dtype,
                                        const TensorShape& output_shape,
                                        MemoryType output_memory_type,
                                        const AllocatorAttributes& output_attr);

  // A temporary that reuses the first candidate input forward_input can
  // take over (as a temporary), else a new one from allocate_temp. A
  // candidate index out of range is an error.
  Status forward_input_or_allocate_temp(
      std::initializer_list<int> candidate_input_indices, DataType type,
      const TensorShape& shape, const AllocatorAttributes& allocator_attr,
      Tensor* out_temp);
  Status forward_input_or_allocate_temp(
      const std::vector<int>& candidate_input_indices, DataType type,
      const TensorShape& shape, const AllocatorAttributes& allocator_attr,
      Tensor* out_temp);
  Status forward_input_or_allocate_temp(
      std::initializer_list<int> candidate_input_indices, DataType type,
      const TensorShape& shape, Tensor* out_temp) {
    return forward_input_or_allocate_temp(candidate_input_indices, type,
                                          shape, AllocatorAttributes(),
                                          out_temp);
  }
  Status forward_input_or_allocate_temp(
      const std::vector<int>& candidate_input_indices, DataType type,
      const TensorShape& shape, Tensor* out_temp) {
    return forward_input_or_allocate_temp(candidate_input_indices, type,
                                          shape, AllocatorAttributes(),
                                          out_temp);
  }

  // Makes Ref output `index` refer to `*tensor_for_ref`, guarded by `mu`
  // (both borrowed; they must outlive every use of the output — normally a
  // variable in a ResourceMgr). An index out of range, a non-ref output, a
  // dtype other than the output's base type, or an output already set is an
  // error recorded here.
  void set_output_ref(int index, mutex* mu, Tensor* tensor_for_ref);
  // Makes Ref output `output_index` the same ref as Ref input `input_index`
  // (what Assign, RefEnter, RefSwitch do). Errors are recorded.
  void forward_ref_input_to_ref_output(int input_index, int output_index);
  // Whether output `index` was set as a ref (set_output_ref).
  bool output_is_ref(int index) const;
  // For the runtime: the ref held by output `index` (mutex and tensor), or
  // an empty TensorValue when it is not a ref output that has been set.
  TensorValue output_ref(int index) const;

  // Output `index` if it has been set or allocated, else nullptr (out of
  // range: nullptr, recorded).
  Tensor* mutable_output(int index);
  // Whether output `index` has been set or allocated (false out of range).
  bool output_is_set(int index) const;

  // For the runtime: moves output `index` into *out, leaving it unset.
  // Internal if the index is out of range or the output was never set.
  Status release_output(int index, Tensor* out);
  // For the runtime: OK if every output has been set, else Internal
  // "Missing 0-th output from {{node n}}" (TensorFlow's text) for the first
  // missing one. Does not record.
  Status CheckAllOutputsSet() const;

  // Bytes allocated through allocate_output / forward_input_or_allocate_output
  // (allocations only) and allocate_temp; 0 unless Params::track_allocations.
  int64_t output_memory_allocated() const { return output_bytes_; }
  int64_t temp_memory_allocated() const { return temp_bytes_; }

  // --- Status -------------------------------------------------------------

  // The first error recorded (OK if none).
  const Status& status() const { return status_; }
  // Records `status` unless an error is already recorded (the first wins).
  void SetStatus(const Status& status) const;

  // What OP_REQUIRES calls: records `s`, logging file:line at VLOG(1).
  void CtxFailure(const Status& s);
  void CtxFailure(const char* file, int line, const Status& s);
  // What OP_REQUIRES_OK calls: records `s`, logging it with file:line as a
  // warning.
  void CtxFailureWithWarning(const Status& s);
  void CtxFailureWithWarning(const char* file, int line, const Status& s);
  // Where the first CtxFailure* came from (file null and line 0 when the
  // first error came another way).
  const char* failure_file() const { return failure_file_; }
  int failure_line() const { return failure_line_; }

 private:
  struct OutputSlot {
    Tensor tensor;
    bool set = false;
    // For a ref output (set_output_ref): what it refers to.
    mutex* ref_mu = nullptr;
    Tensor* ref = nullptr;
  };

  // Records `s` (SetStatus) and returns it.
  Status Misuse(Status s) const;
  // OK or the recorded Internal error "... with bad index=...".
  Status CheckOutputIndex(const char* what, int index) const;
  Status CheckOutputFree(const char* what, int index) const;
  Status InputIndexError(const char* what, int index) const;
  // Index range of the argument `name`, or InvalidArgument.
  Status InputArg(std::string_view name, int* start, int* stop,
                  bool* is_list) const;
  Status OutputArg(std::string_view name, int* start, int* stop,
                   bool* is_list) const;
  Status SingleInputIndex(std::string_view name, int* index) const;
  Status SingleOutputIndex(std::string_view name, int* index) const;
  // Forwards input `input_index` into output `output_index` when the buffer
  // can be taken over (see forward_input_or_allocate_output).
  bool TryForward(int input_index, int output_index,
                  const TensorShape& output_shape, Tensor** output);
  // forward_input_or_allocate_temp over a candidate array.
  Status ForwardInputOrAllocateTemp(const int* candidates, size_t num_candidates,
                                    DataType type, const TensorShape& shape,
                                    const AllocatorAttributes& allocator_attr,
                                    Tensor* out_temp);
  // set_output's checks and the store; the error is recorded and returned.
  Status SetOutputChecked(int index, Tensor&& tensor);

  Params* params_;
  Allocator* allocator_ = nullptr;
  ResourceMgr* resource_manager_ = nullptr;
  int num_inputs_ = 0;
  int num_outputs_ = 0;
  // Output slots: inline for the common small counts, so that a call with
  // few outputs does not allocate for them. Only the kernel's num_outputs()
  // inline slots are constructed (and destroyed).
  static constexpr int kInlineOutputs = 4;
  alignas(OutputSlot) unsigned char inline_outputs_[kInlineOutputs * sizeof(OutputSlot)];
  int inline_constructed_ = 0;
  std::unique_ptr<OutputSlot[]> heap_outputs_;
  OutputSlot* outputs_ = nullptr;
  int64_t output_bytes_ = 0;
  int64_t temp_bytes_ = 0;
  // Mutable so that const accessors (input(int), ...) can record misuse.
  mutable Status status_;
  mutable const char* failure_file_ = nullptr;
  mutable int failure_line_ = 0;
};

// eigen_device<Eigen::ThreadPoolDevice>() and eigen_device<Eigen::DefaultDevice>().
template <>
OPKIT_EXPORT const Eigen::ThreadPoolDevice&
OpKernelContext::eigen_device<Eigen::ThreadPoolDevice>() const;
template <>
OPKIT_EXPORT const Eigen::DefaultDevice&
OpKernelContext::eigen_device<Eigen::DefaultDevice>() const;

}  // namespace opkit

#endif  // OPKIT_KERNEL_OP_KERNEL_CONTEXT_H_
