// A resource op library written the way TensorFlow's custom-op libraries
// write one (TensorFlow's include paths and spellings only): a hash table
// kept in the ResourceMgr behind a DT_RESOURCE handle, with ops to create
// it, insert, find with a default, remove, export, import and count; and a
// counter made with REGISTER_RESOURCE_HANDLE_OP / ResourceHandleOp.
// Built as a plugin and used from C++, a graph and Python by the tests in
// this folder.
#include <algorithm>
#include <unordered_map>
#include <vector>

#include "tensorflow/core/framework/common_shape_fns.h"
#include "tensorflow/core/framework/lookup_interface.h"
#include "tensorflow/core/framework/op.h"
#include "tensorflow/core/framework/op_kernel.h"
#include "tensorflow/core/framework/register_types.h"
#include "tensorflow/core/framework/resource_mgr.h"
#include "tensorflow/core/framework/resource_op_kernel.h"
#include "tensorflow/core/framework/shape_inference.h"
#include "tensorflow/core/platform/mutex.h"

using namespace tensorflow;  // NOLINT

REGISTER_OP("SimpleHashTableCreate")
    .Output("output: resource")
    .Attr("key_dtype: type")
    .Attr("value_dtype: type")
    .Attr("container: string = ''")
    .Attr("shared_name: string = ''")
    .SetIsStateful()
    .SetShapeFn(shape_inference::ScalarShape);

// The same table, made by a ResourceOpKernel (created when the op first
// runs, named by container / shared_name or private to the kernel).
REGISTER_OP("SimpleMutableHashTable")
    .Output("table_handle: resource")
    .Attr("key_dtype: type")
    .Attr("value_dtype: type")
    .Attr("container: string = ''")
    .Attr("shared_name: string = ''")
    .SetIsStateful()
    .SetShapeFn(shape_inference::ScalarShape);

REGISTER_OP("SimpleHashTableInsert")
    .Input("resource_handle: resource")
    .Input("key: key_dtype")
    .Input("value: value_dtype")
    .Attr("key_dtype: type")
    .Attr("value_dtype: type")
    .SetShapeFn(shape_inference::NoOutputs);

REGISTER_OP("SimpleHashTableFind")
    .Input("resource_handle: resource")
    .Input("key: key_dtype")
    .Input("default_value: value_dtype")
    .Output("value: value_dtype")
    .Attr("key_dtype: type")
    .Attr("value_dtype: type")
    .SetShapeFn([](shape_inference::InferenceContext* c) {
      c->set_output(0, c->input(1));
      return Status::OK();
    });

REGISTER_OP("SimpleHashTableRemove")
    .Input("resource_handle: resource")
    .Input("key: key_dtype")
    .Attr("key_dtype: type")
    .Attr("value_dtype: type")
    .SetShapeFn(shape_inference::NoOutputs);

REGISTER_OP("SimpleHashTableExport")
    .Input("table_handle: resource")
    .Output("keys: key_dtype")
    .Output("values: value_dtype")
    .Attr("key_dtype: type")
    .Attr("value_dtype: type")
    .SetShapeFn([](shape_inference::InferenceContext* c) {
      c->set_output(0, c->Vector(c->UnknownDim()));
      c->set_output(1, c->Vector(c->UnknownDim()));
      return Status::OK();
    });

REGISTER_OP("SimpleHashTableImport")
    .Input("table_handle: resource")
    .Input("keys: key_dtype")
    .Input("values: value_dtype")
    .Attr("key_dtype: type")
    .Attr("value_dtype: type")
    .SetShapeFn(shape_inference::NoOutputs);

REGISTER_OP("SimpleHashTableSize")
    .Input("table_handle: resource")
    .Output("size: int64")
    .SetShapeFn(shape_inference::ScalarShape);

namespace tensorflow {
namespace custom_op_examples {

template <class K, class V>
class SimpleHashTableResource : public lookup::LookupInterface {
 public:
  Status Find(OpKernelContext* ctx, const Tensor& key, Tensor* value,
              const Tensor& default_value) override {
    const V default_val = default_value.flat<V>()(0);
    const auto keys = key.flat<K>();
    auto values = value->flat<V>();
    tf_shared_lock l(mu_);
    for (int64 i = 0; i < keys.size(); ++i) {
      auto it = table_.find(keys(i));
      values(i) = it == table_.end() ? default_val : it->second;
    }
    return Status::OK();
  }

  Status Insert(OpKernelContext* ctx, const Tensor& keys,
                const Tensor& values) override {
    TF_RETURN_IF_ERROR(CheckKeyAndValueTensorsForInsert(keys, values));
    mutex_lock l(mu_);
    PutLocked(keys, values);
    return Status::OK();
  }

  Status Remove(OpKernelContext* ctx, const Tensor& keys) override {
    TF_RETURN_IF_ERROR(CheckKeyTensorForRemove(keys));
    const auto k = keys.flat<K>();
    mutex_lock l(mu_);
    for (int64 i = 0; i < k.size(); ++i) table_.erase(k(i));
    return Status::OK();
  }

  // Keys in ascending order, so that exports compare equal.
  Status ExportValues(OpKernelContext* ctx) override {
    std::vector<std::pair<K, V>> entries;
    {
      tf_shared_lock l(mu_);
      entries.assign(table_.begin(), table_.end());
    }
    std::sort(entries.begin(), entries.end(),
              [](const std::pair<K, V>& a, const std::pair<K, V>& b) {
                return a.first < b.first;
              });
    const int64 n = static_cast<int64>(entries.size());
    Tensor* keys = nullptr;
    Tensor* values = nullptr;
    TF_RETURN_IF_ERROR(ctx->allocate_output("keys", TensorShape({n}), &keys));
    TF_RETURN_IF_ERROR(
        ctx->allocate_output("values", TensorShape({n}), &values));
    for (int64 i = 0; i < n; ++i) {
      keys->flat<K>()(i) = entries[i].first;
      values->flat<V>()(i) = entries[i].second;
    }
    return Status::OK();
  }

  Status ImportValues(OpKernelContext* ctx, const Tensor& keys,
                      const Tensor& values) override {
    TF_RETURN_IF_ERROR(CheckKeyAndValueTensorsForImport(keys, values));
    mutex_lock l(mu_);
    table_.clear();
    PutLocked(keys, values);
    return Status::OK();
  }

  DataType key_dtype() const override { return DataTypeToEnum<K>::v(); }
  DataType value_dtype() const override { return DataTypeToEnum<V>::v(); }
  TensorShape key_shape() const override { return TensorShape(); }
  TensorShape value_shape() const override { return TensorShape(); }

  size_t size() const override {
    tf_shared_lock l(mu_);
    return table_.size();
  }

  int64 MemoryUsed() const override {
    return sizeof(*this) + size() * (sizeof(K) + sizeof(V));
  }

 private:
  void PutLocked(const Tensor& keys, const Tensor& values)
      TF_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    const auto k = keys.flat<K>();
    const auto v = values.flat<V>();
    for (int64 i = 0; i < k.size(); ++i) table_[k(i)] = v(i);
  }

  mutable mutex mu_;
  std::unordered_map<K, V> table_ TF_GUARDED_BY(mu_);
};

// Makes the table (an anonymous one when shared_name is empty) and outputs
// its handle.
template <class K, class V>
class SimpleHashTableCreateOpKernel : public OpKernel {
 public:
  explicit SimpleHashTableCreateOpKernel(OpKernelConstruction* ctx)
      : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("container", &container_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("shared_name", &shared_name_));
  }

  void Compute(OpKernelContext* ctx) override {
    using Table = SimpleHashTableResource<K, V>;
    const ResourceHandle handle = MakeResourceHandle<Table>(
        ctx, container_,
        shared_name_.empty() ? ResourceHandle::ANONYMOUS_NAME : shared_name_);
    core::RefCountPtr<Table> table;
    OP_REQUIRES_OK(ctx, LookupOrCreateResource<Table>(ctx, handle, &table,
                                                       [](Table** t) {
                                                         *t = new Table;
                                                         return Status::OK();
                                                       }));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({}), &out));
    out->scalar<ResourceHandle>()() = handle;
  }

 private:
  string container_;
  string shared_name_;
};

template <class K, class V>
class SimpleMutableHashTableOp
    : public ResourceOpKernel<SimpleHashTableResource<K, V>> {
 public:
  explicit SimpleMutableHashTableOp(OpKernelConstruction* ctx)
      : ResourceOpKernel<SimpleHashTableResource<K, V>>(ctx) {}

 private:
  Status CreateResource(SimpleHashTableResource<K, V>** table) override {
    *table = new SimpleHashTableResource<K, V>;
    return Status::OK();
  }
};

template <class K, class V>
class SimpleHashTableInsertOpKernel : public OpKernel {
 public:
  explicit SimpleHashTableInsertOpKernel(OpKernelConstruction* ctx)
      : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    core::RefCountPtr<SimpleHashTableResource<K, V>> table;
    OP_REQUIRES_OK(ctx, LookupResource(ctx, HandleFromInput(ctx, 0), &table));
    OP_REQUIRES_OK(ctx, table->Insert(ctx, ctx->input(1), ctx->input(2)));
  }
};

template <class K, class V>
class SimpleHashTableFindOpKernel : public OpKernel {
 public:
  explicit SimpleHashTableFindOpKernel(OpKernelConstruction* ctx)
      : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    core::RefCountPtr<SimpleHashTableResource<K, V>> table;
    ResourceHandle handle;
    OP_REQUIRES_OK(ctx, HandleFromInput(ctx, "resource_handle", &handle));
    OP_REQUIRES_OK(ctx, LookupResource(ctx, handle, &table));
    const Tensor& keys = ctx->input(1);
    const Tensor& default_value = ctx->input(2);
    OP_REQUIRES_OK(ctx, table->CheckFindArguments(keys, default_value));
    Tensor* values = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, keys.shape(), &values));
    OP_REQUIRES_OK(ctx, table->Find(ctx, keys, values, default_value));
  }
};

template <class K, class V>
class SimpleHashTableRemoveOpKernel : public OpKernel {
 public:
  explicit SimpleHashTableRemoveOpKernel(OpKernelConstruction* ctx)
      : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    SimpleHashTableResource<K, V>* table = nullptr;
    OP_REQUIRES_OK(ctx, LookupResource(ctx, HandleFromInput(ctx, 0), &table));
    core::ScopedUnref unref(table);
    OP_REQUIRES_OK(ctx, table->Remove(ctx, ctx->input(1)));
  }
};

template <class K, class V>
class SimpleHashTableExportOpKernel : public OpKernel {
 public:
  explicit SimpleHashTableExportOpKernel(OpKernelConstruction* ctx)
      : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    core::RefCountPtr<SimpleHashTableResource<K, V>> table;
    OP_REQUIRES_OK(ctx, LookupResource(ctx, HandleFromInput(ctx, 0), &table));
    OP_REQUIRES_OK(ctx, table->ExportValues(ctx));
  }
};

template <class K, class V>
class SimpleHashTableImportOpKernel : public OpKernel {
 public:
  explicit SimpleHashTableImportOpKernel(OpKernelConstruction* ctx)
      : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    core::RefCountPtr<SimpleHashTableResource<K, V>> table;
    OP_REQUIRES_OK(ctx, LookupResource(ctx, HandleFromInput(ctx, 0), &table));
    OP_REQUIRES_OK(ctx,
                   table->ImportValues(ctx, ctx->input(1), ctx->input(2)));
  }
};

// Any table: looked up as a plain ResourceBase, then asked for its size.
class SimpleHashTableSizeOpKernel : public OpKernel {
 public:
  explicit SimpleHashTableSizeOpKernel(OpKernelConstruction* ctx)
      : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    ResourceBase* resource = nullptr;
    OP_REQUIRES_OK(ctx,
                   LookupResource(ctx, HandleFromInput(ctx, 0), &resource));
    core::ScopedUnref unref(resource);
    auto* table = dynamic_cast<lookup::LookupInterface*>(resource);
    OP_REQUIRES(ctx, table != nullptr,
                errors::InvalidArgument("Not a lookup table: ",
                                        resource->DebugString()));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({}), &out));
    out->scalar<int64>()() = static_cast<int64>(table->size());
  }
};

REGISTER_KERNEL_BUILDER(Name("SimpleHashTableSize").Device(DEVICE_CPU),
                        SimpleHashTableSizeOpKernel);

#define REGISTER_KERNEL(op, kernel, key_dtype, value_dtype)       \
  REGISTER_KERNEL_BUILDER(Name(op)                                \
                              .Device(DEVICE_CPU)                 \
                              .TypeConstraint<key_dtype>("key_dtype") \
                              .TypeConstraint<value_dtype>("value_dtype"), \
                          kernel<key_dtype, value_dtype>)

#define REGISTER_ALL(key_dtype, value_dtype)                                  \
  REGISTER_KERNEL("SimpleHashTableCreate", SimpleHashTableCreateOpKernel,     \
                  key_dtype, value_dtype);                                    \
  REGISTER_KERNEL("SimpleMutableHashTable", SimpleMutableHashTableOp,         \
                  key_dtype, value_dtype);                                    \
  REGISTER_KERNEL("SimpleHashTableInsert", SimpleHashTableInsertOpKernel,     \
                  key_dtype, value_dtype);                                    \
  REGISTER_KERNEL("SimpleHashTableFind", SimpleHashTableFindOpKernel,         \
                  key_dtype, value_dtype);                                    \
  REGISTER_KERNEL("SimpleHashTableRemove", SimpleHashTableRemoveOpKernel,     \
                  key_dtype, value_dtype);                                    \
  REGISTER_KERNEL("SimpleHashTableExport", SimpleHashTableExportOpKernel,     \
                  key_dtype, value_dtype);                                    \
  REGISTER_KERNEL("SimpleHashTableImport", SimpleHashTableImportOpKernel,     \
                  key_dtype, value_dtype);

REGISTER_ALL(int64, float);
REGISTER_ALL(int64, int64);
REGISTER_ALL(tstring, int64);

#undef REGISTER_ALL
#undef REGISTER_KERNEL

// A counter behind TensorFlow's handle-op macros.
class SimpleCounter : public ResourceBase {
 public:
  string DebugString() const override { return "SimpleCounter"; }
  mutex mu;
  int64 value TF_GUARDED_BY(mu) = 0;
};

}  // namespace custom_op_examples
}  // namespace tensorflow

using tensorflow::custom_op_examples::SimpleCounter;

REGISTER_RESOURCE_HANDLE_OP(SimpleCounter);
REGISTER_RESOURCE_HANDLE_KERNEL(SimpleCounter);

REGISTER_OP("SimpleCounterIncrement")
    .Input("counter: resource")
    .Output("value: int64")
    .SetShapeFn(shape_inference::ScalarShape);

class SimpleCounterIncrementOp : public OpKernel {
 public:
  explicit SimpleCounterIncrementOp(OpKernelConstruction* ctx)
      : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const ResourceHandle& handle = HandleFromInput(ctx, 0);
    SimpleCounter* counter = nullptr;
    if (!LookupResource(ctx, handle, &counter).ok()) {
      OP_REQUIRES_OK(ctx, CreateResource(ctx, handle, new SimpleCounter));
      OP_REQUIRES_OK(ctx, LookupResource(ctx, handle, &counter));
    }
    core::ScopedUnref unref(counter);
    mutex_lock l(counter->mu);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({}), &out));
    out->scalar<int64>()() = ++counter->value;
  }
};

REGISTER_KERNEL_BUILDER(Name("SimpleCounterIncrement").Device(DEVICE_CPU),
                        SimpleCounterIncrementOp);
