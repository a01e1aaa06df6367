// The loader's checks of a library's build records (Note [ABI build record]
// in core/abi.h): reading them from the file's ELF section before dlopen(),
// comparing them with opkit's own build and the running CPU, and naming
// -D_GLIBCXX_USE_CXX11_ABI=0 when dlopen() fails on an old-ABI std::string.
//
//   OPKIT_ASSIGN_OR_RETURN(auto records, internal::ReadAbiRecords(bytes));
//   OPKIT_RETURN_IF_ERROR(internal::CheckAbiRecords(records, internal::HostAbi()));
#ifndef OPKIT_RUNTIME_LIBRARY_ABI_H_
#define OPKIT_RUNTIME_LIBRARY_ABI_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "opkit/core/abi.h"
#include "opkit/core/export.h"
#include "opkit/core/statusor.h"

namespace opkit {
namespace internal {

// What a library's records are checked against.
struct AbiHost {
  uint32_t cpu_isa = 0;  // OpkitAbiIsa bits the running CPU supports
  int32_t cxx11_abi = -1;
  int32_t eigen_max_align_bytes = 0;
  int32_t eigen_max_static_align_bytes = 0;
};

// opkit's own build and the CPU this process runs on.
OPKIT_EXPORT AbiHost HostAbi();

// The build records in the ".opkit_abi" section of the ELF file whose bytes
// are `file`: none for a file that is not a 64-bit ELF object or has no
// such section (dlopen() and the opkit_abi_version check speak for those).
// InvalidArgument for a section that is cut short or holds something else.
OPKIT_EXPORT StatusOr<std::vector<OpkitAbiRecord>> ReadAbiRecords(std::string_view file);

// OK when every record fits `host`; else InvalidArgument saying what differs
// and which flag to rebuild with.
OPKIT_EXPORT Status CheckAbiRecords(const std::vector<OpkitAbiRecord>& records,
                                    const AbiHost& host);

// "avx2, fma" for a set of OpkitAbiIsa bits.
OPKIT_EXPORT std::string IsaNames(uint32_t bits);

// When `dlopen_error` is an undefined symbol whose demangled name uses the
// pre-C++11 std::string (what -D_GLIBCXX_USE_CXX11_ABI=0 compiles), a
// sentence naming that flag; else "".
OPKIT_EXPORT std::string OldCxxAbiHint(std::string_view dlopen_error);

}  // namespace internal
}  // namespace opkit

#endif  // OPKIT_RUNTIME_LIBRARY_ABI_H_
