// The opkit plugin ABI version, recorded in every op library.
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
// signature of a function the registration macros call.
#ifndef OPKIT_CORE_ABI_H_
#define OPKIT_CORE_ABI_H_

#define OPKIT_ABI_VERSION 1u

// libopkit_framework.so defines no copy of its own (OPKIT_BUILDING_FRAMEWORK
// is set only while compiling it), so a library that lacks the symbol cannot
// appear to have one through its dependency on the framework.
#ifndef OPKIT_BUILDING_FRAMEWORK
// Weak: one definition per translation unit, merged by the linker. `extern`
// gives the const object external linkage.
extern "C" {
[[gnu::weak, gnu::visibility("default"), gnu::used]] extern const unsigned
    opkit_abi_version = OPKIT_ABI_VERSION;
}
#endif

#endif  // OPKIT_CORE_ABI_H_
