// InferenceContext: construction from a node's input shapes (as handles,
// PartialTensorShapes or TensorShapeProtos), running a shape function with
// TensorFlow's error context, inputs, outputs and resource handle data.
// The shape operations are split by concept: shape_inference_merge.cc
// (reading, checking, merging shapes), shape_inference_build.cc (making
// shapes, from values and tensors) and shape_inference_dims.cc (dimension
// arithmetic).
#include "opkit/shape/shape_inference.h"

#include <algorithm>
#include <exception>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "opkit/core/str_util.h"

namespace opkit {
namespace shape_inference {

namespace {

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

template <typename ShapeValue>
void InferenceContext::InitFromShapeValues(
    const OpDef& op_def, const std::vector<const Tensor*>& input_tensors,
    const std::vector<ShapeValue>& input_shapes,
    const std::vector<ShapeValue>& input_tensors_as_shapes,
    const std::vector<std::unique_ptr<std::vector<std::pair<ShapeValue, DataType>>>>&
        input_handle_shapes_and_types) {
  PreInputInit(op_def, input_tensors);
  auto convert = [this](const ShapeValue& p, ShapeHandle* s) {
    if constexpr (std::is_same_v<ShapeValue, PartialTensorShape>) {
      return MakeShapeFromPartialTensorShape(p, s);
    } else {
      return MakeShapeFromShapeProto(p, s);
    }
  };
  inputs_ = ConvertShapes(input_shapes, convert, &construction_status_);
  input_tensors_as_shapes_ =
      ConvertShapes(input_tensors_as_shapes, convert, &construction_status_);
  PostInputInit(ConvertHandleData(input_handle_shapes_and_types, convert,
                                  &construction_status_));
}

InferenceContext::InferenceContext(
    int graph_def_version, const AttrSlice& attrs, const OpDef& op_def,
    const std::vector<PartialTensorShape>& input_shapes,
    const std::vector<const Tensor*>& input_tensors,
    const std::vector<PartialTensorShape>& input_tensors_as_shapes,
    const std::vector<std::unique_ptr<std::vector<std::pair<PartialTensorShape, DataType>>>>&
        input_handle_shapes_and_types)
    : graph_def_version_(graph_def_version), attrs_(attrs), op_name_(op_def.name()) {
  InitFromShapeValues(op_def, input_tensors, input_shapes, input_tensors_as_shapes,
                      input_handle_shapes_and_types);
}

InferenceContext::InferenceContext(
    int graph_def_version, const AttrSlice& attrs, const OpDef& op_def,
    const std::vector<TensorShapeProto>& input_shapes,
    const std::vector<const Tensor*>& input_tensors,
    const std::vector<TensorShapeProto>& input_tensors_as_shapes,
    const std::vector<std::unique_ptr<std::vector<std::pair<TensorShapeProto, DataType>>>>&
        input_handle_shapes_and_types)
    : graph_def_version_(graph_def_version), attrs_(attrs), op_name_(op_def.name()) {
  InitFromShapeValues(op_def, input_tensors, input_shapes, input_tensors_as_shapes,
                      input_handle_shapes_and_types);
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
  std::string context =
      StrCat(" for '", SummarizeNode(), "' with input shapes: ", StrJoin(input_shapes, ", "));
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

std::string InferenceContext::SummarizeNode() const {
  // The node as TensorFlow prints it; without a NodeDef, the op and attrs.
  return attrs_.node_def() != nullptr ? attrs_.SummarizeNode()
                                      : StrCat(op_name_, attrs_.SummarizeNode());
}

std::string InferenceContext::DebugString() const {
  return StrCat("InferenceContext for node: ", SummarizeNode());
}

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
