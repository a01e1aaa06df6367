// Where (the one-input form) on CPU: the int64 coordinates of every true /
// non-zero element of a tensor of any rank, one row each, in row-major
// order: Where([[true, false], [false, true]]) == [[0, 0], [1, 1]].
//
// Zero means false, 0, +-0.0 (so -0.0 is not selected, NaN is), and 0 + 0i.
// Integer, quantized and bool elements are tested by their bits, so one
// instantiation per element size serves all of them.
#include <complex>
#include <cstdint>
#include <cstring>
#include <vector>

#include "opkit/kernel/op_kernel.h"
#include "opkit/kernel/op_requires.h"
#include "opkit/kernels/kernel_shard.h"
#include "opkit/tensor/types.h"

namespace opkit {
namespace {

// Appends the flat index of every element of p[0, n) that `nonzero` accepts.
template <typename T, typename Pred>
void CollectNonZero(const void* data, int64_t n, Pred nonzero, std::vector<int64_t>* out) {
  const char* p = static_cast<const char*>(data);
  for (int64_t i = 0; i < n; ++i) {
    T v;
    std::memcpy(&v, p + i * static_cast<int64_t>(sizeof(T)), sizeof(T));
    if (nonzero(v)) out->push_back(i);
  }
}

template <typename T>
void CollectBits(const void* data, int64_t n, std::vector<int64_t>* out) {
  CollectNonZero<T>(data, n, [](T v) { return v != 0; }, out);
}

template <typename T>
void CollectFloat(const void* data, int64_t n, std::vector<int64_t>* out) {
  CollectNonZero<T>(data, n, [](T v) { return static_cast<float>(v) != 0.0f; }, out);
}

const std::vector<DataType>& WhereTypes() {
  // The op's list: numbertype and bool.
  static const std::vector<DataType>* const kTypes = new std::vector<DataType>{
      DT_FLOAT,   DT_DOUBLE, DT_INT32,  DT_UINT8,  DT_INT16,      DT_INT8,
      DT_COMPLEX64, DT_INT64, DT_QINT8, DT_QUINT8, DT_QINT32,     DT_BFLOAT16,
      DT_UINT16,  DT_COMPLEX128, DT_HALF, DT_UINT32, DT_UINT64,   DT_BOOL};
  return *kTypes;
}

class WhereOp : public OpKernel {
 public:
  explicit WhereOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    OP_REQUIRES_OK(ctx, ctx->status());
    const int64_t n = input.NumElements();
    const void* data = input.data();
    std::vector<int64_t> found;
    switch (input.dtype()) {
      case DT_FLOAT:
        CollectNonZero<float>(data, n, [](float v) { return v != 0.0f; }, &found);
        break;
      case DT_DOUBLE:
        CollectNonZero<double>(data, n, [](double v) { return v != 0.0; }, &found);
        break;
      case DT_HALF:
        CollectFloat<half>(data, n, &found);
        break;
      case DT_BFLOAT16:
        CollectFloat<bfloat16>(data, n, &found);
        break;
      case DT_COMPLEX64:
        CollectNonZero<std::complex<float>>(
            data, n, [](std::complex<float> v) { return v != std::complex<float>(0); },
            &found);
        break;
      case DT_COMPLEX128:
        CollectNonZero<std::complex<double>>(
            data, n, [](std::complex<double> v) { return v != std::complex<double>(0); },
            &found);
        break;
      default:
        // Integers, quantized integers and bool: zero is all bits clear.
        switch (DataTypeSize(input.dtype())) {
          case 1: CollectBits<uint8_t>(data, n, &found); break;
          case 2: CollectBits<uint16_t>(data, n, &found); break;
          case 4: CollectBits<uint32_t>(data, n, &found); break;
          case 8: CollectBits<uint64_t>(data, n, &found); break;
          default:
            ctx->CtxFailure(errors::InvalidArgument("Where does not support dtype ",
                                                    DataTypeString(input.dtype())));
            return;
        }
    }

    const int rank = input.dims();
    const int64_t num_true = static_cast<int64_t>(found.size());
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({num_true, rank}), &out));
    if (num_true == 0 || rank == 0) return;
    int64_t* coords = static_cast<int64_t*>(out->data());
    Shard(ctx, num_true, 4.0 * rank, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        int64_t flat = found[i];
        int64_t* row = coords + i * rank;
        for (int d = rank - 1; d >= 0; --d) {
          const int64_t size = input.dim_size(d);
          row[d] = flat % size;  // size > 0: the input has elements.
          flat /= size;
        }
      }
    });
  }
};

REGISTER_KERNEL_BUILDER(Name("Where").Device(DEVICE_CPU).TypeConstraint("T", WhereTypes()),
                        WhereOp);

}  // namespace
}  // namespace opkit
