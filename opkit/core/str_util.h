// StrCat over anything that prints to an ostream, for building messages.
//
//   std::string m = StrCat("Need preserve_index >= 0, got ", v);
//
// Integers of one byte print as numbers, not characters; bool prints as
// "true"/"false". Meant for error and log messages, not hot paths.
#ifndef OPKIT_CORE_STR_UTIL_H_
#define OPKIT_CORE_STR_UTIL_H_

#include <charconv>
#include <cstdint>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace opkit {
namespace internal {

template <typename T>
void AppendPiece(std::ostringstream& os, const T& v) {
  if constexpr (std::is_same_v<T, bool>) {
    os << (v ? "true" : "false");
  } else if constexpr (std::is_same_v<T, int8_t> || std::is_same_v<T, uint8_t>) {
    os << static_cast<int>(v);
  } else if constexpr (std::is_floating_point_v<T>) {
    // Shortest text that reads back as the same value.
    char buf[64];
    auto res = std::to_chars(buf, buf + sizeof(buf), v);
    os << std::string_view(buf, res.ptr - buf);
  } else {
    os << v;
  }
}

}  // namespace internal

// Concatenates the printed forms of `args`.
template <typename... Args>
std::string StrCat(const Args&... args) {
  std::ostringstream os;
  (internal::AppendPiece(os, args), ...);
  return os.str();
}

// Joins the printed forms of `items` with `sep`.
template <typename Container>
std::string StrJoin(const Container& items, std::string_view sep) {
  std::ostringstream os;
  bool first = true;
  for (const auto& item : items) {
    if (!first) os << sep;
    first = false;
    internal::AppendPiece(os, item);
  }
  return os.str();
}

// Whether `s` begins with `prefix`.
inline bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

}  // namespace opkit

#endif  // OPKIT_CORE_STR_UTIL_H_
