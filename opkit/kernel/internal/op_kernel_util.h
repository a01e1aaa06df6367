// What the op_kernel*.cc files share: the tensor a misused accessor returns,
// TensorFlow's rule for ref-typed arguments, and the phrasing of messages.
// Not part of the API.
#ifndef OPKIT_KERNEL_INTERNAL_OP_KERNEL_UTIL_H_
#define OPKIT_KERNEL_INTERNAL_OP_KERNEL_UTIL_H_

#include <string>

#include "opkit/core/status.h"
#include "opkit/core/str_util.h"
#include "opkit/tensor/tensor.h"
#include "opkit/tensor/types.h"

namespace opkit {
namespace internal {

// The tensor input(int) and friends return for an index they cannot serve.
// Never destroyed, so references to it stay valid during shutdown too.
inline const Tensor& EmptyTensor() {
  static const Tensor* const empty = new Tensor();
  return *empty;
}

// "file.cc" of "/a/b/file.cc", for OP_REQUIRES log lines.
inline const char* Basename(const char* file) {
  if (file == nullptr) return "";
  const char* base = file;
  for (const char* p = file; *p != '\0'; ++p) {
    if (*p == '/') base = p + 1;
  }
  return base;
}

// TensorFlow's TypesCompatible: a ref type is accepted where its base type
// is expected.
inline bool TypesCompatible(DataType expected, DataType actual) {
  return expected == actual ||
         (!IsRefType(expected) && RemoveRefType(actual) == expected);
}

// OK if `inputs` -> `outputs` match `expected_inputs` -> `expected_outputs`
// (TypesCompatible element by element), else InvalidArgument "Signature
// mismatch, have: float->float expected: int32->int32". What both
// contexts' MatchSignature check (op_kernel_construction.cc).
Status MatchSignatureHelper(const DataTypeVector& expected_inputs,
                            const DataTypeVector& expected_outputs,
                            const DataTypeVector& inputs,
                            const DataTypeVector& outputs);

// "3 inputs" / "1 input" / "no inputs".
inline std::string CountOf(int n, const char* noun) {
  if (n == 0) return StrCat("no ", noun, "s");
  return StrCat(n, " ", noun, n == 1 ? "" : "s");
}

}  // namespace internal
}  // namespace opkit

#endif  // OPKIT_KERNEL_INTERNAL_OP_KERNEL_UTIL_H_
