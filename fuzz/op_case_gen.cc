// See op_case_gen.h. Note [Op fuzz sizes] explains why every made tensor is
// small while the sizes kernels see are not.
#include "fuzz/op_case_gen.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "opkit/attr_value.pb.h"
#include "opkit/graph.pb.h"
#include "opkit/kernel/kernel_registry.h"
#include "opkit/kernel_def.pb.h"
#include "opkit/node_def.pb.h"
#include "opkit/op/op_registry.h"
#include "opkit/runtime/session.h"
#include "opkit/tensor/allocation_limit.h"
#include "opkit/tensor/tensor_shape.h"
#include "opkit/tensor/types.h"

namespace opkit {
namespace fuzz {
namespace {

// Dtypes an input or a type attr may take when the generator strays from
// what the op allows.
constexpr DataType kAnyTypes[] = {
    DT_FLOAT, DT_DOUBLE, DT_INT32, DT_INT64, DT_UINT8, DT_INT8, DT_INT16,
    DT_UINT16, DT_UINT32, DT_UINT64, DT_BOOL, DT_HALF, DT_BFLOAT16,
    DT_STRING, DT_COMPLEX64, DT_COMPLEX128, DT_RESOURCE, DT_VARIANT};

constexpr int64_t kHugeDim = int64_t{1} << 40;

int64_t SpecialInt(OpCaseBytes* b) {
  switch (b->Below(24)) {
    case 0: return -1;
    case 1: return std::numeric_limits<int32_t>::min();
    case 2: return std::numeric_limits<int32_t>::max();
    case 3: return std::numeric_limits<int64_t>::min();
    case 4: return std::numeric_limits<int64_t>::max();
    case 5: return kHugeDim;
    case 6: return int64_t{1} << 20;
    case 7: return -2;
    case 8: return -9;
    case 9: return 9;
    default: return b->Below(6);  // 0..5: the usual axes, sizes, counts
  }
}

double SpecialFloat(OpCaseBytes* b) {
  switch (b->Below(20)) {
    case 0: return std::numeric_limits<double>::quiet_NaN();
    case 1: return std::numeric_limits<double>::infinity();
    case 2: return -std::numeric_limits<double>::infinity();
    case 3: return 1e30;
    case 4: return -1e30;
    case 5: return std::numeric_limits<double>::denorm_min();
    case 6: return 0.5;
    case 7: return -0.0;
    default: return static_cast<double>(b->Below(9)) - 3.0;
  }
}

// An int element: mostly small (indices, axes, sizes), sometimes one of the
// edge values, clamped into T's range by wrapping as a cast would.
template <typename T>
T IntElement(OpCaseBytes* b) {
  if (b->OneIn(3)) return static_cast<T>(SpecialInt(b));
  return static_cast<T>(static_cast<int>(b->Below(8)) - 2);
}

template <typename T>
void FillInts(Tensor* t, OpCaseBytes* b) {
  auto* p = static_cast<T*>(t->data());
  for (int64_t i = 0; i < t->NumElements(); ++i) p[i] = IntElement<T>(b);
}

template <typename T>
void FillFloats(Tensor* t, OpCaseBytes* b) {
  auto* p = static_cast<T*>(t->data());
  for (int64_t i = 0; i < t->NumElements(); ++i) {
    p[i] = static_cast<T>(SpecialFloat(b));
  }
}

void FillValues(Tensor* t, OpCaseBytes* b) {
  switch (t->dtype()) {
    case DT_FLOAT: FillFloats<float>(t, b); return;
    case DT_DOUBLE: FillFloats<double>(t, b); return;
    case DT_INT32: FillInts<int32_t>(t, b); return;
    case DT_INT64: FillInts<int64_t>(t, b); return;
    case DT_INT16: FillInts<int16_t>(t, b); return;
    case DT_INT8: FillInts<int8_t>(t, b); return;
    case DT_UINT8: FillInts<uint8_t>(t, b); return;
    case DT_UINT16: FillInts<uint16_t>(t, b); return;
    case DT_UINT32: FillInts<uint32_t>(t, b); return;
    case DT_UINT64: FillInts<uint64_t>(t, b); return;
    case DT_BOOL: {
      auto* p = static_cast<bool*>(t->data());
      for (int64_t i = 0; i < t->NumElements(); ++i) p[i] = b->Next() & 1;
      return;
    }
    case DT_STRING: {
      static const char* const kStrings[] = {"", "a", "NHWC", "\xff\xfe",
                                             "long string value here"};
      auto* p = static_cast<tstring*>(t->data());
      for (int64_t i = 0; i < t->NumElements(); ++i) p[i] = kStrings[b->Below(5)];
      return;
    }
    case DT_RESOURCE:
    case DT_VARIANT:
      return;  // default-constructed handles and values: kernels must refuse
    default: {
      // half, bfloat16, complex, quantized: raw bits, so NaN and Inf too.
      auto* p = static_cast<uint8_t*>(t->data());
      if (p == nullptr) return;
      for (size_t i = 0; i < t->TotalBytes(); ++i) p[i] = b->Next();
      return;
    }
  }
}

// A shape with at most kMaxInputElements elements: mostly rank 0-2 with
// dims 0-4, up to rank 8, and sometimes an empty shape with a huge dim.
std::vector<int64_t> InputDims(OpCaseBytes* b) {
  int rank;
  const int r = b->Below(16);
  if (r < 4) rank = 0;
  else if (r < 9) rank = 1;
  else if (r < 12) rank = 2;
  else if (r < 15) rank = 3 + b->Below(2);
  else rank = 5 + b->Below(4);
  std::vector<int64_t> dims(rank);
  int64_t elements = 1;
  for (int i = 0; i < rank; ++i) {
    int64_t d = b->Below(5);
    if (d > 0 && elements * d > kMaxInputElements) d = 1;
    dims[i] = d;
    elements *= d;
  }
  if (elements == 0 && rank >= 2 && b->OneIn(4)) {
    for (int64_t& d : dims) {
      if (d != 0) {
        d = kHugeDim;
        break;
      }
    }
  }
  return dims;
}

// Input args that kernels want as scalars, by name; such an input is a
// scalar most of the time so that cases get past that check.
bool ScalarByName(const std::string& arg) {
  static const char* const kScalarNames[] = {
      "axis", "dim", "depth", "threshold", "max_output_size", "start",
      "limit", "delta", "on_value", "off_value", "index", "sigma", "k",
      "constant_values", "size", "num_elements"};
  for (const char* n : kScalarNames) {
    if (arg == n || arg.find(std::string(n) + "_") == 0 ||
        (std::strlen(n) > 2 && arg.find(n) != std::string::npos)) {
      return true;
    }
  }
  return false;
}

Tensor MakeInput(DataType dt, OpCaseBytes* b, bool prefer_scalar = false) {
  std::vector<int64_t> dims = InputDims(b);
  if (prefer_scalar && !b->OneIn(4)) dims.clear();
  TensorShape shape;
  if (!TensorShape::BuildTensorShape(dims, &shape).ok()) shape = TensorShape();
  Tensor t;
  if (!Tensor::Allocate(dt, shape, &t).ok()) {
    // A dtype without storage here: a scalar of it, or an empty float.
    if (!Tensor::Allocate(dt, TensorShape(), &t).ok()) {
      t = Tensor(DT_FLOAT, TensorShape({0}));
    }
    return t;
  }
  FillValues(&t, b);
  return t;
}

DataType AnyType(OpCaseBytes* b) {
  return kAnyTypes[b->Below(sizeof(kAnyTypes) / sizeof(kAnyTypes[0]))];
}

// The types a type attr may take: the OpDef's allowed values, narrowed to
// those of one registered kernel when it constrains the attr.
std::vector<DataType> TypesFor(const OpDef::AttrDef& attr,
                               const KernelList& kernels, OpCaseBytes* b) {
  std::vector<DataType> allowed;
  if (attr.has_allowed_values()) {
    for (int t : attr.allowed_values().list().type()) {
      allowed.push_back(static_cast<DataType>(t));
    }
  }
  if (kernels.kernel_size() > 0 && !b->OneIn(8)) {
    const KernelDef& k = kernels.kernel(b->Below(kernels.kernel_size()));
    for (const auto& c : k.constraint()) {
      if (c.name() != attr.name()) continue;
      std::vector<DataType> narrowed;
      for (int t : c.allowed_values().list().type()) {
        narrowed.push_back(static_cast<DataType>(t));
      }
      if (!narrowed.empty()) return narrowed;
    }
  }
  if (allowed.empty()) allowed.assign(std::begin(kAnyTypes), std::end(kAnyTypes));
  return allowed;
}

DataType PickType(const OpDef::AttrDef& attr, const KernelList& kernels,
                  OpCaseBytes* b) {
  if (b->OneIn(24)) return AnyType(b);
  std::vector<DataType> types = TypesFor(attr, kernels, b);
  return types[b->Below(static_cast<int>(types.size()))];
}

void RandomShapeProto(OpCaseBytes* b, TensorShapeProto* s) {
  if (b->OneIn(5)) {
    s->set_unknown_rank(true);
    return;
  }
  const int rank = b->OneIn(8) ? 5 + b->Below(4) : b->Below(4);
  for (int i = 0; i < rank; ++i) {
    int64_t d = b->Below(6) - 1;  // -1 is unknown
    if (b->OneIn(16)) d = SpecialInt(b);
    s->add_dim()->set_size(d);
  }
}

const char* const kCommonStrings[] = {"",     "NHWC",  "NCHW",  "VALID",
                                      "SAME", "EXPLICIT", "NDHWC", "x"};

std::string PickString(const OpDef::AttrDef& attr, OpCaseBytes* b) {
  const auto& allowed = attr.allowed_values().list().s();
  if (!allowed.empty() && !b->OneIn(8)) {
    return allowed[b->Below(allowed.size())];
  }
  return kCommonStrings[b->Below(8)];
}

int64_t PickInt(const OpDef::AttrDef& attr, OpCaseBytes* b) {
  int64_t v = SpecialInt(b);
  if (attr.has_minimum() && v < attr.minimum() && !b->OneIn(6)) {
    v = attr.minimum() + b->Below(3);
  }
  return v;
}

// Attr `name` is the number_attr of some input arg.
bool IsNumberAttr(const OpDef& op, const std::string& name) {
  for (const auto& arg : op.input_arg()) {
    if (arg.number_attr() == name) return true;
  }
  return false;
}

AttrValue MakeAttr(const OpDef& op, const OpDef::AttrDef& attr,
                   const KernelList& kernels, OpCaseBytes* b) {
  AttrValue v;
  const std::string& type = attr.type();
  if (type == "type") {
    v.set_type(PickType(attr, kernels, b));
  } else if (type == "list(type)") {
    int n = static_cast<int>(attr.has_minimum() ? attr.minimum() : 0) +
            b->Below(4);
    if (b->OneIn(10)) n = b->Below(3);
    for (int i = 0; i < n; ++i) v.mutable_list()->add_type(PickType(attr, kernels, b));
    v.mutable_list();  // an empty list is still a list
  } else if (type == "int") {
    if (IsNumberAttr(op, attr.name()) && !b->OneIn(10)) {
      v.set_i(std::max<int64_t>(attr.has_minimum() ? attr.minimum() : 0, 0) +
              b->Below(4));
    } else {
      v.set_i(PickInt(attr, b));
    }
  } else if (type == "list(int)") {
    const int n = b->OneIn(3) ? b->Below(9) : 4;
    for (int i = 0; i < n; ++i) {
      v.mutable_list()->add_i(b->OneIn(4) ? SpecialInt(b) : 1 + b->Below(3));
    }
    v.mutable_list();
  } else if (type == "float") {
    v.set_f(static_cast<float>(SpecialFloat(b)));
  } else if (type == "list(float)") {
    const int n = b->Below(5);
    for (int i = 0; i < n; ++i) {
      v.mutable_list()->add_f(static_cast<float>(SpecialFloat(b)));
    }
    v.mutable_list();
  } else if (type == "bool") {
    v.set_b(b->Next() & 1);
  } else if (type == "list(bool)") {
    const int n = b->Below(4);
    for (int i = 0; i < n; ++i) v.mutable_list()->add_b(b->Next() & 1);
    v.mutable_list();
  } else if (type == "string") {
    v.set_s(PickString(attr, b));
  } else if (type == "list(string)") {
    const int n = b->Below(4);
    for (int i = 0; i < n; ++i) v.mutable_list()->add_s(PickString(attr, b));
    v.mutable_list();
  } else if (type == "shape") {
    RandomShapeProto(b, v.mutable_shape());
  } else if (type == "list(shape)") {
    const int n = b->Below(4);
    for (int i = 0; i < n; ++i) RandomShapeProto(b, v.mutable_list()->add_shape());
    v.mutable_list();
  } else if (type == "tensor") {
    Tensor t = MakeInput(b->OneIn(2) ? DT_FLOAT : AnyType(b), b);
    if (t.dtype() != DT_RESOURCE && t.dtype() != DT_VARIANT) {
      t.AsProtoTensorContent(v.mutable_tensor());
    } else {
      v.mutable_tensor()->set_dtype(DT_FLOAT);
    }
  } else if (type == "func") {
    v.mutable_func()->set_name("OpFuzzNoSuchFunction");
  } else if (attr.has_default_value()) {
    v = attr.default_value();
  }
  return v;
}

const AttrValue* FindAttr(const EagerAttrs& attrs, const std::string& name) {
  for (const auto& [n, v] : attrs) {
    if (n == name) return &v;
  }
  return nullptr;
}

// The default of `op`'s attr `name` (for an attr the case leaves out), or
// null.
const AttrValue* DefaultOf(const OpDef& op, const std::string& name) {
  for (const auto& attr : op.attr()) {
    if (attr.name() == name && attr.has_default_value()) {
      return &attr.default_value();
    }
  }
  return nullptr;
}

std::string ShortAttr(const AttrValue& v) {
  std::string s = v.ShortDebugString();
  if (s.size() > 200) s = s.substr(0, 200) + "...";
  return s;
}

}  // namespace

OpCaseBytes::OpCaseBytes(std::string_view input) {
  const size_t nl = input.find('\n');
  if (nl == std::string_view::npos) {
    data_ = input;
    return;
  }
  op_ = std::string(input.substr(0, nl));
  data_ = input.substr(nl + 1);
}

uint64_t OpCaseBytes::Next64() {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = (v << 8) | Next();
  return v;
}

std::string OpCase::Describe() const {
  std::ostringstream out;
  out << "op: " << op << "\n";
  for (const auto& [name, value] : attrs) {
    out << "  attr " << name << " = " << ShortAttr(value) << "\n";
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    out << "  input " << i << (placeholder[i] ? " (fed)" : " (const)") << ": "
        << inputs[i].DebugString(8) << "\n";
  }
  return out.str();
}

const std::map<std::string, std::string>& SkippedOps() {
  static const auto* const skipped = new std::map<std::string, std::string>{
      // Their inputs name files to create, rename and delete: fuzzing them
      // would litter (or clobber) the working directory. Their kernels'
      // validation is tested in kernels/save_restore_ops_test.cc; RestoreV2
      // only reads and stays in.
      {"SaveV2", "writes files named by its prefix input"},
      {"MergeV2Checkpoints", "renames and deletes files named by its inputs"},
  };
  return *skipped;
}

std::vector<OpDef> FuzzableOps() {
  std::vector<OpDef> all;
  OpRegistry::Global()->GetRegisteredOps(&all);
  std::vector<OpDef> ops;
  for (OpDef& op : all) {
    if (SkippedOps().count(op.name()) == 0) ops.push_back(std::move(op));
  }
  std::sort(ops.begin(), ops.end(), [](const OpDef& a, const OpDef& b) {
    return a.name() < b.name();
  });
  return ops;
}

bool GenerateOpCase(const std::string& op_name, OpCaseBytes* b, OpCase* out) {
  if (SkippedOps().count(op_name) != 0) return false;
  const OpDef* op = nullptr;
  if (!OpRegistry::Global()->LookUpOpDef(op_name, &op).ok() || op == nullptr) {
    return false;
  }
  const KernelList kernels =
      KernelRegistry::Global()->GetRegisteredKernelsForOp(op_name);
  *out = OpCase();
  out->op = op_name;
  for (const auto& attr : op->attr()) {
    // Leave out an attr with a default now and then, so defaults run too;
    // very rarely one without a default (a missing-attr error).
    if (attr.has_default_value() ? b->OneIn(4) : b->OneIn(64)) continue;
    out->attrs.emplace_back(attr.name(), MakeAttr(*op, attr, kernels, b));
  }
  for (const auto& arg : op->input_arg()) {
    std::vector<DataType> types;
    int count = 1;
    DataType dt = arg.type();
    if (!arg.type_attr().empty()) {
      const AttrValue* v = FindAttr(out->attrs, arg.type_attr());
      if (v == nullptr) v = DefaultOf(*op, arg.type_attr());
      dt = v != nullptr ? v->type() : AnyType(b);
    }
    if (!arg.number_attr().empty()) {
      const AttrValue* v = FindAttr(out->attrs, arg.number_attr());
      if (v == nullptr) v = DefaultOf(*op, arg.number_attr());
      count = v != nullptr ? static_cast<int>(std::clamp<int64_t>(v->i(), 0, 6))
                           : 1 + b->Below(3);
      if (b->OneIn(12)) count = b->Below(5);  // a mismatched list
    }
    if (!arg.type_list_attr().empty()) {
      const AttrValue* v = FindAttr(out->attrs, arg.type_list_attr());
      if (v == nullptr) v = DefaultOf(*op, arg.type_list_attr());
      if (v != nullptr) {
        for (int t : v->list().type()) types.push_back(static_cast<DataType>(t));
      }
      if (b->OneIn(12)) types.push_back(AnyType(b));  // mismatched
    } else {
      types.assign(count, dt);
    }
    for (DataType t : types) {
      if (t == DT_INVALID || b->OneIn(20)) t = AnyType(b);
      out->inputs.push_back(MakeInput(t, b, ScalarByName(arg.name())));
      const DataType made = out->inputs.back().dtype();
      // Resource and variant values cannot be Consts.
      out->placeholder.push_back(made == DT_RESOURCE || made == DT_VARIANT ||
                                 b->OneIn(3));
    }
  }
  return true;
}

// ---------------------------------------------------------------------------

bool Verbose() {
  static const bool verbose = [] {
    const char* v = std::getenv("OPKIT_FUZZ_VERBOSE");
    return v != nullptr && v[0] == '1';
  }();
  return verbose;
}

struct OpCaseRunner::Impl {
  explicit Impl() : limit(kAllocationBudgetBytes) {}
  ScopedAllocationLimit limit;
  std::unique_ptr<EagerContext> eager;
  int eager_runs = 0;
};

OpCaseRunner::OpCaseRunner() : impl_(std::make_unique<Impl>()) {}
OpCaseRunner::~OpCaseRunner() = default;

StatusOr<std::unique_ptr<OpCaseRunner>> OpCaseRunner::Create() {
  std::unique_ptr<OpCaseRunner> runner(new OpCaseRunner());
  EagerContext::Options options;
  options.intra_op_threads = 2;
  OPKIT_ASSIGN_OR_RETURN(runner->impl_->eager, EagerContext::Create(options));
  return runner;
}

OpCaseResult OpCaseRunner::Run(const OpCase& c, int64_t graph_timeout_ms) {
  OpCaseResult result;
  // A new context now and then keeps the kernel cache (one entry per
  // distinct attrs) and the resources that ops created from growing.
  if (++impl_->eager_runs % 256 == 0) {
    EagerContext::Options options;
    options.intra_op_threads = 2;
    auto eager = EagerContext::Create(options);
    if (eager.ok()) impl_->eager = std::move(*eager);
  }
  std::vector<Tensor> outputs;
  result.eager = impl_->eager->Run(c.op, c.inputs, c.attrs, &outputs);
  const size_t num_outputs = result.eager.ok() ? outputs.size() : 0;
  outputs.clear();
  if (Verbose()) {
    std::fprintf(stderr, "  eager: %s\n", result.eager.ToString().c_str());
  }

  GraphDef graph;
  std::vector<std::pair<std::string, Tensor>> feeds;
  NodeDef* node = nullptr;
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    NodeDef* in = graph.add_node();
    in->set_name("in" + std::to_string(i));
    const Tensor& t = c.inputs[i];
    AttrValue dtype;
    dtype.set_type(t.dtype());
    (*in->mutable_attr())["dtype"] = dtype;
    if (c.placeholder[i]) {
      in->set_op("Placeholder");
      feeds.emplace_back(in->name() + ":0", t);
    } else {
      in->set_op("Const");
      AttrValue value;
      t.AsProtoTensorContent(value.mutable_tensor());
      (*in->mutable_attr())["value"] = value;
    }
  }
  node = graph.add_node();
  node->set_name("op");
  node->set_op(c.op);
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    node->add_input("in" + std::to_string(i));
  }
  for (const auto& [name, value] : c.attrs) (*node->mutable_attr())[name] = value;

  auto session = Session::New();
  if (!session.ok()) {
    result.graph = session.status();
    return result;
  }
  result.graph = (*session)->Create(graph);
  if (result.graph.ok()) {
    RunOptions options;
    options.timeout_in_ms = graph_timeout_ms;
    std::vector<std::string> fetches;
    for (size_t i = 0; i < num_outputs; ++i) {
      fetches.push_back("op:" + std::to_string(i));
    }
    result.graph = (*session)->Run(options, feeds, fetches, {"op"}, &outputs,
                                   nullptr);
  }
  if (Verbose()) {
    std::fprintf(stderr, "  graph: %s\n", result.graph.ToString().c_str());
  }
  return result;
}

}  // namespace fuzz
}  // namespace opkit
