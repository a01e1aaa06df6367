// REGISTER_OP: declare an op with TensorFlow's chained syntax, and the
// process-wide pending list that the declarations go to until a registry
// takes them.
//
//   REGISTER_OP("ZeroOut")
//       .Attr("T: {float, int32}")
//       .Input("to_zero: T")
//       .Output("zeroed: T")
//       .SetShapeFn(shape_inference::UnchangedShape);
//
// Note [Pending op registrations]
// Registration happens in two phases (the mechanism of Note [Registration
// batches] in core/registration_batch.h, which kernels share).
//   1. REGISTER_OP defines one static OpDefBuilderReceiver whose initializer
//      calls AddPendingOpRegistration(builder, origin). That only appends it,
//      with __FILE__/__LINE__ as its origin, to a process-wide pending list
//      (which lives in libopkit_framework.so, so plugins share it). Nothing is
//      parsed or checked at static-initialization time, nothing throws, and a
//      bad spec cannot abort the process.
//   2. Committing moves pending registrations into a registry and returns a
//      Status: CommitPendingOpRegistrations(registry, library) for all of them
//      as one batch (all or nothing), TakePendingOpRegistrations() +
//      CommitOpRegistrations() to pick them first, or CommitOpBatch() for a
//      batch that can be removed again (what the library loader does right
//      after dlopen() returns). The first use of
//      OpRegistry::Global() commits what code linked into the program
//      registered, one registration at a time, logging failures with
//      LOG(ERROR).
// Registrations made after Global()'s first use (a library opened with a
// plain dlopen()) stay pending until someone commits them; a failed lookup
// in Global() says so. The library loader calls Global() before dlopen(), and
// serializes its loads, so that what is pending right after dlopen() returns
// is exactly what that library registered.
//
// Every function the macro calls is public, so tests and plugins can call
// them directly. Thread-safe.
#ifndef OPKIT_OP_OP_H_
#define OPKIT_OP_OP_H_

#include <cstddef>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "opkit/core/abi.h"
#include "opkit/core/export.h"
#include "opkit/core/status.h"
#include "opkit/core/statusor.h"
#include "opkit/op/op_def_builder.h"
#include "opkit/op/op_registry.h"
#include "opkit/core/registration_origin.h"
#include "opkit/op/selective_registration.h"

namespace opkit {

// One registration waiting in the pending list.
struct PendingOpRegistration {
  // The op's name as given to REGISTER_OP (not validated yet).
  std::string op_name;
  // Where it was declared; `library` is filled in at commit time.
  RegistrationOrigin origin;
  // Produces the registration (normally OpDefBuilder::Finalize).
  OpRegistrationDataFactory factory;
};

using PendingOpRegistrations = std::vector<PendingOpRegistration>;

// Appends `builder` to the pending list; `origin` (REGISTER_OP passes
// __FILE__/__LINE__) becomes the builder's origin too. Never fails; the spec
// is checked at commit time.
OPKIT_EXPORT void AddPendingOpRegistration(OpDefBuilder builder,
                                           RegistrationOrigin origin);
// Appends any registration, e.g. one made through a C API.
OPKIT_EXPORT void AddPendingOpRegistration(PendingOpRegistration registration);

// Removes and returns every pending registration, oldest first.
OPKIT_EXPORT PendingOpRegistrations TakePendingOpRegistrations();
// Removes and returns the pending registrations for which `select` is true;
// the others stay pending in their order.
OPKIT_EXPORT PendingOpRegistrations TakePendingOpRegistrations(
    const std::function<bool(const PendingOpRegistration&)>& select);

// How many registrations are pending.
OPKIT_EXPORT size_t NumPendingOpRegistrations();

// Registers `registrations` into `registry` as one batch (all or nothing),
// setting origin.library of each to `library` (empty: linked into the
// program). Returns the first error, whose message names the op and its
// origin; the registry is then unchanged. InvalidArgument if `registry` is
// null.
OPKIT_EXPORT Status CommitOpRegistrations(PendingOpRegistrations registrations,
                                          OpRegistry* registry,
                                          const std::string& library);

// As CommitOpRegistrations(), into a batch that can be removed again: the
// result lists what the batch registered and holds the handle that removes
// exactly that (destroying it removes it too).
OPKIT_EXPORT StatusOr<CommittedOpBatch> CommitOpBatch(
    PendingOpRegistrations registrations, OpRegistry* registry,
    const std::string& library);

// TakePendingOpRegistrations() then CommitOpRegistrations(). The taken
// registrations are consumed even when the commit fails (a failed library is
// closed, so its registrations must not linger).
OPKIT_EXPORT Status CommitPendingOpRegistrations(OpRegistry* registry,
                                                 const std::string& library);

namespace register_op {

// What REGISTER_OP("Name") evaluates to. kShouldRegister comes from
// SHOULD_REGISTER_OP("Name") (selective_registration.h). Code that writes
// its own registration the TensorFlow way may name it either as TensorFlow
// 1.x does, `OpDefBuilderWrapper<true>("Name")`, or as TensorFlow 2.x does,
// `OpDefBuilderWrapper("Name")` (deduced as <true>); both go through
// OpDefBuilderReceiver to the pending list:
//
//   static register_op::OpDefBuilderReceiver r =
//       register_op::OpDefBuilderWrapper("MyOp").Input("x: float");
template <bool kShouldRegister = true>
class OpDefBuilderWrapper;

// When true, every chained call is forwarded to an OpDefBuilder (so the
// calls and their arguments are OpDefBuilder's), and the wrapper remembers
// the REGISTER_OP line as the origin.
template <>
class OpDefBuilderWrapper<true> {
 public:
  // `file` and `line` default to where the wrapper is constructed.
  OpDefBuilderWrapper(const char* name, const char* file = __builtin_FILE(),
                      int line = __builtin_LINE())
      : builder_(name), origin_{file, line, std::string()} {}
#define OPKIT_FORWARDED_BUILDER_CALL(Method)                 \
  template <typename... Args>                                \
  OpDefBuilderWrapper& Method(Args&&... args) {              \
    builder_.Method(std::forward<Args>(args)...);            \
    return *this;                                            \
  }
  OPKIT_FORWARDED_BUILDER_CALL(Attr)
  OPKIT_FORWARDED_BUILDER_CALL(Input)
  OPKIT_FORWARDED_BUILDER_CALL(Output)
  OPKIT_FORWARDED_BUILDER_CALL(ControlOutput)
  OPKIT_FORWARDED_BUILDER_CALL(SetIsCommutative)
  OPKIT_FORWARDED_BUILDER_CALL(SetIsAggregate)
  OPKIT_FORWARDED_BUILDER_CALL(SetIsStateful)
  OPKIT_FORWARDED_BUILDER_CALL(SetDoNotOptimize)
  OPKIT_FORWARDED_BUILDER_CALL(SetAllowsUninitializedInput)
  OPKIT_FORWARDED_BUILDER_CALL(SetIsDistributedCommunication)
  OPKIT_FORWARDED_BUILDER_CALL(Deprecated)
  OPKIT_FORWARDED_BUILDER_CALL(Doc)
  OPKIT_FORWARDED_BUILDER_CALL(SetShapeFn)
  OPKIT_FORWARDED_BUILDER_CALL(SetTypeConstructor)
#undef OPKIT_FORWARDED_BUILDER_CALL

  // TensorFlow's accessor (mutable there too).
  OpDefBuilder& builder() { return builder_; }
  const OpDefBuilder& builder() const { return builder_; }
  const RegistrationOrigin& origin() const { return origin_; }

 private:
  OpDefBuilder builder_;
  RegistrationOrigin origin_;
};

// When false, every chained call accepts anything and does nothing, so the
// compiler can drop the op's strings and functions from the binary.
template <>
class OpDefBuilderWrapper<false> {
 public:
  OpDefBuilderWrapper(const char*, const char* = nullptr, int = 0) {}
#define OPKIT_IGNORED_BUILDER_CALL(Method)                 \
  template <typename... Args>                              \
  OpDefBuilderWrapper& Method(Args&&...) { return *this; }
  OPKIT_IGNORED_BUILDER_CALL(Attr)
  OPKIT_IGNORED_BUILDER_CALL(Input)
  OPKIT_IGNORED_BUILDER_CALL(Output)
  OPKIT_IGNORED_BUILDER_CALL(ControlOutput)
  OPKIT_IGNORED_BUILDER_CALL(SetIsCommutative)
  OPKIT_IGNORED_BUILDER_CALL(SetIsAggregate)
  OPKIT_IGNORED_BUILDER_CALL(SetIsStateful)
  OPKIT_IGNORED_BUILDER_CALL(SetDoNotOptimize)
  OPKIT_IGNORED_BUILDER_CALL(SetAllowsUninitializedInput)
  OPKIT_IGNORED_BUILDER_CALL(SetIsDistributedCommunication)
  OPKIT_IGNORED_BUILDER_CALL(Deprecated)
  OPKIT_IGNORED_BUILDER_CALL(Doc)
  OPKIT_IGNORED_BUILDER_CALL(SetShapeFn)
  OPKIT_IGNORED_BUILDER_CALL(SetTypeConstructor)
#undef OPKIT_IGNORED_BUILDER_CALL
};

// TensorFlow 2.x writes OpDefBuilderWrapper(name) with no template argument.
OpDefBuilderWrapper(const char*)->OpDefBuilderWrapper<true>;
OpDefBuilderWrapper(const char*, const char*, int)->OpDefBuilderWrapper<true>;

// The static object REGISTER_OP defines, constructed from the end of the
// chain: from a kept op it calls
// AddPendingOpRegistration(wrapper.builder(), wrapper.origin()); from a
// filtered-out one it does nothing.
class OPKIT_EXPORT OpDefBuilderReceiver {
 public:
  OpDefBuilderReceiver(const OpDefBuilderWrapper<true>& wrapper);  // NOLINT
  OpDefBuilderReceiver(const OpDefBuilderWrapper<false>&) {}       // NOLINT
};

}  // namespace register_op
}  // namespace opkit

#define OPKIT_REGISTER_OP_CONCAT_INNER(a, b) a##b
#define OPKIT_REGISTER_OP_CONCAT(a, b) OPKIT_REGISTER_OP_CONCAT_INNER(a, b)

#define OPKIT_REGISTER_OP_IMPL(ctr, name, should_register)                  \
  static const ::opkit::register_op::OpDefBuilderReceiver                   \
      OPKIT_REGISTER_OP_CONCAT(opkit_register_op_, ctr) [[maybe_unused]] =  \
          ::opkit::register_op::OpDefBuilderWrapper<(should_register)>(     \
              name, __FILE__, __LINE__)

// Declares an op; see the file comment. `name` is a string literal.
#define REGISTER_OP(name) \
  OPKIT_REGISTER_OP_IMPL(__COUNTER__, name, SHOULD_REGISTER_OP(name))

// As REGISTER_OP, but never filtered out by selective registration (ops the
// runtime itself needs).
#define REGISTER_SYSTEM_OP(name) OPKIT_REGISTER_OP_IMPL(__COUNTER__, name, true)

#endif  // OPKIT_OP_OP_H_
