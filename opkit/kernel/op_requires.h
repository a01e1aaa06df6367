// OP_REQUIRES and friends: the way a kernel stops with an error. Each macro
// records the Status on the context (OpKernelConstruction or
// OpKernelContext) through CtxFailure / CtxFailureWithWarning, with the
// file:line of the check, and returns from the calling function.
//
//   void Compute(OpKernelContext* ctx) override {
//     const Tensor& x = ctx->input(0);
//     OP_REQUIRES(ctx, x.dims() == 2,
//                 errors::InvalidArgument("x must be a matrix, got shape ",
//                                         x.shape().DebugString()));
//     Tensor* out = nullptr;
//     OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &out));
//     OP_REQUIRES_VALUE(int64 n, ctx, ComputeSomething(x));   // StatusOr
//     ...
//   }
//
//   void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
//     OP_REQUIRES_ASYNC(ctx, ready_, errors::Unavailable("not ready"), done);
//     ...
//   }
//
// The macros work in any function returning void (Compute, a constructor, a
// helper taking the context). The _ASYNC forms call `done` before returning,
// as an async kernel must on every path.
#ifndef OPKIT_KERNEL_OP_REQUIRES_H_
#define OPKIT_KERNEL_OP_REQUIRES_H_

#include <utility>

#include "opkit/core/status.h"

#define OPKIT_OP_REQUIRES_CONCAT_INNER(a, b) a##b
#define OPKIT_OP_REQUIRES_CONCAT(a, b) OPKIT_OP_REQUIRES_CONCAT_INNER(a, b)

// If `EXP` is false: records `STATUS` on `CTX` and returns.
#define OP_REQUIRES(CTX, EXP, STATUS)                        \
  do {                                                       \
    if (__builtin_expect(!(EXP), 0)) {                       \
      (CTX)->CtxFailure(__FILE__, __LINE__, (STATUS));       \
      return;                                                \
    }                                                        \
  } while (0)

// If the Status `...` is not OK: records it on `CTX` (logged as a warning)
// and returns. Variadic so that a call with commas in its template
// arguments needs no extra parentheses.
#define OP_REQUIRES_OK(CTX, ...)                                      \
  do {                                                                \
    ::opkit::Status _opkit_op_requires_status(__VA_ARGS__);           \
    if (__builtin_expect(!_opkit_op_requires_status.ok(), 0)) {       \
      (CTX)->CtxFailureWithWarning(__FILE__, __LINE__,                \
                                   _opkit_op_requires_status);        \
      return;                                                         \
    }                                                                 \
  } while (0)

// OP_REQUIRES for async kernels: also calls `CALLBACK` before returning.
#define OP_REQUIRES_ASYNC(CTX, EXP, STATUS, CALLBACK)        \
  do {                                                       \
    if (__builtin_expect(!(EXP), 0)) {                       \
      (CTX)->CtxFailure(__FILE__, __LINE__, (STATUS));       \
      (CALLBACK)();                                          \
      return;                                                \
    }                                                        \
  } while (0)

// OP_REQUIRES_OK for async kernels: also calls `CALLBACK` before returning.
#define OP_REQUIRES_OK_ASYNC(CTX, STATUS, CALLBACK)                   \
  do {                                                                \
    ::opkit::Status _opkit_op_requires_status(STATUS);                \
    if (__builtin_expect(!_opkit_op_requires_status.ok(), 0)) {       \
      (CTX)->CtxFailureWithWarning(__FILE__, __LINE__,                \
                                   _opkit_op_requires_status);        \
      (CALLBACK)();                                                   \
      return;                                                         \
    }                                                                 \
  } while (0)

// Evaluates `RVALUE` (a StatusOr); on error records its status on `CTX` and
// returns, else moves the value into `LHS` (which may declare a variable:
// `OP_REQUIRES_VALUE(auto v, ctx, F())`). Not wrapped in do/while, so that
// the declaration stays in scope: use it as a statement of its own.
#define OP_REQUIRES_VALUE(LHS, CTX, RVALUE)                               \
  OPKIT_OP_REQUIRES_VALUE_IMPL(                                           \
      OPKIT_OP_REQUIRES_CONCAT(_opkit_op_requires_value_, __COUNTER__),   \
      LHS, CTX, RVALUE)
#define OPKIT_OP_REQUIRES_VALUE_IMPL(TMP, LHS, CTX, RVALUE)  \
  auto TMP = (RVALUE);                                       \
  OP_REQUIRES_OK(CTX, TMP.status());                         \
  LHS = std::move(TMP).value()

#endif  // OPKIT_KERNEL_OP_REQUIRES_H_
