#include "opkit/shape/shape_inference.h"

#include <algorithm>
#include <exception>
#include <limits>

#include "opkit/core/str_util.h"

namespace opkit {
namespace shape_inference {

namespace {

constexpr int64_t kMaxRank = TensorShape::MaxDimensions();

// The name ranges end at the highest index any argument reaches.
int CountFromRanges(const NameRangeMap& ranges) {
  int n = 0;
  for (const auto& entry : ranges) n = std::max(n, entry.second.second);
  return n;
}

}  // namespace

DimensionOrConstant::DimensionOrConstant(DimensionHandle d) : dim(d), val(-1) {}
DimensionOrConstant::DimensionOrConstant(int64_t v) : val(v) {}

constexpr int64_t InferenceContext::kUnknownDim;
constexpr int32_t InferenceContext::kUnknownRank;
constexpr int InferenceContext::kMaxOutputs;

// ---------------------------------------------------------------------------
// Construction.

InferenceContext::InferenceContext(
    int graph_def_version, const AttrSlice& attrs, const OpDef& op_def,
    const std::vector<ShapeHandle>& input_shapes,
    const std::vector<const Tensor*>& input_tensors,
    const std::vector<ShapeHandle>& input_tensors_as_shapes,
    std::vector<std::unique_ptr<std::vector<ShapeAndType>>> input_handle_shapes_and_types)
    : graph_def_version_(graph_def_version), attrs_(attrs), op_name_(op_def.name()) {
  PreInputInit(op_def, input_tensors);
  inputs_ = input_shapes;
  input_tensors_as_shapes_ = input_tensors_as_shapes;
  PostInputInit(std::move(input_handle_shapes_and_types));
}

namespace {

// Converts each of `in` to a shape handle with `convert`, keeping the first
// error in `*first_error` (later entries still get a handle).
template <typename In, typename Convert>
std::vector<ShapeHandle> ConvertShapes(const std::vector<In>& in, Convert convert,
                                       Status* first_error) {
  std::vector<ShapeHandle> out;
  out.reserve(in.size());
  for (const In& p : in) {
    ShapeHandle s;
    first_error->Update(convert(p, &s));
    out.push_back(s);
  }
  return out;
}

// The same for resource handle data: a null entry stays null.
template <typename In, typename Convert>
std::vector<std::unique_ptr<std::vector<ShapeAndType>>> ConvertHandleData(
    const std::vector<std::unique_ptr<std::vector<std::pair<In, DataType>>>>& in,
    Convert convert, Status* first_error) {
  std::vector<std::unique_ptr<std::vector<ShapeAndType>>> out;
  for (const auto& entry : in) {
    if (entry == nullptr) {
      out.emplace_back();
      continue;
    }
    auto v = std::make_unique<std::vector<ShapeAndType>>();
    for (const auto& p : *entry) {
      ShapeHandle s;
      first_error->Update(convert(p.first, &s));
      v->emplace_back(s, p.second);
    }
    out.push_back(std::move(v));
  }
  return out;
}

}  // namespace

InferenceContext::InferenceContext(
    int graph_def_version, const AttrSlice& attrs, const OpDef& op_def,
    const std::vector<PartialTensorShape>& input_shapes,
    const std::vector<const Tensor*>& input_tensors,
    const std::vector<PartialTensorShape>& input_tensors_as_shapes,
    const std::vector<std::unique_ptr<std::vector<std::pair<PartialTensorShape, DataType>>>>&
        input_handle_shapes_and_types)
    : graph_def_version_(graph_def_version), attrs_(attrs), op_name_(op_def.name()) {
  PreInputInit(op_def, input_tensors);
  auto convert = [this](const PartialTensorShape& p, ShapeHandle* s) {
    return MakeShapeFromPartialTensorShape(p, s);
  };
  inputs_ = ConvertShapes(input_shapes, convert, &construction_status_);
  input_tensors_as_shapes_ =
      ConvertShapes(input_tensors_as_shapes, convert, &construction_status_);
  PostInputInit(ConvertHandleData(input_handle_shapes_and_types, convert,
                                  &construction_status_));
}

InferenceContext::InferenceContext(
    int graph_def_version, const AttrSlice& attrs, const OpDef& op_def,
    const std::vector<TensorShapeProto>& input_shapes,
    const std::vector<const Tensor*>& input_tensors,
    const std::vector<TensorShapeProto>& input_tensors_as_shapes,
    const std::vector<std::unique_ptr<std::vector<std::pair<TensorShapeProto, DataType>>>>&
        input_handle_shapes_and_types)
    : graph_def_version_(graph_def_version), attrs_(attrs), op_name_(op_def.name()) {
  PreInputInit(op_def, input_tensors);
  auto convert = [this](const TensorShapeProto& p, ShapeHandle* s) {
    return MakeShapeFromShapeProto(p, s);
  };
  inputs_ = ConvertShapes(input_shapes, convert, &construction_status_);
  input_tensors_as_shapes_ =
      ConvertShapes(input_tensors_as_shapes, convert, &construction_status_);
  PostInputInit(ConvertHandleData(input_handle_shapes_and_types, convert,
                                  &construction_status_));
}

InferenceContext::~InferenceContext() = default;

void InferenceContext::PreInputInit(const OpDef& op_def,
                                    const std::vector<const Tensor*>& input_tensors) {
  input_tensors_ = input_tensors;
  construction_status_ =
      NameRangesForNode(attrs_, op_def, &input_name_map_, &output_name_map_);
  if (!construction_status_.ok()) return;
  const int num_outputs = CountFromRanges(output_name_map_);
  outputs_.assign(num_outputs, ShapeHandle());
  output_handle_shapes_and_types_.resize(num_outputs);
}

void InferenceContext::PostInputInit(
    std::vector<std::unique_ptr<std::vector<ShapeAndType>>> handle_data) {
  const size_t n = inputs_.size();
  if (handle_data.empty()) {
    handle_data.resize(n);
  } else if (handle_data.size() != n && construction_status_.ok()) {
    construction_status_ = errors::InvalidArgument(
        "Wrong number of handle shapes passed; expected ", n, " got ", handle_data.size());
  }
  handle_data.resize(n);
  input_handle_shapes_and_types_ = std::move(handle_data);

  if (construction_status_.ok()) {
    const int expected = CountFromRanges(input_name_map_);
    if (static_cast<size_t>(expected) != n) {
      construction_status_ = errors::InvalidArgument(
          "Wrong number of inputs passed: ", n, " while ", expected,
          " expected based on NodeDef");
    }
  }
  if (input_tensors_.size() > n && construction_status_.ok()) {
    construction_status_ = errors::InvalidArgument(
        "Got ", input_tensors_.size(), " input tensors for ", n,
        " inputs; pass at most one per input");
  }
  if (input_tensors_as_shapes_.size() > n && construction_status_.ok()) {
    construction_status_ = errors::InvalidArgument(
        "Got ", input_tensors_as_shapes_.size(), " input tensors as shapes for ", n,
        " inputs; pass at most one per input");
  }
  input_tensors_.resize(n, nullptr);
  input_tensors_as_shapes_.resize(n);
  requested_input_tensor_.assign(n, false);
  requested_input_tensor_as_partial_shape_.assign(n, false);
}

// ---------------------------------------------------------------------------
// Running and error context.

Status InferenceContext::Run(const OpShapeInferenceFn& fn) {
  if (!construction_status_.ok()) return construction_status_;
  if (!fn) {
    return errors::InvalidArgument("No shape inference function for op '", op_name_,
                                   "'; register one with SetShapeFn");
  }
  usage_status_ = Status::OK();
  Status s;
  try {
    s = fn(this);
  } catch (const std::exception& e) {
    s = errors::Internal("Shape function threw an exception: ", e.what());
  } catch (...) {
    s = errors::Internal("Shape function threw an exception");
  }
  if (s.ok()) s = usage_status_;
  if (!s.ok()) return AttachContext(s);
  return s;
}

Status InferenceContext::AttachContext(const Status& status) {
  if (status.ok()) return status;
  std::vector<std::string> input_shapes;
  input_shapes.reserve(inputs_.size());
  for (const ShapeHandle& s : inputs_) input_shapes.push_back(DebugString(s));

  std::vector<std::string> from_tensors;
  std::vector<std::string> from_tensors_as_shapes;
  for (size_t i = 0; i < inputs_.size(); ++i) {
    if (i < requested_input_tensor_as_partial_shape_.size() &&
        requested_input_tensor_as_partial_shape_[i] && i < input_tensors_as_shapes_.size() &&
        RankKnown(input_tensors_as_shapes_[i])) {
      from_tensors_as_shapes.push_back(
          StrCat("input[", i, "] = ", DebugString(input_tensors_as_shapes_[i])));
    } else if (i < requested_input_tensor_.size() && requested_input_tensor_[i] &&
               i < input_tensors_.size() && input_tensors_[i] != nullptr) {
      from_tensors.push_back(
          StrCat("input[", i, "] = <", input_tensors_[i]->SummarizeValue(256), ">"));
    }
  }
  // The node as TensorFlow prints it; without a NodeDef, the op and attrs.
  std::string node = attrs_.node_def() != nullptr
                         ? attrs_.SummarizeNode()
                         : StrCat(op_name_, attrs_.SummarizeNode());
  std::string context =
      StrCat(" for '", node, "' with input shapes: ", StrJoin(input_shapes, ", "));
  if (!from_tensors.empty()) {
    context += StrCat(" and with computed input tensors: ", StrJoin(from_tensors, ", "));
  }
  if (!from_tensors_as_shapes.empty()) {
    context += StrCat(" and with input tensors computed as partial shapes: ",
                      StrJoin(from_tensors_as_shapes, ","));
  }
  context += ".";
  return errors::AppendToMessage(status, context);
}

void InferenceContext::RecordUsageError(Status s) const {
  if (usage_status_.ok()) usage_status_ = std::move(s);
}

std::string InferenceContext::op() const { return op_name_; }

// ---------------------------------------------------------------------------
// Inputs and outputs.

ShapeHandle InferenceContext::input(int64_t idx) const {
  if (idx < 0 || idx >= num_inputs()) {
    RecordUsageError(errors::InvalidArgument("Shape function asked for input ", idx,
                                             " but op '", op_name_, "' has ",
                                             num_inputs(), " inputs"));
    return ShapeHandle();
  }
  return inputs_[idx];
}

Status InferenceContext::input(std::string_view input_name,
                               std::vector<ShapeHandle>* output) const {
  auto it = input_name_map_.find(input_name);
  if (it == input_name_map_.end()) {
    return errors::InvalidArgument("Unknown input name: ", input_name);
  }
  output->clear();
  for (int i = it->second.first; i < it->second.second; ++i) {
    output->push_back(i < num_inputs() ? inputs_[i] : ShapeHandle());
  }
  return Status::OK();
}

bool InferenceContext::MergeInput(int idx, ShapeHandle shape) {
  if (idx < 0 || idx >= num_inputs()) return false;
  ShapeHandle merged;
  if (!Merge(inputs_[idx], shape, &merged).ok()) return false;
  if (merged.SameHandle(inputs_[idx])) return false;
  inputs_[idx] = merged;
  return true;
}

bool InferenceContext::RelaxInput(int idx, ShapeHandle shape) {
  if (idx < 0 || idx >= num_inputs()) return false;
  ShapeHandle relaxed;
  Relax(inputs_[idx], shape, &relaxed);
  if (relaxed.SameHandle(inputs_[idx])) return false;
  inputs_[idx] = relaxed;
  return true;
}

void InferenceContext::SetInput(int idx, ShapeHandle shape) {
  if (idx < 0 || idx >= num_inputs()) return;
  inputs_[idx] = shape;
}

const Tensor* InferenceContext::input_tensor(int idx) {
  if (idx < 0 || idx >= num_inputs()) {
    RecordUsageError(errors::InvalidArgument("Shape function asked for input tensor ", idx,
                                             " but op '", op_name_, "' has ",
                                             num_inputs(), " inputs"));
    return nullptr;
  }
  requested_input_tensor_[idx] = true;
  return input_tensors_[idx];
}

bool InferenceContext::requested_input_tensor(int idx) const {
  return idx >= 0 && idx < num_inputs() && requested_input_tensor_[idx];
}

bool InferenceContext::requested_input_tensor_as_partial_shape(int idx) const {
  return idx >= 0 && idx < num_inputs() && requested_input_tensor_as_partial_shape_[idx];
}

void InferenceContext::set_input_tensors(const std::vector<const Tensor*>& input_tensors) {
  input_tensors_ = input_tensors;
  input_tensors_.resize(inputs_.size(), nullptr);
}

void InferenceContext::set_input_tensors_as_shapes(
    const std::vector<ShapeHandle>& input_tensors_as_shapes) {
  input_tensors_as_shapes_ = input_tensors_as_shapes;
  input_tensors_as_shapes_.resize(inputs_.size());
}

ShapeHandle InferenceContext::output(int64_t idx) const {
  if (idx < 0 || idx >= num_outputs()) return ShapeHandle();
  return outputs_[idx];
}

void InferenceContext::set_output(int idx, ShapeHandle shape) {
  if (idx < 0 || idx >= num_outputs()) {
    RecordUsageError(errors::InvalidArgument("Shape function set output ", idx,
                                             " but op '", op_name_, "' has ",
                                             num_outputs(), " outputs"));
    return;
  }
  outputs_[idx] = shape;
}

Status InferenceContext::set_output(std::string_view output_name,
                                    const std::vector<ShapeHandle>& shapes) {
  auto it = output_name_map_.find(output_name);
  if (it == output_name_map_.end()) {
    return errors::InvalidArgument("Unknown output name: ", output_name);
  }
  const int start = it->second.first;
  const int size = it->second.second - start;
  if (static_cast<size_t>(size) != shapes.size()) {
    return errors::InvalidArgument("Must have exactly ", size, " shapes for output '",
                                   output_name, "', got ", shapes.size(), ".");
  }
  for (int i = 0; i < size; ++i) {
    if (start + i < num_outputs()) outputs_[start + i] = shapes[i];
  }
  return Status::OK();
}

Status InferenceContext::output(std::string_view output_name,
                                std::vector<ShapeHandle>* output) const {
  auto it = output_name_map_.find(output_name);
  if (it == output_name_map_.end()) {
    return errors::InvalidArgument("Unknown output name: ", output_name);
  }
  output->clear();
  for (int i = it->second.first; i < it->second.second; ++i) {
    output->push_back(i < num_outputs() ? outputs_[i] : ShapeHandle());
  }
  return Status::OK();
}

Status InferenceContext::ExpandOutputs(int new_output_size) {
  if (new_output_size < num_outputs()) {
    return errors::InvalidArgument("Trying to reduce number of outputs of op '", op_name_,
                                   "' from ", num_outputs(), " to ", new_output_size);
  }
  if (new_output_size > kMaxOutputs) {
    return errors::InvalidArgument("Cannot expand op '", op_name_, "' to ", new_output_size,
                                   " outputs; the maximum is ", kMaxOutputs);
  }
  outputs_.resize(new_output_size);
  output_handle_shapes_and_types_.resize(new_output_size);
  return Status::OK();
}

// ---------------------------------------------------------------------------
// Reading shapes.

DimensionHandle InferenceContext::Dim(ShapeHandle s, int64_t idx) {
  DimensionHandle d = DimKnownRank(s, idx);
  return d.IsSet() ? d : UnknownDim();
}

DimensionHandle InferenceContext::DimKnownRank(ShapeHandle s, int64_t idx) {
  if (!RankKnown(s)) return DimensionHandle();
  const int64_t rank = Rank(s);
  if (idx < 0) {
    if (idx < -rank) return DimensionHandle();
    idx += rank;
  }
  if (idx >= rank) return DimensionHandle();
  return s.ptr_->dims_[idx];
}

bool InferenceContext::FullyDefined(ShapeHandle s) {
  if (!RankKnown(s)) return false;
  for (const DimensionHandle& d : s.ptr_->dims_) {
    if (!ValueKnown(d)) return false;
  }
  return true;
}

DimensionHandle InferenceContext::NumElements(ShapeHandle s) {
  if (!RankKnown(s)) return UnknownDim();
  int64_t size = 1;
  for (const DimensionHandle& d : s.ptr_->dims_) {
    const int64_t v = Value(d);
    if (v < 0) return UnknownDim();
    if (__builtin_mul_overflow(size, v, &size)) return UnknownDim();
  }
  return MakeDim(size);
}

std::string InferenceContext::DebugString(ShapeHandle s) {
  if (!RankKnown(s)) return "?";
  std::vector<std::string> parts;
  for (const DimensionHandle& d : s.ptr_->dims_) parts.push_back(DebugString(d));
  return StrCat("[", StrJoin(parts, ","), "]");
}

std::string InferenceContext::DebugString(DimensionHandle d) {
  return ValueKnown(d) ? StrCat(Value(d)) : std::string("?");
}

std::string InferenceContext::DebugString(const ShapeAndType& shape_and_type) {
  return StrCat(DebugString(shape_and_type.shape), ":",
                DataTypeString(shape_and_type.dtype));
}

std::string InferenceContext::DebugString(const std::vector<ShapeAndType>& shape_and_types) {
  std::vector<std::string> parts;
  for (const ShapeAndType& s : shape_and_types) parts.push_back(DebugString(s));
  return StrCat("[", StrJoin(parts, ","), "]");
}

// ---------------------------------------------------------------------------
// Checks that narrow.

Status InferenceContext::WithRank(ShapeHandle shape, int64_t rank, ShapeHandle* out) {
  if (rank < 0 || rank > kMaxRank) {
    *out = ShapeHandle();
    return errors::InvalidArgument("Rank must be between 0 and ", kMaxRank, ", got ", rank);
  }
  const int32_t existing = Rank(shape);
  if (existing == rank) {
    *out = shape;
    return Status::OK();
  }
  if (existing == kUnknownRank) {
    *out = UnknownShapeOfRank(rank);
    return Status::OK();
  }
  *out = ShapeHandle();
  return errors::InvalidArgument("Shape must be rank ", rank, " but is rank ", existing);
}

Status InferenceContext::WithRankAtLeast(ShapeHandle shape, int64_t rank, ShapeHandle* out) {
  if (rank < 0 || rank > kMaxRank) {
    *out = ShapeHandle();
    return errors::InvalidArgument("Rank must be between 0 and ", kMaxRank, ", got ", rank);
  }
  const int32_t existing = Rank(shape);
  if (existing == kUnknownRank || existing >= rank) {
    *out = shape;
    return Status::OK();
  }
  *out = ShapeHandle();
  return errors::InvalidArgument("Shape must be at least rank ", rank, " but is rank ",
                                 existing);
}

Status InferenceContext::WithRankAtMost(ShapeHandle shape, int64_t rank, ShapeHandle* out) {
  if (rank < 0 || rank > kMaxRank) {
    *out = ShapeHandle();
    return errors::InvalidArgument("Rank must be between 0 and ", kMaxRank, ", got ", rank);
  }
  const int32_t existing = Rank(shape);
  if (existing == kUnknownRank || existing <= rank) {
    *out = shape;
    return Status::OK();
  }
  *out = ShapeHandle();
  return errors::InvalidArgument("Shape must be at most rank ", rank, " but is rank ",
                                 existing);
}

Status InferenceContext::WithValue(DimensionHandle dim, int64_t value, DimensionHandle* out) {
  if (value < 0) {
    *out = DimensionHandle();
    return errors::InvalidArgument("Dimension value must be non-negative, got ", value);
  }
  const int64_t existing = Value(dim);
  if (existing == value) {
    *out = dim;
    return Status::OK();
  }
  if (existing == kUnknownDim) {
    *out = MakeDim(value);
    return Status::OK();
  }
  *out = DimensionHandle();
  return errors::InvalidArgument("Dimension must be ", value, " but is ", existing);
}

Status InferenceContext::Merge(DimensionHandle d0, DimensionHandle d1, DimensionHandle* out) {
  if (d0.SameHandle(d1) || !ValueKnown(d1)) {
    *out = d0.IsSet() ? d0 : d1;
    if (!out->IsSet()) *out = UnknownDim();
    return Status::OK();
  }
  if (!ValueKnown(d0)) {
    *out = d1;
    return Status::OK();
  }
  if (Value(d0) == Value(d1)) {
    *out = d0;
    return Status::OK();
  }
  *out = DimensionHandle();
  return errors::InvalidArgument("Dimensions must be equal, but are ", Value(d0), " and ",
                                 Value(d1));
}

Status InferenceContext::Merge(ShapeHandle s0, ShapeHandle s1, ShapeHandle* out) {
  if (s0.SameHandle(s1) || !RankKnown(s1)) {
    *out = s0.IsSet() ? s0 : (s1.IsSet() ? s1 : UnknownShape());
    return Status::OK();
  }
  if (!RankKnown(s0)) {
    *out = s1;
    return Status::OK();
  }
  const int32_t rank = Rank(s0);
  if (rank != Rank(s1)) {
    *out = ShapeHandle();
    return errors::InvalidArgument("Shapes must be equal rank, but are ", rank, " and ",
                                   Rank(s1));
  }
  bool is_s0 = true;
  bool is_s1 = true;
  std::vector<DimensionHandle> dims(rank);
  for (int32_t i = 0; i < rank; ++i) {
    const DimensionHandle d0 = s0.ptr_->dims_[i];
    const DimensionHandle d1 = s1.ptr_->dims_[i];
    Status st = Merge(d0, d1, &dims[i]);
    if (!st.ok()) {
      *out = ShapeHandle();
      return errors::InvalidArgument("Dimension ", i, " in both shapes must be equal, but are ",
                                     Value(d0), " and ", Value(d1), ". Shapes are ",
                                     DebugString(s0), " and ", DebugString(s1), ".");
    }
    if (!dims[i].SameHandle(d0)) is_s0 = false;
    if (!dims[i].SameHandle(d1)) is_s1 = false;
  }
  if (is_s0) {
    *out = s0;
  } else if (is_s1) {
    *out = s1;
  } else {
    *out = MakeShape(dims);
  }
  return Status::OK();
}

Status InferenceContext::MergePrefix(ShapeHandle s, ShapeHandle prefix, ShapeHandle* s_out,
                                     ShapeHandle* prefix_out) {
  *s_out = ShapeHandle();
  *prefix_out = ShapeHandle();
  if (!RankKnown(prefix) || !RankKnown(s)) {
    *s_out = s.IsSet() ? s : UnknownShape();
    *prefix_out = prefix.IsSet() ? prefix : UnknownShape();
    return Status::OK();
  }
  const int32_t rank = Rank(prefix);
  ShapeHandle checked;
  OPKIT_RETURN_IF_ERROR(WithRankAtLeast(s, rank, &checked));
  std::vector<DimensionHandle> dims(rank);
  for (int32_t i = 0; i < rank; ++i) {
    OPKIT_RETURN_IF_ERROR(Merge(s.ptr_->dims_[i], prefix.ptr_->dims_[i], &dims[i]));
  }
  ShapeHandle merged_prefix = MakeShape(dims);
  ShapeHandle rest;
  OPKIT_RETURN_IF_ERROR(Subshape(s, rank, &rest));
  OPKIT_RETURN_IF_ERROR(Concatenate(merged_prefix, rest, s_out));
  *prefix_out = merged_prefix;
  return Status::OK();
}

void InferenceContext::Relax(DimensionHandle d_old, DimensionHandle d_new,
                             DimensionHandle* out) {
  if (d_old.SameHandle(d_new) || (!ValueKnown(d_old) && !ValueKnown(d_new)) ||
      Value(d_old) == Value(d_new)) {
    *out = d_old.IsSet() ? d_old : UnknownDim();
  } else {
    *out = UnknownDim();
  }
}

void InferenceContext::Relax(ShapeHandle s_old, ShapeHandle s_new, ShapeHandle* out) {
  if (s_old.SameHandle(s_new)) {
    *out = s_old.IsSet() ? s_old : UnknownShape();
    return;
  }
  if (!RankKnown(s_new) || !s_old.IsSet()) {
    *out = s_new.IsSet() ? s_new : UnknownShape();
    return;
  }
  const int32_t rank = Rank(s_old);
  if (rank != Rank(s_new)) {
    *out = UnknownShape();
    return;
  }
  bool is_s_old = true;
  std::vector<DimensionHandle> dims(rank);
  for (int32_t i = 0; i < rank; ++i) {
    Relax(s_old.ptr_->dims_[i], s_new.ptr_->dims_[i], &dims[i]);
    if (!dims[i].SameHandle(s_old.ptr_->dims_[i])) is_s_old = false;
  }
  *out = is_s_old ? s_old : MakeShape(dims);
}

// ---------------------------------------------------------------------------
// Building.

Status InferenceContext::Subshape(ShapeHandle s, int64_t start, ShapeHandle* out) {
  return Subshape(s, start, std::numeric_limits<int64_t>::max(), 1, out);
}

Status InferenceContext::Subshape(ShapeHandle s, int64_t start, int64_t end,
                                  ShapeHandle* out) {
  return Subshape(s, start, end, 1, out);
}

Status InferenceContext::Subshape(ShapeHandle s, int64_t start_in, int64_t end_in,
                                  int64_t stride, ShapeHandle* out) {
  if (stride == 0) {
    *out = ShapeHandle();
    return errors::InvalidArgument("Subshape stride must not be 0");
  }
  int64_t start = start_in;
  int64_t end = end_in;
  const int64_t rank = Rank(s);
  if (start == 0 && stride == 1 &&
      ((rank != kUnknownRank && end >= rank) || end == std::numeric_limits<int64_t>::max())) {
    *out = s.IsSet() ? s : UnknownShape();
    return Status::OK();
  }
  if (rank == kUnknownRank) {
    *out = UnknownShape();
    return Status::OK();
  }
  if (start > rank) start = rank;
  if (end > rank) end = rank;
  if (stride < 0 && start == rank) --start;
  if (start < 0) {
    start += rank;  // rank >= 0 and start < 0: cannot overflow
    if (start < 0) {
      *out = ShapeHandle();
      return errors::InvalidArgument("Subshape start out of bounds: ", start_in,
                                     ", for shape with rank ", rank);
    }
  }
  if (end < 0) {
    end += rank;
    if (end < 0 && !(stride < 0 && end == -1)) {
      *out = ShapeHandle();
      return errors::InvalidArgument("Subshape end out of bounds: ", end_in,
                                     ", for shape with rank ", rank);
    }
  }
  if (stride > 0 && start > end) {
    *out = ShapeHandle();
    return errors::InvalidArgument("Subshape must have computed start <= end, but is ", start,
                                   " and ", end, " (computed from start ", start_in,
                                   " and end ", end_in, " over shape with rank ", rank, ")");
  }
  if (stride < 0 && start < end) {
    *out = ShapeHandle();
    return errors::InvalidArgument(
        "Subshape must have computed start >= end since stride is negative, but is ", start,
        " and ", end, " (computed from start ", start_in, " and end ", end_in,
        " over shape with rank ", rank, " and stride", stride, ")");
  }
  std::vector<DimensionHandle> dims;
  for (int64_t i = start; stride > 0 ? i < end : i > end;) {
    if (i >= 0 && i < rank) dims.push_back(s.ptr_->dims_[i]);
    if (__builtin_add_overflow(i, stride, &i)) break;
  }
  *out = MakeShape(dims);
  return Status::OK();
}

Status InferenceContext::Concatenate(ShapeHandle s1, ShapeHandle s2, ShapeHandle* out) {
  if (!RankKnown(s1) || !RankKnown(s2)) {
    *out = UnknownShape();
    return Status::OK();
  }
  const int64_t rank = static_cast<int64_t>(Rank(s1)) + Rank(s2);
  if (rank > kMaxRank) {
    *out = ShapeHandle();
    return errors::InvalidArgument("Concatenating ", DebugString(s1), " and ", DebugString(s2),
                                   " gives rank ", rank, ", more than the maximum of ",
                                   kMaxRank);
  }
  std::vector<DimensionHandle> dims = s1.ptr_->dims_;
  dims.insert(dims.end(), s2.ptr_->dims_.begin(), s2.ptr_->dims_.end());
  *out = MakeShape(dims);
  return Status::OK();
}

Status InferenceContext::ReplaceDim(ShapeHandle s, int64_t dim_index_in,
                                    DimensionHandle new_dim, ShapeHandle* out) {
  if (!RankKnown(s)) {
    *out = UnknownShape();
    return Status::OK();
  }
  const int64_t rank = Rank(s);
  int64_t dim_index = dim_index_in;
  if (dim_index < 0) dim_index += rank;
  if (dim_index < 0 || dim_index >= rank) {
    *out = ShapeHandle();
    return errors::InvalidArgument("Out of range dim_index ", dim_index_in, " for shape with ",
                                   rank, " dimensions");
  }
  std::vector<DimensionHandle> dims = s.ptr_->dims_;
  dims[dim_index] = new_dim;
  *out = MakeShape(dims);
  return Status::OK();
}

DimensionHandle InferenceContext::MakeDim(DimensionOrConstant d) {
  if (d.dim.IsSet()) return d.dim;
  const int64_t v = d.val < 0 ? kUnknownDim : d.val;
  all_dims_.push_back(std::unique_ptr<Dimension>(new Dimension(v)));
  return DimensionHandle(all_dims_.back().get());
}

ShapeHandle InferenceContext::MakeShape(const std::vector<DimensionHandle>& dims) {
  if (static_cast<int64_t>(dims.size()) > kMaxRank) return UnknownShape();
  std::vector<DimensionHandle> owned(dims);
  for (DimensionHandle& d : owned) {
    if (!d.IsSet()) d = UnknownDim();
  }
  all_shapes_.push_back(std::unique_ptr<Shape>(new Shape(std::move(owned))));
  return ShapeHandle(all_shapes_.back().get());
}

ShapeHandle InferenceContext::MakeShape(std::initializer_list<DimensionOrConstant> dims) {
  std::vector<DimensionHandle> handles;
  handles.reserve(dims.size());
  for (const DimensionOrConstant& d : dims) handles.push_back(MakeDim(d));
  return MakeShape(handles);
}

ShapeHandle InferenceContext::UnknownShape() {
  all_shapes_.push_back(std::unique_ptr<Shape>(new Shape()));
  return ShapeHandle(all_shapes_.back().get());
}

ShapeHandle InferenceContext::UnknownShapeOfRank(int64_t rank) {
  if (rank < 0 || rank > kMaxRank) return UnknownShape();
  std::vector<DimensionHandle> dims(rank);
  for (DimensionHandle& d : dims) d = UnknownDim();
  return MakeShape(dims);
}

ShapeHandle InferenceContext::Scalar() { return MakeShape(std::vector<DimensionHandle>()); }

ShapeHandle InferenceContext::Vector(DimensionOrConstant dim) { return MakeShape({dim}); }

ShapeHandle InferenceContext::Matrix(DimensionOrConstant dim1, DimensionOrConstant dim2) {
  return MakeShape({dim1, dim2});
}

Status InferenceContext::MakeShapeFromShapeTensor(int input_idx, ShapeHandle* out) {
  *out = ShapeHandle();
  if (input_idx < 0 || input_idx >= num_inputs()) {
    return errors::InvalidArgument("Input index ", input_idx, " is out of range; op '",
                                   op_name_, "' has ", num_inputs(), " inputs");
  }
  ShapeHandle input_shape;
  OPKIT_RETURN_IF_ERROR(WithRank(input(input_idx), 1, &input_shape));
  requested_input_tensor_as_partial_shape_[input_idx] = true;
  const ShapeHandle as_shape = input_tensors_as_shapes_[input_idx];
  if (RankKnown(as_shape)) {
    *out = as_shape;
    return Status::OK();
  }
  return InternalMakeShapeFromTensor(false, input_tensor(input_idx), input_shape, out);
}

Status InferenceContext::MakeShapeFromShapeTensorTreatScalarAsUnknownShape(int input_idx,
                                                                           ShapeHandle* out) {
  *out = ShapeHandle();
  if (input_idx < 0 || input_idx >= num_inputs()) {
    return errors::InvalidArgument("Input index ", input_idx, " is out of range; op '",
                                   op_name_, "' has ", num_inputs(), " inputs");
  }
  ShapeHandle input_shape;
  OPKIT_RETURN_IF_ERROR(WithRankAtMost(input(input_idx), 1, &input_shape));
  requested_input_tensor_as_partial_shape_[input_idx] = true;
  const ShapeHandle as_shape = input_tensors_as_shapes_[input_idx];
  if (RankKnown(as_shape)) {
    *out = as_shape;
    return Status::OK();
  }
  return InternalMakeShapeFromTensor(true, input_tensor(input_idx), input_shape, out);
}

Status InferenceContext::InternalMakeShapeFromTensor(bool treat_scalar_as_unknown,
                                                     const Tensor* t,
                                                     ShapeHandle tensor_shape,
                                                     ShapeHandle* out) {
  if (t == nullptr) {
    // The value is unknown, but the length of the shape vector may be.
    if (treat_scalar_as_unknown && Rank(tensor_shape) == 0) {
      *out = UnknownShape();
      return Status::OK();
    }
    ShapeHandle vec;
    OPKIT_RETURN_IF_ERROR(WithRank(tensor_shape, 1, &vec));
    const int64_t n = Value(Dim(vec, 0));
    if (n == kUnknownDim) {
      *out = UnknownShape();
      return Status::OK();
    }
    if (n > kMaxRank) {
      return errors::InvalidArgument("Shape tensor has ", n,
                                     " elements, more than the maximum rank of ", kMaxRank);
    }
    *out = UnknownShapeOfRank(n);
    return Status::OK();
  }
  const DataType dtype = t->dtype();
  if (dtype != DT_INT32 && dtype != DT_INT64) {
    return errors::InvalidArgument("Input tensor must be int32 or int64, but was ",
                                   DataTypeString(dtype));
  }
  if (!t->IsInitialized() && t->NumElements() > 0) {
    return errors::InvalidArgument("Shape tensor has no data");
  }
  if (t->dims() == 0) {
    const int64_t v = dtype == DT_INT32 ? static_cast<int64_t>(t->scalar<int32>()())
                                        : static_cast<int64_t>(t->scalar<int64>()());
    if (treat_scalar_as_unknown && v == -1) {
      *out = UnknownShape();
      return Status::OK();
    }
    if (treat_scalar_as_unknown) {
      return errors::InvalidArgument(
          "Input tensor must be rank 1, or if its rank 0 it must have value -1 (saw rank 0 "
          "with value ", v, ")");
    }
    return errors::InvalidArgument("Input tensor must be rank 1, but was rank 0.");
  }
  if (t->dims() != 1) {
    return errors::InvalidArgument("Input tensor must be rank 1, but was rank ", t->dims(),
                                   ".");
  }
  const int64_t n = t->NumElements();
  if (n > kMaxRank) {
    return errors::InvalidArgument("Shape tensor has ", n,
                                   " elements, more than the maximum rank of ", kMaxRank);
  }
  std::vector<DimensionHandle> dims;
  dims.reserve(n);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t v = dtype == DT_INT32 ? static_cast<int64_t>(t->flat<int32>()(i))
                                        : static_cast<int64_t>(t->flat<int64>()(i));
    if (v >= 0) {
      dims.push_back(MakeDim(v));
    } else if (v == -1) {
      dims.push_back(UnknownDim());
    } else {
      return errors::InvalidArgument("Invalid value in tensor used for shape: ", v);
    }
  }
  *out = MakeShape(dims);
  return Status::OK();
}

Status InferenceContext::MakeShapeFromShapeProto(const TensorShapeProto& proto,
                                                 ShapeHandle* out) {
  *out = ShapeHandle();
  OPKIT_RETURN_IF_ERROR(PartialTensorShape::IsValidShape(proto));
  if (proto.unknown_rank()) {
    *out = UnknownShape();
    return Status::OK();
  }
  std::vector<DimensionHandle> dims;
  for (const auto& d : proto.dim()) dims.push_back(MakeDim(d.size() < 0 ? -1 : d.size()));
  *out = MakeShape(dims);
  return Status::OK();
}

Status InferenceContext::MakeShapeFromPartialTensorShape(const PartialTensorShape& partial_shape,
                                                         ShapeHandle* out) {
  if (partial_shape.unknown_rank()) {
    *out = UnknownShape();
    return Status::OK();
  }
  if (partial_shape.dims() > kMaxRank) {
    *out = ShapeHandle();
    return errors::InvalidArgument("Shape ", partial_shape.DebugString(),
                                   " has more than ", kMaxRank, " dimensions");
  }
  std::vector<DimensionHandle> dims;
  for (int64_t size : partial_shape.dim_sizes()) dims.push_back(MakeDim(size));
  *out = MakeShape(dims);
  return Status::OK();
}

Status InferenceContext::MakeShapeFromTensorShape(const TensorShape& shape, ShapeHandle* out) {
  return MakeShapeFromPartialTensorShape(PartialTensorShape(shape), out);
}

void InferenceContext::ShapeHandleToProto(ShapeHandle handle, TensorShapeProto* proto) {
  proto->Clear();
  if (!RankKnown(handle)) {
    proto->set_unknown_rank(true);
    return;
  }
  for (const DimensionHandle& d : handle.ptr_->dims_) {
    proto->add_dim()->set_size(Value(d));
  }
}

PartialTensorShape InferenceContext::ShapeHandleToPartialTensorShape(ShapeHandle handle) {
  if (!RankKnown(handle)) return PartialTensorShape();
  std::vector<int64_t> sizes;
  for (const DimensionHandle& d : handle.ptr_->dims_) sizes.push_back(Value(d));
  PartialTensorShape result;
  // Sizes come from dims that are >= -1 and at most kMaxRank of them; only an
  // int64 overflow of the element count can fail, and then the shape keeps
  // its rank with unknown dims.
  if (!PartialTensorShape::BuildPartialTensorShape(sizes, &result).ok()) {
    std::vector<int64_t> unknown(sizes.size(), -1);
    (void)PartialTensorShape::BuildPartialTensorShape(unknown, &result);
  }
  return result;
}

// ---------------------------------------------------------------------------
// Scalars from tensors.

Status InferenceContext::GetScalarFromTensor(const Tensor* t, int64_t* val) {
  if (t == nullptr) return errors::InvalidArgument("Input tensor is not known");
  if (t->dims() != 0) {
    return errors::InvalidArgument("Input must be scalar but has rank ", t->dims());
  }
  if (!t->IsInitialized()) return errors::InvalidArgument("Input tensor has no data");
  if (t->dtype() == DT_INT32) {
    *val = t->scalar<int32>()();
    return Status::OK();
  }
  if (t->dtype() == DT_INT64) {
    *val = t->scalar<int64>()();
    return Status::OK();
  }
  return errors::InvalidArgument("Scalar input must be int32 or int64.");
}

Status InferenceContext::GetScalarFromTensor(const Tensor* t, int64_t idx, int64_t* val) {
  if (t == nullptr) return errors::InvalidArgument("Input tensor is not known");
  if (t->dims() != 1) {
    return errors::InvalidArgument("Input must be 1D but has rank ", t->dims());
  }
  if (idx < 0 || idx >= t->NumElements()) {
    return errors::InvalidArgument("Invalid index ", idx, " for Tensor of shape ",
                                   t->shape().DebugString());
  }
  if (!t->IsInitialized()) return errors::InvalidArgument("Input tensor has no data");
  if (t->dtype() == DT_INT32) {
    *val = t->flat<int32>()(idx);
    return Status::OK();
  }
  if (t->dtype() == DT_INT64) {
    *val = t->flat<int64>()(idx);
    return Status::OK();
  }
  return errors::InvalidArgument("Tensor input must be int32 or int64.");
}

Status InferenceContext::MakeDimForScalarInput(int idx, DimensionHandle* out) {
  const Tensor* t = input_tensor(idx);
  if (t == nullptr) {
    *out = UnknownDim();
    return Status::OK();
  }
  int64_t val = 0;
  OPKIT_RETURN_IF_ERROR(GetScalarFromTensor(t, &val));
  if (val < 0) {
    return errors::InvalidArgument("Dimension size, given by scalar input ", idx,
                                   ", must be non-negative but is ", val);
  }
  *out = MakeDim(val);
  return Status::OK();
}

Status InferenceContext::MakeDimForScalarInputWithNegativeIndexing(int idx, int input_rank,
                                                                   DimensionHandle* out) {
  const Tensor* t = input_tensor(idx);
  if (t == nullptr) {
    *out = UnknownDim();
    return Status::OK();
  }
  int64_t val = 0;
  OPKIT_RETURN_IF_ERROR(GetScalarFromTensor(t, &val));
  if (val < 0) {
    if (input_rank < 0) {
      *out = UnknownDim();
      return Status::OK();
    }
    if (val < -static_cast<int64_t>(input_rank)) {
      return errors::InvalidArgument("Dimension size, given by scalar input ", val,
                                     " must be in range [-", input_rank, ", ", input_rank, ")");
    }
    val += input_rank;
  } else if (input_rank >= 0 && val >= input_rank) {
    return errors::InvalidArgument("Dimension size, given by scalar input ", val,
                                   " must be in range [-", input_rank, ", ", input_rank, ")");
  }
  *out = MakeDim(val);
  return Status::OK();
}

// ---------------------------------------------------------------------------
// Dimension arithmetic.

Status InferenceContext::CheckOperand(DimensionOrConstant d, const char* fn) {
  if (!d.dim.IsSet() && d.val < kUnknownDim) {
    return errors::InvalidArgument(fn, ": dimension value must be non-negative or unknown (-1), got ",
                                   d.val);
  }
  return Status::OK();
}

Status InferenceContext::Divide(DimensionHandle dividend, DimensionOrConstant divisor,
                                bool evenly_divisible, DimensionHandle* out) {
  *out = DimensionHandle();
  const int64_t divisor_value = Value(divisor);
  if (divisor_value == 1) {
    *out = dividend.IsSet() ? dividend : UnknownDim();
    return Status::OK();
  }
  if (!ValueKnown(dividend) || (divisor.dim.IsSet() && !ValueKnown(divisor.dim))) {
    *out = UnknownDim();
    return Status::OK();
  }
  const int64_t dividend_value = Value(dividend);
  if (divisor_value <= 0) {
    return errors::InvalidArgument("Divisor must be positive but is ", divisor_value);
  }
  if (evenly_divisible && dividend_value % divisor_value != 0) {
    return errors::InvalidArgument("Dimension size must be evenly divisible by ",
                                   divisor_value, " but is ", dividend_value);
  }
  *out = MakeDim(dividend_value / divisor_value);
  return Status::OK();
}

Status InferenceContext::Add(DimensionHandle first, DimensionOrConstant second,
                             DimensionHandle* out) {
  *out = DimensionHandle();
  OPKIT_RETURN_IF_ERROR(CheckOperand(second, "Add"));
  const int64_t a = Value(first);
  const int64_t b = Value(second);
  if (b == 0) {
    *out = first.IsSet() ? first : UnknownDim();
  } else if (a == 0) {
    *out = MakeDim(second);
  } else if (a == kUnknownDim || b == kUnknownDim) {
    *out = UnknownDim();
  } else {
    int64_t sum = 0;
    if (__builtin_add_overflow(a, b, &sum)) {
      return errors::InvalidArgument("Dimension size overflow from adding ", a, " and ", b);
    }
    *out = MakeDim(sum);
  }
  return Status::OK();
}

Status InferenceContext::Subtract(DimensionHandle first, DimensionOrConstant second,
                                  DimensionHandle* out) {
  *out = DimensionHandle();
  OPKIT_RETURN_IF_ERROR(CheckOperand(second, "Subtract"));
  const int64_t a = Value(first);
  const int64_t b = Value(second);
  if (b == 0) {
    *out = first.IsSet() ? first : UnknownDim();
  } else if (a == kUnknownDim || b == kUnknownDim) {
    *out = UnknownDim();
  } else {
    if (a < b) {
      return errors::InvalidArgument("Negative dimension size caused by subtracting ", b,
                                     " from ", a);
    }
    *out = MakeDim(a - b);
  }
  return Status::OK();
}

Status InferenceContext::Multiply(DimensionHandle first, DimensionOrConstant second,
                                  DimensionHandle* out) {
  *out = DimensionHandle();
  OPKIT_RETURN_IF_ERROR(CheckOperand(second, "Multiply"));
  const int64_t a = Value(first);
  const int64_t b = Value(second);
  if (a == 0) {
    *out = first;
  } else if (b == 0) {
    *out = MakeDim(second);
  } else if (a == 1) {
    *out = MakeDim(second);
  } else if (b == 1) {
    *out = first.IsSet() ? first : UnknownDim();
  } else if (a == kUnknownDim || b == kUnknownDim) {
    *out = UnknownDim();
  } else {
    int64_t product = 0;
    if (__builtin_mul_overflow(a, b, &product)) {
      return errors::InvalidArgument(
          "Negative dimension size caused by overflow when multiplying ", a, " and ", b);
    }
    *out = MakeDim(product);
  }
  return Status::OK();
}

Status InferenceContext::Min(DimensionHandle first, DimensionOrConstant second,
                             DimensionHandle* out) {
  *out = DimensionHandle();
  OPKIT_RETURN_IF_ERROR(CheckOperand(second, "Min"));
  const int64_t a = Value(first);
  const int64_t b = Value(second);
  if (a == 0) {
    *out = first;
  } else if (b == 0) {
    *out = MakeDim(second);
  } else if (a == kUnknownDim || b == kUnknownDim) {
    *out = UnknownDim();
  } else {
    *out = a <= b ? first : MakeDim(second);
  }
  return Status::OK();
}

Status InferenceContext::Max(DimensionHandle first, DimensionOrConstant second,
                             DimensionHandle* out) {
  *out = DimensionHandle();
  OPKIT_RETURN_IF_ERROR(CheckOperand(second, "Max"));
  const int64_t a = Value(first);
  const int64_t b = Value(second);
  if (a == kUnknownDim || b == kUnknownDim) {
    *out = UnknownDim();
  } else {
    *out = a >= b ? first : MakeDim(second);
  }
  return Status::OK();
}

Status InferenceContext::ValidateKnownDim(DimensionHandle dim, const char* name) {
  if (!ValueKnown(dim)) {
    return errors::InvalidArgument("Cannot infer shape because dimension ",
                                   name ? name : "(unnamed)", " is not known.");
  }
  return Status::OK();
}

Status InferenceContext::ValidateSparseTensor(ShapeHandle indices_shape,
                                              ShapeHandle values_shape,
                                              ShapeHandle shape_shape) {
  ShapeHandle unused;
  OPKIT_RETURN_IF_ERROR(WithRank(indices_shape, 2, &unused));
  OPKIT_RETURN_IF_ERROR(WithRank(values_shape, 1, &unused));
  OPKIT_RETURN_IF_ERROR(WithRank(shape_shape, 1, &unused));
  const DimensionHandle num_index = Dim(indices_shape, 0);
  const DimensionHandle num_values = Dim(values_shape, 0);
  if (ValueKnown(num_index) && ValueKnown(num_values) && Value(num_index) != Value(num_values)) {
    return errors::InvalidArgument("Number of elements in index (", Value(num_index),
                                   ") and values (", Value(num_values), ") do not match.");
  }
  const DimensionHandle index_rank = Dim(indices_shape, 1);
  const DimensionHandle shape_rank = Dim(shape_shape, 0);
  if (ValueKnown(index_rank) && ValueKnown(shape_rank) && Value(index_rank) != Value(shape_rank)) {
    return errors::InvalidArgument("Index rank (", Value(index_rank), ") and shape rank (",
                                   Value(shape_rank), ") do not match.");
  }
  return Status::OK();
}

// ---------------------------------------------------------------------------
// Handle data.

const std::vector<ShapeAndType>* InferenceContext::input_handle_shapes_and_types(int idx) {
  if (idx < 0 || idx >= static_cast<int>(input_handle_shapes_and_types_.size())) return nullptr;
  return input_handle_shapes_and_types_[idx].get();
}

const std::vector<ShapeAndType>* InferenceContext::output_handle_shapes_and_types(int idx) {
  if (idx < 0 || idx >= static_cast<int>(output_handle_shapes_and_types_.size())) return nullptr;
  return output_handle_shapes_and_types_[idx].get();
}

void InferenceContext::set_output_handle_shapes_and_types(
    int idx, const std::vector<ShapeAndType>& shapes_and_types) {
  if (idx < 0 || idx >= static_cast<int>(output_handle_shapes_and_types_.size())) return;
  output_handle_shapes_and_types_[idx] =
      std::make_unique<std::vector<ShapeAndType>>(shapes_and_types);
}

}  // namespace shape_inference
}  // namespace opkit
