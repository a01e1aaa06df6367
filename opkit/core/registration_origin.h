// RegistrationOrigin: where a registration (an op, a kernel) came from, so
// that messages about duplicates, ambiguities and overrides can name both
// sides.
//
//   RegistrationOrigin origin{__FILE__, __LINE__, "libmy_ops.so"};
//   origin.ToString();  // "my_ops.cc:12 in libmy_ops.so"
//
// A plain value type; thread-compatible.
#ifndef OPKIT_CORE_REGISTRATION_ORIGIN_H_
#define OPKIT_CORE_REGISTRATION_ORIGIN_H_

#include <string>

namespace opkit {

struct RegistrationOrigin {
  // Source file of the registration (normally __FILE__); empty if unknown.
  std::string file;
  // Line of the registration in `file`; 0 if unknown.
  int line = 0;
  // Path of the shared library that made the registration; empty for code
  // linked into the program (or when not known yet).
  std::string library;

  // True when nothing is known about the origin.
  bool empty() const { return file.empty() && line == 0 && library.empty(); }

  // "file.cc:12", "file.cc:12 in libfoo.so", "file.cc" (no line),
  // "libfoo.so" (no file) or "<unknown>" (nothing known).
  std::string ToString() const {
    std::string out;
    if (!file.empty()) {
      out = file;
      if (line > 0) out += ":" + std::to_string(line);
    }
    if (!library.empty()) {
      if (!out.empty()) out += " in ";
      out += library;
    }
    if (out.empty()) out = "<unknown>";
    return out;
  }

  bool operator==(const RegistrationOrigin& other) const {
    return file == other.file && line == other.line &&
           library == other.library;
  }
  bool operator!=(const RegistrationOrigin& other) const {
    return !(*this == other);
  }
};

}  // namespace opkit

#endif  // OPKIT_CORE_REGISTRATION_ORIGIN_H_
