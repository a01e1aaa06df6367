// The lexical layer of op spec parsing: the scanners declared in
// internal/op_spec_scanner.h and the named type sets. (Quoted strings are
// unescaped with absl::CUnescape.)
#include "opkit/op/internal/op_spec_scanner.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "opkit/core/str_util.h"
#include "opkit/tensor/types.h"

namespace opkit {
namespace internal {

bool ConsumeOpenParen(std::string_view* sp, std::string_view keyword) {
  std::string_view s = *sp;
  if (!ConsumePrefix(&s, keyword)) return false;
  SkipSpaces(&s);
  if (!ConsumePrefix(&s, "(")) return false;
  SkipSpaces(&s);
  *sp = s;
  return true;
}

bool ConsumeQuotedString(char quote, std::string_view* sp,
                         std::string_view* out) {
  std::string_view s = *sp;
  if (s.empty() || s[0] != quote) return false;
  size_t i = 1;
  while (i < s.size() && s[i] != quote) {
    i += (s[i] == '\\') ? 2 : 1;
  }
  if (i >= s.size()) return false;  // No closing quote.
  *out = s.substr(1, i - 1);
  s.remove_prefix(i + 1);
  SkipSpaces(&s);
  *sp = s;
  return true;
}

bool ConsumeAttrType(std::string_view* sp, std::string_view* out) {
  std::string_view s = *sp;
  if (!ConsumeWord(&s, IsLowerDigit, IsLowerDigit, out)) return false;
  SkipSpaces(&s);
  *sp = s;
  return true;
}

bool ConsumeAttrNumber(std::string_view* sp, int64_t* out) {
  std::string_view s = *sp;
  SkipSpaces(&s);
  bool negative = ConsumePrefix(&s, "-");
  if (s.empty() || !IsDigit(s[0])) return false;
  // Accumulate as a negative number so that INT64_MIN fits.
  int64_t value = 0;
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  while (!s.empty() && IsDigit(s[0])) {
    const int digit = s[0] - '0';
    if (value < (kMin + digit) / 10) return false;
    value = value * 10 - digit;
    s.remove_prefix(1);
  }
  if (!negative) {
    if (value == kMin) return false;
    value = -value;
  }
  SkipSpaces(&s);
  *out = value;
  *sp = s;
  return true;
}

bool AppendNamedTypeSet(std::string_view type_string, AttrValue* allowed) {
  const DataTypeVector* types = nullptr;
  if (type_string == "numbertype" || type_string == "numerictype") {
    types = &NumberTypes();
  } else if (type_string == "quantizedtype") {
    types = &QuantizedTypes();
  } else if (type_string == "realnumbertype" ||
             type_string == "realnumerictype") {
    types = &RealNumberTypes();
  } else {
    return false;
  }
  for (DataType dt : *types) allowed->mutable_list()->add_type(dt);
  return true;
}

bool ConsumeNamedTypeSet(std::string_view* sp, std::string_view* out) {
  for (std::string_view name : {"numbertype", "numerictype", "quantizedtype",
                                "realnumbertype", "realnumerictype"}) {
    if (ConsumePrefix(sp, name)) {
      *out = name;
      return true;
    }
  }
  return false;
}

std::string EscapeNewlinesInQuotes(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  char quote = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quote == 0) {
      if (c == '\'' || c == '"') quote = c;
      out.push_back(c);
    } else if (c == '\\' && i + 1 < text.size()) {
      out.push_back(c);
      out.push_back(text[++i]);
    } else if (c == '\n') {
      out += "\\n";
    } else {
      if (c == quote) quote = 0;
      out.push_back(c);
    }
  }
  return out;
}

}  // namespace internal
}  // namespace opkit
