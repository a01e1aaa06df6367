// LoadOpLibrary, OpLibrary and CloseUnusedOpLibraries; see library.h and
// its Notes.
#include "opkit/runtime/library.h"

#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "opkit/core/abi.h"
#include "opkit/core/env.h"
#include "opkit/core/registration_batch.h"
#include "opkit/core/errors.h"
#include "opkit/core/logging.h"
#include "opkit/core/mutex.h"
#include "opkit/core/str_util.h"
#include "opkit/op/internal/hash.h"
#include "opkit/kernel/kernel_registry.h"
#include "opkit/op/op.h"
#include "opkit/op/op_registry.h"
#include "opkit/runtime/library_abi.h"

namespace opkit {
namespace internal {

// One mapping of a library file: what dlclose needs.
struct LibraryMapping {
  void* handle = nullptr;
  std::string path;
};

struct LoadedLibrary {
  std::string path;
  uint64_t content_hash = 0;
  size_t content_size = 0;
  OpList op_list;
  KernelList kernel_list;
  std::vector<std::string> shared_op_names;
  // The registrations behind shared_op_names, kept so that this library's
  // declaration can take over when the library that registered first goes.
  std::vector<OpRegistrationData> shared_ops;
  // Shared libraries the load brought in that stay loaded for good (Note
  // [Library dependencies]).
  std::vector<std::string> kept_dependencies;
  // What the library registered (Note [Registration batches] in
  // core/registration_batch.h): removing them removes exactly that.
  RegistrationHandle op_registrations;
  RegistrationHandle kernel_registrations;
  bool loaded = false;
  // Given to every kernel registration (and from there to every kernel
  // instance); when the last reference goes the mapping is queued for
  // dlclose (Note [Library unloading]).
  std::shared_ptr<const void> owner;
};

struct OpLibraryAccess {
  static OpLibrary Make(std::shared_ptr<LoadedLibrary> state) {
    return OpLibrary(std::move(state));
  }
};

}  // namespace internal

namespace {

using internal::LibraryMapping;
using internal::LoadedLibrary;

struct Loader {
  mutex mu;
  std::vector<std::shared_ptr<LoadedLibrary>> loaded OPKIT_GUARDED_BY(mu);
};

Loader& GetLoader() {
  static Loader* loader = new Loader;
  return *loader;
}

// Mappings whose last reference is gone, waiting for a stack that runs no
// library code (the reference may have been dropped inside a kernel's
// destructor).
struct CloseQueue {
  mutex mu;
  std::vector<std::unique_ptr<LibraryMapping>> mappings OPKIT_GUARDED_BY(mu);
};

CloseQueue& GetCloseQueue() {
  static CloseQueue* queue = new CloseQueue;
  return *queue;
}

std::shared_ptr<const void> MakeOwner(void* handle, std::string path) {
  auto* mapping = new LibraryMapping{handle, std::move(path)};
  return std::shared_ptr<const void>(mapping, [](const void* p) {
    auto* m = static_cast<LibraryMapping*>(const_cast<void*>(p));
    CloseQueue& queue = GetCloseQueue();
    mutex_lock lock(queue.mu);
    queue.mappings.emplace_back(m);
  });
}

size_t CloseQueued() {
  std::vector<std::unique_ptr<LibraryMapping>> mappings;
  {
    CloseQueue& queue = GetCloseQueue();
    mutex_lock lock(queue.mu);
    mappings.swap(queue.mappings);
  }
  for (const auto& m : mappings) {
    Status closed = UnloadDynamicLibrary(m->handle);
    if (!closed.ok()) {
      LOG(WARNING) << "Closing op library '" << m->path
                   << "' failed: " << closed.message();
    } else {
      VLOG(1) << "Closed op library '" << m->path << "'";
    }
  }
  return mappings.size();
}

Status LibraryError(const std::string& path, const Status& cause) {
  return Status(cause.code(),
                StrCat("Cannot load op library '", path, "': ",
                       cause.message(),
                       " The op and kernel registries are unchanged."));
}

// The object's own opkit_abi_version (defined by the object itself, not by
// one it links), or null.
const unsigned* OwnAbiVersion(void* handle) {
  void* symbol = nullptr;
  if (!GetSymbolFromLibrary(handle, "opkit_abi_version", &symbol).ok() ||
      symbol == nullptr ||
      DynamicLibraryContaining(symbol) != DynamicLibraryPath(handle)) {
    return nullptr;
  }
  return static_cast<const unsigned*>(symbol);
}

// A new handle on the object at `path` if it is mapped already, else null;
// `never_unload` marks it so for good (Note [Library dependencies]).
void* MappedHandle(const std::string& path, bool never_unload = false) {
  DynamicLibraryOptions options;
  options.only_if_loaded = true;
  options.never_unload = never_unload;
  void* handle = nullptr;
  if (!LoadDynamicLibrary(path, options, &handle).ok()) return nullptr;
  return handle;
}

// Closes a handle from MappedHandle(), which cannot unmap the object.
void CloseMappedHandle(void* handle) {
  Status s = UnloadDynamicLibrary(handle);
  if (!s.ok()) VLOG(1) << s;
}

// True when the object at `path` (mapped) was built against opkit's headers:
// it defines opkit_abi_version itself.
bool IsOpkitObject(const std::string& path) {
  void* handle = MappedHandle(path);
  if (handle == nullptr) return false;
  const bool own = OwnAbiVersion(handle) != nullptr;
  CloseMappedHandle(handle);
  return own;
}

// Marks every object in `after` but not in `before`, other than the op
// library at `library` and objects built against opkit, as never to be
// unloaded; returns their paths (Note [Library dependencies]).
std::vector<std::string> KeepNewDependencies(const std::vector<std::string>& before,
                                             const std::vector<std::string>& after,
                                             const std::string& library) {
  std::vector<std::string> kept;
  for (const std::string& path : after) {
    if (path == library ||
        std::find(before.begin(), before.end(), path) != before.end() ||
        IsOpkitObject(path)) {
      continue;
    }
    // The never-unload mark is set on the mapped object; it outlasts this
    // handle.
    void* handle = MappedHandle(path, /*never_unload=*/true);
    if (handle == nullptr) continue;
    CloseMappedHandle(handle);
    kept.push_back(path);
  }
  return kept;
}

Status CheckAbi(void* handle) {
  const unsigned* own = OwnAbiVersion(handle);
  if (own == nullptr) {
    return errors::InvalidArgument(
        "it does not define opkit_abi_version, so it was not built against "
        "opkit's headers (every op library includes opkit/op/op.h or "
        "op_kernel.h, or their tensorflow/ equivalents). Build it with "
        "opkit_add_op_library() or `opkit-config --cflags --ldflags`.");
  }
  const unsigned version = *own;
  if (version != OPKIT_ABI_VERSION) {
    return errors::InvalidArgument(
        "it was built against opkit ABI version ", version,
        ", but this opkit has ABI version ", OPKIT_ABI_VERSION,
        ". Rebuild the library against this opkit's headers.");
  }
  return OkStatus();
}

// A private copy of `path`, for loading a new build of a file whose old
// build is still mapped (dlopen would hand back the old mapping).
Status CopyToPrivateFile(const std::string& path, const std::string& contents,
                         std::string* copy) {
  std::string dir = GetEnvVar("TMPDIR").value_or("/tmp");
  std::string base = path.substr(path.find_last_of('/') + 1);
  std::string pattern = StrCat(dir, "/opkit-", base, "-XXXXXX");
  std::vector<char> name(pattern.begin(), pattern.end());
  name.push_back('\0');
  const int fd = mkstemp(name.data());
  if (fd < 0) {
    return errors::Internal("cannot create a private copy in ", dir,
                            " to load a new build of a library whose old build "
                            "is still in use; set TMPDIR to a writable folder");
  }
  close(fd);
  *copy = name.data();
  return WriteStringToFile(*copy, contents);
}

// Puts back pending registrations that were not this library's (from a
// plain dlopen() by someone else), so they stay pending.
void RestoreStray(PendingOpRegistrations ops,
                  std::vector<PendingKernelRegistration> kernels) {
  for (PendingOpRegistration& op : ops) AddPendingOpRegistration(std::move(op));
  for (PendingKernelRegistration& k : kernels) {
    internal::AddPendingKernelRegistration(std::move(k));
  }
}

// Loads `resolved` (whose bytes are `contents`); the loader's mutex is held.
StatusOr<std::shared_ptr<LoadedLibrary>> LoadLocked(const std::string& resolved,
                                                    const std::string& contents) {
  OpRegistry* ops = OpRegistry::Global();
  KernelRegistry* kernels = KernelRegistry::Global();

  // An older build of this file still mapped would be handed back by
  // dlopen(); load the new one from a private copy instead.
  std::string open_path = resolved;
  std::string private_copy;
  if (void* old = MappedHandle(resolved)) {
    CloseMappedHandle(old);
    OPKIT_RETURN_IF_ERROR(CopyToPrivateFile(resolved, contents, &private_copy));
    open_path = private_copy;
    LOG(INFO) << "An earlier build of op library '" << resolved
              << "' is still in use; loading this one from a private copy";
  }

  // Before dlopen() runs any of its code (Note [ABI build record]).
  OPKIT_ASSIGN_OR_RETURN(std::vector<OpkitAbiRecord> records,
                         internal::ReadAbiRecords(contents));
  OPKIT_RETURN_IF_ERROR(internal::CheckAbiRecords(records, internal::HostAbi()));

  PendingOpRegistrations stray_ops = TakePendingOpRegistrations();
  std::vector<PendingKernelRegistration> stray_kernels =
      TakePendingKernelRegistrations();
  const std::vector<std::string> mapped_before = LoadedDynamicLibraries();
  void* handle = nullptr;
  Status opened = LoadDynamicLibrary(open_path, &handle);
  if (!private_copy.empty()) unlink(private_copy.c_str());
  // Whatever the library's initializers registered, it is taken now, so a
  // failed load leaves nothing pending behind.
  PendingOpRegistrations pending_ops = TakePendingOpRegistrations();
  std::vector<PendingKernelRegistration> pending_kernels =
      TakePendingKernelRegistrations();
  RestoreStray(std::move(stray_ops), std::move(stray_kernels));
  if (!opened.ok()) {
    return Status(opened.code(), StrCat(opened.message(),
                                        internal::OldCxxAbiHint(opened.message())));
  }

  auto lib = std::make_shared<LoadedLibrary>();
  lib->path = resolved;
  // From here on, dropping `owner` queues the close, on every path.
  lib->owner = MakeOwner(handle, resolved);
  OPKIT_RETURN_IF_ERROR(CheckAbi(handle));

  KernelList kernel_list;
  for (PendingKernelRegistration& k : pending_kernels) {
    k.registration.owner = lib->owner;
    *kernel_list.add_kernel() = k.registration.def;
  }
  // The ops, then the kernels, each batch all or nothing (Note [Registration
  // batches]); should the kernels fail, `committed_ops` going out of scope
  // takes the ops out again.
  OPKIT_ASSIGN_OR_RETURN(CommittedOpBatch committed_ops,
                         CommitOpBatch(std::move(pending_ops), ops, resolved));
  OPKIT_ASSIGN_OR_RETURN(
      lib->kernel_registrations,
      kernels->CommitBatch(std::move(pending_kernels), resolved));
  lib->op_registrations = std::move(committed_ops.handle);

  for (OpDef& def : committed_ops.registered) {
    *lib->op_list.add_op() = std::move(def);
  }
  for (const OpRegistrationData& d : committed_ops.redeclared) {
    *lib->op_list.add_op() = d.op_def;
    lib->shared_op_names.push_back(d.op_def.name());
  }
  lib->shared_ops = std::move(committed_ops.redeclared);
  lib->kernel_list = std::move(kernel_list);
  lib->kept_dependencies = KeepNewDependencies(
      mapped_before, LoadedDynamicLibraries(), DynamicLibraryPath(handle));
  lib->loaded = true;
  LOG(INFO) << "Loaded op library '" << resolved << "': "
            << lib->op_list.op_size() << " op(s), "
            << lib->kernel_list.kernel_size() << " kernel(s)";
  if (!lib->kept_dependencies.empty()) {
    LOG(INFO) << "Op library '" << resolved << "' brought in "
              << StrJoin(lib->kept_dependencies, ", ")
              << "; they stay loaded after Unload() (Note [Library "
                 "dependencies] in opkit/runtime/library.h)";
  }
  return lib;
}

// What a handle that names no library lists.
const std::vector<std::string>& NoNames() {
  static const std::vector<std::string>* const kEmpty = new std::vector<std::string>();
  return *kEmpty;
}

}  // namespace

const std::string& OpLibrary::path() const {
  static const std::string* const kEmpty = new std::string();
  return state_ ? state_->path : *kEmpty;
}

const OpList& OpLibrary::op_list() const {
  return state_ ? state_->op_list : OpList::default_instance();
}

const KernelList& OpLibrary::kernel_list() const {
  return state_ ? state_->kernel_list : KernelList::default_instance();
}

const std::vector<std::string>& OpLibrary::kept_dependencies() const {
  return state_ ? state_->kept_dependencies : NoNames();
}

const std::vector<std::string>& OpLibrary::shared_op_names() const {
  return state_ ? state_->shared_op_names : NoNames();
}

bool OpLibrary::loaded() const {
  if (!state_) return false;
  mutex_lock lock(GetLoader().mu);
  return state_->loaded;
}

Status OpLibrary::Unload() {
  if (!state_) {
    return errors::FailedPrecondition(
        "Unload() on an OpLibrary handle that names no library; use the "
        "handle LoadOpLibrary returned");
  }
  Loader& loader = GetLoader();
  mutex_lock lock(loader.mu);
  LoadedLibrary& lib = *state_;
  if (!lib.loaded) {
    return errors::FailedPrecondition("Op library '", lib.path,
                                      "' is already unloaded");
  }
  OPKIT_RETURN_IF_ERROR(lib.kernel_registrations.Remove());
  OPKIT_RETURN_IF_ERROR(lib.op_registrations.Remove());
  lib.loaded = false;
  auto& all = loader.loaded;
  all.erase(std::remove(all.begin(), all.end(), state_), all.end());

  // Another loaded library that declared one of the removed ops identically
  // keeps it registered, now under its own name.
  OpRegistry* ops = OpRegistry::Global();
  for (const OpDef& removed : lib.op_list.op()) {
    const std::string& name = removed.name();
    if (ops->LookUp(name) != nullptr) continue;  // Not this library's.
    for (const auto& other : all) {
      auto it = std::find_if(
          other->shared_ops.begin(), other->shared_ops.end(),
          [&](const OpRegistrationData& d) { return d.op_def.name() == name; });
      if (it == other->shared_ops.end()) continue;
      CommittedOpBatch taken;
      Status s = ops->RegisterBatch(
          {[data = *it](OpRegistrationData* out) {
            *out = data;
            return OkStatus();
          }},
          &taken);
      if (s.ok()) {
        LOG(INFO) << "Op '" << name << "' stays registered, now from '"
                  << other->path << "'";
        other->op_registrations.Merge(std::move(taken.handle));
        other->shared_ops.erase(it);
      } else {
        LOG(ERROR) << "Op '" << name << "' from '" << other->path
                   << "' could not take over: " << s;
      }
      break;
    }
  }
  // Their functions live in the library's code, which is about to go.
  lib.shared_ops.clear();
  lib.owner.reset();
  CloseQueued();
  LOG(INFO) << "Unloaded op library '" << lib.path << "'";
  return OkStatus();
}

StatusOr<OpLibrary> LoadOpLibrary(const std::string& path) {
  // The program's own registrations are committed before anything of the
  // library can be pending (Note [Pending op registrations] in op.h).
  OpRegistry::Global();
  KernelRegistry::Global();

  Loader& loader = GetLoader();
  mutex_lock lock(loader.mu);
  CloseQueued();
  if (path.empty()) {
    return errors::InvalidArgument(
        "LoadOpLibrary needs the path of a shared library; got an empty path");
  }
  if (!FileExists(path)) {
    return errors::NotFound("Cannot load op library '", path,
                            "': no such file. Check the path (relative paths "
                            "are taken from the current directory).");
  }
  std::string resolved;
  OPKIT_RETURN_IF_ERROR(RealPath(path, &resolved));
  std::string contents;
  Status read = ReadFileToString(resolved, &contents);
  if (!read.ok()) return LibraryError(path, read);
  const uint64_t hash = internal::HashBytes(contents, 0);

  for (const auto& lib : loader.loaded) {
    if (lib->path == resolved) {
      if (lib->content_hash != hash || lib->content_size != contents.size()) {
        LOG(WARNING) << "Op library '" << resolved
                     << "' changed on disk since it was loaded; the loaded "
                        "build stays. Unload() it and load it again to use "
                        "the new build.";
      }
      return internal::OpLibraryAccess::Make(lib);
    }
  }
  for (const auto& lib : loader.loaded) {
    if (lib->content_hash == hash && lib->content_size == contents.size()) {
      LOG(INFO) << "Op library '" << resolved << "' has the same contents as '"
                << lib->path << "', which is loaded; using that one";
      return internal::OpLibraryAccess::Make(lib);
    }
  }

  StatusOr<std::shared_ptr<LoadedLibrary>> lib = LoadLocked(resolved, contents);
  if (!lib.ok()) {
    CloseQueued();
    return LibraryError(path, lib.status());
  }
  (*lib)->content_hash = hash;
  (*lib)->content_size = contents.size();
  loader.loaded.push_back(*lib);
  return internal::OpLibraryAccess::Make(*std::move(lib));
}

std::vector<OpLibrary> LoadedOpLibraries() {
  Loader& loader = GetLoader();
  mutex_lock lock(loader.mu);
  std::vector<OpLibrary> out;
  for (const auto& lib : loader.loaded) {
    out.push_back(internal::OpLibraryAccess::Make(lib));
  }
  return out;
}

size_t CloseUnusedOpLibraries() {
  mutex_lock lock(GetLoader().mu);
  return CloseQueued();
}

}  // namespace opkit
