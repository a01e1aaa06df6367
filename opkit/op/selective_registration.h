// Selective registration: compile only the ops (and kernels) a given model
// needs into a small binary, as TensorFlow's SELECTIVE_REGISTRATION does.
//
// Normal builds register everything. To build a trimmed binary:
//   1. compile with -DSELECTIVE_REGISTRATION, and
//   2. put a generated "ops_to_register.h" on the include path. It has the
//      shape TensorFlow's print_selective_registration_header tool writes:
//
//        #ifndef OPS_TO_REGISTER
//        #define OPS_TO_REGISTER
//        constexpr inline bool ShouldRegisterOp(const char op[]) {
//          return false
//             || ::opkit::SelectiveNameEquals(op, "MatMul")
//             || ::opkit::SelectiveNameEquals(op, "Relu");
//        }
//        #define SHOULD_REGISTER_OP(op) ShouldRegisterOp(op)
//        const char kNecessaryOpKernelClasses[] = ","
//            "MatMulOp<CPUDevice, float>,"
//            "ReluOp<CPUDevice, float>,";
//        #define SHOULD_REGISTER_OP_KERNEL(clz) (strstr( \\ (one line)
//            kNecessaryOpKernelClasses, "," clz ",") != nullptr)
//        #define SHOULD_REGISTER_OP_GRADIENT false     // optional
//        #endif
//
// REGISTER_OP("Name") then evaluates SHOULD_REGISTER_OP("Name") at compile
// time; an op for which it is false records nothing, and the compiler drops
// its spec strings and shape function from the binary. REGISTER_SYSTEM_OP
// ignores the filter. REGISTER_KERNEL_BUILDER(Name("Name")..., Class)
// records nothing either when SHOULD_REGISTER_OP("Name") is false (a kernel
// of a dropped op would fail the commit), nor when
// SHOULD_REGISTER_OP_KERNEL("Class") is false (Note [Kernel registration
// macro] in kernel/op_kernel.h). So a library built with a filter that drops
// an op and its kernels loads with the rest, and the dropped op is unknown.
//
// Contract of ops_to_register.h:
//   - It defines SHOULD_REGISTER_OP(op), or (TensorFlow's generated shape)
//     declares `constexpr bool ShouldRegisterOp(const char op[])`, in which
//     case this header defines SHOULD_REGISTER_OP(op) as ShouldRegisterOp(op).
//     Either must be a constant expression for a string literal.
//   - SHOULD_REGISTER_OP_KERNEL(clz) and SHOULD_REGISTER_OP_GRADIENT are
//     optional here (TensorFlow requires them); when absent they are `true`,
//     i.e. every kernel of a kept op and every gradient is kept.
//     SHOULD_REGISTER_OP_KERNEL need not be a constant expression (the
//     generated one above calls strstr, for which this header includes
//     <string.h> as TensorFlow's does).
//
// A build (or a test) may also define SHOULD_REGISTER_OP itself before this
// header is included, without SELECTIVE_REGISTRATION; that definition is
// used as it is. This is how a single translation unit can filter its own
// registrations without a generated header.
//
// opkit::SelectiveNameEquals() below is a constexpr string comparison a
// generated header may use (std::strcmp is not constexpr in C++17).
#ifndef OPKIT_OP_SELECTIVE_REGISTRATION_H_
#define OPKIT_OP_SELECTIVE_REGISTRATION_H_

namespace opkit {

// True when the NUL-terminated strings `a` and `b` are equal; usable in
// constant expressions. Declared before ops_to_register.h so that it can use it.
constexpr inline bool SelectiveNameEquals(const char* a, const char* b) {
  while (*a != '\0' && *a == *b) {
    ++a;
    ++b;
  }
  return *a == *b;
}

}  // namespace opkit

#if defined(SELECTIVE_REGISTRATION) && !defined(SHOULD_REGISTER_OP)
#include <string.h>  // strstr, for the generated SHOULD_REGISTER_OP_KERNEL

#include "ops_to_register.h"
#ifndef SHOULD_REGISTER_OP
// TensorFlow's generated headers declare ShouldRegisterOp(); a header that
// declares neither this nor the macro fails to compile here, naming it.
#define SHOULD_REGISTER_OP(op) ShouldRegisterOp(op)
#endif
#endif  // SELECTIVE_REGISTRATION

// Whether the op named by the string literal `op` is registered.
#ifndef SHOULD_REGISTER_OP
#define SHOULD_REGISTER_OP(op) true
#endif

// Whether the kernel class named by the string literal `clz` is registered
// (used by REGISTER_KERNEL_BUILDER).
#ifndef SHOULD_REGISTER_OP_KERNEL
#define SHOULD_REGISTER_OP_KERNEL(clz) true
#endif

// Whether gradient functions are registered.
#ifndef SHOULD_REGISTER_OP_GRADIENT
#define SHOULD_REGISTER_OP_GRADIENT true
#endif

#endif  // OPKIT_OP_SELECTIVE_REGISTRATION_H_
