// INFER_OK / INFER_ERROR: TensorFlow's shape-function test syntax over an op's
// registered shape function.
#include "opkit/shape/shape_inference_testutil.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <memory>

#include "opkit/core/errors.h"
#include "opkit/core/str_util.h"
#include "opkit/op/node_def_util.h"

namespace opkit {
namespace shape_inference {

namespace {

std::vector<std::string> SplitOn(std::string_view s, char sep) {
  std::vector<std::string> parts;
  size_t begin = 0;
  while (true) {
    const size_t pos = s.find(sep, begin);
    if (pos == std::string_view::npos) {
      parts.emplace_back(s.substr(begin));
      return parts;
    }
    parts.emplace_back(s.substr(begin, pos - begin));
    begin = pos + 1;
  }
}

bool ParseInt64(std::string_view s, int64_t* out) {
  if (s.empty() || s.size() > 20) return false;
  std::string str(s);
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(str.c_str(), &end, 10);
  if (errno != 0 || end != str.c_str() + str.size()) return false;
  *out = v;
  return true;
}

bool Contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

}  // namespace

Status ShapeInferenceTestutil::ParseShape(std::string_view spec, PartialTensorShape* out) {
  if (spec == "?") {
    *out = PartialTensorShape();
    return Status::OK();
  }
  if (spec.size() < 2 || spec.front() != '[' || spec.back() != ']') {
    return errors::InvalidArgument("Bad shape spec '", spec,
                                   "': expected '?' or '[d,...]' with d a size or '?'");
  }
  std::string_view body = spec.substr(1, spec.size() - 2);
  std::vector<int64_t> sizes;
  if (!body.empty()) {
    for (const std::string& d : SplitOn(body, ',')) {
      if (d == "?") {
        sizes.push_back(-1);
        continue;
      }
      int64_t v = 0;
      if (!ParseInt64(d, &v) || v < 0) {
        return errors::InvalidArgument("Bad dimension '", d, "' in shape spec '", spec,
                                       "': expected a size >= 0 or '?'");
      }
      sizes.push_back(v);
    }
  }
  return PartialTensorShape::BuildPartialTensorShape(sizes, out);
}

Status ShapeInferenceTestutil::InferShapes(ShapeInferenceTestOp op, const std::string& ins,
                                           const std::string& expected_outs) {
  const OpRegistryInterface* registry =
      op.registry != nullptr ? op.registry : OpRegistry::Global();
  const OpRegistrationData* op_reg_data = nullptr;
  OPKIT_RETURN_IF_ERROR(registry->LookUp(op.name, &op_reg_data));
  if (!op_reg_data->shape_inference_fn) {
    return errors::InvalidArgument("No shape inference function exists for op '", op.name,
                                   "', did you forget to define it?");
  }
  if (op.node_def.op().empty()) op.node_def.set_op(op.name);
  AddDefaultsToNodeDef(op_reg_data->op_def, &op.node_def);

  std::vector<PartialTensorShape> input_shapes;
  if (!ins.empty()) {
    for (const std::string& spec : SplitOn(ins, ';')) {
      PartialTensorShape shape;
      OPKIT_RETURN_IF_ERROR(ParseShape(spec, &shape));
      input_shapes.push_back(shape);
    }
  }
  std::vector<std::unique_ptr<std::vector<std::pair<PartialTensorShape, DataType>>>> handle_data;
  for (const auto* entry : op.input_resource_handle_shapes_and_types) {
    handle_data.push_back(
        entry ? std::make_unique<std::vector<std::pair<PartialTensorShape, DataType>>>(*entry)
              : nullptr);
  }
  if (!handle_data.empty()) handle_data.resize(input_shapes.size());

  InferenceContext c(op.graph_def_version, op.node_def, op_reg_data->op_def, input_shapes,
                     op.input_tensors, {}, handle_data);
  OPKIT_RETURN_IF_ERROR(c.construction_status());
  OPKIT_RETURN_IF_ERROR(c.Run(op_reg_data->shape_inference_fn));

  if (expected_outs == "e") {
    return errors::Unknown("Shape inference should have returned error");
  }

  const std::vector<std::string> expected = SplitOn(expected_outs, ';');
  const int num_outputs = c.num_outputs();
  if (expected_outs.empty() ? num_outputs != 0
                            : static_cast<int>(expected.size()) != num_outputs) {
    return errors::Unknown("Wrong number of expected outputs (",
                           expected_outs.empty() ? 0 : expected.size(), " vs ", num_outputs,
                           ")");
  }
  for (int i = 0; i < num_outputs; ++i) {
    const std::string& exp = expected[i];
    const ShapeHandle out = c.output(i);
    const std::string err_suffix = StrCat("; output shape was ", c.DebugString(out));
    if (!out.IsSet()) {
      return errors::Unknown("Output ", i, " was not set by the shape function");
    }

    int in_index = -1;
    for (int j = 0; j < c.num_inputs(); ++j) {
      if (c.input(j).SameHandle(out)) in_index = j;
    }
    if (exp.rfind("in", 0) == 0) {
      if (in_index == -1) {
        return errors::Unknown("Output ", i, " did not match any input shape", err_suffix);
      }
      if (!Contains(SplitOn(exp, '|'), StrCat("in", in_index))) {
        return errors::Unknown("Output ", i, " matched input ", in_index,
                               " and should have matched one of (", exp, ")", err_suffix);
      }
      continue;
    }
    if (in_index != -1) {
      return errors::Unknown("Output ", i, " matched input ", in_index,
                             " and should have not matched an input shape", err_suffix);
    }
    if (exp == "?") {
      if (c.RankKnown(out)) {
        return errors::Unknown("Output ", i, " expected to be unknown", err_suffix);
      }
      continue;
    }
    if (exp.size() < 2 || exp.front() != '[' || exp.back() != ']') {
      return errors::InvalidArgument("Bad expected output spec '", exp, "' for output ", i,
                                     ": expected '?', 'inN' or '[...]'");
    }
    const std::string body = exp.substr(1, exp.size() - 2);
    const std::vector<std::string> dims =
        body.empty() ? std::vector<std::string>() : SplitOn(body, ',');
    if (!c.RankKnown(out)) {
      return errors::Unknown("Output ", i, " expected rank ", dims.size(), " but was ?",
                             err_suffix);
    }
    if (c.Rank(out) != static_cast<int32_t>(dims.size())) {
      return errors::Unknown("Output ", i, " expected rank ", dims.size(), " but was ",
                             c.Rank(out), err_suffix);
    }
    for (size_t j = 0; j < dims.size(); ++j) {
      const std::string prefix = StrCat("Output dim ", i, ",", j);
      const std::string& exp_dim = dims[j];
      const DimensionHandle out_dim = c.Dim(out, static_cast<int64_t>(j));

      int in_i = -1;
      int in_j = -1;
      for (int k = 0; k < c.num_inputs(); ++k) {
        const ShapeHandle in = c.input(k);
        for (int m = 0; m < c.Rank(in); ++m) {
          if (c.Dim(in, m).SameHandle(out_dim)) {
            in_i = k;
            in_j = m;
          }
        }
      }

      if (exp_dim == "?") {
        if (in_i != -1) {
          return errors::Unknown(prefix, " expected to be unknown but matched input d", in_i,
                                 "_", in_j, err_suffix);
        }
        if (c.ValueKnown(out_dim)) {
          return errors::Unknown(prefix, " expected to be unknown but was ",
                                 c.Value(out_dim), err_suffix);
        }
      } else if (exp_dim.rfind("d", 0) == 0) {
        if (in_i == -1) {
          return errors::Unknown(prefix, " did not match any input dim", err_suffix);
        }
        if (!Contains(SplitOn(exp_dim, '|'), StrCat("d", in_i, "_", in_j))) {
          return errors::Unknown(prefix, " matched input d", in_i, "_", in_j,
                                 " and should have matched one of ", exp_dim, err_suffix);
        }
      } else {
        int64_t value = -1;
        if (!ParseInt64(exp_dim, &value)) {
          return errors::InvalidArgument(prefix, " expected dim '", exp_dim,
                                         "' failed to parse as int64", err_suffix);
        }
        if (in_i != -1) {
          return errors::Unknown(prefix, " expected to be ", value, " but matched input d",
                                 in_i, "_", in_j, err_suffix);
        }
        if (value != c.Value(out_dim)) {
          return errors::Unknown(prefix, " expected to be ", value, " but was ",
                                 c.DebugString(out_dim), err_suffix);
        }
      }
    }
  }
  return Status::OK();
}

}  // namespace shape_inference
}  // namespace opkit
