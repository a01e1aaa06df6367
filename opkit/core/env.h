// Env: what opkit needs from the operating system — files, environment
// variables, dynamic libraries — as calls that return a Status.
//
//   std::string text;
//   OPKIT_RETURN_IF_ERROR(ReadFileToString(path, &text));
//
//   void* handle = nullptr;
//   OPKIT_RETURN_IF_ERROR(LoadDynamicLibrary(path, &handle));
//
// Thread-safe.
#ifndef OPKIT_CORE_ENV_H_
#define OPKIT_CORE_ENV_H_

#include <optional>
#include <string>
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

}  // namespace opkit

#endif  // OPKIT_CORE_ENV_H_
