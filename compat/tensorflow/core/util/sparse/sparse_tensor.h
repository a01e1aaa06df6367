// TensorFlow compatibility: sparse::SparseTensor, a sparse value as three
// parts (an int64 [N, rank] indices matrix, a vector of N values, and the
// dense shape), with the checks and reordering kernels use.
//
//   sparse::SparseTensor st;
//   OP_REQUIRES_OK(ctx, sparse::SparseTensor::Create(
//                           indices, values, shape_vec, std_order, &st));
//   OP_REQUIRES_OK(ctx, st.IndicesValid());   // in bounds, sorted, unique
//   st.Reorder<float>(other_order);           // sorts indices and values
//   Tensor dense(DT_FLOAT, TensorShape({3, 4}));
//   st.ToDense<float>(&dense);
//
// Covers what custom ops use: Create, indices()/values()/shape()/order(),
// IndicesValid, Reorder, ToDense. Not here: group(), Split, Slice, Concat.
// Reorder permutes indices and values in place, as TensorFlow's does: deep
// copy input tensors before reordering them.
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_UTIL_SPARSE_SPARSE_TENSOR_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_UTIL_SPARSE_SPARSE_TENSOR_H_

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "tensorflow/core/framework/bounds_check.h"
#include "tensorflow/core/framework/tensor.h"
#include "tensorflow/core/framework/tensor_shape.h"
#include "tensorflow/core/framework/types.h"
#include "tensorflow/core/lib/gtl/array_slice.h"
#include "tensorflow/core/lib/gtl/inlined_vector.h"
#include "tensorflow/core/platform/errors.h"
#include "tensorflow/core/platform/status.h"

namespace tensorflow {
namespace sparse {

class SparseTensor {
 public:
  typedef gtl::ArraySlice<int64_t> VarDimArray;
  typedef gtl::InlinedVector<int64_t, 8> ShapeArray;

  // Checks the parts and builds *result. `order` is the dimension order the
  // indices are sorted in (0, 1, ..., rank - 1 for row-major); the forms
  // without it leave the order undefined (all -1: IndicesValid then fails
  // until Reorder gives one).
  static Status Create(Tensor ix, Tensor vals, const VarDimArray shape,
                       const VarDimArray order, SparseTensor* result) {
    if (ix.dtype() != DT_INT64) {
      return errors::InvalidArgument("indices must be type int64 but got: ",
                                     DataTypeString(ix.dtype()));
    }
    if (!TensorShapeUtils::IsVector(vals.shape())) {
      return errors::InvalidArgument("vals must be a vec, but got: ",
                                     vals.shape().DebugString());
    }
    if (!TensorShapeUtils::IsMatrix(ix.shape())) {
      return errors::InvalidArgument("indices must be a matrix, but got: ",
                                     ix.shape().DebugString());
    }
    if (ix.dim_size(0) != vals.dim_size(0)) {
      return errors::InvalidArgument(
          "indices and values rows (indexing dimension) must match. "
          "(indices = ",
          ix.dim_size(0), ", values = ", vals.dim_size(0), ")");
    }
    const int dims = static_cast<int>(ix.dim_size(1));
    if (static_cast<int64_t>(order.size()) != dims) {
      return errors::InvalidArgument("Order length must be SparseTensor rank.");
    }
    if (static_cast<int64_t>(shape.size()) != dims) {
      return errors::InvalidArgument("Shape rank must be SparseTensor rank.");
    }
    result->ix_ = std::move(ix);
    result->vals_ = std::move(vals);
    result->shape_.assign(shape.begin(), shape.end());
    result->order_.assign(order.begin(), order.end());
    result->dims_ = dims;
    return OkStatus();
  }
  static Status Create(Tensor ix, Tensor vals, const VarDimArray shape,
                       SparseTensor* result) {
    return Create(std::move(ix), std::move(vals), shape, UndefinedOrder(shape),
                  result);
  }
  static Status Create(Tensor ix, Tensor vals, const TensorShape& shape,
                       SparseTensor* result) {
    const ShapeArray dims = TensorShapeToVector(shape);
    return Create(std::move(ix), std::move(vals), dims, UndefinedOrder(dims),
                  result);
  }
  static Status Create(Tensor ix, Tensor vals, const TensorShape& shape,
                       const VarDimArray order, SparseTensor* result) {
    return Create(std::move(ix), std::move(vals), TensorShapeToVector(shape),
                  order, result);
  }

  SparseTensor() = default;

  int64_t num_entries() const { return ix_.dim_size(0); }
  int dims() const { return dims_; }
  const Tensor& indices() const { return ix_; }
  const Tensor& values() const { return vals_; }
  DataType dtype() const { return vals_.dtype(); }
  VarDimArray shape() const { return shape_; }
  VarDimArray order() const { return order_; }

  // OK when every index is inside shape() and, in order(), the indices
  // strictly increase (sorted, no repeats). InvalidArgument naming the
  // first bad index otherwise; FailedPrecondition when no order was given.
  Status IndicesValid() const {
    for (int64_t o : order_) {
      if (o < 0) {
        return errors::FailedPrecondition(
            "Order was not provided.  Provide an order at construction time "
            "or run ReorderInPlace");
      }
    }
    const auto ix_t = ix_.matrix<int64_t>();
    for (int64_t n = 0; n < num_entries(); ++n) {
      bool valid = true;
      bool different = n == 0;
      bool increasing = true;
      for (int di = 0; di < dims_; ++di) {
        if (ix_t(n, di) < 0 || ix_t(n, di) >= shape_[di]) valid = false;
        if (n == 0) continue;
        const int d = static_cast<int>(order_[di]);
        const int64_t diff = ix_t(n, d) - ix_t(n - 1, d);
        if (diff > 0) different = true;
        if (!different && diff < 0) increasing = false;
      }
      if (TF_PREDICT_TRUE(valid && increasing && different)) continue;
      std::string index = strings::StrCat("indices[", n, "] = [");
      for (int di = 0; di < dims_; ++di) {
        strings::StrAppend(&index, ix_t(n, di), di < dims_ - 1 ? "," : "]");
      }
      if (!valid) {
        std::string bounds;
        for (int di = 0; di < dims_; ++di) {
          strings::StrAppend(&bounds, di > 0 ? "," : "", shape_[di]);
        }
        return errors::InvalidArgument(
            index, " is out of bounds: need 0 <= index < [", bounds, "]");
      }
      if (!increasing) {
        return errors::InvalidArgument(
            index,
            " is out of order. Many sparse ops require sorted indices.\n"
            "    Use `tf.sparse.reorder` to create a correctly ordered copy."
            "\n\n");
      }
      return errors::InvalidArgument(index, " is repeated");
    }
    return OkStatus();
  }

  // Sorts the entries (indices rows and values together) by the dimensions
  // in `order`, most significant first, and records `order`. T is the
  // values' type; order.size() must be dims() (checked).
  template <typename T>
  void Reorder(const VarDimArray& order) {
    CHECK_EQ(DataTypeToEnum<T>::v(), dtype());
    CHECK_EQ(static_cast<int64_t>(order.size()), dims_);
    auto ix_t = ix_.matrix<int64_t>();
    auto vals_t = vals_.vec<T>();
    const int64_t n = num_entries();
    std::vector<int64_t> perm(n);
    std::iota(perm.begin(), perm.end(), 0);
    std::stable_sort(perm.begin(), perm.end(), [&](int64_t a, int64_t b) {
      for (int64_t d : order) {
        if (ix_t(a, d) != ix_t(b, d)) return ix_t(a, d) < ix_t(b, d);
      }
      return false;
    });
    std::vector<int64_t> old_ix(ix_t.data(), ix_t.data() + n * dims_);
    std::vector<T> old_vals(vals_t.data(), vals_t.data() + n);
    for (int64_t i = 0; i < n; ++i) {
      for (int d = 0; d < dims_; ++d) ix_t(i, d) = old_ix[perm[i] * dims_ + d];
      vals_t(i) = old_vals[perm[i]];
    }
    order_.assign(order.begin(), order.end());
  }

  // Writes the values into *out, a dense tensor of dtype T and rank dims()
  // at least shape() in each dimension, first setting every element to T()
  // when `initialize`. False (leaving *out partly written) when T is not
  // the values' type or *out's, for a wrong rank, a too small *out, or an
  // index outside it.
  template <typename T>
  bool ToDense(Tensor* out, bool initialize = true) {
    if (dtype() != DataTypeToEnum<T>::v() ||
        out->dtype() != DataTypeToEnum<T>::v() || out->dims() != dims_) {
      return false;
    }
    const TensorShape& out_shape = out->shape();
    for (int d = 0; d < dims_; ++d) {
      if (shape_[d] > out_shape.dim_size(d)) return false;
    }
    auto out_t = out->flat<T>();
    if (initialize) out_t.setConstant(T());
    const auto vals_t = vals_.vec<T>();
    const auto ix_t = ix_.matrix<int64_t>();
    std::vector<int64_t> strides(dims_, 1);
    for (int d = dims_ - 2; d >= 0; --d) {
      strides[d] = strides[d + 1] * out_shape.dim_size(d + 1);
    }
    for (int64_t n = 0; n < num_entries(); ++n) {
      int64_t flat = 0;
      for (int d = 0; d < dims_; ++d) {
        const int64_t i = internal::SubtleMustCopy(ix_t(n, d));
        if (!FastBoundsCheck(i, out_shape.dim_size(d))) return false;
        flat += strides[d] * i;
      }
      out_t(flat) = vals_t(n);
    }
    return true;
  }

  // All -1: no order.
  static ShapeArray UndefinedOrder(const VarDimArray shape) {
    return ShapeArray(shape.size(), -1);
  }
  static ShapeArray TensorShapeToVector(const TensorShape& shape) {
    ShapeArray vec(shape.dims());
    for (int i = 0; i < shape.dims(); ++i) vec[i] = shape.dim_size(i);
    return vec;
  }

 private:
  Tensor ix_;
  Tensor vals_;
  ShapeArray shape_;
  ShapeArray order_;
  int dims_ = 0;
};

}  // namespace sparse
}  // namespace tensorflow

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_UTIL_SPARSE_SPARSE_TENSOR_H_
