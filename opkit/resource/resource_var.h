// Var: the resource behind a resource variable (VarHandleOp,
// ReadVariableOp, AssignVariableOp), TensorFlow's resource_var.h. A tensor
// guarded by a mutex: readers take it shared and copy the Tensor (sharing
// the buffer); writers take it exclusively and replace the tensor, or copy
// first when someone else still shares the buffer.
//
//   Var* var = new Var(DT_FLOAT);
//   {
//     mutex_lock l(*var->mu());
//     *var->tensor() = value;
//     var->is_initialized = true;
//   }
//
// Thread-safe through mu(): every access to tensor() holds it.
#ifndef OPKIT_RESOURCE_RESOURCE_VAR_H_
#define OPKIT_RESOURCE_RESOURCE_VAR_H_

#include <atomic>
#include <cstdint>
#include <string>

#include "opkit/core/export.h"
#include "opkit/core/mutex.h"
#include "opkit/resource/resource_mgr.h"
#include "opkit/tensor/tensor.h"

namespace opkit {

class OPKIT_EXPORT Var : public ResourceBase {
 public:
  // Holds an uninitialized tensor of `dtype` until a value is assigned.
  explicit Var(DataType dtype) : tensor_(dtype) {}
  Var(const Var&) = delete;
  Var& operator=(const Var&) = delete;

  mutex* mu() { return &mu_; }
  // The value; access it with mu() held.
  Tensor* tensor() { return &tensor_; }

  // "float/[2,3]", as TensorFlow prints a variable.
  std::string DebugString() const override;
  // The bytes of the value's buffer.
  int64_t MemoryUsed() const override;

  // Whether a value was assigned (set by the writer, with mu() held).
  bool is_initialized = false;
  // TensorFlow's flag for sparse writes that must copy on read; kept for
  // source compatibility, opkit's kernels do not read it.
  std::atomic<bool> copy_on_read_mode{false};

 private:
  mutable mutex mu_;
  Tensor tensor_;
};

}  // namespace opkit

#endif  // OPKIT_RESOURCE_RESOURCE_VAR_H_
