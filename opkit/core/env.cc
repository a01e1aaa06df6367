// Env over POSIX: files, environment variables and dynamic libraries (see
// env.h).
#include "opkit/core/env.h"

#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <thread>

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

// --- Env: TensorFlow's names for the same calls ----------------------------

Env* Env::Default() {
  static Env* const env = new Env();
  return env;
}

Status Env::FileExists(const std::string& fname) {
  if (::opkit::FileExists(fname)) return Status::OK();
  return errors::NotFound("File '", fname, "' does not exist");
}

Status Env::GetFileSize(const std::string& fname, uint64_t* file_size) {
  struct stat st;
  if (stat(fname.c_str(), &st) != 0) return IoError("Cannot stat", fname, errno);
  if (S_ISDIR(st.st_mode)) {
    return errors::FailedPrecondition("'", fname, "' is a directory, not a file");
  }
  *file_size = static_cast<uint64_t>(st.st_size);
  return Status::OK();
}

Status Env::IsDirectory(const std::string& fname) {
  struct stat st;
  if (stat(fname.c_str(), &st) != 0) return IoError("Cannot stat", fname, errno);
  if (!S_ISDIR(st.st_mode)) {
    return errors::FailedPrecondition("'", fname, "' is not a directory");
  }
  return Status::OK();
}

Status Env::GetChildren(const std::string& dir,
                        std::vector<std::string>* result) {
  result->clear();
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return IoError("Cannot list directory", dir, errno);
  while (struct dirent* entry = readdir(d)) {
    const std::string name = entry->d_name;
    if (name != "." && name != "..") result->push_back(name);
  }
  closedir(d);
  return Status::OK();
}

Status Env::CreateDir(const std::string& dirname) {
  if (mkdir(dirname.c_str(), 0755) == 0) return Status::OK();
  if (errno == EEXIST) {
    return errors::AlreadyExists("Cannot create directory '", dirname,
                                 "': it exists already");
  }
  return IoError("Cannot create directory", dirname, errno);
}

Status Env::RecursivelyCreateDir(const std::string& dirname) {
  if (dirname.empty()) return Status::OK();
  if (::opkit::FileExists(dirname)) return IsDirectory(dirname);
  const size_t slash = dirname.find_last_of('/');
  if (slash != std::string::npos && slash > 0) {
    OPKIT_RETURN_IF_ERROR(RecursivelyCreateDir(dirname.substr(0, slash)));
  }
  Status s = CreateDir(dirname);
  // Another thread or process may have made it meanwhile.
  if (errors::IsAlreadyExists(s)) return IsDirectory(dirname);
  return s;
}

Status Env::DeleteFile(const std::string& fname) {
  if (unlink(fname.c_str()) != 0) return IoError("Cannot delete", fname, errno);
  return Status::OK();
}

Status Env::RenameFile(const std::string& src, const std::string& target) {
  if (rename(src.c_str(), target.c_str()) != 0) {
    return IoError("Cannot rename", src, errno);
  }
  return Status::OK();
}

uint64_t Env::NowNanos() const {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(
          std::chrono::system_clock::now().time_since_epoch())
          .count());
}

uint64_t Env::NowMicros() const { return NowNanos() / 1000; }

uint64_t Env::NowSeconds() const { return NowNanos() / 1000000000; }

void Env::SleepForMicroseconds(int64_t micros) {
  if (micros > 0) std::this_thread::sleep_for(std::chrono::microseconds(micros));
}

Status Env::LoadDynamicLibrary(const char* library_filename, void** handle) {
  return ::opkit::LoadDynamicLibrary(library_filename, handle);
}

Status Env::GetSymbolFromLibrary(void* handle, const char* symbol_name,
                                 void** symbol) {
  return ::opkit::GetSymbolFromLibrary(handle, symbol_name, symbol);
}

Status ReadFileToString(Env* /*env*/, const std::string& fname,
                        std::string* data) {
  return ReadFileToString(fname, data);
}

Status WriteStringToFile(Env* /*env*/, const std::string& fname,
                         std::string_view data) {
  return WriteStringToFile(fname, std::string(data));
}

}  // namespace opkit
