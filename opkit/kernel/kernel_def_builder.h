// KernelDefBuilder: describes a kernel (which op, device, types, label and
// priority it implements) with TensorFlow's chained syntax, producing a
// KernelDef.
//
//   KernelDef def = KernelDefBuilder("MatMul")
//                       .Device(DEVICE_CPU)
//                       .TypeConstraint<float>("T")
//                       .Label("eigen")
//                       .Priority(1)
//                       .BuildDef();
//
//   REGISTER_KERNEL_BUILDER(Name("MatMul").Device(DEVICE_CPU)
//                               .TypeConstraint<float>("T"),
//                           MatMulOp<CPUDevice, float>);
//
// Inside REGISTER_KERNEL_BUILDER (op_kernel.h), `Name(...)` is
// register_kernel::Name: the macro writes `::opkit::register_kernel::` in
// front of its first argument, as TensorFlow's macro does, so a plain
// `Name("MatMul")` resolves there without any using-directive (which could
// not appear inside an expression). Outside the macro, write
// `register_kernel::Name("MatMul")` or `KernelDefBuilder("MatMul")`.
//
// The builder never aborts. Mistakes found while building (Device() or
// Label() called twice, an empty allowed list) are collected and reported
// by Finalize() (and so by the registry when the registration is committed),
// each naming the op. Attr names are checked against the op only when the
// registration is committed (kernel_registry.h).
//
// Thread-compatible: a builder is used by one thread.
#ifndef OPKIT_KERNEL_KERNEL_DEF_BUILDER_H_
#define OPKIT_KERNEL_KERNEL_DEF_BUILDER_H_

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "opkit/core/export.h"
#include "opkit/core/status.h"
#include "opkit/tensor/types.h"
#include "opkit/kernel_def.pb.h"

namespace opkit {

class OPKIT_EXPORT KernelDefBuilder {
 public:
  // `op_name` is the name of the op the kernel implements (null is treated
  // as empty, which the registry rejects).
  explicit KernelDefBuilder(const char* op_name);
  KernelDefBuilder(const KernelDefBuilder&) = default;
  KernelDefBuilder(KernelDefBuilder&&) = default;
  KernelDefBuilder& operator=(const KernelDefBuilder&) = default;
  KernelDefBuilder& operator=(KernelDefBuilder&&) = default;
  ~KernelDefBuilder();

  // The device type the kernel runs on (DEVICE_CPU, DEVICE_GPU, ...).
  // Required; a second call is an error reported by Finalize().
  KernelDefBuilder& Device(const char* device_type);

  // The kernel only matches nodes whose type attr (or every element of whose
  // list(type) attr) `attr_name` is in `allowed`. An empty list is an error
  // reported by Finalize().
  KernelDefBuilder& TypeConstraint(const char* attr_name,
                                   std::vector<DataType> allowed);
  KernelDefBuilder& TypeConstraint(const char* attr_name,
                                   std::initializer_list<DataType> allowed) {
    return TypeConstraint(attr_name, std::vector<DataType>(allowed));
  }
  // Like TypeConstraint(attr_name, {allowed}).
  KernelDefBuilder& TypeConstraint(const char* attr_name, DataType allowed);
  // Like TypeConstraint(attr_name, DataTypeToEnum<T>::v()).
  template <typename T>
  KernelDefBuilder& TypeConstraint(const char* attr_name) {
    return TypeConstraint(attr_name, DataTypeToEnum<T>::v());
  }

  // The kernel only matches nodes whose string, int or bool attr
  // `attr_name` has one of the `allowed` values (TensorFlow's AttrConstraint,
  // for int64, string and bool attrs).
  KernelDefBuilder& AttrConstraint(const char* attr_name,
                                   std::vector<std::string> allowed);
  KernelDefBuilder& AttrConstraint(const char* attr_name,
                                   std::vector<int64_t> allowed);
  KernelDefBuilder& AttrConstraint(const char* attr_name,
                                   std::vector<bool> allowed);
  KernelDefBuilder& AttrConstraint(const char* attr_name,
                                   std::initializer_list<const char*> allowed);
  KernelDefBuilder& AttrConstraint(const char* attr_name,
                                   std::initializer_list<int64_t> allowed) {
    return AttrConstraint(attr_name, std::vector<int64_t>(allowed));
  }
  KernelDefBuilder& AttrConstraint(const char* attr_name,
                                   const std::string& allowed);
  KernelDefBuilder& AttrConstraint(const char* attr_name, const char* allowed);
  KernelDefBuilder& AttrConstraint(const char* attr_name, int64_t allowed);
  KernelDefBuilder& AttrConstraint(const char* attr_name, int allowed) {
    return AttrConstraint(attr_name, static_cast<int64_t>(allowed));
  }
  KernelDefBuilder& AttrConstraint(const char* attr_name, bool allowed);

  // Marks input or output `arg_name` of the op as kept in host memory.
  KernelDefBuilder& HostMemory(const char* arg_name);

  // The kernel is chosen only for nodes whose `_kernel` attr equals `label`
  // (unlabelled kernels for nodes without one). A second call is an error
  // reported by Finalize().
  KernelDefBuilder& Label(const char* label);

  // Among kernels matching a node, the highest priority wins (default 0).
  // See Note [Kernel priority] in kernel_registry.h.
  KernelDefBuilder& Priority(int32_t priority);

  // The KernelDef and OK, or InvalidArgument listing every mistake recorded
  // while building, one per line, each naming the op. `*def` is filled
  // either way.
  [[nodiscard]] Status Finalize(KernelDef* def) const;

  // The KernelDef as built so far; mistakes are not reported (use
  // Finalize() or let the registry report them).
  KernelDef BuildDef() const { return kernel_def_; }

  // TensorFlow's contract: a new KernelDef the caller owns and must delete.
  // Prefer BuildDef() or Finalize().
  const KernelDef* Build();

  // Problems recorded while building (empty when none).
  const std::vector<std::string>& errors() const { return errors_; }

  const std::string& op_name() const { return kernel_def_.op(); }

 private:
  KernelDef kernel_def_;
  bool device_set_ = false;
  bool label_set_ = false;
  std::vector<std::string> errors_;
};

// True when some node could match both kernels' constraints: for every attr
// both constrain, their allowed values share one (an attr constrained by one
// kernel only does not separate them). Op, device, label and priority are
// not compared. Used to tell a registration that makes selection ambiguous.
OPKIT_EXPORT bool KernelConstraintsOverlap(const KernelDef& a,
                                           const KernelDef& b);

namespace register_kernel {

// What `Name("Op")` means inside REGISTER_KERNEL_BUILDER (see the file
// comment).
class OPKIT_EXPORT Name : public KernelDefBuilder {
 public:
  explicit Name(const char* op);
};

}  // namespace register_kernel
}  // namespace opkit

#endif  // OPKIT_KERNEL_KERNEL_DEF_BUILDER_H_
