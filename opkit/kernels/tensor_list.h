// TensorList: the value a TensorList op's DT_VARIANT scalar holds
// (TensorFlow's TensorList): the element tensors, their dtype, the element
// shape the list was made with (possibly partial) and an optional capacity.
// An element that was reserved but never set is an uninitialized Tensor;
// reading it gives zeros of the element shape when that shape is known.
#ifndef OPKIT_KERNELS_TENSOR_LIST_H_
#define OPKIT_KERNELS_TENSOR_LIST_H_

#include <string>
#include <vector>

#include "opkit/core/status.h"
#include "opkit/tensor/tensor.h"
#include "opkit/tensor/tensor_shape.h"
#include "opkit/tensor/types.h"

namespace opkit {

struct TensorList {
  std::vector<Tensor> tensors;
  DataType element_dtype = DT_INVALID;
  PartialTensorShape element_shape;
  // EmptyTensorList's max_num_elements; -1 for no limit.
  int max_num_elements = -1;

  std::string TypeName() const { return "tensorflow::TensorList"; }
  std::string DebugString() const;
};

class OpKernelContext;

// The list in input `index` of `ctx` (a scalar DT_VARIANT holding a
// TensorList); InvalidArgument naming the op's expectation otherwise.
Status GetInputList(OpKernelContext* ctx, int index, const TensorList** list);

}  // namespace opkit

#endif  // OPKIT_KERNELS_TENSOR_LIST_H_
