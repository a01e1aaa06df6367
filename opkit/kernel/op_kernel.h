// OpKernel: the implementation of an op for one device and set of types;
// AsyncOpKernel for kernels that wait; REGISTER_KERNEL_BUILDER to register
// one; CreateOpKernel to instantiate the kernel selected for a node.
//
//   #include "opkit/kernel/op_kernel.h"
//
//   template <typename T>
//   class ZeroOutOp : public OpKernel {
//    public:
//     explicit ZeroOutOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
//     void Compute(OpKernelContext* ctx) override {
//       const Tensor& input = ctx->input(0);
//       Tensor* output = nullptr;
//       OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &output));
//       auto out = output->flat<T>();
//       out.setZero();
//       if (out.size() > 0) out(0) = input.flat<T>()(0);
//     }
//   };
//   REGISTER_KERNEL_BUILDER(
//       Name("ZeroOut").Device(DEVICE_CPU).TypeConstraint<float>("T"),
//       ZeroOutOp<float>);
//
//   OpKernel* kernel = nullptr;
//   OPKIT_RETURN_IF_ERROR(CreateOpKernel(DeviceType(DEVICE_CPU), device,
//                                        nullptr, node_def,
//                                        /*graph_def_version=*/0, &kernel));
//
// This header brings in everything a kernel needs: OpKernelConstruction
// (op_kernel_construction.h), OpKernelContext (op_kernel_context.h), the
// OP_REQUIRES macros (op_requires.h), KernelDefBuilder, Tensor and the Eigen
// tensor module with EIGEN_USE_THREADS, so that
// ctx->eigen_device<Eigen::ThreadPoolDevice>() is usable. (Include it before
// anything else that includes Eigen's tensor module, or define
// EIGEN_USE_THREADS for the whole build.)
#ifndef OPKIT_KERNEL_OP_KERNEL_H_
#define OPKIT_KERNEL_OP_KERNEL_H_

#ifndef EIGEN_USE_THREADS
#define EIGEN_USE_THREADS
#endif

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "opkit/core/abi.h"
#include "opkit/core/errors.h"
#include "opkit/core/export.h"
#include "opkit/core/status.h"
#include "opkit/device/device_type.h"
#include "opkit/kernel/kernel_def_builder.h"
#include "opkit/kernel/kernel_registration.h"
#include "opkit/kernel/kernel_registry_fwd.h"
#include "opkit/kernel/op_kernel_construction.h"
#include "opkit/kernel/op_kernel_context.h"
#include "opkit/kernel/op_requires.h"
#include "opkit/core/registration_origin.h"
#include "opkit/op/selective_registration.h"
#include "opkit/tensor/tensor.h"
#include "opkit/tensor/types.h"
#include "opkit/node_def.pb.h"
#include "opkit/core/eigen.h"

namespace opkit {

class AsyncOpKernel;
class DeviceBase;

// The base of every kernel. A kernel is built once per node (and device)
// and then run many times.
//
// Thread safety: Compute() may be called concurrently from several threads
// (the executor runs the same node of different steps at once, eager calls
// share cached kernels), so it must be thread-safe: keep per-call state in
// the context or on the stack, and guard any mutable member.
class OPKIT_EXPORT OpKernel {
 public:
  // Reads the node's name, types and argument ranges from `context`. A
  // failure (an argument range that cannot be computed) is recorded on
  // `context`.
  explicit OpKernel(OpKernelConstruction* context);
  virtual ~OpKernel();
  OpKernel(const OpKernel&) = delete;
  OpKernel& operator=(const OpKernel&) = delete;

  // Runs the kernel on one call's inputs. Errors go to the context
  // (OP_REQUIRES*). Must be thread-safe (see the class comment).
  virtual void Compute(OpKernelContext* context) = 0;

  // This kernel as an AsyncOpKernel, or null if it is synchronous.
  virtual AsyncOpKernel* AsAsync() { return nullptr; }

  // Whether a call is worth running on another thread; a cheap kernel
  // (Identity, Shape) says false so that the executor runs it inline.
  virtual bool IsExpensive() { return expensive_; }

  // The node, with the op's defaults applied.
  const NodeDef& def() const { return props_->node_def; }
  const std::string& name() const { return props_->node_def.name(); }
  // The op's name ("MatMul").
  const std::string& type_string() const { return props_->node_def.op(); }
  // The device the node asked for (NodeDef.device); may be empty.
  const std::string& requested_device() const {
    return props_->node_def.device();
  }
  // The node's i-th input as the NodeDef names it ("x", "x:1", "^ctl"), as
  // TensorFlow's messages quote it. 0 <= i < def().input_size().
  const std::string& requested_input(int i) const {
    return props_->node_def.input(i);
  }
  const std::shared_ptr<const NodeProperties>& props() const { return props_; }

  int num_inputs() const { return num_inputs_; }
  int num_outputs() const { return num_outputs_; }
  // DT_INVALID for an index out of range.
  DataType input_type(int i) const {
    if (i >= 0 && i < kInlineTypes && i < num_inputs_) {
      return inline_input_types_[i];
    }
    return InputTypeSlow(i);
  }
  DataType output_type(int i) const {
    if (i >= 0 && i < kInlineTypes && i < num_outputs_) {
      return inline_output_types_[i];
    }
    return OutputTypeSlow(i);
  }
  const DataTypeVector& input_types() const { return props_->input_types; }
  const DataTypeVector& output_types() const { return props_->output_types; }

  // The index range [*start, *stop) of the input / output argument `name`.
  // InvalidArgument "Unknown input name: x" / "Unknown output name: x".
  Status InputRange(std::string_view input_name, int* start, int* stop) const;
  Status OutputRange(std::string_view output_name, int* start,
                     int* stop) const;
  // The same, also saying whether the argument is list-valued (`N * T` or
  // `list(type)`), as OpKernelContext needs to tell input() from
  // input_list().
  Status InputRange(std::string_view input_name, int* start, int* stop,
                    bool* is_list) const;
  Status OutputRange(std::string_view output_name, int* start, int* stop,
                     bool* is_list) const;

  // The keep-alive of the library this kernel's registration came from
  // (null for code linked into the program). See Note [Kernel keep-alive].
  const std::shared_ptr<const void>& library_owner() const {
    return library_owner_;
  }

 protected:
  // For a kernel that decides after construction (TensorFlow's
  // set_is_expensive / cost model hooks).
  void set_is_expensive(bool expensive) { expensive_ = expensive; }

 private:
  struct ArgRange {
    int start;
    int stop;
    bool is_list;
  };
  using ArgRangeMap = std::map<std::string, ArgRange, std::less<>>;

  const std::shared_ptr<const NodeProperties> props_;
  ArgRangeMap input_ranges_;
  ArgRangeMap output_ranges_;
  bool expensive_ = true;
  // Note [Kernel keep-alive]
  // "A loaded library is kept alive by every kernel instance created from
  // it" (DESIGN.md). This reference is dropped when the OpKernel base is
  // destroyed, which happens inside the destructor of the derived class, i.e.
  // while code of the library is still on the stack. So whatever the owner
  // does when its last reference goes (the loader's dlclose) must not unmap
  // the library synchronously from that call; it defers the close (e.g. to
  // Unload() or a later point on another stack).
  std::shared_ptr<const void> library_owner_;

  // Note [Inline kernel types]
  // The counts and the first few input/output types, copied out of props_
  // at construction: a runtime checks them on every call, and reading them
  // here touches the kernel object the call uses anyway instead of two more
  // heap blocks (a graph step over many nodes otherwise pays cache misses
  // for them).
  static constexpr int kInlineTypes = 4;
  DataType InputTypeSlow(int i) const;
  DataType OutputTypeSlow(int i) const;
  int num_inputs_ = 0;
  int num_outputs_ = 0;
  DataType inline_input_types_[kInlineTypes] = {};
  DataType inline_output_types_[kInlineTypes] = {};
};

// A kernel that finishes later: ComputeAsync() starts the work and returns;
// the work calls `done` exactly once when the outputs (or an error) are on
// the context. The context must stay valid until `done` runs.
class OPKIT_EXPORT AsyncOpKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  using DoneCallback = std::function<void()>;

  // Starts the kernel; `done` must be called exactly once, on any thread,
  // on every path (OP_REQUIRES_ASYNC does it on errors). Thread-safe as
  // Compute().
  virtual void ComputeAsync(OpKernelContext* context, DoneCallback done) = 0;

  AsyncOpKernel* AsAsync() override { return this; }

  // Runs ComputeAsync() and blocks the calling thread until `done` is
  // called. A second call of `done` is ignored.
  void Compute(OpKernelContext* context) override;
};

// --- Creating kernels ------------------------------------------------------

// Builds the kernel selected for `node_def` on `device_type`, with
// TensorFlow's signature, over OpRegistry::Global() and
// KernelRegistry::Global(). On success *kernel is a new object the caller
// owns; on error it is null. See the explicit-registry overload for the
// steps and errors.
OPKIT_EXPORT Status CreateOpKernel(DeviceType device_type, DeviceBase* device,
                                   Allocator* allocator,
                                   const NodeDef& node_def,
                                   int graph_def_version, OpKernel** kernel);

// Builds the kernel selected for `node_def` on `device_type`:
//   1. looks the op up in `op_registry` (its NotFound as it is);
//   2. adds the op's attr defaults and validates the node (ValidateNodeDef's
//      errors);
//   3. selects a kernel in `kernel_registry` (FindKernel's errors: "No
//      OpKernel was registered to support Op ...", ambiguity);
//   4. runs the factory with an OpKernelConstruction; if the constructor
//      recorded an error, the kernel is deleted and that error is returned
//      with the node attached (AttachDef). A factory that returns null
//      without an error, or throws, is Internal.
// `allocator` null means the device's. `device` may be null (then the
// kernel has no device). *kernel is null on error.
OPKIT_EXPORT Status CreateOpKernel(const DeviceType& device_type,
                                   DeviceBase* device, Allocator* allocator,
                                   const NodeDef& node_def,
                                   int graph_def_version,
                                   const OpRegistryInterface& op_registry,
                                   const KernelRegistry& kernel_registry,
                                   std::unique_ptr<OpKernel>* kernel);

// Step 4 alone, for a runtime that selected the kernel itself (an eager
// cache): runs `selection.factory` for the node in `props` and hands the
// kernel `selection.owner`. Errors as step 4 above; InvalidArgument for a
// selection without a factory or null `props`.
OPKIT_EXPORT Status CreateOpKernel(const KernelSelection& selection,
                                   const DeviceType& device_type,
                                   DeviceBase* device, Allocator* allocator,
                                   std::shared_ptr<const NodeProperties> props,
                                   int graph_def_version,
                                   std::unique_ptr<OpKernel>* kernel);

// --- REGISTER_KERNEL_BUILDER -------------------------------------------------

namespace kernel_factory {

// The static object REGISTER_KERNEL_BUILDER defines, and TensorFlow's way for
// code to register a kernel by hand. Constructing it only appends the
// registration to the pending list (internal::AddPendingKernelRegistration,
// kernel_registration.h): nothing is checked and nothing can fail or throw
// at static-initialization time; a bad registration is reported when the
// pending list is committed, and a library's registrations, these included,
// land all or none (Note [Pending kernel registrations]).
//
//   // TensorFlow's constructors: the registrar takes ownership of the
//   // KernelDef (as TensorFlow's deletes it).
//   static kernel_factory::OpKernelRegistrar registrar(
//       Name("MyOp").Device(DEVICE_CPU).Build(), "MyOpKernel",
//       [](OpKernelConstruction* c) -> OpKernel* { return new MyOpKernel(c); });
//   static kernel_factory::OpKernelRegistrar with_state(
//       Name("MyOp").Device(DEVICE_CPU).Label("x").Build(), "MyOpKernel",
//       std::make_unique<MyFactory>(options));   // an OpKernelFactory
//
// The origin recorded is the line that constructs the registrar.
class OPKIT_EXPORT OpKernelRegistrar {
 public:
  // TensorFlow 1.x's name for the factory function type.
  using Factory = KernelFactory;

  // Records a kernel (`should_register` true) or nothing (a kernel dropped by
  // selective registration).
  OpKernelRegistrar(bool should_register, const KernelDefBuilder& builder,
                    const char* kernel_class_name, KernelFactory factory,
                    const char* file, int line);

  // TensorFlow's: registers `kernel_def` (owned from here on, may be null:
  // the commit then fails naming the class) with a factory object whose
  // Create() makes the kernels. A KernelDef whose op is "_no_register" is
  // dropped, as TensorFlow does.
  OpKernelRegistrar(const KernelDef* kernel_def,
                    std::string_view kernel_class_name,
                    std::unique_ptr<OpKernelFactory> factory,
                    const char* file = __builtin_FILE(),
                    int line = __builtin_LINE());
  // TensorFlow's: the same with a factory function.
  OpKernelRegistrar(const KernelDef* kernel_def,
                    std::string_view kernel_class_name,
                    OpKernel* (*create_fn)(OpKernelConstruction*),
                    const char* file = __builtin_FILE(),
                    int line = __builtin_LINE());
};

namespace internal {

// The factory REGISTER_KERNEL_BUILDER records. For a kernel of an op dropped
// by selective registration (kKeep false) the constructor is never
// referenced, so the compiler need not emit the kernel's code.
template <bool kKeep, typename Kernel>
OpKernel* CreateKernel(OpKernelConstruction* context) {
  if constexpr (kKeep) {
    return new Kernel(context);
  } else {
    (void)context;
    return nullptr;
  }
}

}  // namespace internal
}  // namespace kernel_factory
}  // namespace opkit

#define OPKIT_KERNEL_CONCAT_INNER(a, b) a##b
#define OPKIT_KERNEL_CONCAT(a, b) OPKIT_KERNEL_CONCAT_INNER(a, b)

// Note [Kernel registration macro]
// REGISTER_KERNEL_BUILDER(Name("Op")..., Class) must know the op's name at
// preprocessing time, so that selective registration drops the kernels of an
// op it drops (SHOULD_REGISTER_OP("Op"), as TensorFlow's macro does; keeping
// them would fail the commit: a kernel of an unknown op). The builder
// expression is pasted onto OPKIT_KERNEL_OP_NAME_, which turns its leading
// `Name("Op")` into `"Op", ::opkit::register_kernel::Name("Op")`; one more
// macro level splits that into two arguments. The builder must therefore
// start with `Name(` (TensorFlow has the same rule). The unique name of the
// static object comes from __COUNTER__ (`ctr`), so two registrations on one
// line (through a macro) do not collide, and the object may be at namespace
// scope, in any namespace, or in a function. SHOULD_REGISTER_OP must be a
// constant expression (it picks the factory at compile time);
// SHOULD_REGISTER_OP_KERNEL need not be (TensorFlow's generated headers use
// strstr).
#define OPKIT_KERNEL_OP_NAME_Name(op_name) \
  op_name, ::opkit::register_kernel::Name(op_name)

#define OPKIT_REGISTER_KERNEL_BUILDER_IMPL(ctr, kernel_builder, ...)        \
  OPKIT_REGISTER_KERNEL_BUILDER_SPLIT(                                      \
      ctr, OPKIT_KERNEL_OP_NAME_##kernel_builder, __VA_ARGS__)
#define OPKIT_REGISTER_KERNEL_BUILDER_SPLIT(ctr, name_and_builder, ...)     \
  OPKIT_REGISTER_KERNEL_BUILDER_NAMED(ctr, name_and_builder, __VA_ARGS__)
#define OPKIT_REGISTER_KERNEL_BUILDER_NAMED(ctr, op_name, kernel_builder, ...) \
  static const ::opkit::kernel_factory::OpKernelRegistrar                     \
      OPKIT_KERNEL_CONCAT(opkit_kernel_registrar_, ctr) [[maybe_unused]](     \
          (SHOULD_REGISTER_OP(op_name)) &&                                    \
              (SHOULD_REGISTER_OP_KERNEL(#__VA_ARGS__)),                      \
          kernel_builder, #__VA_ARGS__,                                       \
          &::opkit::kernel_factory::internal::CreateKernel<                   \
              (SHOULD_REGISTER_OP(op_name)), __VA_ARGS__>,                    \
          __FILE__, __LINE__)

// Registers the kernel class `...` (which may be a template instantiation
// with commas, e.g. `MatMulOp<CPUDevice, float>`) for the KernelDefBuilder
// expression `kernel_builder`, written as `Name("Op").Device(...)...`.
// Two-phase: see Note [Pending kernel registrations] in
// kernel_registration.h.
// The class name string, __FILE__ and __LINE__ are recorded with it.
// Honours SHOULD_REGISTER_OP("Op") and SHOULD_REGISTER_OP_KERNEL("<class>")
// (selective_registration.h); see Note [Kernel registration macro].
#define REGISTER_KERNEL_BUILDER(kernel_builder, ...) \
  OPKIT_REGISTER_KERNEL_BUILDER_IMPL(__COUNTER__, kernel_builder, __VA_ARGS__)

#endif  // OPKIT_KERNEL_OP_KERNEL_H_
