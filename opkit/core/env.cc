#include "opkit/core/env.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cerrno>
#include <fstream>
#include <sstream>

#include "opkit/core/errors.h"

namespace opkit {
namespace {

Status IoError(const std::string& what, const std::string& path, int err) {
  const std::string reason = strerror(err);
  if (err == ENOENT) {
    return errors::NotFound(what, " '", path, "': ", reason,
                            ". Check that the path is right.");
  }
  if (err == EACCES || err == EPERM) {
    return errors::PermissionDenied(what, " '", path, "': ", reason);
  }
  return errors::Unknown(what, " '", path, "': ", reason);
}

}  // namespace

Status ReadFileToString(const std::string& path, std::string* out) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return IoError("Cannot read", path, errno);
  if (S_ISDIR(st.st_mode)) {
    return errors::InvalidArgument("Cannot read '", path,
                                   "': it is a directory, not a file");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return IoError("Cannot open", path, errno);
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return IoError("Cannot read", path, errno);
  *out = ss.str();
  return Status::OK();
}

Status WriteStringToFile(const std::string& path, const std::string& data) {
  std::ofstream outf(path, std::ios::binary | std::ios::trunc);
  if (!outf) return IoError("Cannot open for writing", path, errno);
  outf.write(data.data(), static_cast<std::streamsize>(data.size()));
  outf.close();
  if (!outf) return IoError("Cannot write", path, errno);
  return Status::OK();
}

bool FileExists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

Status RealPath(const std::string& path, std::string* out) {
  char buf[PATH_MAX];
  if (realpath(path.c_str(), buf) == nullptr) {
    return IoError("Cannot resolve", path, errno);
  }
  *out = buf;
  return Status::OK();
}

std::optional<std::string> GetEnvVar(const char* name) {
  const char* v = getenv(name);
  if (v == nullptr) return std::nullopt;
  return std::string(v);
}

Status LoadDynamicLibrary(const std::string& path, void** handle) {
  dlerror();
  void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (h == nullptr) {
    const char* err = dlerror();
    const std::string reason = err ? err : "unknown dlopen error";
    if (!FileExists(path)) {
      return errors::NotFound("Cannot load library '", path, "': ", reason);
    }
    return errors::InvalidArgument("Cannot load library '", path, "': ", reason,
                                   ". Check that it was built for this "
                                   "machine and that the libraries it needs "
                                   "are on the library path.");
  }
  *handle = h;
  return Status::OK();
}

Status GetSymbolFromLibrary(void* handle, const char* symbol, void** address) {
  dlerror();
  void* a = dlsym(handle, symbol);
  const char* err = dlerror();
  if (err != nullptr) {
    return errors::NotFound("Symbol '", symbol, "' not found: ", err);
  }
  *address = a;
  return Status::OK();
}

Status UnloadDynamicLibrary(void* handle) {
  if (dlclose(handle) != 0) {
    const char* err = dlerror();
    return errors::Internal("dlclose failed: ", err ? err : "unknown error");
  }
  return Status::OK();
}

}  // namespace opkit
