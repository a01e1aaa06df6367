// Loading and unloading op libraries at run time.
//
//   OPKIT_ASSIGN_OR_RETURN(OpLibrary lib, LoadOpLibrary("zero_out.so"));
//   for (const OpDef& op : lib.op_list().op()) std::cout << op.name() << "\n";
//   ... run ZeroOut ...
//   OPKIT_RETURN_IF_ERROR(lib.Unload());  // ZeroOut is gone; the code goes
//                                         // once no kernel instance is left
//
// Note [Library loading]
// LoadOpLibrary(path):
//   1. Resolves the path; a library already loaded from that file, or from a
//      file with the same contents under another name, is returned as it is
//      (loading twice is not an error, and two copies of one plugin do not
//      collide on their own registrations).
//   2. Reads its build records from the file and refuses it, before any of
//      its code runs, when they do not fit this opkit and CPU (Note [ABI
//      build record] in core/abi.h: vector instructions the CPU lacks,
//      another _GLIBCXX_USE_CXX11_ABI or EIGEN_MAX_ALIGN_BYTES).
//      dlopen()s it (RTLD_NOW | RTLD_LOCAL). Its static initializers append
//      what it declares (REGISTER_OP, REGISTER_KERNEL_BUILDER) to the pending
//      lists; the loader makes sure the program's own registrations are
//      committed first and serializes loads, so what is pending afterwards is
//      exactly this library's.
//   3. Checks the library's opkit_abi_version (core/abi.h).
//   4. Commits its ops, then its kernels, each as a batch (Note
//      [Registration batches] in core/registration_batch.h): all of it lands
//      or none. It fails, leaving both registries as they were and closing
//      the library, on a failed dlopen (with dlerror's text), an ABI
//      mismatch, a bad op spec, an op whose name is taken by a different
//      OpDef, a kernel for an unknown op or with a bad constraint, and a
//      kernel that would make selection ambiguous (Note [Kernel ambiguity]
//      in kernel/kernel_registry.h: same op, device, label and priority as a
//      registered kernel, with overlapping constraints; TensorFlow accepts
//      that and fails every later run of the op). An op re-declared
//      with an identical OpDef (two plugins bundling the same op) is kept
//      once and logged; when its first owner is unloaded, the other
//      library's registration takes over.
// A path whose previous build is still mapped (unloaded, but a kernel
// instance from it is alive) is loaded from a private copy, so a rebuilt
// library's new code runs instead of the old mapping being reused.
//
// Note [Library dependencies]
// The shared libraries a load brings in with the op library (its BLAS,
// OpenMP or oneDNN runtime, ...) stay loaded after Unload(): such runtimes
// start worker threads and give threads thread-local state that outlive any
// call into them, and unmapping their code under those threads is a crash
// waiting to happen (runtimes are not written to be unloaded; libgomp, for
// one, leaks its settings on every load). They are marked RTLD_NODELETE when
// the load succeeds and listed by OpLibrary::kept_dependencies(). A
// dependency built against opkit's headers (it defines opkit_abi_version)
// is the exception: its registrations belong to the library, so it is
// unloaded with it and registers again on the next load. A kept library is
// not reloaded when its file changes; a new build of one takes a new
// process (or building it against opkit).
//
// Note [Library unloading]
// OpLibrary::Unload() removes the library's ops and kernels, exactly what
// its batches registered, through their handles (nothing new selects them;
// kernel caches see the registry generation move and re-select) and then closes the library once the last kernel instance made
// from it is destroyed: every kernel holds a reference (Note [Kernel
// keep-alive] in op_kernel.h). A reference dropped inside a kernel's
// destructor cannot unmap the code it is running, so such a close is
// deferred to the next LoadOpLibrary, Unload or CloseUnusedOpLibraries call.
//
// Thread-safe: loads and unloads are serialized by one process-wide mutex;
// lookups in the registries do not wait for them.
#ifndef OPKIT_RUNTIME_LIBRARY_H_
#define OPKIT_RUNTIME_LIBRARY_H_

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "opkit/core/export.h"
#include "opkit/core/status.h"
#include "opkit/core/statusor.h"
#include "opkit/kernel_def.pb.h"
#include "opkit/op_def.pb.h"

namespace opkit {

namespace internal {
struct LoadedLibrary;
struct OpLibraryAccess;
}  // namespace internal

// A handle to a loaded op library. Cheap to copy; every copy names the same
// library. A default-constructed handle names none (loaded() is false).
class OPKIT_EXPORT OpLibrary {
 public:
  OpLibrary() = default;

  // The resolved path the library was loaded from (as the user named it,
  // made absolute and with symbolic links resolved).
  const std::string& path() const;
  // What the library registered (an op it shares with a library loaded
  // earlier is listed too). Stay available after Unload().
  const OpList& op_list() const;
  const KernelList& kernel_list() const;
  // Ops the library declared that were already registered with an identical
  // OpDef by another library, so this one's declaration was not used.
  const std::vector<std::string>& shared_op_names() const;
  // Shared libraries this load brought in that stay loaded after Unload()
  // (see Note [Library dependencies]), as the dynamic linker names them.
  const std::vector<std::string>& kept_dependencies() const;

  // True from a successful load until Unload().
  bool loaded() const;

  // Removes the library's ops and kernels (see Note [Library unloading]).
  // FailedPrecondition if it was already unloaded, or on an empty handle.
  Status Unload();

  // True when both handles name the same loaded library.
  bool operator==(const OpLibrary& other) const { return state_ == other.state_; }
  bool operator!=(const OpLibrary& other) const { return !(*this == other); }

 private:
  friend struct internal::OpLibraryAccess;
  explicit OpLibrary(std::shared_ptr<internal::LoadedLibrary> state)
      : state_(std::move(state)) {}
  std::shared_ptr<internal::LoadedLibrary> state_;
};

// Loads the op library at `path` into OpRegistry::Global() and
// KernelRegistry::Global() (see Note [Library loading]). Errors name the
// library and the cause: NotFound for a missing file, InvalidArgument for a
// file dlopen refuses (dlerror's text), a library built for another opkit
// ABI, or registrations that do not fit the registries, AlreadyExists for an
// op name taken by a different OpDef.
OPKIT_EXPORT StatusOr<OpLibrary> LoadOpLibrary(const std::string& path);

// Every library currently loaded, in load order.
OPKIT_EXPORT std::vector<OpLibrary> LoadedOpLibraries();

// Closes unloaded libraries whose last kernel instance is gone (Note
// [Library unloading]); returns how many were closed. Call it from a stack
// that runs no kernel code.
OPKIT_EXPORT size_t CloseUnusedOpLibraries();

}  // namespace opkit

#endif  // OPKIT_RUNTIME_LIBRARY_H_
