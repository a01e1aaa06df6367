// Env over POSIX: files, environment variables and dynamic libraries (see
// env.h).
#include "opkit/core/env.h"

#include <dlfcn.h>
#include <limits.h>
#include <link.h>
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
  return LoadDynamicLibrary(path, DynamicLibraryOptions(), handle);
}

Status LoadDynamicLibrary(const std::string& path,
                          const DynamicLibraryOptions& options, void** handle) {
  int flags = RTLD_NOW | RTLD_LOCAL;
  if (options.only_if_loaded) flags |= RTLD_NOLOAD;
  if (options.never_unload) flags |= RTLD_NODELETE;
  dlerror();
  void* h = dlopen(path.c_str(), flags);
  if (h != nullptr) {
    *handle = h;
    return Status::OK();
  }
  const char* err = dlerror();
  if (options.only_if_loaded) {
    return errors::NotFound("Library '", path, "' is not loaded");
  }
  std::string reason = err ? err : "unknown dlopen error";
  // dlerror() usually starts with the path, which the message names already.
  if (reason.compare(0, path.size() + 2, path + ": ") == 0) {
    reason.erase(0, path.size() + 2);
  }
  if (!FileExists(path)) {
    return errors::NotFound("Cannot load library '", path, "': ", reason);
  }
  if (reason.find("undefined symbol") != std::string::npos) {
    return errors::InvalidArgument(
        "Cannot load library '", path, "': ", reason,
        ". A missing opkit symbol means the library was built against "
        "another opkit version; otherwise link the library it comes from, or "
        "put it on LD_LIBRARY_PATH.");
  }
  return errors::InvalidArgument(
      "Cannot load library '", path, "': ", reason,
      ". Check that it is a shared library built for this machine, and that "
      "the libraries it needs are on the library path.");
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

std::string DynamicLibraryPath(void* handle) {
  struct link_map* map = nullptr;
  if (handle == nullptr || dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0 ||
      map == nullptr || map->l_name == nullptr) {
    return "";
  }
  return map->l_name;
}

std::string DynamicLibraryContaining(const void* address) {
  Dl_info info;
  if (dladdr(address, &info) == 0 || info.dli_fname == nullptr) return "";
  return info.dli_fname;
}

std::vector<std::string> LoadedDynamicLibraries() {
  std::vector<std::string> objects;
  dl_iterate_phdr(
      [](struct dl_phdr_info* info, size_t, void* data) {
        if (info->dlpi_name != nullptr && info->dlpi_name[0] != '\0') {
          static_cast<std::vector<std::string>*>(data)->push_back(
              info->dlpi_name);
        }
        return 0;
      },
      &objects);
  return objects;
}

}  // namespace opkit
