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

// dlopen()s `path` (RTLD_NOW | RTLD_LOCAL). On failure returns NotFound or
// InvalidArgument carrying dlerror()'s text.
OPKIT_EXPORT Status LoadDynamicLibrary(const std::string& path, void** handle);
// dlsym(); NotFound with dlerror()'s text if the symbol is missing.
OPKIT_EXPORT Status GetSymbolFromLibrary(void* handle, const char* symbol,
                                         void** address);
// dlclose().
OPKIT_EXPORT Status UnloadDynamicLibrary(void* handle);

}  // namespace opkit

#endif  // OPKIT_CORE_ENV_H_
