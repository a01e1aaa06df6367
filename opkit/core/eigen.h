// Eigen, as opkit includes it: the dense core, the tensor module and its
// thread pool, with GCC's false -Wmaybe-uninitialized warnings silenced.
//
// Note [Eigen warnings]: GCC 12's AVX-512 intrinsics initialise a dummy
// operand from itself (`__m512 __Y = __Y;` in avx512fintrin.h), and when
// Eigen's packet math inlines them GCC reports "'__Y' may be used
// uninitialized" hundreds of times per kernel file, although the intrinsic
// header is a system header. The diagnostic is located in that header, so
// disabling it while the header is first read silences exactly these
// reports and leaves the warning on for opkit's own code. Every opkit file
// reaches Eigen through this header (or tensor.h / op_kernel.h, which
// include it), so the intrinsic headers are first read here.
#ifndef OPKIT_CORE_EIGEN_H_
#define OPKIT_CORE_EIGEN_H_

// Eigen::ThreadPoolDevice (the CPU device kernels run on) is only declared
// with EIGEN_USE_THREADS; the build defines it, and so does this header for
// code built without opkit's flags.
#ifndef EIGEN_USE_THREADS
#define EIGEN_USE_THREADS
#endif

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include "Eigen/Core"
#include "unsupported/Eigen/CXX11/Tensor"
#include "unsupported/Eigen/CXX11/ThreadPool"

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

#include "opkit/core/abi.h"

// This unit's build record with the Eigen alignments it sees (Note [ABI build
// record] in core/abi.h), as Eigen was configured when first included.
#ifndef OPKIT_BUILDING_FRAMEWORK
extern "C" {
[[gnu::weak, gnu::visibility("hidden"), gnu::used,
  gnu::section(OPKIT_ABI_RECORD_SECTION), gnu::aligned(4)]] extern const
    OpkitAbiRecord opkit_abi_eigen_record = OPKIT_ABI_RECORD_INIT(
        EIGEN_MAX_ALIGN_BYTES, EIGEN_MAX_STATIC_ALIGN_BYTES);
}
#endif

#endif  // OPKIT_CORE_EIGEN_H_
