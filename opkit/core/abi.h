// The opkit plugin ABI stamps, recorded in every op library: the ABI
// version and the build record (vector instructions, C++ library ABI, Eigen
// alignment) the loader checks before it runs any of the library's code.
//
// Every translation unit that includes this header (op.h and op_kernel.h
// include it, so every op library does) defines the weak, exported symbol
// `opkit_abi_version` holding the OPKIT_ABI_VERSION it was compiled
// against. LoadOpLibrary reads it from the library right after dlopen() and
// refuses a library built against another version with a message saying
// which, instead of letting it register kernels whose objects have another
// layout.
//
//   $ nm -D zero_out.so | grep opkit_abi_version
//   0000000000004010 V opkit_abi_version
//
// Bump OPKIT_ABI_VERSION whenever a change to a public header changes the
// layout of something a plugin creates or is handed (OpKernel,
// OpKernelContext, Tensor, Status, the registration records), or the
// signature of a function the registration macros call, or what the build
// record below holds.
//
// Note [ABI build record]: each translation unit also puts an
// OpkitAbiRecord into the ELF section ".opkit_abi" saying how it was
// compiled: the x86 vector extensions the compiler was allowed to use
// (__AVX2__, __FMA__, ... from -march/-m flags), _GLIBCXX_USE_CXX11_ABI,
// and, in units that include Eigen (core/eigen.h adds a second record),
// EIGEN_MAX_ALIGN_BYTES and EIGEN_MAX_STATIC_ALIGN_BYTES. The definitions
// are weak but not merged, so the section keeps one record per unit and a
// unit built with other flags cannot hide behind the others. LoadOpLibrary
// reads the section from the file *before* dlopen() (a library built for
// AVX-512 may die with SIGILL in its static initializers on a CPU without
// it) and refuses a library that
//   - uses vector instructions the running CPU lacks
//     (__builtin_cpu_supports),
//   - was compiled with another _GLIBCXX_USE_CXX11_ABI than opkit (its
//     std::string is another type; TensorFlow's guide tells users of old
//     packages to pass -D_GLIBCXX_USE_CXX11_ABI=0),
//   - was compiled with another EIGEN_MAX_ALIGN_BYTES than opkit (Eigen
//     assumes that alignment for Tensor buffers and its own allocations).
// EIGEN_MAX_STATIC_ALIGN_BYTES is recorded and shown but not compared: it
// follows the vector width (16 with SSE, 32 with AVX) and only sets the
// layout of fixed-size Eigen objects, none of which cross opkit's plugin
// interface; comparing it would refuse every -march=native plugin of a
// portable opkit. See the build decision in cmake/OpkitOptions.cmake
// (Note [Portable builds]).
#ifndef OPKIT_CORE_ABI_H_
#define OPKIT_CORE_ABI_H_

#include <cstdint>
#include <cstddef>  // Any C++ library header: defines _GLIBCXX_USE_CXX11_ABI.

#define OPKIT_ABI_VERSION 2u

// Section and magic of the build records (Note [ABI build record]).
#define OPKIT_ABI_RECORD_SECTION ".opkit_abi"
#define OPKIT_ABI_RECORD_MAGIC "opkitabi"

extern "C" {
// One translation unit's build record. Fixed layout (all 32-bit fields after
// an 8-byte magic): the loader reads it from the file, not through C++.
struct OpkitAbiRecord {
  char magic[8];     // OPKIT_ABI_RECORD_MAGIC, no terminator
  uint32_t version;  // OPKIT_ABI_VERSION of the headers
  uint32_t isa;      // OpkitAbiIsa bits the compiler could use
  int32_t cxx11_abi;  // _GLIBCXX_USE_CXX11_ABI; -1 without libstdc++
  int32_t eigen_max_align_bytes;         // -1 when the unit has no Eigen
  int32_t eigen_max_static_align_bytes;  // -1 when the unit has no Eigen
  uint32_t reserved;
};
}

namespace opkit {
namespace internal {

// The x86 extensions a build record tracks; names as __builtin_cpu_supports
// and GCC's -m flags spell them.
enum OpkitAbiIsa : uint32_t {
  kIsaSse3 = 1u << 0,
  kIsaSsse3 = 1u << 1,
  kIsaSse41 = 1u << 2,
  kIsaSse42 = 1u << 3,
  kIsaAvx = 1u << 4,
  kIsaAvx2 = 1u << 5,
  kIsaFma = 1u << 6,
  kIsaF16c = 1u << 7,
  kIsaAvx512f = 1u << 8,
  kIsaAvx512bw = 1u << 9,
  kIsaAvx512dq = 1u << 10,
  kIsaAvx512vl = 1u << 11,
};

// The extensions this translation unit is compiled for.
constexpr uint32_t CompiledIsa() {
  uint32_t bits = 0;
#ifdef __SSE3__
  bits |= kIsaSse3;
#endif
#ifdef __SSSE3__
  bits |= kIsaSsse3;
#endif
#ifdef __SSE4_1__
  bits |= kIsaSse41;
#endif
#ifdef __SSE4_2__
  bits |= kIsaSse42;
#endif
#ifdef __AVX__
  bits |= kIsaAvx;
#endif
#ifdef __AVX2__
  bits |= kIsaAvx2;
#endif
#ifdef __FMA__
  bits |= kIsaFma;
#endif
#ifdef __F16C__
  bits |= kIsaF16c;
#endif
#ifdef __AVX512F__
  bits |= kIsaAvx512f;
#endif
#ifdef __AVX512BW__
  bits |= kIsaAvx512bw;
#endif
#ifdef __AVX512DQ__
  bits |= kIsaAvx512dq;
#endif
#ifdef __AVX512VL__
  bits |= kIsaAvx512vl;
#endif
  return bits;
}

constexpr int32_t CompiledCxx11Abi() {
#ifdef _GLIBCXX_USE_CXX11_ABI
  return _GLIBCXX_USE_CXX11_ABI;
#else
  return -1;
#endif
}

}  // namespace internal
}  // namespace opkit

// The record of this translation unit, with the given Eigen alignments.
#define OPKIT_ABI_RECORD_INIT(eigen_max, eigen_static)                     \
  {                                                                        \
    {'o', 'p', 'k', 'i', 't', 'a', 'b', 'i'}, OPKIT_ABI_VERSION,           \
        ::opkit::internal::CompiledIsa(),                                  \
        ::opkit::internal::CompiledCxx11Abi(), (eigen_max), (eigen_static), \
        0u                                                                 \
  }

// libopkit_framework.so defines no copy of its own (OPKIT_BUILDING_FRAMEWORK
// is set only while compiling it), so a library that lacks the symbol cannot
// appear to have one through its dependency on the framework.
#ifndef OPKIT_BUILDING_FRAMEWORK
// Weak: one definition per translation unit, merged by the linker. `extern`
// gives the const object external linkage.
extern "C" {
[[gnu::weak, gnu::visibility("default"), gnu::used]] extern const unsigned
    opkit_abi_version = OPKIT_ABI_VERSION;
// Weak and in its own section: every unit's record stays in the section
// (Note [ABI build record]).
[[gnu::weak, gnu::visibility("hidden"), gnu::used,
  gnu::section(OPKIT_ABI_RECORD_SECTION), gnu::aligned(4)]] extern const
    OpkitAbiRecord opkit_abi_record = OPKIT_ABI_RECORD_INIT(-1, -1);
}
#endif

#endif  // OPKIT_CORE_ABI_H_
