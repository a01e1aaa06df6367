// lookup::LookupInterface: the resource behind a lookup table (TensorFlow's
// framework/lookup_interface.h). A table op library derives from it, keeps
// the table in the ResourceMgr behind a DT_RESOURCE handle, and its kernels
// call Find / Insert / Remove / ExportValues / ImportValues on it. The Check*
// helpers validate dtypes and shapes against the table's with TensorFlow's
// messages.
//
//   class HashTable : public lookup::LookupInterface {
//    public:
//     Status Find(OpKernelContext* ctx, const Tensor& keys, Tensor* values,
//                 const Tensor& default_value) override { ... }
//     ...
//   };
//   // In a kernel:
//   OP_REQUIRES_OK(ctx, table->CheckFindArguments(keys, default_value));
//
// Thread safety is the implementation's: the kernels of a table may run at
// once.
#ifndef OPKIT_KERNEL_LOOKUP_INTERFACE_H_
#define OPKIT_KERNEL_LOOKUP_INTERFACE_H_

#include <cstddef>
#include <string>

#include "opkit/core/export.h"
#include "opkit/core/status.h"
#include "opkit/core/str_util.h"
#include "opkit/resource/resource_mgr.h"
#include "opkit/tensor/tensor.h"
#include "opkit/tensor/tensor_shape.h"

namespace opkit {

class OpKernelContext;

namespace lookup {

class InitializableLookupTable;

class OPKIT_EXPORT LookupInterface : public ResourceBase {
 public:
  // For every key, the matching value, or `default_value` for a missing key.
  // FailedPrecondition for a table that is not initialized, InvalidArgument
  // for keys or a default of the wrong dtype or shape.
  virtual Status Find(OpKernelContext* ctx, const Tensor& keys, Tensor* values,
                      const Tensor& default_value) = 0;
  // Adds or overwrites key -> value pairs; Unimplemented for read-only tables.
  virtual Status Insert(OpKernelContext* ctx, const Tensor& keys,
                        const Tensor& values) = 0;
  // Removes keys; Unimplemented for read-only tables.
  virtual Status Remove(OpKernelContext* ctx, const Tensor& keys) = 0;
  // The number of entries.
  virtual size_t size() const = 0;
  // Writes every key and value to the kernel's outputs (names and shapes are
  // up to the table).
  virtual Status ExportValues(OpKernelContext* ctx) = 0;
  // Replaces the contents with what ExportValues wrote.
  virtual Status ImportValues(OpKernelContext* ctx, const Tensor& keys,
                              const Tensor& values) = 0;
  virtual DataType key_dtype() const = 0;
  virtual DataType value_dtype() const = 0;
  virtual TensorShape key_shape() const = 0;
  virtual TensorShape value_shape() const = 0;

  // InvalidArgument unless keys and values have the table's dtypes, the keys'
  // shape ends with key_shape(), and the values' shape is the keys' batch
  // shape followed by value_shape().
  virtual Status CheckKeyAndValueTensorsForInsert(const Tensor& keys,
                                                  const Tensor& values);
  virtual Status CheckKeyAndValueTensorsForImport(const Tensor& keys,
                                                  const Tensor& values);
  // InvalidArgument unless the keys have the table's key dtype and shape.
  virtual Status CheckKeyTensorForRemove(const Tensor& keys);
  // InvalidArgument unless keys and default have the table's dtypes, the
  // keys' shape ends with key_shape() and the default's shape is
  // value_shape().
  Status CheckFindArguments(const Tensor& keys, const Tensor& default_value);

  std::string DebugString() const override {
    return StrCat("A lookup table of size: ", size());
  }

  // The table as an InitializableLookupTable when it is one; opkit provides
  // none, so the default null is what tables return.
  virtual InitializableLookupTable* GetInitializableLookupTable() {
    return nullptr;
  }

 protected:
  ~LookupInterface() override = default;

  Status CheckKeyAndValueTypes(const Tensor& keys, const Tensor& values);
  Status CheckKeyShape(const TensorShape& shape);

 private:
  Status CheckKeyAndValueTensorsHelper(const Tensor& keys,
                                       const Tensor& values);
};

}  // namespace lookup
}  // namespace opkit

#endif  // OPKIT_KERNEL_LOOKUP_INTERFACE_H_
