// The lexical layer of op spec parsing (internal to OpDefBuilder):
// character classes and scanners over a std::string_view, C unescaping, the
// named type sets. See Note [Spec parsing] in op_spec_parsers.h. Not part of
// the API.
#ifndef OPKIT_OP_INTERNAL_OP_SPEC_SCANNER_H_
#define OPKIT_OP_INTERNAL_OP_SPEC_SCANNER_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "opkit/attr_value.pb.h"

namespace opkit {
namespace internal {

// Character classes and small scanners. Blanks are C's isspace set, spelled
// out so that the locale cannot change what a spec means.

inline bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' ||
         c == '\r';
}
inline bool IsLower(char c) { return c >= 'a' && c <= 'z'; }
inline bool IsUpper(char c) { return c >= 'A' && c <= 'Z'; }
inline bool IsDigit(char c) { return c >= '0' && c <= '9'; }
inline bool IsLetter(char c) { return IsLower(c) || IsUpper(c); }
inline bool IsLetterDigitUnderscore(char c) {
  return IsLetter(c) || IsDigit(c) || c == '_';
}
inline bool IsLowerDigitUnderscore(char c) {
  return IsLower(c) || IsDigit(c) || c == '_';
}
inline bool IsLowerDigit(char c) { return IsLower(c) || IsDigit(c); }

inline void SkipSpaces(std::string_view* sp) {
  size_t i = 0;
  while (i < sp->size() && IsSpace((*sp)[i])) ++i;
  sp->remove_prefix(i);
}

inline void StripTrailingSpaces(std::string* s) {
  size_t n = s->size();
  while (n > 0 && IsSpace((*s)[n - 1])) --n;
  s->resize(n);
}

inline bool ConsumePrefix(std::string_view* sp, std::string_view prefix) {
  if (sp->substr(0, prefix.size()) != prefix) return false;
  sp->remove_prefix(prefix.size());
  return true;
}

// Consumes one character of `first` then any number of `rest` into *out.
// Consumes nothing and returns false when the first character does not fit.
template <typename First, typename Rest>
bool ConsumeWord(std::string_view* sp, First first, Rest rest,
                 std::string_view* out) {
  if (sp->empty() || !first((*sp)[0])) return false;
  size_t i = 1;
  while (i < sp->size() && rest((*sp)[i])) ++i;
  *out = sp->substr(0, i);
  sp->remove_prefix(i);
  return true;
}

// "<word> <blanks> : <blanks>"; on failure *sp is unchanged.
template <typename First, typename Rest>
bool ConsumeNameColon(std::string_view* sp, First first, Rest rest,
                      std::string_view* out) {
  std::string_view s = *sp;
  std::string_view name;
  if (!ConsumeWord(&s, first, rest, &name)) return false;
  SkipSpaces(&s);
  if (!ConsumePrefix(&s, ":")) return false;
  SkipSpaces(&s);
  if (out != nullptr) *out = name;
  *sp = s;
  return true;
}

// "<keyword> <blanks> ( <blanks>", as in "list(" and "Ref(".
bool ConsumeOpenParen(std::string_view* sp, std::string_view keyword);

// A quoted string with backslash escapes: the text between the quotes (still
// escaped) goes to *out, and blanks after the closing quote are skipped.
bool ConsumeQuotedString(char quote, std::string_view* sp,
                         std::string_view* out);

// A type name inside "{...}": lower-case letters and digits, then blanks.
bool ConsumeAttrType(std::string_view* sp, std::string_view* out);

// "[blanks] [-] digits [blanks]" that fits in an int64.
bool ConsumeAttrNumber(std::string_view* sp, int64_t* out);


// Appends the members of a named type set to `allowed`; false if
// `type_string` names no set.
bool AppendNamedTypeSet(std::string_view type_string, AttrValue* allowed);

// Named type sets at the top level of an attr type. TensorFlow misspells
// "realnumerictype" here (so only its braced form works there); opkit
// accepts both spellings in both places.
bool ConsumeNamedTypeSet(std::string_view* sp, std::string_view* out);

// TensorFlow's own text-proto reader keeps a raw newline inside a quoted
// string (PrintV2 declares "end: string = '<newline>'"), while protobuf's
// tokenizer rejects it; escaping those newlines gives both readers the same
// value.
std::string EscapeNewlinesInQuotes(std::string_view text);

}  // namespace internal
}  // namespace opkit

#endif  // OPKIT_OP_INTERNAL_OP_SPEC_SCANNER_H_
