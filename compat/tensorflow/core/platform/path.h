// TensorFlow compatibility: io::JoinPath, Basename, Dirname, Extension,
// IsAbsolutePath, CleanPath and SplitPath: '/'-separated path text, no
// file system access.
//
//   io::JoinPath("/data", "models", "v1.pb");  // "/data/models/v1.pb"
//   io::JoinPath("a/", "/b");                  // "a/b"
//   io::Basename("/data/v1.pb");               // "v1.pb"
//   io::Dirname("/data/v1.pb");                // "/data"
//   io::Extension("/data/v1.pb");              // "pb"
//   io::CleanPath("a//b/../c/");               // "a/c"
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_PATH_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_PATH_H_

#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "tensorflow/core/platform/stringpiece.h"
#include "tensorflow/core/platform/types.h"

namespace tensorflow {
namespace io {
namespace internal {

// Joins with exactly one '/' between non-empty parts; empty parts vanish.
inline std::string JoinPathImpl(std::initializer_list<StringPiece> paths) {
  std::string result;
  for (StringPiece path : paths) {
    if (path.empty()) continue;
    if (result.empty()) {
      result.assign(path.data(), path.size());
      continue;
    }
    const bool has_slash = result.back() == '/';
    const bool starts_slash = path.front() == '/';
    if (has_slash && starts_slash) path.remove_prefix(1);
    if (!has_slash && !starts_slash) result += '/';
    result.append(path.data(), path.size());
  }
  return result;
}

// (dirname, basename) around the last '/': the dirname keeps a lone
// leading '/'; without a '/', the dirname is empty.
inline std::pair<StringPiece, StringPiece> SplitPath(StringPiece path) {
  const size_t pos = path.rfind('/');
  if (pos == StringPiece::npos) return {path.substr(0, 0), path};
  if (pos == 0) return {path.substr(0, 1), path.substr(1)};
  return {path.substr(0, pos), path.substr(pos + 1)};
}

// (everything before, after) the last '.' of the basename; no '.' gives
// (path, "").
inline std::pair<StringPiece, StringPiece> SplitBasename(StringPiece path) {
  const StringPiece base = SplitPath(path).second;
  const size_t pos = base.rfind('.');
  if (pos == StringPiece::npos) return {base, base.substr(base.size())};
  return {base.substr(0, pos), base.substr(pos + 1)};
}

}  // namespace internal

// The parts joined by '/'; any number of strings or string views.
template <typename... T>
std::string JoinPath(const T&... args) {
  return internal::JoinPathImpl({StringPiece(args)...});
}

inline bool IsAbsolutePath(StringPiece path) {
  return !path.empty() && path[0] == '/';
}
// The part before the last '/' ("/" for "/a", "" for "a").
inline StringPiece Dirname(StringPiece path) {
  return internal::SplitPath(path).first;
}
// The part after the last '/' ("" for "a/").
inline StringPiece Basename(StringPiece path) {
  return internal::SplitPath(path).second;
}
// The part of the basename after its last '.', or "".
inline StringPiece Extension(StringPiece path) {
  return internal::SplitBasename(path).second;
}
// The basename without its extension.
inline StringPiece BasenamePrefix(StringPiece path) {
  return internal::SplitBasename(path).first;
}

// `path` with repeated '/', "." and resolvable ".." removed and no trailing
// '/' (Go's path.Clean): "a//b/../c/" -> "a/c", "/../x" -> "/x", "" -> ".".
inline std::string CleanPath(StringPiece path) {
  const bool absolute = IsAbsolutePath(path);
  std::vector<StringPiece> parts;
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == StringPiece::npos) end = path.size();
    const StringPiece part = path.substr(start, end - start);
    if (part.empty() || part == ".") {
      // nothing
    } else if (part == "..") {
      if (!parts.empty() && parts.back() != "..") {
        parts.pop_back();
      } else if (!absolute) {
        parts.push_back(part);
      }
    } else {
      parts.push_back(part);
    }
    start = end + 1;
  }
  std::string out = absolute ? "/" : "";
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += '/';
    out.append(parts[i].data(), parts[i].size());
  }
  if (out.empty()) out = ".";
  return out;
}

}  // namespace io
}  // namespace tensorflow

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_PATH_H_
