// TensorList kernels on CPU: EmptyTensorList, TensorListReserve,
// TensorListFromTensor, TensorListLength, TensorListElementShape,
// TensorListGetItem, TensorListSetItem, TensorListPushBack,
// TensorListPopBack, TensorListResize, TensorListStack, TensorListGather.
// A list is a scalar DT_VARIANT tensor holding a TensorList
// (opkit/kernels/tensor_list.h). Ops that change a list take over their
// input's buffer when nothing else shares it and change the list in place;
// otherwise they copy the list (its tensors share their buffers).
#include "opkit/kernels/tensor_list.h"

#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "opkit/core/errors.h"
#include "opkit/kernel/op_kernel.h"
#include "opkit/kernel/op_requires.h"
#include "opkit/kernels/array_kernel_util.h"
#include "opkit/tensor/allocation_limit.h"

namespace opkit {

std::string TensorList::DebugString() const {
  return "TensorList(" + std::to_string(tensors.size()) + " x " +
         DataTypeString(element_dtype) + element_shape.DebugString() + ")";
}

Status GetInputList(OpKernelContext* ctx, int index, const TensorList** list) {
  const Tensor& t = ctx->input(index);
  const TensorList* l = nullptr;
  if (t.dtype() == DT_VARIANT && t.dims() == 0 && t.IsInitialized()) {
    l = t.scalar<Variant>()().get<TensorList>();
  }
  if (l == nullptr) {
    return errors::InvalidArgument(
        ctx->op_kernel().type_string(), " expects input ", index,
        " to be a TensorList (a scalar variant made by TensorListReserve, "
        "TensorListFromTensor or EmptyTensorList), got a ",
        DataTypeString(t.dtype()), " tensor of shape ",
        t.shape().DebugString());
  }
  *list = l;
  return OkStatus();
}

namespace {

using internal::CopyElements;
using internal::ReadIndexScalar;
using internal::SetZero;

// A tensor of `dtype` and `shape` whose elements are zero (empty strings).
Status Zeros(DataType dtype, const TensorShape& shape, Tensor* out) {
  OPKIT_RETURN_IF_ERROR(Tensor::Allocate(dtype, shape, out));
  // Strings start empty; other objects (variants) have no zero.
  if (DataTypeCanUseMemcpy(dtype)) SetZero(out);
  return OkStatus();
}

// The element_shape input `index` (int32 or int64; a scalar -1 means an
// unknown rank).
Status ElementShapeInput(OpKernelContext* ctx, int index,
                         PartialTensorShape* out) {
  Status s = MakeShapeFromTensor(ctx->input(index), out);
  if (!s.ok()) {
    return errors::InvalidArgument("element_shape: ", s.message());
  }
  return OkStatus();
}

Status CheckDtype(const TensorList& list, DataType expected) {
  if (list.element_dtype != expected) {
    return errors::InvalidArgument(
        "Invalid data types; op elements ", DataTypeString(expected),
        " but list elements ", DataTypeString(list.element_dtype));
  }
  return OkStatus();
}

Status CheckItemShape(const TensorList& list, const Tensor& item) {
  if (!list.element_shape.IsCompatibleWith(PartialTensorShape(item.shape()))) {
    return errors::InvalidArgument(
        "Tried to set a tensor with incompatible shape at a list index. Item "
        "element shape: ", item.shape().DebugString(),
        " list shape: ", list.element_shape.DebugString());
  }
  return OkStatus();
}

void SetOutputList(OpKernelContext* ctx, int index, TensorList list) {
  Tensor* out = nullptr;
  OP_REQUIRES_OK(ctx, ctx->allocate_output(index, TensorShape({}), &out));
  out->scalar<Variant>()() = std::move(list);
}

// Output 0 as a list the kernel may change: input 0's own list when the
// input's buffer can be taken over, else a copy of it.
Status MutableOutputList(OpKernelContext* ctx, TensorList** list) {
  const TensorList* in = nullptr;
  OPKIT_RETURN_IF_ERROR(GetInputList(ctx, 0, &in));
  Tensor* out = nullptr;
  int forwarded = -1;
  OPKIT_RETURN_IF_ERROR(ctx->forward_input_or_allocate_output(
      {0}, 0, TensorShape({}), &out, &forwarded));
  if (forwarded != 0) out->scalar<Variant>()() = *in;
  *list = out->scalar<Variant>()().get<TensorList>();
  if (*list == nullptr) {
    return errors::Internal("the output list of ",
                            ctx->op_kernel().type_string(), " is not a list");
  }
  return OkStatus();
}

// The shape every element of `list` has, merged with `given`: from the
// elements that are set, the list's element shape and `given`. With
// `require_defined`, InvalidArgument unless the result is fully defined.
Status ResolveElementShape(const TensorList& list,
                           const PartialTensorShape& given,
                           const std::vector<int>& positions,
                           PartialTensorShape* out) {
  PartialTensorShape shape;
  OPKIT_RETURN_IF_ERROR(list.element_shape.MergeWith(given, &shape));
  for (int i : positions) {
    const Tensor& t = list.tensors[i];
    if (!t.IsInitialized()) continue;
    PartialTensorShape merged;
    Status s = shape.MergeWith(PartialTensorShape(t.shape()), &merged);
    if (!s.ok()) {
      return errors::InvalidArgument(
          "Incompatible shapes in the list: element ", i, " has shape ",
          t.shape().DebugString(), " but the others (or element_shape) say ",
          shape.DebugString());
    }
    shape = merged;
  }
  *out = shape;
  return OkStatus();
}

// Stacks the elements at `positions` of `list` into [positions.size()] +
// element shape; unset elements read as zeros.
Status StackElements(const TensorList& list, const PartialTensorShape& given,
                     const std::vector<int>& positions, Tensor* out) {
  if (!DataTypeCanUseMemcpy(list.element_dtype) &&
      list.element_dtype != DT_STRING) {
    return errors::Unimplemented("Stacking a list of ",
                                 DataTypeString(list.element_dtype),
                                 " elements is not supported");
  }
  PartialTensorShape partial;
  OPKIT_RETURN_IF_ERROR(ResolveElementShape(list, given, positions, &partial));
  TensorShape element;
  if (!partial.AsTensorShape(&element)) {
    return errors::InvalidArgument(
        "Tried to stack elements of an empty list (or of unset elements) "
        "with non-fully-defined element_shape: ", partial.DebugString(),
        "; pass a fully defined element_shape");
  }
  TensorShape shape({static_cast<int64_t>(positions.size())});
  OPKIT_RETURN_IF_ERROR(shape.AppendShapeWithStatus(element));
  OPKIT_RETURN_IF_ERROR(Zeros(list.element_dtype, shape, out));
  for (size_t k = 0; k < positions.size(); ++k) {
    const Tensor& t = list.tensors[positions[k]];
    if (t.IsInitialized()) {
      CopyElements(t, 0, out, static_cast<int64_t>(k) * t.NumElements(),
                   t.NumElements());
    }
  }
  return OkStatus();
}

class EmptyTensorListOp : public OpKernel {
 public:
  explicit EmptyTensorListOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("element_dtype", &element_dtype_));
  }
  void Compute(OpKernelContext* ctx) override {
    int64_t max_num_elements = 0;
    OP_REQUIRES_OK(ctx, ReadIndexScalar(ctx->input(1), "max_num_elements", /*allow_one_element=*/true, &max_num_elements));
    OP_REQUIRES(ctx, max_num_elements >= -1,
                errors::InvalidArgument(
                    "max_num_elements must be non-negative or -1 (no limit), "
                    "got ", max_num_elements));
    TensorList list;
    list.element_dtype = element_dtype_;
    list.max_num_elements = static_cast<int>(max_num_elements);
    OP_REQUIRES_OK(ctx, ElementShapeInput(ctx, 0, &list.element_shape));
    SetOutputList(ctx, 0, std::move(list));
  }
  bool IsExpensive() override { return false; }

 private:
  DataType element_dtype_;
};

class TensorListReserveOp : public OpKernel {
 public:
  explicit TensorListReserveOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("element_dtype", &element_dtype_));
  }
  void Compute(OpKernelContext* ctx) override {
    int64_t num_elements = 0;
    OP_REQUIRES_OK(ctx, ReadIndexScalar(ctx->input(1), "num_elements", /*allow_one_element=*/true, &num_elements));
    OP_REQUIRES(ctx, num_elements >= 0,
                errors::InvalidArgument(
                    "The num_elements to reserve must be a non negative "
                    "number, but got ", num_elements));
    TensorList list;
    list.element_dtype = element_dtype_;
    OP_REQUIRES_OK(ctx, ElementShapeInput(ctx, 0, &list.element_shape));
    // Note [Allocation limit]: the slots are allocated now.
    OP_REQUIRES_OK(ctx, CheckElementCount(num_elements, sizeof(Tensor), "TensorListReserve"));
    list.tensors.resize(static_cast<size_t>(num_elements));
    SetOutputList(ctx, 0, std::move(list));
  }
  bool IsExpensive() override { return false; }

 private:
  DataType element_dtype_;
};

class TensorListFromTensorOp : public OpKernel {
 public:
  explicit TensorListFromTensorOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& t = ctx->input(0);
    OP_REQUIRES(ctx, t.dims() >= 1,
                errors::InvalidArgument(
                    "Tensor must be at least a vector, but saw shape: ",
                    t.shape().DebugString()));
    PartialTensorShape given;
    OP_REQUIRES_OK(ctx, ElementShapeInput(ctx, 1, &given));
    TensorShape element = t.shape();
    element.RemoveDim(0);
    OP_REQUIRES(ctx, given.IsCompatibleWith(PartialTensorShape(element)),
                errors::InvalidArgument(
                    "Specified a list with shape ", given.DebugString(),
                    " from a tensor with shape ", t.shape().DebugString()));
    TensorList list;
    list.element_dtype = t.dtype();
    list.element_shape = given;
    const int64_t n = t.dim_size(0);
    // An empty tensor may still have a huge first dimension.
    OP_REQUIRES_OK(ctx, CheckElementCount(n, sizeof(Tensor), "TensorListFromTensor"));
    list.tensors.reserve(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      Tensor slice;
      OP_REQUIRES_OK(ctx, t.SliceWithStatus(i, i + 1, &slice));
      Tensor copy;
      OP_REQUIRES_OK(ctx, DeepCopy(slice, &copy));
      Tensor item;
      OP_REQUIRES(ctx, item.CopyFrom(copy, element),
                  errors::Internal("cannot view row ", i, " of shape ",
                                   copy.shape().DebugString(), " as ",
                                   element.DebugString()));
      list.tensors.push_back(std::move(item));
    }
    SetOutputList(ctx, 0, std::move(list));
  }
};

class TensorListLengthOp : public OpKernel {
 public:
  explicit TensorListLengthOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const TensorList* list = nullptr;
    OP_REQUIRES_OK(ctx, GetInputList(ctx, 0, &list));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({}), &out));
    out->scalar<int32>()() = static_cast<int32>(list->tensors.size());
  }
  bool IsExpensive() override { return false; }
};

class TensorListElementShapeOp : public OpKernel {
 public:
  explicit TensorListElementShapeOp(OpKernelConstruction* ctx)
      : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const TensorList* list = nullptr;
    OP_REQUIRES_OK(ctx, GetInputList(ctx, 0, &list));
    const PartialTensorShape& shape = list->element_shape;
    const DataType dtype = output_type(0);
    Tensor* out = nullptr;
    if (shape.unknown_rank()) {
      OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({}), &out));
      if (dtype == DT_INT32) out->scalar<int32>()() = -1;
      else out->scalar<int64>()() = -1;
      return;
    }
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({shape.dims()}),
                                             &out));
    for (int i = 0; i < shape.dims(); ++i) {
      if (dtype == DT_INT32) {
        out->flat<int32>()(i) = static_cast<int32>(shape.dim_size(i));
      } else {
        out->flat<int64>()(i) = shape.dim_size(i);
      }
    }
  }
  bool IsExpensive() override { return false; }
};

class TensorListGetItemOp : public OpKernel {
 public:
  explicit TensorListGetItemOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("element_dtype", &element_dtype_));
  }
  void Compute(OpKernelContext* ctx) override {
    const TensorList* list = nullptr;
    OP_REQUIRES_OK(ctx, GetInputList(ctx, 0, &list));
    OP_REQUIRES_OK(ctx, CheckDtype(*list, element_dtype_));
    int64_t index = 0;
    OP_REQUIRES_OK(ctx, ReadIndexScalar(ctx->input(1), "index", /*allow_one_element=*/true, &index));
    const int64_t size = static_cast<int64_t>(list->tensors.size());
    OP_REQUIRES(ctx, index >= 0 && index < size,
                errors::InvalidArgument("Trying to access element ", index,
                                        " in a list with ", size,
                                        " elements."));
    const Tensor& item = list->tensors[index];
    if (item.IsInitialized()) {
      ctx->set_output(0, item);
      return;
    }
    PartialTensorShape given;
    OP_REQUIRES_OK(ctx, ElementShapeInput(ctx, 2, &given));
    PartialTensorShape partial;
    OP_REQUIRES_OK(ctx, ResolveElementShape(*list, given, {}, &partial));
    TensorShape shape;
    OP_REQUIRES(ctx, partial.AsTensorShape(&shape),
                errors::InvalidArgument(
                    "Trying to read an uninitialized tensor but "
                    "element_shape is not fully defined: ",
                    partial.DebugString(),
                    "; pass a fully defined element_shape"));
    Tensor zeros;
    OP_REQUIRES_OK(ctx, Zeros(element_dtype_, shape, &zeros));
    ctx->set_output(0, std::move(zeros));
  }
  bool IsExpensive() override { return false; }

 private:
  DataType element_dtype_;
};

class TensorListSetItemOp : public OpKernel {
 public:
  explicit TensorListSetItemOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("element_dtype", &element_dtype_));
  }
  void Compute(OpKernelContext* ctx) override {
    const TensorList* in = nullptr;
    OP_REQUIRES_OK(ctx, GetInputList(ctx, 0, &in));
    OP_REQUIRES_OK(ctx, CheckDtype(*in, element_dtype_));
    int64_t index = 0;
    OP_REQUIRES_OK(ctx, ReadIndexScalar(ctx->input(1), "index", /*allow_one_element=*/true, &index));
    const int64_t size = static_cast<int64_t>(in->tensors.size());
    OP_REQUIRES(ctx, index >= 0 && index < size,
                errors::InvalidArgument("Trying to modify element ", index,
                                        " in a list with ", size,
                                        " elements."));
    const Tensor& item = ctx->input(2);
    OP_REQUIRES_OK(ctx, CheckItemShape(*in, item));
    TensorList* list = nullptr;
    OP_REQUIRES_OK(ctx, MutableOutputList(ctx, &list));
    list->tensors[index] = item;
  }
  bool IsExpensive() override { return false; }

 private:
  DataType element_dtype_;
};

class TensorListPushBackOp : public OpKernel {
 public:
  explicit TensorListPushBackOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("element_dtype", &element_dtype_));
  }
  void Compute(OpKernelContext* ctx) override {
    const TensorList* in = nullptr;
    OP_REQUIRES_OK(ctx, GetInputList(ctx, 0, &in));
    OP_REQUIRES_OK(ctx, CheckDtype(*in, element_dtype_));
    const Tensor& item = ctx->input(1);
    OP_REQUIRES_OK(ctx, CheckItemShape(*in, item));
    OP_REQUIRES(ctx,
                in->max_num_elements < 0 ||
                    static_cast<int64_t>(in->tensors.size()) <
                        in->max_num_elements,
                errors::InvalidArgument(
                    "Tried to push item into a full list list size: ",
                    in->tensors.size(),
                    " max_num_elements: ", in->max_num_elements));
    TensorList* list = nullptr;
    OP_REQUIRES_OK(ctx, MutableOutputList(ctx, &list));
    list->tensors.push_back(item);
  }
  bool IsExpensive() override { return false; }

 private:
  DataType element_dtype_;
};

class TensorListPopBackOp : public OpKernel {
 public:
  explicit TensorListPopBackOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("element_dtype", &element_dtype_));
  }
  void Compute(OpKernelContext* ctx) override {
    const TensorList* in = nullptr;
    OP_REQUIRES_OK(ctx, GetInputList(ctx, 0, &in));
    OP_REQUIRES_OK(ctx, CheckDtype(*in, element_dtype_));
    OP_REQUIRES(ctx, !in->tensors.empty(),
                errors::InvalidArgument("Trying to pop from an empty list."));
    Tensor item = in->tensors.back();
    if (!item.IsInitialized()) {
      PartialTensorShape given;
      OP_REQUIRES_OK(ctx, ElementShapeInput(ctx, 1, &given));
      PartialTensorShape partial;
      OP_REQUIRES_OK(ctx, ResolveElementShape(*in, given, {}, &partial));
      TensorShape shape;
      OP_REQUIRES(ctx, partial.AsTensorShape(&shape),
                  errors::InvalidArgument(
                      "Trying to read an uninitialized tensor but "
                      "element_shape is not fully defined: ",
                      partial.DebugString()));
      OP_REQUIRES_OK(ctx, Zeros(element_dtype_, shape, &item));
    }
    TensorList* list = nullptr;
    OP_REQUIRES_OK(ctx, MutableOutputList(ctx, &list));
    list->tensors.pop_back();
    ctx->set_output(1, std::move(item));
  }
  bool IsExpensive() override { return false; }

 private:
  DataType element_dtype_;
};

class TensorListResizeOp : public OpKernel {
 public:
  explicit TensorListResizeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const TensorList* in = nullptr;
    OP_REQUIRES_OK(ctx, GetInputList(ctx, 0, &in));
    int64_t size = 0;
    OP_REQUIRES_OK(ctx, ReadIndexScalar(ctx->input(1), "size", /*allow_one_element=*/true, &size));
    OP_REQUIRES(ctx, size >= 0,
                errors::InvalidArgument(
                    "TensorListSlice expects size to be non-negative. Got: ",
                    size));
    OP_REQUIRES_OK(ctx, CheckElementCount(size, sizeof(Tensor), "TensorListResize"));
    TensorList* list = nullptr;
    OP_REQUIRES_OK(ctx, MutableOutputList(ctx, &list));
    list->tensors.resize(static_cast<size_t>(size));
  }
  bool IsExpensive() override { return false; }
};

class TensorListStackOp : public OpKernel {
 public:
  explicit TensorListStackOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("element_dtype", &element_dtype_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("num_elements", &num_elements_));
  }
  void Compute(OpKernelContext* ctx) override {
    const TensorList* list = nullptr;
    OP_REQUIRES_OK(ctx, GetInputList(ctx, 0, &list));
    OP_REQUIRES_OK(ctx, CheckDtype(*list, element_dtype_));
    const int64_t size = static_cast<int64_t>(list->tensors.size());
    OP_REQUIRES(ctx, num_elements_ == -1 || num_elements_ == size,
                errors::InvalidArgument("Operation expected a list with ",
                                        num_elements_,
                                        " elements but got a list with ",
                                        size, " elements."));
    PartialTensorShape given;
    OP_REQUIRES_OK(ctx, ElementShapeInput(ctx, 1, &given));
    std::vector<int> positions(static_cast<size_t>(size));
    for (int64_t i = 0; i < size; ++i) positions[i] = static_cast<int>(i);
    Tensor out;
    OP_REQUIRES_OK(ctx, StackElements(*list, given, positions, &out));
    ctx->set_output(0, std::move(out));
  }

 private:
  DataType element_dtype_;
  int64_t num_elements_;
};

class TensorListGatherOp : public OpKernel {
 public:
  explicit TensorListGatherOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("element_dtype", &element_dtype_));
  }
  void Compute(OpKernelContext* ctx) override {
    const TensorList* list = nullptr;
    OP_REQUIRES_OK(ctx, GetInputList(ctx, 0, &list));
    OP_REQUIRES_OK(ctx, CheckDtype(*list, element_dtype_));
    const Tensor& indices = ctx->input(1);
    OP_REQUIRES(ctx, indices.dims() == 1,
                errors::InvalidArgument("indices must be a vector, got shape ",
                                        indices.shape().DebugString()));
    const int64_t size = static_cast<int64_t>(list->tensors.size());
    std::vector<int> positions;
    positions.reserve(static_cast<size_t>(indices.NumElements()));
    for (int64_t i = 0; i < indices.NumElements(); ++i) {
      const int32 index = indices.flat<int32>()(i);
      OP_REQUIRES(ctx, index >= 0 && index < size,
                  errors::InvalidArgument("Trying to gather element ", index,
                                          " in a list with ", size,
                                          " elements."));
      positions.push_back(index);
    }
    PartialTensorShape given;
    OP_REQUIRES_OK(ctx, ElementShapeInput(ctx, 2, &given));
    Tensor out;
    OP_REQUIRES_OK(ctx, StackElements(*list, given, positions, &out));
    ctx->set_output(0, std::move(out));
  }

 private:
  DataType element_dtype_;
};

// No constraint on element_dtype: a list holds any type. The shape inputs
// live in host memory (they are shapes, not data).
REGISTER_KERNEL_BUILDER(Name("EmptyTensorList").Device(DEVICE_CPU),
                        EmptyTensorListOp);
REGISTER_KERNEL_BUILDER(Name("TensorListReserve").Device(DEVICE_CPU),
                        TensorListReserveOp);
REGISTER_KERNEL_BUILDER(Name("TensorListFromTensor").Device(DEVICE_CPU),
                        TensorListFromTensorOp);
REGISTER_KERNEL_BUILDER(Name("TensorListLength").Device(DEVICE_CPU),
                        TensorListLengthOp);
REGISTER_KERNEL_BUILDER(Name("TensorListElementShape").Device(DEVICE_CPU),
                        TensorListElementShapeOp);
REGISTER_KERNEL_BUILDER(Name("TensorListGetItem").Device(DEVICE_CPU),
                        TensorListGetItemOp);
REGISTER_KERNEL_BUILDER(Name("TensorListSetItem").Device(DEVICE_CPU),
                        TensorListSetItemOp);
REGISTER_KERNEL_BUILDER(Name("TensorListPushBack").Device(DEVICE_CPU),
                        TensorListPushBackOp);
REGISTER_KERNEL_BUILDER(Name("TensorListPopBack").Device(DEVICE_CPU),
                        TensorListPopBackOp);
REGISTER_KERNEL_BUILDER(Name("TensorListResize").Device(DEVICE_CPU),
                        TensorListResizeOp);
REGISTER_KERNEL_BUILDER(Name("TensorListStack").Device(DEVICE_CPU),
                        TensorListStackOp);
REGISTER_KERNEL_BUILDER(Name("TensorListGather").Device(DEVICE_CPU),
                        TensorListGatherOp);

}  // namespace
}  // namespace opkit
