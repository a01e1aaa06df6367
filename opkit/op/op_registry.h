// OpRegistry: the set of registered ops (OpDef, shape function, origin), keyed
// by op name, with TensorFlow's lookup API, plus registration in batches that
// land whole or not at all.
//
//   OpRegistry registry;                       // a test builds its own
//   OpRegistrationData data;
//   OPKIT_RETURN_IF_ERROR(OpDefBuilder("ZeroOut")
//                             .Attr("T: {float, int32}")
//                             .Input("to_zero: T")
//                             .Output("zeroed: T")
//                             .Finalize(&data));
//   OPKIT_RETURN_IF_ERROR(registry.Register(std::move(data)));
//
//   const OpDef* op_def = nullptr;
//   OPKIT_RETURN_IF_ERROR(registry.LookUpOpDef("ZeroOut", &op_def));
//
// The process-wide registry is OpRegistry::Global(); REGISTER_OP (op.h)
// feeds it through the pending list described in op.h.
//
// Note [Op registration rules]
//   - Every registration runs ValidateOpDef (op_def_util.h) first.
//   - A name already registered with a different OpDef (OpDefEqual false) is
//     AlreadyExists, and the message names both origins (file:line, library).
//   - The same name with an equal OpDef is accepted once more, logged at INFO;
//     the first registration (its shape function and origin) is kept.
//   - A batch (what one library registers) lands whole or not at all: the
//     first failing registration's Status is returned and the registry is as
//     it was before the call. A batch committed with a CommittedOpBatch can
//     be removed again, exactly, through its handle (Note [Registration
//     batches] in core/registration_batch.h).
//   - Every change (register, deregister) bumps generation(), so caches keyed
//     on looked-up pointers can notice and look up again.
//
// Thread-safe. Lookups take a shared lock and do not allocate when they find
// the op; registration and removal take the lock exclusively.
#ifndef OPKIT_OP_OP_REGISTRY_H_
#define OPKIT_OP_OP_REGISTRY_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "opkit/core/export.h"
#include "opkit/core/registration_batch.h"
#include "opkit/core/status.h"
#include "opkit/core/statusor.h"
#include "opkit/op/op_def_builder.h"
#include "opkit/op_def.pb.h"

namespace opkit {

// Anything ops can be looked up in by name: an OpRegistry, an
// OpListOpRegistry, and later a function library.
class OPKIT_EXPORT OpRegistryInterface {
 public:
  virtual ~OpRegistryInterface();

  // Sets *op_reg_data to the registration of `op_type_name` and returns OK,
  // or returns NotFound ("Op type not registered 'Foo' in binary running on
  // <host>. ...", with a hint and close names) and sets *op_reg_data to null.
  // The pointer stays valid until the op is removed from the registry or the
  // registry is destroyed.
  virtual Status LookUp(const std::string& op_type_name,
                        const OpRegistrationData** op_reg_data) const = 0;

  // LookUp() narrowed to the OpDef; *op_def is null on error.
  Status LookUpOpDef(const std::string& op_type_name,
                     const OpDef** op_def) const;
};

// Fills an OpRegistrationData (normally OpDefBuilder::Finalize); a non-OK
// return means the registration is invalid.
using OpRegistrationDataFactory = std::function<Status(OpRegistrationData*)>;

// What one batch that landed in an OpRegistry registered
// (OpRegistry::RegisterBatch with this output, CommitOpBatch in op.h).
struct CommittedOpBatch {
  // Removes exactly the ops of `registered` (Note [Registration batches] in
  // core/registration_batch.h); destroying it removes them too, so hold it
  // (or Detach() it) for as long as they should stay. Empty when the batch
  // inserted nothing.
  RegistrationHandle handle;
  // The OpDefs the batch inserted, in batch order.
  std::vector<OpDef> registered;
  // The batch's registrations of ops that were registered already with an
  // identical OpDef: not inserted (the first registration is kept), and
  // kept here so that the caller can register one when the first goes.
  std::vector<OpRegistrationData> redeclared;
};

// The registry of ops. See the file comment and Note [Op registration rules].
class OPKIT_EXPORT OpRegistry : public OpRegistryInterface {
 public:
  // Called for every registration with the Status it would have (OK, or why
  // it fails) and its OpDef; what it returns becomes the registration's
  // Status. Returning an error vetoes the registration (and so its whole
  // batch); returning OK for a failed registration drops that registration
  // silently without failing the batch (TensorFlow's semantics, used to
  // tolerate a library re-registering an op that already exists). Runs with
  // the registry locked: it must not call back into the same registry.
  using Watcher = std::function<Status(const Status&, const OpDef&)>;

  OpRegistry();
  ~OpRegistry() override;
  OpRegistry(const OpRegistry&) = delete;
  OpRegistry& operator=(const OpRegistry&) = delete;

  // The process-wide registry. Its first use commits what REGISTER_OP
  // recorded so far (code linked into the program) one registration at a
  // time, logging each failing one with LOG(ERROR); nothing aborts. Never
  // destroyed. See Note [Pending op registrations] in op.h.
  static OpRegistry* Global();

  // Runs `factory` and registers its result (a batch of one). A factory error
  // fails the registration, with the origin appended to its message.
  Status Register(const OpRegistrationDataFactory& factory);
  // Registers `data` (a batch of one).
  Status Register(OpRegistrationData data);

  // Registers every element or none: on the first failing registration
  // returns its Status and leaves the registry unchanged. Two elements with
  // the same name follow the same rules as against the registry.
  Status RegisterBatch(std::vector<OpRegistrationData> batch);
  // As above, running each factory first (outside the lock).
  Status RegisterBatch(const std::vector<OpRegistrationDataFactory>& factories);
  // As above; on success `*committed` (not null) says what the batch
  // registered and holds the handle that removes exactly that.
  Status RegisterBatch(const std::vector<OpRegistrationDataFactory>& factories,
                       CommittedOpBatch* committed);

  // Removes the named ops, all or none: NotFound listing the names that are
  // not registered. Pointers from LookUp() for them become invalid.
  Status Deregister(const std::vector<std::string>& op_names);
  // Removes every op whose origin.library is `library` (what a library
  // registered); `removed`, if not null, receives their names (sorted).
  // Removing from a library that registered nothing is OK. An empty
  // `library` is InvalidArgument (ops linked into the program are removed
  // by name with Deregister()).
  Status DeregisterLibrary(const std::string& library,
                           std::vector<std::string>* removed = nullptr);

  // OK and *op_reg_data set, or NotFound (see OpRegistryInterface).
  Status LookUp(const std::string& op_type_name,
                const OpRegistrationData** op_reg_data) const override;
  // The registration of `op_type_name`, or null; builds no message, so it is
  // cheap on a miss too.
  const OpRegistrationData* LookUp(const std::string& op_type_name) const;

  // Appends a copy of every registered OpDef / registration, sorted by name.
  void GetRegisteredOps(std::vector<OpDef>* op_defs) const;
  void GetOpRegistrationData(std::vector<OpRegistrationData>* op_data) const;

  // Replaces ops->op with every registered OpDef sorted by name; ops whose
  // name starts with '_' only if `include_internal`.
  void Export(bool include_internal, OpList* ops) const;

  // One SummarizeOpDef() line per op, in Export() order.
  std::string DebugString(bool include_internal) const;

  // Installs `watcher` (see Watcher). AlreadyExists if one is installed and
  // `watcher` is not empty; an empty `watcher` removes the installed one.
  Status SetWatcher(const Watcher& watcher);

  // Number of registered ops.
  size_t size() const;

  // Bumped by every change of the registered set; starts at 0.
  uint64_t generation() const {
    return generation_.load(std::memory_order_acquire);
  }

 private:
  struct Candidate;
  // The lock, the map and the watcher; defined in op_registry.cc so that the
  // container choice stays out of this header.
  struct State;
  Status RegisterCandidates(std::vector<Candidate> candidates,
                            CommittedOpBatch* committed = nullptr);
  // Removes the ops batch `batch` inserted that are still registered.
  Status RemoveBatch(uint64_t batch);
  Status NotFound(const std::string& op_type_name) const;

  const std::unique_ptr<State> state_;
  std::atomic<uint64_t> generation_{0};
  // True only for Global(); lets a miss mention uncommitted registrations.
  bool is_global_ = false;
};

// A read-only registry over an OpList, e.g. an ops.pbtxt loaded from disk.
// Its registrations have no shape functions. Immutable, so thread-safe.
class OPKIT_EXPORT OpListOpRegistry : public OpRegistryInterface {
 public:
  // TensorFlow's constructor: copies `op_list` (null means empty). Of two ops
  // with the same name the first is kept and the other is logged at WARNING.
  explicit OpListOpRegistry(const OpList* op_list);
  ~OpListOpRegistry() override;

  // Copies `op_list` after checking it: InvalidArgument for an OpDef that
  // fails ValidateOpDef, AlreadyExists for a name used twice.
  static StatusOr<std::unique_ptr<OpListOpRegistry>> Create(
      const OpList& op_list);

  Status LookUp(const std::string& op_type_name,
                const OpRegistrationData** op_reg_data) const override;
  // The registration of `op_type_name`, or null.
  const OpRegistrationData* LookUp(const std::string& op_type_name) const;

  size_t size() const;

 private:
  struct Index;
  OpListOpRegistry();
  const std::unique_ptr<Index> index_;
};

// Reads an OpList in protobuf text format (an ops.pbtxt) from `path`.
// NotFound if the file is missing; InvalidArgument with the parser's
// line:column messages if it does not parse.
OPKIT_EXPORT Status LoadOpListFromTextFile(const std::string& path,
                                           OpList* op_list);

}  // namespace opkit

#endif  // OPKIT_OP_OP_REGISTRY_H_
