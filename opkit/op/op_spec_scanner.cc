// The lexical layer of op spec parsing: the scanners declared in
// internal/op_spec_scanner.h, C unescaping, the named type sets.
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
namespace {

int HexValue(char c) {
  if (IsDigit(c)) return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

void AppendUtf8(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

}  // namespace

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

bool CUnescape(std::string_view in, std::string* out, std::string* error) {
  out->clear();
  size_t i = 0;
  while (i < in.size()) {
    const char c = in[i];
    if (c != '\\') {
      out->push_back(c);
      ++i;
      continue;
    }
    if (i + 1 >= in.size()) {
      *error = "String cannot end with \\";
      return false;
    }
    const char e = in[i + 1];
    i += 2;
    switch (e) {
      case 'a': out->push_back('\a'); break;
      case 'b': out->push_back('\b'); break;
      case 'f': out->push_back('\f'); break;
      case 'n': out->push_back('\n'); break;
      case 'r': out->push_back('\r'); break;
      case 't': out->push_back('\t'); break;
      case 'v': out->push_back('\v'); break;
      case '\\': out->push_back('\\'); break;
      case '?': out->push_back('?'); break;
      case '\'': out->push_back('\''); break;
      case '"': out->push_back('"'); break;
      case '0': case '1': case '2': case '3':
      case '4': case '5': case '6': case '7': {
        const size_t start = i - 1;
        unsigned value = static_cast<unsigned>(e - '0');
        while (i < in.size() && i - start < 3 && in[i] >= '0' && in[i] <= '7') {
          value = value * 8 + static_cast<unsigned>(in[i] - '0');
          ++i;
        }
        if (value > 0xff) {
          *error = StrCat("Value of \\", in.substr(start, i - start),
                          " exceeds 0xff");
          return false;
        }
        out->push_back(static_cast<char>(value));
        break;
      }
      case 'x': case 'X': {
        if (i >= in.size() || HexValue(in[i]) < 0) {
          *error = "\\x cannot be followed by a non-hex digit";
          return false;
        }
        const size_t start = i;
        unsigned value = 0;
        while (i < in.size() && HexValue(in[i]) >= 0) {
          value = (value << 4) + static_cast<unsigned>(HexValue(in[i]));
          ++i;
          if (value > 0xff) {
            *error = StrCat("Value of \\x", in.substr(start, i - start),
                            " exceeds 0xff");
            return false;
          }
        }
        out->push_back(static_cast<char>(value));
        break;
      }
      case 'u': case 'U': {
        const size_t digits = (e == 'u') ? 4 : 8;
        uint32_t cp = 0;
        for (size_t k = 0; k < digits; ++k) {
          if (i + k >= in.size() || HexValue(in[i + k]) < 0) {
            *error = StrCat("\\", std::string(1, e), " must be followed by ",
                            digits, " hex digits: \\",
                            in.substr(i, std::min(digits, in.size() - i)));
            return false;
          }
          cp = (cp << 4) + static_cast<uint32_t>(HexValue(in[i + k]));
        }
        if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
          *error = StrCat("Value of \\", in.substr(i - 2, digits + 2),
                          " is not a valid Unicode code point");
          return false;
        }
        i += digits;
        AppendUtf8(cp, out);
        break;
      }
      default:
        *error = StrCat("Unknown escape sequence: \\", std::string(1, e));
        return false;
    }
  }
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
