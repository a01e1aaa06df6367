// TensorFlow compatibility: str_util::, TensorFlow's string helpers
// (Split, Join, StartsWith, Lowercase, ...), over abseil's strings library.
//
//   std::vector<string> parts = str_util::Split("a,b,,c", ',');
//   // {"a", "b", "", "c"}; Split("a,b,,c", ",", str_util::SkipEmpty())
//   // gives {"a", "b", "c"}; Split("", ",") gives {}.
//   string s = str_util::Join(std::vector<int>{1, 2, 3}, ", ");  // "1, 2, 3"
//   if (str_util::StartsWith(name, "Addons>")) { ... }
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_STR_UTIL_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_STR_UTIL_H_

#include <cctype>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/strip.h"
#include "absl/strings/string_view.h"
#include "tensorflow/core/platform/stringpiece.h"
#include "tensorflow/core/platform/types.h"

namespace tensorflow {
namespace str_util {

using opkit_compat_internal::AbslView;
using opkit_compat_internal::StdView;

// C-style escaping of non-printable characters, quotes and backslashes.
inline std::string CEscape(StringPiece src) { return absl::CEscape(AbslView(src)); }
// The inverse; false (with *error) on a malformed escape.
inline bool CUnescape(StringPiece source, std::string* dest,
                      std::string* error) {
  return absl::CUnescape(AbslView(source), dest, error);
}

// Removes trailing whitespace from *s.
inline void StripTrailingWhitespace(std::string* s) {
  absl::StripTrailingAsciiWhitespace(s);
}
// Remove leading / trailing / both whitespace from *text; the number of
// characters removed.
inline size_t RemoveLeadingWhitespace(StringPiece* text) {
  const size_t before = text->size();
  *text = StdView(absl::StripLeadingAsciiWhitespace(AbslView(*text)));
  return before - text->size();
}
inline size_t RemoveTrailingWhitespace(StringPiece* text) {
  const size_t before = text->size();
  *text = StdView(absl::StripTrailingAsciiWhitespace(AbslView(*text)));
  return before - text->size();
}
inline size_t RemoveWhitespaceContext(StringPiece* text) {
  return RemoveLeadingWhitespace(text) + RemoveTrailingWhitespace(text);
}

// If *s starts with a decimal number that fits uint64, consumes it into
// *val and returns true.
inline bool ConsumeLeadingDigits(StringPiece* s, uint64_t* val) {
  size_t i = 0;
  uint64_t v = 0;
  while (i < s->size() && absl::ascii_isdigit((*s)[i])) {
    const uint64_t digit = static_cast<uint64_t>((*s)[i] - '0');
    if (v > (UINT64_MAX - digit) / 10) return false;  // overflow
    v = v * 10 + digit;
    ++i;
  }
  if (i == 0) return false;
  s->remove_prefix(i);
  *val = v;
  return true;
}
// Consumes the leading run of non-whitespace into *val; false if none.
inline bool ConsumeNonWhitespace(StringPiece* s, StringPiece* val) {
  size_t i = 0;
  while (i < s->size() && !absl::ascii_isspace((*s)[i])) ++i;
  if (i == 0) return false;
  *val = s->substr(0, i);
  s->remove_prefix(i);
  return true;
}
// If *s starts (ends) with `expected`, removes it and returns true.
inline bool ConsumePrefix(StringPiece* s, StringPiece expected) {
  if (!absl::StartsWith(AbslView(*s), AbslView(expected))) return false;
  s->remove_prefix(expected.size());
  return true;
}
inline bool ConsumeSuffix(StringPiece* s, StringPiece expected) {
  if (!absl::EndsWith(AbslView(*s), AbslView(expected))) return false;
  s->remove_suffix(expected.size());
  return true;
}
// `s` without the prefix (suffix) when it has it, else `s`.
inline StringPiece StripPrefix(StringPiece s, StringPiece prefix) {
  return StdView(absl::StripPrefix(AbslView(s), AbslView(prefix)));
}
inline StringPiece StripSuffix(StringPiece s, StringPiece suffix) {
  return StdView(absl::StripSuffix(AbslView(s), AbslView(suffix)));
}

inline std::string Lowercase(StringPiece s) {
  return absl::AsciiStrToLower(AbslView(s));
}
inline std::string Uppercase(StringPiece s) {
  return absl::AsciiStrToUpper(AbslView(s));
}
// Upper-cases the first letter of *s and each letter that follows one of
// `delimiters`.
inline void TitlecaseString(std::string* s, StringPiece delimiters) {
  bool upper = true;
  for (char& c : *s) {
    if (upper) c = absl::ascii_toupper(c);
    upper = delimiters.find(c) != StringPiece::npos;
  }
}

// `s` with `oldsub` replaced by `newsub`, every occurrence or the first.
inline std::string StringReplace(StringPiece s, StringPiece oldsub,
                                 StringPiece newsub, bool replace_all) {
  if (oldsub.empty()) return std::string(s);
  if (replace_all) {
    return absl::StrReplaceAll(AbslView(s),
                               {{AbslView(oldsub), AbslView(newsub)}});
  }
  std::string out(s);
  const size_t pos = out.find(oldsub);
  if (pos != std::string::npos) {
    out.replace(pos, oldsub.size(), newsub.data(), newsub.size());
  }
  return out;
}

// The printed elements of `s` joined by `sep`; with a formatter
// `f(std::string* out, const Elem&)` that appends each element.
template <typename T>
std::string Join(const T& s, const char* sep) {
  return absl::StrJoin(s, sep);
}
template <typename T, typename Formatter>
std::string Join(const T& s, const char* sep, Formatter f) {
  return absl::StrJoin(s, sep, f);
}

// Split predicates: which pieces to keep.
struct AllowEmpty {
  bool operator()(StringPiece) const { return true; }
};
struct SkipEmpty {
  bool operator()(StringPiece sp) const { return !sp.empty(); }
};
struct SkipWhitespace {
  bool operator()(StringPiece sp) const {
    return !absl::StripTrailingAsciiWhitespace(AbslView(sp)).empty();
  }
};

// Splits `text` at every character of `delims`, keeping the pieces `p`
// accepts. Empty text gives no pieces (TensorFlow's behaviour, unlike
// absl::StrSplit).
template <typename Predicate>
std::vector<std::string> Split(StringPiece text, StringPiece delims,
                               Predicate p) {
  std::vector<std::string> result;
  if (text.empty()) return result;
  size_t start = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || delims.find(text[i]) != StringPiece::npos) {
      const StringPiece piece = text.substr(start, i - start);
      if (p(piece)) result.emplace_back(piece);
      start = i + 1;
    }
  }
  return result;
}
inline std::vector<std::string> Split(StringPiece text, StringPiece delims) {
  return Split(text, delims, AllowEmpty());
}
template <typename Predicate>
std::vector<std::string> Split(StringPiece text, char delim, Predicate p) {
  return Split(text, StringPiece(&delim, 1), p);
}
inline std::vector<std::string> Split(StringPiece text, char delim) {
  return Split(text, StringPiece(&delim, 1), AllowEmpty());
}

inline bool StartsWith(StringPiece text, StringPiece prefix) {
  return absl::StartsWith(AbslView(text), AbslView(prefix));
}
inline bool EndsWith(StringPiece text, StringPiece suffix) {
  return absl::EndsWith(AbslView(text), AbslView(suffix));
}
inline bool StrContains(StringPiece haystack, StringPiece needle) {
  return absl::StrContains(AbslView(haystack), AbslView(needle));
}

// The length of `str` up to its first NUL, at most `string_max_len`.
inline size_t Strnlen(const char* str, const size_t string_max_len) {
  size_t len = 0;
  while (len < string_max_len && str[len] != '\0') ++len;
  return len;
}

}  // namespace str_util
}  // namespace tensorflow

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_STR_UTIL_H_
