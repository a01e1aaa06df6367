// Env: what opkit needs from the operating system — files, environment
// variables, dynamic libraries — as calls that return a Status.
//
//   std::string text;
//   OPKIT_RETURN_IF_ERROR(ReadFileToString(path, &text));
//
//   void* handle = nullptr;
//   OPKIT_RETURN_IF_ERROR(LoadDynamicLibrary(path, &handle));
//
// The same under TensorFlow's names, for op libraries written against them:
//
//   Env* env = Env::Default();
//   TF_RETURN_IF_ERROR(ReadFileToString(env, path, &text));
//   if (env->FileExists(path).ok()) { ... }
//   const uint64 start = env->NowMicros();
//
// Thread-safe.
#ifndef OPKIT_CORE_ENV_H_
#define OPKIT_CORE_ENV_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "opkit/core/export.h"
#include "opkit/core/status.h"

namespace opkit {

// Reads the whole file. NotFound if it does not exist, another error with
// the system's reason otherwise.
OPKIT_EXPORT Status ReadFileToString(const std::string& path, std::string* out);
// Replaces the file's contents with `data`.
OPKIT_EXPORT Status WriteStringToFile(const std::string& path,
                                      const std::string& data);
OPKIT_EXPORT bool FileExists(const std::string& path);
// The canonical absolute path (symlinks resolved), or NotFound.
OPKIT_EXPORT Status RealPath(const std::string& path, std::string* out);

// The variable's value, or nullopt when it is not set.
OPKIT_EXPORT std::optional<std::string> GetEnvVar(const char* name);

// How LoadDynamicLibrary() opens a library. The defaults are dlopen()'s
// RTLD_NOW | RTLD_LOCAL: every symbol resolved at once, none made visible
// to later loads.
struct DynamicLibraryOptions {
  // Only hand out a library that is loaded already (RTLD_NOLOAD); NotFound
  // when it is not.
  bool only_if_loaded = false;
  // Keep the library mapped even after its last handle is closed
  // (RTLD_NODELETE); with `only_if_loaded`, marks a loaded one so.
  bool never_unload = false;
};

// dlopen()s `path` (RTLD_NOW | RTLD_LOCAL). On failure returns NotFound (no
// such file) or InvalidArgument carrying dlerror()'s text and what to check.
OPKIT_EXPORT Status LoadDynamicLibrary(const std::string& path, void** handle);
// The same with `options`.
OPKIT_EXPORT Status LoadDynamicLibrary(const std::string& path,
                                       const DynamicLibraryOptions& options,
                                       void** handle);
// dlsym(); NotFound with dlerror()'s text if the symbol is missing.
OPKIT_EXPORT Status GetSymbolFromLibrary(void* handle, const char* symbol,
                                         void** address);
// dlclose(); Internal with dlerror()'s text on failure.
OPKIT_EXPORT Status UnloadDynamicLibrary(void* handle);

// The path the dynamic linker gives the library `handle` names (dlinfo's
// link map), or "".
OPKIT_EXPORT std::string DynamicLibraryPath(void* handle);
// The path of the loaded object (library or program) whose code or data
// holds `address` (dladdr), or "".
OPKIT_EXPORT std::string DynamicLibraryContaining(const void* address);
// The paths of the shared objects mapped in the process, in load order (the
// program itself, which has no path, excluded).
OPKIT_EXPORT std::vector<std::string> LoadedDynamicLibraries();

// TensorFlow's Env: the operating system as one object, reached through
// Env::Default(). opkit has one implementation (POSIX) and no file systems
// beyond the local one, so the methods are not virtual. Paths are plain
// local paths. Thread-safe.
class OPKIT_EXPORT Env {
 public:
  // The process-wide Env; never null, never deleted.
  static Env* Default();

  Env(const Env&) = delete;
  Env& operator=(const Env&) = delete;

  // OK when `fname` exists (file or directory), NotFound otherwise.
  Status FileExists(const std::string& fname);
  // The size in bytes of the file.
  Status GetFileSize(const std::string& fname, uint64_t* file_size);
  // OK for a directory; FailedPrecondition for something else that exists,
  // NotFound when nothing does.
  Status IsDirectory(const std::string& fname);
  // The names (not paths) of the entries of `dir`, without "." and "..".
  Status GetChildren(const std::string& dir, std::vector<std::string>* result);
  // Creates `dirname`; AlreadyExists if it does.
  Status CreateDir(const std::string& dirname);
  // Creates `dirname` and every missing parent; OK if it exists already.
  Status RecursivelyCreateDir(const std::string& dirname);
  Status DeleteFile(const std::string& fname);
  Status RenameFile(const std::string& src, const std::string& target);

  // Wall-clock time since the Unix epoch (TensorFlow's EnvTime).
  uint64_t NowNanos() const;
  uint64_t NowMicros() const;
  uint64_t NowSeconds() const;
  void SleepForMicroseconds(int64_t micros);

  // The dynamic library calls above, as members.
  Status LoadDynamicLibrary(const char* library_filename, void** handle);
  Status GetSymbolFromLibrary(void* handle, const char* symbol_name,
                              void** symbol);

 private:
  Env() = default;
};

// TensorFlow's spellings of the file helpers, taking the Env first.
OPKIT_EXPORT Status ReadFileToString(Env* env, const std::string& fname,
                                     std::string* data);
OPKIT_EXPORT Status WriteStringToFile(Env* env, const std::string& fname,
                                      std::string_view data);

}  // namespace opkit

#endif  // OPKIT_CORE_ENV_H_
