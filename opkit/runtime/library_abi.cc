// Reading and checking op libraries' build records; see library_abi.h and
// Note [ABI build record] in core/abi.h.
#include "opkit/runtime/library_abi.h"

#include <cxxabi.h>
#include <elf.h>

#include <cstdlib>
#include <cstring>
#include <memory>

#include "opkit/core/eigen.h"
#include "opkit/core/errors.h"
#include "opkit/core/str_util.h"

namespace opkit {
namespace internal {
namespace {

struct IsaName {
  uint32_t bit;
  const char* name;  // __builtin_cpu_supports / -m spelling
};

constexpr IsaName kIsaNames[] = {
    {kIsaSse3, "sse3"},         {kIsaSsse3, "ssse3"},
    {kIsaSse41, "sse4.1"},      {kIsaSse42, "sse4.2"},
    {kIsaAvx, "avx"},           {kIsaAvx2, "avx2"},
    {kIsaFma, "fma"},           {kIsaF16c, "f16c"},
    {kIsaAvx512f, "avx512f"},   {kIsaAvx512bw, "avx512bw"},
    {kIsaAvx512dq, "avx512dq"}, {kIsaAvx512vl, "avx512vl"},
};

uint32_t CpuIsa() {
  uint32_t bits = 0;
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  // __builtin_cpu_supports takes a string literal only.
  if (__builtin_cpu_supports("sse3")) bits |= kIsaSse3;
  if (__builtin_cpu_supports("ssse3")) bits |= kIsaSsse3;
  if (__builtin_cpu_supports("sse4.1")) bits |= kIsaSse41;
  if (__builtin_cpu_supports("sse4.2")) bits |= kIsaSse42;
  if (__builtin_cpu_supports("avx")) bits |= kIsaAvx;
  if (__builtin_cpu_supports("avx2")) bits |= kIsaAvx2;
  if (__builtin_cpu_supports("fma")) bits |= kIsaFma;
  if (__builtin_cpu_supports("f16c")) bits |= kIsaF16c;
  if (__builtin_cpu_supports("avx512f")) bits |= kIsaAvx512f;
  if (__builtin_cpu_supports("avx512bw")) bits |= kIsaAvx512bw;
  if (__builtin_cpu_supports("avx512dq")) bits |= kIsaAvx512dq;
  if (__builtin_cpu_supports("avx512vl")) bits |= kIsaAvx512vl;
#endif
  return bits;
}

// A T read from `file` at `offset`, when it fits.
template <typename T>
bool ReadAt(std::string_view file, uint64_t offset, T* out) {
  if (offset > file.size() || file.size() - offset < sizeof(T)) return false;
  std::memcpy(out, file.data() + offset, sizeof(T));
  return true;
}

// The names of `bits`, each after `prefix`, separated by `separator`.
std::string JoinIsa(uint32_t bits, std::string_view prefix, std::string_view separator) {
  std::string out;
  for (const IsaName& n : kIsaNames) {
    if (bits & n.bit) out += StrCat(out.empty() ? "" : separator, prefix, n.name);
  }
  return out;
}

// "-mavx2 -mfma" for a set of bits.
std::string FlagFor(uint32_t bits) { return JoinIsa(bits, "-m", " "); }

}  // namespace

AbiHost HostAbi() {
  AbiHost host;
  host.cpu_isa = CpuIsa();
  host.cxx11_abi = CompiledCxx11Abi();
  host.eigen_max_align_bytes = EIGEN_MAX_ALIGN_BYTES;
  host.eigen_max_static_align_bytes = EIGEN_MAX_STATIC_ALIGN_BYTES;
  return host;
}

std::string IsaNames(uint32_t bits) { return JoinIsa(bits, "", ", "); }

StatusOr<std::vector<OpkitAbiRecord>> ReadAbiRecords(std::string_view file) {
  std::vector<OpkitAbiRecord> records;
  Elf64_Ehdr header;
  if (!ReadAt(file, 0, &header) ||
      std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 ||
      header.e_ident[EI_CLASS] != ELFCLASS64 ||
      header.e_shentsize != sizeof(Elf64_Shdr) ||
      header.e_shstrndx >= header.e_shnum) {
    return records;
  }
  Elf64_Shdr names;
  if (!ReadAt(file, header.e_shoff + uint64_t{header.e_shstrndx} * sizeof(Elf64_Shdr),
              &names)) {
    return records;
  }
  const std::string_view wanted(OPKIT_ABI_RECORD_SECTION);
  for (uint64_t i = 0; i < header.e_shnum; ++i) {
    Elf64_Shdr section;
    if (!ReadAt(file, header.e_shoff + i * sizeof(Elf64_Shdr), &section)) break;
    const uint64_t name_at = uint64_t{names.sh_offset} + section.sh_name;
    if (name_at > file.size() || file.size() - name_at <= wanted.size() ||
        file.substr(name_at, wanted.size()) != wanted ||
        file[name_at + wanted.size()] != '\0') {
      continue;
    }
    if (section.sh_type != SHT_PROGBITS || section.sh_offset > file.size() ||
        file.size() - section.sh_offset < section.sh_size ||
        section.sh_size % sizeof(OpkitAbiRecord) != 0) {
      return errors::InvalidArgument(
          "its ", wanted, " section (", section.sh_size,
          " bytes) is cut short or is not a list of opkit build records; "
          "rebuild it with opkit's headers and flags");
    }
    for (uint64_t at = 0; at < section.sh_size; at += sizeof(OpkitAbiRecord)) {
      OpkitAbiRecord record;
      ReadAt(file, section.sh_offset + at, &record);
      if (std::memcmp(record.magic, OPKIT_ABI_RECORD_MAGIC, sizeof(record.magic)) != 0) {
        return errors::InvalidArgument(
            "its ", wanted, " section holds something other than opkit build "
            "records; rebuild it with opkit's headers and flags");
      }
      records.push_back(record);
    }
    break;
  }
  return records;
}

Status CheckAbiRecords(const std::vector<OpkitAbiRecord>& records,
                       const AbiHost& host) {
  for (const OpkitAbiRecord& r : records) {
    // Records of other versions are the opkit_abi_version check's to refuse.
    if (r.version != OPKIT_ABI_VERSION) continue;
    const uint32_t missing = r.isa & ~host.cpu_isa;
    if (missing != 0) {
      return errors::InvalidArgument(
          "it was compiled for vector instructions this CPU lacks: ",
          IsaNames(missing),
          " (it was built with -march=native on another machine, or with ",
          FlagFor(missing),
          "). Rebuild it without them: drop -march=native and those -m flags "
          "(the flags of `opkit-config --cflags` or "
          "opkit.sysconfig.get_compile_flags() are portable unless opkit "
          "itself was built with OPKIT_NATIVE=ON), or build it on this "
          "machine.");
    }
    if (r.cxx11_abi != host.cxx11_abi && r.cxx11_abi >= 0 && host.cxx11_abi >= 0) {
      return errors::InvalidArgument(
          "it was compiled with -D_GLIBCXX_USE_CXX11_ABI=", r.cxx11_abi,
          ", but opkit uses _GLIBCXX_USE_CXX11_ABI=", host.cxx11_abi,
          ": std::string and std::list are different types on the two sides. "
          "Remove -D_GLIBCXX_USE_CXX11_ABI=", r.cxx11_abi,
          " from the build command (TensorFlow's guide adds it for old "
          "TensorFlow packages; opkit's flags already say "
          "-D_GLIBCXX_USE_CXX11_ABI=", host.cxx11_abi, ").");
    }
    if (r.eigen_max_align_bytes >= 0 &&
        r.eigen_max_align_bytes != host.eigen_max_align_bytes) {
      return errors::InvalidArgument(
          "it was compiled with EIGEN_MAX_ALIGN_BYTES=", r.eigen_max_align_bytes,
          " (EIGEN_MAX_STATIC_ALIGN_BYTES=", r.eigen_max_static_align_bytes,
          "), but opkit with EIGEN_MAX_ALIGN_BYTES=", host.eigen_max_align_bytes,
          " (EIGEN_MAX_STATIC_ALIGN_BYTES=", host.eigen_max_static_align_bytes,
          "): Eigen would assume another alignment of tensor buffers on the two "
          "sides. Rebuild it with -DEIGEN_MAX_ALIGN_BYTES=",
          host.eigen_max_align_bytes,
          " (part of `opkit-config --cflags` and "
          "opkit.sysconfig.get_compile_flags()) and no other value.");
    }
  }
  return OkStatus();
}

std::string OldCxxAbiHint(std::string_view dlopen_error) {
  constexpr std::string_view kUndefined = "undefined symbol: ";
  const size_t at = dlopen_error.find(kUndefined);
  if (at == std::string_view::npos) return "";
  std::string_view symbol = dlopen_error.substr(at + kUndefined.size());
  const size_t end = symbol.find_first_of(" \t\n,(");
  if (end != std::string_view::npos) symbol = symbol.substr(0, end);
  const std::string mangled(symbol);
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> demangled(
      abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status), &std::free);
  if (status != 0 || demangled == nullptr) return "";
  const std::string_view text(demangled.get());
  const bool old_string =
      text.find("std::string") != std::string_view::npos ||
      (text.find("std::basic_string") != std::string_view::npos &&
       text.find("__cxx11") == std::string_view::npos);
  if (!old_string) return "";
  return StrCat(
      " The missing function (", text,
      ") takes the pre-C++11 std::string, so the library was compiled with "
      "-D_GLIBCXX_USE_CXX11_ABI=0 (TensorFlow's guide adds it for old "
      "TensorFlow packages) while opkit uses _GLIBCXX_USE_CXX11_ABI=",
      CompiledCxx11Abi(),
      ". Remove -D_GLIBCXX_USE_CXX11_ABI=0 from the build command.");
}

}  // namespace internal
}  // namespace opkit
