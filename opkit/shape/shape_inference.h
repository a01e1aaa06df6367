// Shape inference: the context a shape function runs in (TensorFlow's
// InferenceContext API, same names and meaning).
//
// A shape function checks that a node's input shapes are compatible and says
// what its output shapes are, knowing only part of them (unknown rank,
// unknown dimensions). Shapes and dimensions are handles to objects the
// context owns; two handles can be equal in value yet distinct, and "the
// same handle" is what lets later code know two dimensions are equal even
// when their value is unknown.
//
//   Status MatMulLike(shape_inference::InferenceContext* c) {
//     ShapeHandle a, b;
//     OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(0), 2, &a));
//     OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(1), 2, &b));
//     DimensionHandle unused;
//     OPKIT_RETURN_IF_ERROR(c->Merge(c->Dim(a, 1), c->Dim(b, 0), &unused));
//     c->set_output(0, c->Matrix(c->Dim(a, 0), c->Dim(b, 1)));
//     return Status::OK();
//   }
//
//   InferenceContext c(/*graph_def_version=*/0, node_def, op_def,
//                      {PartialTensorShape({2, -1}), PartialTensorShape()},
//                      /*input_tensors=*/{}, {}, {});
//   OPKIT_RETURN_IF_ERROR(c.construction_status());
//   OPKIT_RETURN_IF_ERROR(c.Run(MatMulLike));   // errors name node and shapes
//   c.DebugString(c.output(0));                   // "[2,?]"
//
// Robustness: nothing here aborts on what a user or a graph supplies. An
// unset handle (ShapeHandle(), DimensionHandle()) reads as an unknown shape
// or dimension; an out-of-range index gives an unknown result and, for
// input()/set_output()/input_tensor(), makes Run() return InvalidArgument.
#ifndef OPKIT_SHAPE_SHAPE_INFERENCE_H_
#define OPKIT_SHAPE_SHAPE_INFERENCE_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "opkit/core/errors.h"
#include "opkit/core/export.h"
#include "opkit/core/status.h"
#include "opkit/op/node_def_util.h"
#include "opkit/op/op_def_builder.h"
#include "opkit/tensor/tensor.h"
#include "opkit/tensor/tensor_shape.h"
#include "opkit/tensor/types.h"
#include "opkit/op_def.pb.h"
#include "opkit/tensor_shape.pb.h"

namespace opkit {
namespace shape_inference {

class InferenceContext;
class ShapeInferenceTestutil;

// A dimension's value: kUnknownDim (-1) or a size >= 0. Owned by a context;
// reached through DimensionHandle and InferenceContext::Value.
class Dimension {
 private:
  Dimension() : value_(-1) {}
  explicit Dimension(int64_t value) : value_(value) {}
  Dimension(const Dimension&) = delete;
  Dimension& operator=(const Dimension&) = delete;

  const int64_t value_;

  friend class InferenceContext;
};

// A cheap, copyable reference to a Dimension owned by an InferenceContext.
// Default-constructed handles are unset; they read as unknown dimensions.
class OPKIT_EXPORT DimensionHandle {
 public:
  DimensionHandle() = default;
  // Whether both handles refer to the same Dimension object (not merely the
  // same value). Two unset handles are the same handle.
  bool SameHandle(DimensionHandle d) const { return ptr_ == d.ptr_; }
  // An identity usable as a hash key.
  std::size_t Handle() const { return reinterpret_cast<std::size_t>(ptr_); }
  // False for a default-constructed handle.
  bool IsSet() const { return ptr_ != nullptr; }

 private:
  explicit DimensionHandle(const Dimension* dim) : ptr_(dim) {}
  const Dimension* ptr_ = nullptr;

  friend class InferenceContext;
  friend struct DimensionOrConstant;
};

// A shape: a rank (kUnknownRank = -1 when unknown) and, when known, one
// DimensionHandle per dimension. Owned by a context.
class Shape {
 private:
  Shape() : rank_(-1) {}
  explicit Shape(std::vector<DimensionHandle> dims)
      : rank_(static_cast<int32_t>(dims.size())), dims_(std::move(dims)) {}
  Shape(const Shape&) = delete;
  Shape& operator=(const Shape&) = delete;

  const int32_t rank_;
  const std::vector<DimensionHandle> dims_;

  friend class InferenceContext;
};

// A cheap, copyable reference to a Shape owned by an InferenceContext.
// Default-constructed handles are unset; they read as unknown shapes.
class OPKIT_EXPORT ShapeHandle {
 public:
  ShapeHandle() = default;
  // Whether both handles refer to the same Shape object.
  bool SameHandle(ShapeHandle s) const { return ptr_ == s.ptr_; }
  // An identity usable as a hash key.
  std::size_t Handle() const { return reinterpret_cast<std::size_t>(ptr_); }
  // False for a default-constructed handle.
  bool IsSet() const { return ptr_ != nullptr; }

 private:
  explicit ShapeHandle(const Shape* shape) : ptr_(shape) {}
  const Shape* ptr_ = nullptr;

  friend class InferenceContext;
};

// Hashers for keeping handles in unordered containers (identity, not value).
struct DimensionHandleHasher {
  std::size_t operator()(const DimensionHandle& d) const { return d.Handle(); }
};
struct ShapeHandleHasher {
  std::size_t operator()(const ShapeHandle& s) const { return s.Handle(); }
};

// Lets a function take either a DimensionHandle or a plain value. Not meant
// to be built directly: pass a handle or a number where one is expected.
struct OPKIT_EXPORT DimensionOrConstant {
 public:
  // Intentionally implicit. An unset handle counts as an unknown dimension.
  DimensionOrConstant(DimensionHandle dim);  // NOLINT
  // `val` should be >= 0 or kUnknownDim; functions that take a
  // DimensionOrConstant treat any other negative value as an error (the
  // arithmetic functions) or as unknown (MakeDim and the shape builders).
  DimensionOrConstant(int64_t val);  // NOLINT

  // When set, `val` is ignored.
  DimensionHandle dim;
  int64_t val;

 private:
  DimensionOrConstant();
};

// The shape and dtype of a value held by a resource or variant handle (e.g.
// a variable's value behind a DT_RESOURCE input).
struct OPKIT_EXPORT ShapeAndType {
  ShapeAndType() = default;
  ShapeAndType(ShapeHandle s, DataType t) : shape(s), dtype(t) {}

  ShapeHandle shape;
  DataType dtype = DT_INVALID;
};

// The object a shape function receives. Created by the framework (or a test)
// for one node; owns every Shape and Dimension it hands out, so handles are
// valid only while it lives.
//
// Thread-compatible: one thread at a time.
class OPKIT_EXPORT InferenceContext {
 public:
  static constexpr int64_t kUnknownDim = -1;
  static constexpr int32_t kUnknownRank = -1;

  // Builds a context for a node with `attrs` (usually a NodeDef, which must
  // outlive the context) of op `op_def` (which must outlive it too):
  //   - input_shapes: one per input of the node (as NameRangesForNode counts
  //     them from the attrs). Handles may come from another context, which
  //     must then outlive this one.
  //   - input_tensors: the known constant value of each input, or nullptr;
  //     may be shorter than input_shapes (padded with nullptr). The tensors
  //     must outlive the context.
  //   - input_tensors_as_shapes: for inputs that are shape vectors, what is
  //     known of the shape they hold (unset or missing entries: nothing).
  //   - input_handle_shapes_and_types: empty, or one per input (nullptr for
  //     none).
  // Errors (a wrong input count, more tensors than inputs, bad attrs) are
  // reported by construction_status(), never by a crash; Run() returns them.
  InferenceContext(
      int graph_def_version, const AttrSlice& attrs, const OpDef& op_def,
      const std::vector<ShapeHandle>& input_shapes,
      const std::vector<const Tensor*>& input_tensors,
      const std::vector<ShapeHandle>& input_tensors_as_shapes = {},
      std::vector<std::unique_ptr<std::vector<ShapeAndType>>>
          input_handle_shapes_and_types = {});

  // The same with shapes given as values; an invalid PartialTensorShape or
  // TensorShapeProto is a construction error.
  InferenceContext(
      int graph_def_version, const AttrSlice& attrs, const OpDef& op_def,
      const std::vector<PartialTensorShape>& input_shapes,
      const std::vector<const Tensor*>& input_tensors,
      const std::vector<PartialTensorShape>& input_tensors_as_shapes = {},
      const std::vector<
          std::unique_ptr<std::vector<std::pair<PartialTensorShape, DataType>>>>&
          input_handle_shapes_and_types = {});
  InferenceContext(
      int graph_def_version, const AttrSlice& attrs, const OpDef& op_def,
      const std::vector<TensorShapeProto>& input_shapes,
      const std::vector<const Tensor*>& input_tensors,
      const std::vector<TensorShapeProto>& input_tensors_as_shapes = {},
      const std::vector<
          std::unique_ptr<std::vector<std::pair<TensorShapeProto, DataType>>>>&
          input_handle_shapes_and_types = {});

  ~InferenceContext();
  InferenceContext(const InferenceContext&) = delete;
  InferenceContext& operator=(const InferenceContext&) = delete;

  // Runs `fn` on this context. Returns construction_status() if that is an
  // error, InvalidArgument for a null `fn`, and otherwise fn's Status; an
  // error gets TensorFlow's context appended:
  //   "<message> for '{{node m}} = MatMul[T=DT_FLOAT, ...](a, b)' with input
  //    shapes: [2,3], [3,4,5]."
  // (plus " and with computed input tensors: input[1] = <2 3>." when fn
  // read constant inputs). A shape function that indexed an input or output
  // out of range also makes Run fail. Exceptions from `fn` become Internal.
  Status Run(const OpShapeInferenceFn& fn);

  // Appends the context described at Run() to `status` (same code).
  Status AttachContext(const Status& status);

  // Why construction failed, or OK.
  Status construction_status() const { return construction_status_; }

  // --- Inputs -------------------------------------------------------------

  int num_inputs() const { return static_cast<int>(inputs_.size()); }
  // The shape of input `idx`; unset (an unknown shape) when out of range,
  // which also makes Run() fail.
  ShapeHandle input(int64_t idx) const;
  // The shapes of the input argument named `input_name` (several for a list
  // argument). InvalidArgument "Unknown input name: x" otherwise.
  Status input(std::string_view input_name, std::vector<ShapeHandle>* output) const;

  // Merges `shape` into input `idx`'s shape; true when that narrowed it.
  // False (changing nothing) when incompatible or out of range.
  bool MergeInput(int idx, ShapeHandle shape);
  // Relaxes input `idx`'s shape with `shape`; true when that changed it.
  bool RelaxInput(int idx, ShapeHandle shape);
  // Replaces input `idx`'s shape (ignored when out of range).
  void SetInput(int idx, ShapeHandle shape);

  // The constant value of input `idx`, or nullptr when not known (or out of
  // range). Records that the function asked for it.
  const Tensor* input_tensor(int idx);
  // Whether the function called input_tensor(idx) /
  // MakeShapeFromShapeTensor(idx). False when out of range.
  bool requested_input_tensor(int idx) const;
  bool requested_input_tensor_as_partial_shape(int idx) const;
  // Replaces the known constant inputs (padded or cut to num_inputs()).
  void set_input_tensors(const std::vector<const Tensor*>& input_tensors);
  void set_input_tensors_as_shapes(const std::vector<ShapeHandle>& input_tensors_as_shapes);
  const std::vector<ShapeHandle>& input_tensors_as_shapes() const {
    return input_tensors_as_shapes_;
  }

  // --- Outputs ------------------------------------------------------------

  int num_outputs() const { return static_cast<int>(outputs_.size()); }
  // The shape set for output `idx` (unset until set_output; unset when out
  // of range).
  ShapeHandle output(int64_t idx) const;
  // Sets output `idx`; out of range is ignored and makes Run() fail.
  void set_output(int idx, ShapeHandle shape);
  // Sets the outputs of the output argument `output_name`. InvalidArgument
  // "Unknown output name: x", or "Must have exactly 2 shapes." when
  // `shapes` has the wrong length.
  Status set_output(std::string_view output_name, const std::vector<ShapeHandle>& shapes);
  // The shapes of output argument `output_name`.
  Status output(std::string_view output_name, std::vector<ShapeHandle>* output) const;
  // Grows the number of outputs to `new_output_size` (new ones unset).
  // InvalidArgument when that is smaller than num_outputs() or above
  // kMaxOutputs.
  Status ExpandOutputs(int new_output_size);
  static constexpr int kMaxOutputs = 1 << 20;

  // --- The node -----------------------------------------------------------

  // The node's attrs as given to the constructor.
  const AttrSlice& attrs() const { return attrs_; }
  // The op's name.
  std::string op() const;
  int graph_def_version() const { return graph_def_version_; }

  // Reads attr `attr_name` of the node into *value, for every attr kind
  // GetNodeAttr supports; its errors (NotFound, InvalidArgument).
  template <class T>
  Status GetAttr(std::string_view attr_name, T* value) const {
    return GetNodeAttr(attrs_, attr_name, value);
  }

  // --- Reading shapes and dimensions ---------------------------------------

  // Dimension `idx` of `s`; a negative idx counts from the end. An unknown
  // (new) dimension when the rank is unknown or idx is out of range.
  DimensionHandle Dim(ShapeHandle s, int64_t idx);
  // The same for a shape of known rank; an unset handle (which reads as
  // unknown) when the rank is unknown or idx is out of range.
  static DimensionHandle DimKnownRank(ShapeHandle s, int64_t idx);
  // The rank, or kUnknownRank (also for an unset handle).
  static int32_t Rank(ShapeHandle s) { return s.ptr_ ? s.ptr_->rank_ : kUnknownRank; }
  static bool RankKnown(ShapeHandle s) { return Rank(s) != kUnknownRank; }
  // The value, or kUnknownDim (also for an unset handle).
  static int64_t Value(DimensionOrConstant d) {
    return d.dim.ptr_ ? d.dim.ptr_->value_ : d.val;
  }
  static bool ValueKnown(DimensionOrConstant d) { return Value(d) != kUnknownDim; }

  // Whether the rank and every dimension of `s` are known.
  bool FullyDefined(ShapeHandle s);
  // The number of elements: a new known dimension when `s` is fully defined
  // (and the product fits in int64), else an unknown one.
  DimensionHandle NumElements(ShapeHandle s);

  // "[2,?]", "?" for an unknown rank; "3" or "?" for a dimension.
  std::string DebugString(ShapeHandle s);
  std::string DebugString(DimensionHandle d);
  // "[2,?]:float".
  std::string DebugString(const ShapeAndType& shape_and_type);
  std::string DebugString(const std::vector<ShapeAndType>& shape_and_types);
  // The node this context is for: "InferenceContext for node: {{node n}} =
  // Op[T=DT_FLOAT](a, b)".
  std::string DebugString() const;

  // --- Checks that narrow ---------------------------------------------------
  // Each sets *out to the narrowed result (possibly the input handle itself)
  // and returns OK, or sets *out unset and returns InvalidArgument.

  // "Shape must be rank 2 but is rank 3". An unknown rank becomes a new
  // shape of `rank` unknown dimensions. `rank` must be in
  // [0, TensorShape::MaxDimensions()] ("Rank must be ..." otherwise).
  Status WithRank(ShapeHandle shape, int64_t rank, ShapeHandle* out);
  // "Shape must be at least rank 2 but is rank 1"; an unknown rank stays.
  Status WithRankAtLeast(ShapeHandle shape, int64_t rank, ShapeHandle* out);
  // "Shape must be at most rank 2 but is rank 3"; an unknown rank stays.
  Status WithRankAtMost(ShapeHandle shape, int64_t rank, ShapeHandle* out);
  // "Dimension must be 2 but is 3"; an unknown dim becomes a new one of
  // `value`.
  Status WithValue(DimensionHandle dim, int64_t value, DimensionHandle* out);

  // The most specific shape compatible with both: "Shapes must be equal
  // rank, but are 2 and 3", "Dimension 1 in both shapes must be equal, but
  // are 3 and 4. Shapes are [2,3] and [2,4].". *out is s0 or s1 when one of
  // them already is the result.
  Status Merge(ShapeHandle s0, ShapeHandle s1, ShapeHandle* out);
  // "Dimensions must be equal, but are 3 and 4". *out is d0 when d0 is
  // known or both are unknown, else d1.
  Status Merge(DimensionHandle d0, DimensionHandle d1, DimensionHandle* out);
  // Checks that `s` has at least `prefix`'s rank and merges prefix's
  // dimensions into s's leading ones; *s_out and *prefix_out are the merged
  // results (unchanged handles when either rank is unknown).
  Status MergePrefix(ShapeHandle s, ShapeHandle prefix, ShapeHandle* s_out,
                     ShapeHandle* prefix_out);

  // The most specific shape both are compatible with (never fails): ranks
  // that differ give an unknown shape, dims that differ an unknown dim.
  void Relax(ShapeHandle s_old, ShapeHandle s_new, ShapeHandle* out);
  void Relax(DimensionHandle d_old, DimensionHandle d_new, DimensionHandle* out);

  // --- Building -------------------------------------------------------------

  // `s`'s dimensions [start:end:stride], Python-style: negative indices
  // count from the end and ends past the rank are clamped. An unknown rank
  // gives an unknown shape; [0:] gives `s` itself. Errors: "Subshape start
  // out of bounds: -4, for shape with rank 3", "Subshape end out of bounds",
  // "Subshape must have computed start <= end, ...", stride 0.
  Status Subshape(ShapeHandle s, int64_t start, ShapeHandle* out);
  Status Subshape(ShapeHandle s, int64_t start, int64_t end, ShapeHandle* out);
  Status Subshape(ShapeHandle s, int64_t start, int64_t end, int64_t stride,
                  ShapeHandle* out);
  // s1's dims then s2's (unknown if either rank is); InvalidArgument when
  // the rank would exceed TensorShape::MaxDimensions().
  Status Concatenate(ShapeHandle s1, ShapeHandle s2, ShapeHandle* out);
  // `s` with dim `dim_index` (negative counts from the end) replaced;
  // unknown rank gives an unknown shape. "Out of range dim_index 3 for shape
  // with 2 dimensions".
  Status ReplaceDim(ShapeHandle s, int64_t dim_index, DimensionHandle new_dim,
                    ShapeHandle* out);

  // New shapes. Unset dims and negative values become unknown dimensions;
  // more than TensorShape::MaxDimensions() dims give an unknown shape.
  ShapeHandle MakeShape(const std::vector<DimensionHandle>& dims);
  ShapeHandle MakeShape(std::initializer_list<DimensionOrConstant> dims);
  ShapeHandle UnknownShape();
  // `rank` unknown dims; an unknown shape when `rank` is negative or above
  // TensorShape::MaxDimensions().
  ShapeHandle UnknownShapeOfRank(int64_t rank);
  ShapeHandle Scalar();
  ShapeHandle Vector(DimensionOrConstant dim);
  ShapeHandle Matrix(DimensionOrConstant dim1, DimensionOrConstant dim2);

  // The shape held by the 1-D int32/int64 input tensor `input_idx` (-1
  // entries unknown). When the value is not known: input_tensors_as_shapes
  // if set, else as many unknown dims as the input vector has, else an
  // unknown shape. Errors: the input is not rank 1 ("Shape must be rank 1
  // but is rank 2"), the tensor's dtype ("Input tensor must be int32 or
  // int64, but was float"), a value below -1 ("Invalid value in tensor used
  // for shape: -2"), too many dimensions.
  Status MakeShapeFromShapeTensor(int input_idx, ShapeHandle* out);
  // The same, but a scalar -1 (or an unknown scalar) means an unknown shape.
  Status MakeShapeFromShapeTensorTreatScalarAsUnknownShape(int input_idx,
                                                           ShapeHandle* out);
  // From values; InvalidArgument for an invalid proto.
  Status MakeShapeFromShapeProto(const TensorShapeProto& proto, ShapeHandle* out);
  Status MakeShapeFromPartialTensorShape(const PartialTensorShape& partial_shape,
                                         ShapeHandle* out);
  Status MakeShapeFromTensorShape(const TensorShape& shape, ShapeHandle* out);
  // Writes `handle` as a proto (unknown_rank / size -1 for unknowns).
  void ShapeHandleToProto(ShapeHandle handle, TensorShapeProto* proto);
  // The same as a PartialTensorShape.
  PartialTensorShape ShapeHandleToPartialTensorShape(ShapeHandle handle);

  // A new dimension of value `d` (or d's handle itself when it has one).
  // A negative value other than kUnknownDim gives an unknown dimension.
  DimensionHandle MakeDim(DimensionOrConstant d);
  DimensionHandle UnknownDim() { return MakeDim(kUnknownDim); }

  // The value of a scalar int32/int64 tensor: "Input must be scalar but has
  // rank 1", "Scalar input must be int32 or int64."; null `t` is an error.
  Status GetScalarFromTensor(const Tensor* t, int64_t* val);
  // Element `idx` of a 1-D int32/int64 tensor.
  Status GetScalarFromTensor(const Tensor* t, int64_t idx, int64_t* val);
  // A dimension from scalar input `idx` (unknown if not constant); the value
  // must be >= 0.
  Status MakeDimForScalarInput(int idx, DimensionHandle* out);
  // The same where the value indexes a shape of rank `input_rank` and may be
  // negative (counted from the end; unknown when input_rank < 0).
  Status MakeDimForScalarInputWithNegativeIndexing(int idx, int input_rank,
                                                   DimensionHandle* out);

  // --- Dimension arithmetic ---------------------------------------------------
  // Unknown operands give unknown results except where said. A constant
  // operand below -1 is InvalidArgument.

  // dividend / divisor; divisor 1 gives `dividend` itself. "Divisor must be
  // positive but is 0", and with evenly_divisible "Dimension size must be
  // evenly divisible by 3 but is 7".
  Status Divide(DimensionHandle dividend, DimensionOrConstant divisor,
                bool evenly_divisible, DimensionHandle* out);
  // first + second; adding 0 gives `first`. "Dimension size overflow from
  // adding ...".
  Status Add(DimensionHandle first, DimensionOrConstant second, DimensionHandle* out);
  // first - second; "Negative dimension size caused by subtracting 5 from 3".
  Status Subtract(DimensionHandle first, DimensionOrConstant second,
                  DimensionHandle* out);
  // first * second; 0 times unknown is 0, 1 times x is x. "Negative
  // dimension size caused by overflow when multiplying ...".
  Status Multiply(DimensionHandle first, DimensionOrConstant second,
                  DimensionHandle* out);
  // min: 0 if either is 0, else unknown if either is.
  Status Min(DimensionHandle first, DimensionOrConstant second, DimensionHandle* out);
  // max: unknown if either is.
  Status Max(DimensionHandle first, DimensionOrConstant second, DimensionHandle* out);

  // "Cannot infer shape because dimension <name> is not known." unless
  // `dim` is known.
  Status ValidateKnownDim(DimensionHandle dim, const char* name);
  // Checks the three parts of a sparse tensor (indices [N,R], values [N],
  // shape [R]) like TensorFlow's SparseTensor.
  Status ValidateSparseTensor(ShapeHandle indices_shape, ShapeHandle values_shape,
                              ShapeHandle shape_shape);

  // --- Resource / variant handle data ---------------------------------------

  // What is known of the value behind input `idx`'s handle, or nullptr.
  const std::vector<ShapeAndType>* input_handle_shapes_and_types(int idx);
  const std::vector<ShapeAndType>* output_handle_shapes_and_types(int idx);
  // Sets it for output `idx` (ignored when out of range).
  void set_output_handle_shapes_and_types(int idx,
                                          const std::vector<ShapeAndType>& shapes_and_types);

 private:
  // Shared construction after inputs_ is filled.
  void PreInputInit(const OpDef& op_def, const std::vector<const Tensor*>& input_tensors);
  void PostInputInit(std::vector<std::unique_ptr<std::vector<ShapeAndType>>> handle_data);
  // The construction shared by the constructors taking PartialTensorShapes
  // or TensorShapeProtos (ShapeValue): converts them to handles, recording
  // the first invalid one in construction_status_.
  template <typename ShapeValue>
  void InitFromShapeValues(
      const OpDef& op_def, const std::vector<const Tensor*>& input_tensors,
      const std::vector<ShapeValue>& input_shapes,
      const std::vector<ShapeValue>& input_tensors_as_shapes,
      const std::vector<std::unique_ptr<std::vector<std::pair<ShapeValue, DataType>>>>&
          input_handle_shapes_and_types);
  // MakeShapeFromShapeTensor and its TreatScalarAsUnknownShape variant.
  Status MakeShapeFromShapeTensorImpl(int input_idx, bool treat_scalar_as_unknown,
                                      ShapeHandle* out);
  Status InternalMakeShapeFromTensor(bool treat_unknown_scalar_tensor_as_unknown_shape,
                                     const Tensor* t, ShapeHandle tensor_shape,
                                     ShapeHandle* out);
  // The node for messages: SummarizeNodeDef, or the op and its attrs.
  std::string SummarizeNode() const;
  // Records misuse by the shape function (out-of-range index) for Run().
  void RecordUsageError(Status s) const;
  // Validates a constant operand of the arithmetic functions.
  static Status CheckOperand(DimensionOrConstant d, const char* fn);

  std::vector<std::unique_ptr<Shape>> all_shapes_;
  std::vector<std::unique_ptr<Dimension>> all_dims_;

  std::vector<ShapeHandle> inputs_;
  std::vector<const Tensor*> input_tensors_;
  std::vector<bool> requested_input_tensor_;
  std::vector<bool> requested_input_tensor_as_partial_shape_;
  std::vector<ShapeHandle> input_tensors_as_shapes_;
  std::vector<ShapeHandle> outputs_;
  std::vector<std::unique_ptr<std::vector<ShapeAndType>>> input_handle_shapes_and_types_;
  std::vector<std::unique_ptr<std::vector<ShapeAndType>>> output_handle_shapes_and_types_;

  const int graph_def_version_;
  AttrSlice attrs_;
  std::string op_name_;
  NameRangeMap input_name_map_;
  NameRangeMap output_name_map_;

  Status construction_status_;
  mutable Status usage_status_;
};

}  // namespace shape_inference
}  // namespace opkit

#endif  // OPKIT_SHAPE_SHAPE_INFERENCE_H_
