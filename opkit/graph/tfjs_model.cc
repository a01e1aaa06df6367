// TF.js graph models: model.json + weight shards -> GraphDef.
//
// Note [TF.js graph models]
// The format, as tensorflowjs_converter writes it and tfjs-core reads it:
// model.json's `modelTopology` is a GraphDef in protobuf's JSON mapping whose
// Const nodes keep their `value` attr with dtype and shape but no values.
// `weightsManifest` is a list of groups {paths, weights}; the bytes of all
// groups' shard files, concatenated in order, hold the weights one after the
// other in manifest order, little-endian, each taking (elements x the byte
// size of its stored dtype), strings as a uint32 byte length + the bytes per
// element. The converter narrows int64 to int32, float64 to float32 and
// complex128 to complex64 when it writes weights, and the Const keeps its
// declared dtype, so the loader widens them back. The ops keep TensorFlow's
// names except two the converter invents: FusedDepthwiseConv2dNative
// (renamed to TensorFlow's _FusedDepthwiseConv2dNative) and Prelu (see
// ExpandPrelu).
#include "opkit/graph/tfjs_model.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <limits>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "google/protobuf/util/json_util.h"
#include "nlohmann/json.hpp"
#include "opkit/core/env.h"
#include "opkit/core/errors.h"
#include "opkit/core/logging.h"
#include "opkit/core/statusor.h"
#include "opkit/tensor/numeric_types.h"
#include "opkit/tensor/types.h"

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "TF.js weight shards are little-endian; the loader copies them "
              "as they are");

namespace opkit {
namespace {

using Json = nlohmann::ordered_json;

constexpr char kModelJson[] = "model.json";

// A weight's stored form: the dtype of its bytes and how many bytes each
// element takes (0 for strings, which carry their own lengths).
struct StoredType {
  DataType dtype = DT_INVALID;
  int64_t size = 0;
};

bool StoredTypeFromName(const std::string& name, StoredType* out) {
  static const std::pair<const char*, StoredType> kTypes[] = {
      {"float32", {DT_FLOAT, 4}},     {"int32", {DT_INT32, 4}},
      {"bool", {DT_BOOL, 1}},         {"complex64", {DT_COMPLEX64, 8}},
      {"string", {DT_STRING, 0}},     {"uint8", {DT_UINT8, 1}},
      {"uint16", {DT_UINT16, 2}},     {"float16", {DT_HALF, 2}},
  };
  for (const auto& [n, t] : kTypes) {
    if (name == n) {
      *out = t;
      return true;
    }
  }
  return false;
}

// One entry of the manifest, with where its bytes lie in the shard buffer.
struct WeightSpec {
  std::string name;
  std::vector<int64_t> shape;
  int64_t num_elements = 1;
  StoredType stored;            // of the bytes in the shards
  DataType dtype = DT_INVALID;  // of the decoded value
  bool quantized = false;
  double scale = 0, min = 0;    // uint8 / uint16 affine quantisation
};

std::string ShapeText(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    s += (i ? ", " : "") + std::to_string(shape[i]);
  }
  return s + "]";
}

// Reads weights[index] of the manifest. `where` names the file and entry.
Status ParseWeightSpec(const Json& w, const std::string& where,
                       WeightSpec* spec) {
  if (!w.is_object()) {
    return errors::InvalidArgument(where, " is not a JSON object; each weight "
                                   "needs name, shape and dtype");
  }
  auto name = w.find("name");
  if (name == w.end() || !name->is_string() ||
      name->get_ref<const std::string&>().empty()) {
    return errors::InvalidArgument(where, " has no \"name\" string");
  }
  spec->name = name->get<std::string>();
  const std::string who = StrCat(where, " ('", spec->name, "')");

  auto shape = w.find("shape");
  if (shape == w.end() || !shape->is_array()) {
    return errors::InvalidArgument(who, " has no \"shape\" list; give its "
                                   "dimensions, [] for a scalar");
  }
  spec->num_elements = 1;
  for (const Json& d : *shape) {
    if (!d.is_number_integer() ||
        (d.is_number_unsigned() &&
         d.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX))) {
      return errors::InvalidArgument(who, " has shape ", shape->dump(),
                                     "; dimensions must be integers that fit "
                                     "in int64");
    }
    const int64_t dim = d.get<int64_t>();
    if (dim < 0) {
      return errors::InvalidArgument(who, " has shape ", shape->dump(),
                                     " with a negative dimension; weights "
                                     "have fully known shapes");
    }
    if (__builtin_mul_overflow(spec->num_elements, dim, &spec->num_elements)) {
      return errors::InvalidArgument(who, " has shape ", shape->dump(),
                                     " whose number of elements overflows "
                                     "int64");
    }
    spec->shape.push_back(dim);
  }

  auto dtype = w.find("dtype");
  if (dtype == w.end() || !dtype->is_string()) {
    return errors::InvalidArgument(who, " has no \"dtype\" string");
  }
  const std::string dtype_name = dtype->get<std::string>();
  StoredType declared;
  if (!StoredTypeFromName(dtype_name, &declared)) {
    return errors::InvalidArgument(
        who, " has dtype '", dtype_name, "'; TF.js weights are float32, int32, "
        "bool, complex64, string, uint8, uint16 or float16");
  }
  spec->stored = declared;
  spec->dtype = declared.dtype;

  auto q = w.find("quantization");
  if (q == w.end() || q->is_null()) return OkStatus();
  if (!q->is_object()) {
    return errors::InvalidArgument(who, " has a \"quantization\" that is not "
                                   "a JSON object");
  }
  auto qdtype = q->find("dtype");
  const std::string qname =
      qdtype != q->end() && qdtype->is_string() ? qdtype->get<std::string>()
                                                : "";
  if (qname != "uint8" && qname != "uint16" && qname != "float16") {
    return errors::InvalidArgument(
        who, " has quantization dtype '",
        qdtype == q->end() ? "(none)" : qdtype->dump(),
        "'; TF.js quantises to uint8, uint16 or float16");
  }
  auto original = q->find("original_dtype");
  if (original != q->end() &&
      (!original->is_string() || original->get<std::string>() != dtype_name)) {
    return errors::InvalidArgument(who, " has dtype '", dtype_name,
                                   "' but quantization.original_dtype ",
                                   original->dump(), "; they must agree");
  }
  spec->quantized = true;
  StoredTypeFromName(qname, &spec->stored);
  if (qname == "float16") {
    if (spec->dtype != DT_FLOAT) {
      return errors::InvalidArgument(who, " is quantised to float16 but has "
                                     "dtype '", dtype_name,
                                     "'; only float32 weights can be");
    }
    return OkStatus();
  }
  if (spec->dtype != DT_FLOAT && spec->dtype != DT_INT32) {
    return errors::InvalidArgument(who, " is quantised to ", qname,
                                   " but has dtype '", dtype_name,
                                   "'; only float32 and int32 weights can be");
  }
  auto scale = q->find("scale");
  auto min = q->find("min");
  if (scale == q->end() || !scale->is_number() || min == q->end() ||
      !min->is_number()) {
    return errors::InvalidArgument(who, " is quantised to ", qname,
                                   " but its quantization lacks the numbers "
                                   "\"scale\" and \"min\"");
  }
  spec->scale = scale->get<double>();
  spec->min = min->get<double>();
  if (!std::isfinite(spec->scale) || !std::isfinite(spec->min)) {
    return errors::InvalidArgument(who, " has a quantization scale or min "
                                   "that is not finite");
  }
  return OkStatus();
}

// True when `path` (from the manifest) stays inside the model's folder: it
// is relative and no component is "..".
bool ShardPathIsInside(const std::string& path) {
  if (path.empty() || path[0] == '/' || path[0] == '\\') return false;
  if (path.find('\0') != std::string::npos) return false;
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find_first_of("/\\", start);
    if (end == std::string::npos) end = path.size();
    if (path.compare(start, end - start, "..") == 0 && end - start == 2) {
      return false;
    }
    start = end + 1;
  }
  return true;
}

// Decodes one weight from `bytes` (exactly its bytes; strings: from there to
// the end of the buffer, `*used` says how many it took) into `tensor`.
Status DecodeWeight(const WeightSpec& spec, std::string_view bytes,
                    const std::string& where, TensorProto* tensor,
                    uint64_t* used) {
  tensor->set_dtype(spec.dtype);
  for (int64_t d : spec.shape) tensor->mutable_tensor_shape()->add_dim()->set_size(d);
  const int64_t n = spec.num_elements;
  if (spec.stored.dtype == DT_STRING) {
    uint64_t offset = 0;
    for (int64_t i = 0; i < n; ++i) {
      uint32_t length = 0;
      if (bytes.size() - offset < 4) {
        return errors::InvalidArgument(
            where, ": the shards end inside string element ", i, " of ", n,
            " (its length field needs 4 bytes, ", bytes.size() - offset,
            " remain); the shards are shorter than the manifest says");
      }
      std::memcpy(&length, bytes.data() + offset, 4);
      offset += 4;
      if (bytes.size() - offset < length) {
        return errors::InvalidArgument(
            where, ": string element ", i, " of ", n, " is ", length,
            " bytes but only ", bytes.size() - offset,
            " remain in the shards; the shards are shorter than the manifest "
            "says");
      }
      tensor->add_string_val(bytes.data() + offset, length);
      offset += length;
    }
    *used = offset;
    return OkStatus();
  }
  *used = bytes.size();
  if (!spec.quantized) {
    std::string* content = tensor->mutable_tensor_content();
    content->assign(bytes.data(), bytes.size());
    if (spec.dtype == DT_BOOL) {
      for (char& c : *content) c = c != 0 ? 1 : 0;
    }
    return OkStatus();
  }
  std::string* content = tensor->mutable_tensor_content();
  content->resize(static_cast<size_t>(n) * 4);
  for (int64_t i = 0; i < n; ++i) {
    double q;
    if (spec.stored.dtype == DT_UINT8) {
      q = static_cast<unsigned char>(bytes[static_cast<size_t>(i)]);
    } else {
      uint16_t bits;
      std::memcpy(&bits, bytes.data() + 2 * i, 2);
      if (spec.stored.dtype == DT_HALF) {
        const float f = static_cast<float>(
            half(Eigen::half_impl::raw_uint16_to_half(bits)));
        std::memcpy(content->data() + 4 * i, &f, 4);
        continue;
      }
      q = bits;
    }
    // tfjs-core computes q * scale + min in double and stores it as float32,
    // or rounds it (half away from -inf, as Math.round) for int32 weights.
    const double v = q * spec.scale + spec.min;
    if (spec.dtype == DT_FLOAT) {
      const float f = static_cast<float>(v);
      std::memcpy(content->data() + 4 * i, &f, 4);
    } else {
      const double r = std::floor(v + 0.5);
      if (!(r >= INT32_MIN && r <= INT32_MAX)) {
        return errors::InvalidArgument(
            where, ": element ", i, " dequantises to ", v,
            ", outside int32; check the quantization scale and min");
      }
      const int32_t x = static_cast<int32_t>(r);
      std::memcpy(content->data() + 4 * i, &x, 4);
    }
  }
  return OkStatus();
}

// Converts a decoded weight to the wider dtype its Const declares.
template <typename From, typename To>
void WidenContent(TensorProto* t, DataType to) {
  const std::string& in = t->tensor_content();
  const size_t n = in.size() / sizeof(From);
  std::string out(n * sizeof(To), '\0');
  for (size_t i = 0; i < n; ++i) {
    From f;
    std::memcpy(&f, in.data() + i * sizeof(From), sizeof(From));
    const To v = static_cast<To>(f);
    std::memcpy(out.data() + i * sizeof(To), &v, sizeof(To));
  }
  t->set_tensor_content(std::move(out));
  t->set_dtype(to);
}

bool WidenTo(TensorProto* t, DataType to) {
  const DataType from = t->dtype();
  if (from == DT_INT32 && to == DT_INT64) {
    WidenContent<int32_t, int64_t>(t, to);
  } else if ((from == DT_FLOAT && to == DT_DOUBLE) ||
             (from == DT_COMPLEX64 && to == DT_COMPLEX128)) {
    WidenContent<float, double>(t, to);  // complex: (re, im) floats pairwise
  } else {
    return false;
  }
  return true;
}

// True when a Const's value already holds data (a hand-written model that
// kept it), so a missing weight is no error.
bool TensorHasValues(const TensorProto& t) {
  TensorProto values = t;
  values.clear_dtype();
  values.clear_tensor_shape();
  values.clear_version_number();
  return values.ByteSizeLong() > 0;
}

// Moves the weight named like `node` into its value (each weight fills one
// Const: node names are unique, and function Consts carry their function's
// name as a prefix).
Status FillConst(NodeDef* node,
                 std::unordered_map<std::string, TensorProto>* weights,
                 const std::string& source) {
  auto it = weights->find(node->name());
  if (it == weights->end()) {
    auto value = node->attr().find("value");
    if (value != node->attr().end() && TensorHasValues(value->second.tensor())) {
      return OkStatus();
    }
    return errors::InvalidArgument(
        source, ": Const node '", node->name(),
        "' has no value and the weightsManifest has no weight of that name; "
        "are all weight groups and shards present?");
  }
  TensorProto tensor = std::move(it->second);
  weights->erase(it);
  auto declared = node->attr().find("dtype");
  if (declared != node->attr().end() &&
      declared->second.value_case() == AttrValue::kType &&
      declared->second.type() != tensor.dtype() &&
      !WidenTo(&tensor, declared->second.type())) {
    return errors::InvalidArgument(
        source, ": Const node '", node->name(), "' has dtype ",
        DataTypeString(declared->second.type()), " but its weight is ",
        DataTypeString(tensor.dtype()), "; the model and its weights disagree");
  }
  (*node->mutable_attr())["dtype"].set_type(tensor.dtype());
  *(*node->mutable_attr())["value"].mutable_tensor() = std::move(tensor);
  return OkStatus();
}

// A name not yet in `names`, from `base`; added to `names`.
std::string UniqueName(const std::string& base,
                       std::unordered_set<std::string>* names) {
  std::string name = base;
  for (int i = 1; !names->insert(name).second; ++i) {
    name = StrCat(base, "_", i);
  }
  return name;
}

// Replaces the converter's Prelu node (inputs x, alpha; no attrs) with
//   N/relu = Relu(x); N/negative = Sub(x, N/relu)  (= min(x, 0))
//   N/scaled = Mul(alpha, N/negative); N = AddV2(N/relu, N/scaled)
// which is x for x >= 0 and alpha * x below, exactly (x - x is 0, 0 + a is
// a), as TF.js computes it. The last node keeps the name, so consumers of
// "N" and "N:0" are unchanged. T defaults to float, the only type the
// converter's Prelu takes.
Status ExpandPrelu(const NodeDef& prelu, const std::string& source,
                   std::unordered_set<std::string>* names,
                   std::vector<NodeDef>* out) {
  std::vector<std::string> data, control;
  for (const std::string& in : prelu.input()) {
    (!in.empty() && in[0] == '^' ? control : data).push_back(in);
  }
  if (data.size() != 2) {
    return errors::InvalidArgument(
        source, ": Prelu node '", prelu.name(), "' has ", data.size(),
        " data inputs; it takes two, x and alpha");
  }
  AttrValue t;
  auto given = prelu.attr().find("T");
  if (given != prelu.attr().end()) {
    t = given->second;
  } else {
    t.set_type(DT_FLOAT);
  }
  auto make = [&](const std::string& name, const char* op,
                  std::vector<std::string> inputs) {
    NodeDef n;
    n.set_name(name);
    n.set_op(op);
    n.set_device(prelu.device());
    for (std::string& in : inputs) n.add_input(std::move(in));
    (*n.mutable_attr())["T"] = t;
    out->push_back(std::move(n));
  };
  const std::string relu = UniqueName(prelu.name() + "/relu", names);
  const std::string negative = UniqueName(prelu.name() + "/negative", names);
  const std::string scaled = UniqueName(prelu.name() + "/scaled", names);
  std::vector<std::string> relu_inputs{data[0]};
  relu_inputs.insert(relu_inputs.end(), control.begin(), control.end());
  make(relu, "Relu", relu_inputs);
  make(negative, "Sub", {data[0], relu});
  make(scaled, "Mul", {data[1], negative});
  make(prelu.name(), "AddV2", {relu, scaled});
  return OkStatus();
}

// The converter also fuses a Prelu into a fused convolution or product:
// _FusedConv2D / _FusedDepthwiseConv2dNative / _FusedMatMul with fused_ops
// [..., "Prelu"] and alpha as the last arg. TensorFlow's kernels take no
// Prelu, so the node is split: N/prelu_input keeps the op without the Prelu
// (its other fused ops stay; with none left it becomes the plain op), and
// the Prelu is expanded after it under the name N. True when `n` was split
// (its nodes appended to `out`).
StatusOr<bool> SplitFusedPrelu(const NodeDef& n, const std::string& source,
                               std::unordered_set<std::string>* names,
                               std::vector<NodeDef>* out) {
  static const char* const kFused[][2] = {
      {"_FusedConv2D", "Conv2D"},
      {"_FusedDepthwiseConv2dNative", "DepthwiseConv2dNative"},
      {"_FusedMatMul", "MatMul"}};
  const char* plain = nullptr;
  for (const auto& f : kFused) {
    if (n.op() == f[0]) plain = f[1];
  }
  if (plain == nullptr) return false;
  auto ops = n.attr().find("fused_ops");
  if (ops == n.attr().end() || ops->second.list().s_size() == 0 ||
      ops->second.list().s(ops->second.list().s_size() - 1) != "Prelu") {
    return false;
  }
  std::vector<std::string> data, control;
  for (const std::string& in : n.input()) {
    (!in.empty() && in[0] == '^' ? control : data).push_back(in);
  }
  if (data.size() < 3) {
    return errors::InvalidArgument(
        source, ": node '", n.name(), "' (", n.op(),
        ") fuses a Prelu but has no alpha input (", data.size(),
        " data inputs)");
  }
  NodeDef base = n;
  base.set_name(UniqueName(n.name() + "/prelu_input", names));
  base.clear_input();
  for (size_t i = 0; i + 1 < data.size(); ++i) base.add_input(data[i]);
  for (const std::string& c : control) base.add_input(c);
  auto* list = (*base.mutable_attr())["fused_ops"].mutable_list();
  list->mutable_s()->RemoveLast();
  if (list->s_size() == 0) {
    base.set_op(plain);
    for (const char* attr : {"fused_ops", "num_args", "epsilon",
                             "leakyrelu_alpha"}) {
      base.mutable_attr()->erase(attr);
    }
  } else {
    (*base.mutable_attr())["num_args"].set_i(
        static_cast<int64_t>(data.size()) - 3);
  }
  NodeDef prelu;
  prelu.set_name(n.name());
  prelu.set_op("Prelu");
  prelu.set_device(n.device());
  prelu.add_input(base.name());
  prelu.add_input(data.back());
  auto t = n.attr().find("T");
  if (t != n.attr().end()) (*prelu.mutable_attr())["T"] = t->second;
  out->push_back(std::move(base));
  OPKIT_RETURN_IF_ERROR(ExpandPrelu(prelu, source, names, out));
  return true;
}

// Op renames and expansions of Note [TF.js graph models].
Status MapConverterOps(GraphDef* graph_def, const std::string& source) {
  for (FunctionDef& f : *graph_def->mutable_library()->mutable_function()) {
    for (NodeDef& n : *f.mutable_node_def()) {
      if (n.op() == "FusedDepthwiseConv2dNative") n.set_op("_FusedDepthwiseConv2dNative");
    }
  }
  bool has_prelu = false;
  std::unordered_set<std::string> names;
  for (NodeDef& n : *graph_def->mutable_node()) {
    if (n.op() == "FusedDepthwiseConv2dNative") n.set_op("_FusedDepthwiseConv2dNative");
    has_prelu |= n.op() == "Prelu";
    auto ops = n.attr().find("fused_ops");
    has_prelu |= ops != n.attr().end() && ops->second.list().s_size() > 0 &&
                 ops->second.list().s(ops->second.list().s_size() - 1) == "Prelu";
    names.insert(n.name());
  }
  if (!has_prelu) return OkStatus();
  std::vector<NodeDef> nodes;
  nodes.reserve(static_cast<size_t>(graph_def->node_size()) + 8);
  for (NodeDef& n : *graph_def->mutable_node()) {
    if (n.op() == "Prelu") {
      OPKIT_RETURN_IF_ERROR(ExpandPrelu(n, source, &names, &nodes));
      continue;
    }
    OPKIT_ASSIGN_OR_RETURN(bool split,
                           SplitFusedPrelu(n, source, &names, &nodes));
    if (!split) nodes.push_back(std::move(n));
  }
  graph_def->clear_node();
  for (NodeDef& n : nodes) *graph_def->add_node() = std::move(n);
  return OkStatus();
}

Status ParseTensorInfos(const Json& map, const std::string& where,
                        std::vector<TfjsTensorInfo>* out) {
  if (map.is_null()) return OkStatus();
  if (!map.is_object()) {
    return errors::InvalidArgument(where, " is not a JSON object of TensorInfos");
  }
  for (const auto& [key, info] : map.items()) {
    TfjsTensorInfo t;
    t.key = key;
    if (!info.is_object()) {
      return errors::InvalidArgument(where, "['", key, "'] is not a JSON object");
    }
    auto name = info.find("name");
    if (name == info.end() || !name->is_string()) {
      return errors::InvalidArgument(where, "['", key,
                                     "'] has no \"name\" (the graph tensor, "
                                     "e.g. \"x:0\")");
    }
    t.tensor_name = name->get<std::string>();
    auto dtype = info.find("dtype");
    if (dtype != info.end()) {
      if (!dtype->is_string() ||
          !DataType_Parse(dtype->get<std::string>(), &t.dtype)) {
        return errors::InvalidArgument(where, "['", key, "'] has dtype ",
                                       dtype->dump(), "; expected a DataType "
                                       "name such as \"DT_FLOAT\"");
      }
    }
    auto shape = info.find("tensorShape");
    if (shape == info.end()) {
      t.shape.set_unknown_rank(true);
    } else {
      google::protobuf::util::JsonParseOptions options;
      options.ignore_unknown_fields = true;
      auto st = google::protobuf::util::JsonStringToMessage(shape->dump(),
                                                            &t.shape, options);
      if (!st.ok()) {
        return errors::InvalidArgument(where, "['", key,
                                       "'].tensorShape is not a "
                                       "TensorShapeProto: ", st.ToString());
      }
    }
    out->push_back(std::move(t));
  }
  return OkStatus();
}

std::string StringField(const Json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

Status ParseModel(std::string_view model_json, const std::string& model_dir,
                  const std::string& source, GraphDef* graph_def,
                  TfjsSignature* signature) {
  Json model;
  try {
    model = Json::parse(model_json.begin(), model_json.end());
  } catch (const Json::parse_error& e) {
    return errors::InvalidArgument(source, " is not valid JSON (at byte ", e.byte,
                                   "): ", e.what());
  }
  if (!model.is_object()) {
    return errors::InvalidArgument(source, " holds JSON but not an object; a "
                                   "TF.js graph model's model.json is an object "
                                   "with modelTopology and weightsManifest");
  }
  const std::string format = StringField(model, "format");
  if (!format.empty() && format != "graph-model") {
    return errors::InvalidArgument(
        source, " is a TF.js model of format '", format,
        "'; only graph models (\"graph-model\", from tensorflowjs_converter "
        "--output_format=tfjs_graph_model) can be loaded");
  }
  auto topology = model.find("modelTopology");
  if (topology == model.end() || topology->is_null()) {
    return errors::InvalidArgument(source, " has no modelTopology; is it a "
                                   "weights manifest rather than a model.json?");
  }
  if (!topology->is_object() || topology->contains("class_name") ||
      topology->contains("model_config")) {
    return errors::InvalidArgument(
        source, ": modelTopology is not a GraphDef (a Keras layers model?); "
        "convert the model with --output_format=tfjs_graph_model");
  }
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = true;
  graph_def->Clear();
  auto st = google::protobuf::util::JsonStringToMessage(topology->dump(),
                                                        graph_def, options);
  if (!st.ok()) {
    graph_def->Clear();
    return errors::InvalidArgument(source, ": modelTopology is not a GraphDef "
                                   "in protobuf's JSON mapping: ", st.ToString());
  }
  if (model.contains("modelInitializer")) {
    OPKIT_LOG(WARNING) << source << " has a modelInitializer graph; opkit does "
                       << "not run it (tables it initialises stay empty)";
  }

  // The manifest, then the shards.
  std::vector<WeightSpec> specs;
  std::string buffer;
  auto manifest = model.find("weightsManifest");
  if (manifest != model.end() && !manifest->is_null()) {
    if (!manifest->is_array()) {
      return errors::InvalidArgument(source, ": weightsManifest is not a list "
                                     "of weight groups");
    }
    for (size_t g = 0; g < manifest->size(); ++g) {
      const Json& group = (*manifest)[g];
      const std::string gwhere = StrCat(source, ": weightsManifest[", g, "]");
      if (!group.is_object()) {
        return errors::InvalidArgument(gwhere, " is not a JSON object");
      }
      auto paths = group.find("paths");
      auto weights = group.find("weights");
      if (paths == group.end() || !paths->is_array() || weights == group.end() ||
          !weights->is_array()) {
        return errors::InvalidArgument(gwhere, " needs the lists \"paths\" and "
                                       "\"weights\"");
      }
      for (size_t p = 0; p < paths->size(); ++p) {
        const Json& path = (*paths)[p];
        if (!path.is_string() || !ShardPathIsInside(path.get<std::string>())) {
          return errors::InvalidArgument(
              gwhere, ".paths[", p, "] = ", path.dump(),
              " is not a path inside the model's folder; shard paths are "
              "relative to model.json and may not be absolute or contain '..'");
        }
        const std::string file = StrCat(model_dir, "/", path.get<std::string>());
        std::string shard;
        Status s = ReadFileToString(file, &shard);
        if (!s.ok()) {
          return Status(s.code(), StrCat(source, ": cannot read weight shard '",
                                         path.get<std::string>(), "': ",
                                         s.message()));
        }
        buffer += shard;
      }
      for (size_t w = 0; w < weights->size(); ++w) {
        WeightSpec spec;
        OPKIT_RETURN_IF_ERROR(ParseWeightSpec(
            (*weights)[w], StrCat(gwhere, ".weights[", w, "]"), &spec));
        specs.push_back(std::move(spec));
      }
    }
  }

  // Decode the weights, in order, from the buffer.
  std::unordered_map<std::string, TensorProto> decoded;
  uint64_t offset = 0;
  for (const WeightSpec& spec : specs) {
    const std::string where = StrCat(source, ": weight '", spec.name, "'");
    if (decoded.count(spec.name) != 0) {
      return errors::InvalidArgument(where, " appears twice in the "
                                     "weightsManifest; weight names are unique");
    }
    const std::string_view rest(buffer.data() + offset, buffer.size() - offset);
    std::string_view bytes = rest;
    if (spec.stored.dtype != DT_STRING) {
      int64_t need;
      if (__builtin_mul_overflow(spec.num_elements, spec.stored.size, &need)) {
        return errors::InvalidArgument(where, " of shape ", ShapeText(spec.shape),
                                       " needs more bytes than int64 holds");
      }
      if (static_cast<uint64_t>(need) > rest.size()) {
        return errors::InvalidArgument(
            where, " (", DataTypeString(spec.stored.dtype), ", shape ",
            ShapeText(spec.shape), ") needs ", need, " bytes at offset ", offset,
            " but the shards hold ", buffer.size(), " bytes in all; a shard is "
            "missing or truncated, or the manifest's shape or dtype is wrong");
      }
      bytes = rest.substr(0, static_cast<size_t>(need));
    }
    TensorProto tensor;
    uint64_t used = 0;
    OPKIT_RETURN_IF_ERROR(DecodeWeight(spec, bytes, where, &tensor, &used));
    offset += used;
    decoded.emplace(spec.name, std::move(tensor));
  }
  if (offset != buffer.size()) {
    return errors::InvalidArgument(
        source, ": the weight shards hold ", buffer.size(), " bytes but the "
        "weightsManifest's weights take ", offset, "; the shards do not match "
        "the manifest (wrong shapes or dtypes, or extra data)");
  }

  for (NodeDef& n : *graph_def->mutable_node()) {
    if (n.op() == "Const") OPKIT_RETURN_IF_ERROR(FillConst(&n, &decoded, source));
  }
  for (FunctionDef& f : *graph_def->mutable_library()->mutable_function()) {
    for (NodeDef& n : *f.mutable_node_def()) {
      if (n.op() == "Const") OPKIT_RETURN_IF_ERROR(FillConst(&n, &decoded, source));
    }
  }
  OPKIT_RETURN_IF_ERROR(MapConverterOps(graph_def, source));

  if (signature != nullptr) {
    *signature = TfjsSignature();
    signature->format = format;
    signature->generated_by = StringField(model, "generatedBy");
    signature->converted_by = StringField(model, "convertedBy");
    auto sig = model.find("signature");
    if (sig != model.end() && !sig->is_null()) {
      if (!sig->is_object()) {
        return errors::InvalidArgument(source, ": signature is not a JSON object");
      }
      auto inputs = sig->find("inputs");
      auto outputs = sig->find("outputs");
      if (inputs != sig->end()) {
        OPKIT_RETURN_IF_ERROR(ParseTensorInfos(
            *inputs, StrCat(source, ": signature.inputs"), &signature->inputs));
      }
      if (outputs != sig->end()) {
        OPKIT_RETURN_IF_ERROR(ParseTensorInfos(
            *outputs, StrCat(source, ": signature.outputs"), &signature->outputs));
      }
    }
  }
  return OkStatus();
}

}  // namespace

bool LooksLikeTfjsModelJson(std::string_view data) {
  for (char c : data) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') continue;
    return c == '{';
  }
  return false;
}

Status ParseTfjsGraphModel(std::string_view model_json,
                           const std::string& model_dir,
                           const std::string& source_name, GraphDef* graph_def,
                           TfjsSignature* signature) {
  // nlohmann-json reports through exceptions; none may leave this function.
  try {
    Status s = ParseModel(model_json, model_dir.empty() ? "." : model_dir,
                          source_name, graph_def, signature);
    if (!s.ok()) graph_def->Clear();
    return s;
  } catch (const std::exception& e) {
    graph_def->Clear();
    return errors::InvalidArgument(source_name, ": malformed model.json: ",
                                   e.what());
  }
}

Status ReadTfjsGraphModel(const std::string& model_json_path,
                          GraphDef* graph_def, TfjsSignature* signature) {
  std::error_code ec;
  std::filesystem::path path(model_json_path);
  if (std::filesystem::is_directory(path, ec)) {
    path /= kModelJson;
    if (!FileExists(path.string())) {
      return errors::NotFound(
          "'", model_json_path, "' is a folder without a ", kModelJson,
          "; give a GraphDef file (.pb, .pbtxt) or a TensorFlow.js graph "
          "model (its model.json or the folder holding it)");
    }
  }
  std::string text;
  OPKIT_RETURN_IF_ERROR(ReadFileToString(path.string(), &text));
  return ParseTfjsGraphModel(text, path.parent_path().string(), path.string(),
                             graph_def, signature);
}

}  // namespace opkit
