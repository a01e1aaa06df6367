// Fuzz target for the common shape functions (opkit/shape/
// common_shape_fns.h): no input shape, attr value or constant input tensor
// may crash one of them or trip a sanitizer; errors are fine.
//
// Input format: a byte stream read front to back; reading past the end gives
// zeros, so every prefix is a valid input.
//   byte  function (mod kNumFunctions, see kFunctions below)
//   byte  number of inputs: b % 8 == 0 means "(b / 8) % 6", otherwise the
//         count the function expects
//   byte  number of outputs, the same way
//   per input: byte rank (b % 8: 0..5 known, 6-7 unknown), then per dim a
//         byte picking from kDimValues
//   byte  attr flags: bit0 transpose_a, bit1 transpose_b, bit2 adj_x,
//         bit3 adj_y, bit4 keep_dims, bit5 put wrong-kind values in the list
//         attrs, bit6 leave out data_format, bit7 leave out dilations
//   byte  data_format (kFormats), byte padding (kPaddings), byte
//         filter_format (kFilterFormats)
//   4 list(int) attrs strides, ksize, dilations, explicit_paddings: byte
//         length (% 10), then per value a byte picking from kIntValues
//   per input: byte; odd means a constant tensor follows: byte dtype (int32,
//         int64, float), byte length (% 6; 5 means a scalar), values from
//         kIntValues
//   byte  rank argument for UnchangedShapeWithRank* (signed)
//
// Seeds: fuzz/corpus/shape_fn/.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "opkit/shape/common_shape_fns.h"
#include "opkit/op/node_def_util.h"
#include "opkit/op/op_def_builder.h"
#include "opkit/shape/shape_inference.h"
#include "opkit/tensor/tensor.h"
#include "opkit/tensor/tensor_shape.h"

namespace {

using opkit::DataType;
using opkit::NodeDef;
using opkit::OpDef;
using opkit::PartialTensorShape;
using opkit::Status;
using opkit::Tensor;
using opkit::TensorShape;
using opkit::shape_inference::InferenceContext;
using opkit::shape_inference::ShapeHandle;
namespace si = opkit::shape_inference;

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

const int64_t kDimValues[] = {-1, 0, 1, 2, 3, 4, 5, 7, 8, 16,
                              -1, 1, 2, 3, 2147483647, 4294967296LL,
                              kMax, kMax / 2, 3037000499LL, 100000};
const int64_t kIntValues[] = {0, 1, 2, 3, 4, -1, -2, 1, 2, 1,
                              5, 7, -3, 2147483647, -2147483647 - 1,
                              4294967296LL, kMax, kMin, 1, 255};
const char* const kFormats[] = {"NHWC", "NCHW", "NCHW_VECT_C", "", "nhwc"};
const char* const kPaddings[] = {"SAME", "VALID", "EXPLICIT", "", "same",
                                 "FOO"};
const char* const kFilterFormats[] = {"HWIO", "OIHW", "OHWI", ""};

class Reader {
 public:
  Reader(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  uint8_t Byte() { return pos_ < size_ ? data_[pos_++] : 0; }
  template <typename T, size_t N>
  const T& Pick(const T (&table)[N]) {
    return table[Byte() % N];
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

struct Function {
  const char* name;
  int inputs;   // the count the function expects; -1: 3 (concat: 2 + axis)
  int outputs;
  std::function<Status(InferenceContext*, int rank_arg)> fn;
};

const std::vector<Function>& Functions() {
  static const auto* fns = new std::vector<Function>{
      {"UnchangedShape", 1, 1,
       [](InferenceContext* c, int) { return si::UnchangedShape(c); }},
      {"UnknownShape", 1, 2,
       [](InferenceContext* c, int) { return si::UnknownShape(c); }},
      {"ScalarShape", 1, 1,
       [](InferenceContext* c, int) { return si::ScalarShape(c); }},
      {"NoOutputs", 1, 0,
       [](InferenceContext* c, int) { return si::NoOutputs(c); }},
      {"UnchangedShapeWithRank", 1, 1,
       [](InferenceContext* c, int r) {
         return si::UnchangedShapeWithRank(c, r);
       }},
      {"UnchangedShapeWithRankAtLeast", 1, 1,
       [](InferenceContext* c, int r) {
         return si::UnchangedShapeWithRankAtLeast(c, r);
       }},
      {"UnchangedShapeWithRankAtMost", 1, 1,
       [](InferenceContext* c, int r) {
         return si::UnchangedShapeWithRankAtMost(c, r);
       }},
      {"MatMul", 2, 1,
       [](InferenceContext* c, int) { return si::MatMulShape(c); }},
      {"BatchMatMulV2", 2, 1,
       [](InferenceContext* c, int) { return si::BatchMatMulV2Shape(c); }},
      {"BiasAdd", 2, 1,
       [](InferenceContext* c, int) { return si::BiasAddShape(c); }},
      {"BiasAddGrad", 1, 1,
       [](InferenceContext* c, int) { return si::BiasAddGradShape(c); }},
      {"AddV2", 2, 1,
       [](InferenceContext* c, int) {
         return si::BroadcastBinaryOpShapeFn(c);
       }},
      {"BroadcastNoError", 2, 1,
       [](InferenceContext* c, int r) {
         if (c->num_inputs() < 2) return si::UnknownShape(c);
         ShapeHandle out;
         Status s = si::BroadcastBinaryOpOutputShapeFnHelper(
             c, c->input(0), c->input(1), /*incompatible_shape_error=*/false,
             &out);
         if (s.ok() && c->num_outputs() > 0) c->set_output(0, out);
         return s;
       }},
      {"BroadcastOutputIndex", 2, 2,
       [](InferenceContext* c, int r) {
         return si::BroadcastBinaryOpOutputShapeFn(c, r);
       }},
      {"Sum", 2, 1,
       [](InferenceContext* c, int) { return si::ReductionShape(c); }},
      {"ConcatV2", -1, 1,
       [](InferenceContext* c, int) { return si::ConcatV2Shape(c); }},
      {"Concat", -1, 1,
       [](InferenceContext* c, int r) {
         return si::ConcatShape(c, r % 2 == 0 ? c->num_inputs() - 1 : r);
       }},
      {"Conv2D", 2, 1,
       [](InferenceContext* c, int) {
         return si::Conv2DShapeWithExplicitPadding(c);
       }},
      {"Conv2DNoExplicit", 2, 1,
       [](InferenceContext* c, int) { return si::Conv2DShape(c); }},
      {"MaxPool", 1, 1,
       [](InferenceContext* c, int) { return si::MaxPoolShape(c); }},
      {"AvgPool", 1, 1,
       [](InferenceContext* c, int) { return si::AvgPoolShape(c); }},
      {"Reshape", 2, 1,
       [](InferenceContext* c, int) { return si::ReshapeShape(c); }},
      {"Transpose", 2, 1,
       [](InferenceContext* c, int) { return si::TransposeShape(c); }},
  };
  return *fns;
}

// One op for every function: N float inputs, M float outputs. The shape
// functions read their attrs from the NodeDef, which may hold any attr.
const OpDef& FuzzOpDef() {
  static const OpDef* op_def = [] {
    opkit::OpRegistrationData data;
    Status s = opkit::OpDefBuilder("ShapeFnFuzz")
                   .Input("in: N * float")
                   .Output("out: M * float")
                   .Attr("N: int >= 0")
                   .Attr("M: int >= 0")
                   .Finalize(&data);
    if (!s.ok()) __builtin_trap();
    return new OpDef(data.op_def);
  }();
  return *op_def;
}

PartialTensorShape ReadShape(Reader& r) {
  const int rank = r.Byte() % 8;
  if (rank >= 6) return PartialTensorShape();
  std::vector<int64_t> dims;
  for (int i = 0; i < rank; ++i) dims.push_back(r.Pick(kDimValues));
  PartialTensorShape s;
  // Too many elements is a shape no one can hand a shape function.
  if (!PartialTensorShape::BuildPartialTensorShape(dims, &s).ok()) {
    return PartialTensorShape();
  }
  return s;
}

void ReadIntList(Reader& r, bool wrong_kind, const char* name, NodeDef* node) {
  const int n = r.Byte() % 10;
  std::vector<int64_t> values;
  for (int i = 0; i < n; ++i) values.push_back(r.Pick(kIntValues));
  if (wrong_kind && n % 3 == 1) {
    opkit::AddNodeAttr(name, values.empty() ? int64_t{0} : values[0], node);
  } else if (!(wrong_kind && n % 3 == 2)) {
    opkit::AddNodeAttr(name, values, node);
  }
}

// A constant input tensor, or nullptr when the input is not constant.
std::unique_ptr<Tensor> ReadTensor(Reader& r) {
  if ((r.Byte() & 1) == 0) return nullptr;
  const int dtype_pick = r.Byte() % 3;
  const int len = r.Byte() % 6;
  const DataType dtype = dtype_pick == 0   ? opkit::DT_INT32
                         : dtype_pick == 1 ? opkit::DT_INT64
                                           : opkit::DT_FLOAT;
  const TensorShape shape = len == 5 ? TensorShape({}) : TensorShape({len});
  auto t = std::make_unique<Tensor>();
  if (!Tensor::Allocate(dtype, shape, t.get()).ok()) return nullptr;
  for (int64_t i = 0; i < t->NumElements(); ++i) {
    const int64_t v = r.Pick(kIntValues);
    if (dtype == opkit::DT_INT32) {
      t->flat<int32_t>()(i) = static_cast<int32_t>(v);
    } else if (dtype == opkit::DT_INT64) {
      t->flat<int64_t>()(i) = v;
    } else {
      t->flat<float>()(i) = static_cast<float>(v);
    }
  }
  return t;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Reader r(data, size);
  const auto& fns = Functions();
  const Function& f = fns[r.Byte() % fns.size()];
  const int expected_inputs = f.inputs < 0 ? 3 : f.inputs;
  const uint8_t in_pick = r.Byte();
  const int num_inputs = in_pick % 8 == 0 ? (in_pick / 8) % 6 : expected_inputs;
  const uint8_t out_pick = r.Byte();
  const int num_outputs = out_pick % 8 == 0 ? (out_pick / 8) % 4 : f.outputs;

  std::vector<PartialTensorShape> shapes;
  for (int i = 0; i < num_inputs; ++i) shapes.push_back(ReadShape(r));

  NodeDef node;
  node.set_name("fuzz");
  node.set_op("ShapeFnFuzz");
  opkit::AddNodeAttr("N", static_cast<int64_t>(num_inputs), &node);
  opkit::AddNodeAttr("M", static_cast<int64_t>(num_outputs), &node);
  const uint8_t flags = r.Byte();
  opkit::AddNodeAttr("transpose_a", (flags & 1) != 0, &node);
  opkit::AddNodeAttr("transpose_b", (flags & 2) != 0, &node);
  opkit::AddNodeAttr("adj_x", (flags & 4) != 0, &node);
  opkit::AddNodeAttr("adj_y", (flags & 8) != 0, &node);
  opkit::AddNodeAttr("keep_dims", (flags & 16) != 0, &node);
  const bool wrong_kind = (flags & 32) != 0;
  const char* format = r.Pick(kFormats);
  if ((flags & 64) == 0) opkit::AddNodeAttr("data_format", format, &node);
  opkit::AddNodeAttr("padding", r.Pick(kPaddings), &node);
  opkit::AddNodeAttr("filter_format", r.Pick(kFilterFormats), &node);
  ReadIntList(r, wrong_kind, "strides", &node);
  ReadIntList(r, wrong_kind, "ksize", &node);
  if ((flags & 128) == 0) {
    ReadIntList(r, wrong_kind, "dilations", &node);
  } else {
    r.Byte();
  }
  ReadIntList(r, wrong_kind, "explicit_paddings", &node);

  std::vector<std::unique_ptr<Tensor>> owned;
  std::vector<const Tensor*> tensors;
  for (int i = 0; i < num_inputs; ++i) {
    owned.push_back(ReadTensor(r));
    tensors.push_back(owned.back().get());
  }
  const int rank_arg = static_cast<int8_t>(r.Byte());

  InferenceContext c(/*graph_def_version=*/0, opkit::AttrSlice(node),
                     FuzzOpDef(), shapes, tensors);
  if (!c.construction_status().ok()) return 0;
  Status s = c.Run([&](InferenceContext* ctx) { return f.fn(ctx, rank_arg); });
  // SHAPE_FN_FUZZ_VERBOSE=1 shows what an input exercised (for seeds).
  static const bool verbose = std::getenv("SHAPE_FN_FUZZ_VERBOSE") != nullptr;
  if (verbose) {
    std::string outs;
    for (int i = 0; i < c.num_outputs(); ++i) {
      outs += (i ? ";" : "") + c.DebugString(c.output(i));
    }
    std::fprintf(stderr, "%s: %s -> %s\n", f.name, s.ToString().c_str(),
                 outs.c_str());
  }
  // Reading every output back must be safe too.
  for (int i = 0; i < c.num_outputs(); ++i) {
    ShapeHandle out = c.output(i);
    (void)c.DebugString(out);
    if (c.RankKnown(out)) {
      for (int d = 0; d < c.Rank(out); ++d) (void)c.Value(c.Dim(out, d));
    }
  }
  return 0;
}
