// OpKernelConstruction: what a kernel's constructor sees — the node's attrs,
// its input and output types, the device — and where it reports an error.
// NodeProperties: the node a kernel is built for.
//
//   class ScaleOp : public OpKernel {
//    public:
//     explicit ScaleOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
//       OP_REQUIRES_OK(ctx, ctx->GetAttr("factor", &factor_));
//       OP_REQUIRES(ctx, factor_ != 0.f,
//                   errors::InvalidArgument("factor must not be 0"));
//     }
//     ...
//   };
//
// A constructor that fails leaves its Status here (SetStatus, CtxFailure or
// the OP_REQUIRES macros); CreateOpKernel then deletes the half-built kernel
// and returns that Status with the node attached.
//
// Thread-compatible: one construction is used by one thread, for the
// duration of one kernel constructor.
#ifndef OPKIT_KERNEL_OP_KERNEL_CONSTRUCTION_H_
#define OPKIT_KERNEL_OP_KERNEL_CONSTRUCTION_H_

#include <memory>
#include <string>
#include <string_view>

#include "opkit/core/export.h"
#include "opkit/core/status.h"
#include "opkit/device/device_type.h"
#include "opkit/op/node_def_util.h"
#include "opkit/tensor/tensor.h"
#include "opkit/tensor/tensor_shape.h"
#include "opkit/tensor/types.h"
#include "opkit/node_def.pb.h"
#include "opkit/op_def.pb.h"

namespace opkit {

class Allocator;
class DeviceBase;
class OpRegistryInterface;
class ResourceMgr;

// TensorFlow's name for a read-only list of types; opkit passes vectors.
using DataTypeSlice = DataTypeVector;

// The node a kernel is built for: its OpDef (a copy, so a kernel does not
// depend on the op staying registered), its NodeDef with the op's defaults
// applied, and the types of its inputs and outputs. Shared by a kernel and
// whoever built it. Immutable once built, so thread-safe.
struct OPKIT_EXPORT NodeProperties {
  // TensorFlow's constructor: the caller vouches for the node and its types;
  // the argument ranges are left for OpKernel to compute.
  NodeProperties(OpDef op_def, NodeDef node_def, DataTypeVector input_types,
                 DataTypeVector output_types)
      : op_def(std::move(op_def)),
        node_def(std::move(node_def)),
        input_types(std::move(input_types)),
        output_types(std::move(output_types)) {}
  // A node ValidateNodeDef accepted, with what it worked out on the way.
  NodeProperties(OpDef op_def, NodeDef node_def, NodeSignature signature)
      : op_def(std::move(op_def)),
        node_def(std::move(node_def)),
        input_types(std::move(signature.input_types)),
        output_types(std::move(signature.output_types)),
        input_ranges(std::move(signature.input_ranges)),
        output_ranges(std::move(signature.output_ranges)),
        has_arg_ranges(true) {}

  // Looks the op of `node_def` up in `op_registry`, adds its defaults,
  // validates the node (ValidateNodeDef), keeping the types and argument
  // ranges that validation works out (has_arg_ranges). The errors
  // are those of the lookup and of node_def_util.h, naming the node.
  static Status CreateFromNodeDef(NodeDef node_def,
                                  const OpRegistryInterface& op_registry,
                                  std::shared_ptr<const NodeProperties>* props);
  // The same from an OpDef already at hand (defaults added, node validated).
  static Status CreateFromNodeDef(NodeDef node_def, const OpDef& op_def,
                                  std::shared_ptr<const NodeProperties>* props);

  OpDef op_def;
  NodeDef node_def;
  DataTypeVector input_types;
  DataTypeVector output_types;
  // The index range of each input and output argument (NameRangesForNode),
  // when has_arg_ranges: CreateFromNodeDef takes them from the validation
  // pass that also gave the types (Note [Validate once] in node_def_util.h).
  NameRangeMap input_ranges;
  NameRangeMap output_ranges;
  bool has_arg_ranges = false;
};

class OPKIT_EXPORT OpKernelConstruction {
 public:
  // Borrows `device` and `status`, which must outlive the construction;
  // `props` must not be null. `allocator` null means the device's
  // (GetAllocator()), or cpu_allocator() without a device. `status` null
  // means the construction keeps its own.
  OpKernelConstruction(DeviceType device_type, DeviceBase* device,
                       Allocator* allocator,
                       std::shared_ptr<const NodeProperties> props,
                       int graph_def_version, Status* status);
  OpKernelConstruction(const OpKernelConstruction&) = delete;
  OpKernelConstruction& operator=(const OpKernelConstruction&) = delete;

  // The node, with the op's defaults applied.
  const NodeDef& def() const { return props_->node_def; }
  const OpDef& op_def() const { return props_->op_def; }
  const std::shared_ptr<const NodeProperties>& props() const { return props_; }

  const DeviceType& device_type() const { return device_type_; }
  // The device the kernel will run on; may be null (a kernel built without
  // one, e.g. in a test).
  DeviceBase* device() const { return device_; }
  // Never null.
  Allocator* allocator() const { return allocator_; }
  // The device's resource manager, or null.
  ResourceMgr* resource_manager() const;
  int graph_def_version() const { return graph_def_version_; }

  int num_inputs() const { return static_cast<int>(props_->input_types.size()); }
  int num_outputs() const {
    return static_cast<int>(props_->output_types.size());
  }
  // DT_INVALID (and an error recorded here) for an index out of range.
  DataType input_type(int i) const;
  DataType output_type(int i) const;
  const DataTypeVector& input_types() const { return props_->input_types; }
  const DataTypeVector& output_types() const { return props_->output_types; }

  // OK if the node's types are `expected_inputs` -> `expected_outputs` (a
  // ref type is accepted where its base type is expected); otherwise
  // InvalidArgument "Signature mismatch, have: float->float expected:
  // int32->int32", which is also recorded here.
  Status MatchSignature(const DataTypeSlice& expected_inputs,
                        const DataTypeSlice& expected_outputs);

  // Reads attr `attr_name` of the node (defaults included) as T, for every
  // kind GetNodeAttr (node_def_util.h) supports: std::string, int64, int32,
  // float, bool, DataType, TensorShape, PartialTensorShape, TensorShapeProto,
  // Tensor, NameAttrList and the lists of each. Errors are GetNodeAttr's
  // (NotFound, InvalidArgument for the wrong kind), naming the node; they
  // are returned, not recorded (wrap the call in OP_REQUIRES_OK).
  template <typename T>
  Status GetAttr(std::string_view attr_name, T* value) const {
    return GetNodeAttr(AttrSlice(def()), attr_name, value);
  }
  // Whether the node has attr `attr_name`.
  bool HasAttr(std::string_view attr_name) const;

  // A tensor for the constructor's own use, from allocator(). Errors are
  // Tensor::Allocate's (InvalidArgument for a dtype without storage,
  // ResourceExhausted when out of memory).
  Status allocate_temp(DataType type, const TensorShape& shape,
                       Tensor* out_temp);

  // The first error recorded (OK if none). A kernel whose construction has
  // an error is not used.
  const Status& status() const { return *status_; }
  // Records `status` unless an error is already recorded (the first one
  // wins). OK is ignored.
  void SetStatus(const Status& status);

  // What OP_REQUIRES calls: records `s`, logging file:line at VLOG(1).
  void CtxFailure(const Status& s);
  void CtxFailure(const char* file, int line, const Status& s);
  // What OP_REQUIRES_OK calls: records `s`, logging it with file:line as a
  // warning.
  void CtxFailureWithWarning(const Status& s);
  void CtxFailureWithWarning(const char* file, int line, const Status& s);

  // The keep-alive of the library the kernel's registration came from
  // (KernelRegistration::owner); the kernel takes a copy. Set by
  // CreateOpKernel; null for code linked into the program.
  const std::shared_ptr<const void>& library_owner() const {
    return library_owner_;
  }
  void set_library_owner(std::shared_ptr<const void> owner) {
    library_owner_ = std::move(owner);
  }

 private:
  const DeviceType device_type_;
  DeviceBase* const device_;
  Allocator* allocator_;
  const std::shared_ptr<const NodeProperties> props_;
  const int graph_def_version_;
  mutable Status own_status_;
  Status* status_;
  std::shared_ptr<const void> library_owner_;
};

}  // namespace opkit

#endif  // OPKIT_KERNEL_OP_KERNEL_CONSTRUCTION_H_
