// ResourceOpKernel<T>: the base of a kernel that owns one resource of type
// T named by its node's `container` and `shared_name` attrs, creates it on
// first use and outputs a handle to it (TensorFlow's resource_op_kernel.h);
// ContainerInfo, the policy that picks the container and name.
//
//   class MyTableOp : public ResourceOpKernel<MyTable> {
//    public:
//     using ResourceOpKernel::ResourceOpKernel;
//    private:
//     Status CreateResource(MyTable** table) override {
//       *table = new MyTable;
//       return OkStatus();
//     }
//   };
//
// With a DT_RESOURCE output the kernel outputs a resource handle; with a
// ref string output (TensorFlow's older ops) a ref to a [container, name]
// string vector.
#ifndef OPKIT_KERNEL_RESOURCE_OP_KERNEL_H_
#define OPKIT_KERNEL_RESOURCE_OP_KERNEL_H_

#include <string>

#include "opkit/core/export.h"
#include "opkit/core/mutex.h"
#include "opkit/core/status.h"
#include "opkit/kernel/op_kernel.h"
#include "opkit/kernel/resource_handle_op.h"
#include "opkit/node_def.pb.h"
#include "opkit/resource/refcount.h"
#include "opkit/resource/resource_mgr.h"

namespace opkit {

// Which container and name a stateful kernel uses for its resource: the
// `container` attr, or the manager's default container when empty; the
// `shared_name` attr, or the node's name (use_node_name_as_default), or else
// a name unique to this process ("_<N>_<node name>", private to the kernel).
class OPKIT_EXPORT ContainerInfo {
 public:
  // InvalidArgument for a container attr with other characters than
  // letters, digits, '.', '-', '/' (not starting with '-' or '/'), or a
  // shared_name starting with '_'; NotFound for a missing attr.
  Status Init(ResourceMgr* rmgr, const NodeDef& ndef,
              bool use_node_name_as_default);
  Status Init(ResourceMgr* rmgr, const NodeDef& ndef) {
    return Init(rmgr, ndef, false);
  }

  ResourceMgr* resource_manager() const { return rmgr_; }
  const std::string& container() const { return container_; }
  const std::string& name() const { return name_; }
  // Whether the kernel should delete the resource when it goes.
  bool resource_is_private_to_kernel() const {
    return resource_is_private_to_kernel_;
  }
  // "[container,name,private]" or "[container,name,public]".
  std::string DebugString() const;

 private:
  ResourceMgr* rmgr_ = nullptr;
  std::string container_;
  std::string name_;
  bool resource_is_private_to_kernel_ = false;
};

template <typename T>
class ResourceOpKernel : public OpKernel {
 public:
  explicit ResourceOpKernel(OpKernelConstruction* context)
      : OpKernel(context) {
    has_resource_type_ = context->output_type(0) == DT_RESOURCE;
    if (!has_resource_type_) {
      OP_REQUIRES_OK(context, context->allocate_temp(
                                  DT_STRING, TensorShape({2}), &tensor_));
    }
  }

  // A private resource goes with the kernel.
  ~ResourceOpKernel() override {
    if (resource_ != nullptr) resource_->Unref();
    if (cinfo_.resource_is_private_to_kernel() &&
        cinfo_.resource_manager() != nullptr) {
      // It may be gone already (the manager was cleared): nothing to do.
      cinfo_.resource_manager()
          ->template Delete<T>(cinfo_.container(), cinfo_.name())
          .IgnoreError();
    }
  }

  void Compute(OpKernelContext* context) override OPKIT_LOCKS_EXCLUDED(mu_) {
    mutex_lock l(mu_);
    if (resource_ == nullptr) {
      ResourceMgr* mgr = nullptr;
      OP_REQUIRES_OK(context, internal::ResourceManagerOf(context, &mgr));
      OP_REQUIRES_OK(context, cinfo_.Init(mgr, def()));
      T* resource = nullptr;
      OP_REQUIRES_OK(context,
                     mgr->template LookupOrCreate<T>(
                         cinfo_.container(), cinfo_.name(), &resource,
                         [this](T** ret) OPKIT_NO_THREAD_SAFETY_ANALYSIS {
                           Status s = CreateResource(ret);
                           if (!s.ok() && *ret != nullptr) {
                             (*ret)->Unref();
                             *ret = nullptr;
                           }
                           return s;
                         }));
      Status s = VerifyResource(resource);
      if (!s.ok()) {
        resource->Unref();
        context->SetStatus(s);
        return;
      }
      resource_ = resource;  // Keeps the lookup's reference.
    }
    if (has_resource_type_) {
      OP_REQUIRES_OK(context, MakeResourceHandleToOutput(
                                  context, 0, cinfo_.container(),
                                  cinfo_.name(), TypeIndex::Make<T>()));
    } else {
      auto h = tensor_.template flat<tstring>();
      h(0) = cinfo_.container();
      h(1) = cinfo_.name();
      context->set_output_ref(0, &mu_, &tensor_);
    }
  }

 protected:
  mutex mu_;
  ContainerInfo cinfo_ OPKIT_GUARDED_BY(mu_);
  // The resource, with the kernel's reference; null until the first call.
  T* resource_ OPKIT_GUARDED_BY(mu_) = nullptr;

 private:
  // Makes a new resource with one reference in *resource.
  virtual Status CreateResource(T** resource) OPKIT_REQUIRES(mu_) = 0;
  // A check of a resource found (or made) under the kernel's name.
  virtual Status VerifyResource(T* resource) { return OkStatus(); }

  Tensor tensor_ OPKIT_GUARDED_BY(mu_);
  bool has_resource_type_ = false;
};

}  // namespace opkit

#endif  // OPKIT_KERNEL_RESOURCE_OP_KERNEL_H_
