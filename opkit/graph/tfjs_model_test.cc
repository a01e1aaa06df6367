// TF.js graph models: each test writes a small model.json and its .bin
// shards into a fresh folder, loads it, and runs it in a Session or checks
// the error. Expected values were computed with numpy (float32 arithmetic);
// the comment next to each says how.
#include "opkit/graph/tfjs_model.h"

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "opkit/core/env.h"
#include "opkit/graph/graph.h"
#include "opkit/runtime/session.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace {

using ::opkit::testing::IsOk;
using ::opkit::testing::StatusIs;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using Json = nlohmann::json;

// The little-endian bytes of `values`.
template <typename T>
std::string Bytes(const std::vector<T>& values) {
  std::string out(values.size() * sizeof(T), '\0');
  if (!values.empty()) std::memcpy(out.data(), values.data(), out.size());
  return out;
}

// TF.js's string encoding: a uint32 length, then the bytes, per element.
std::string StringBytes(const std::vector<std::string>& values) {
  std::string out;
  for (const std::string& s : values) {
    out += Bytes(std::vector<uint32_t>{static_cast<uint32_t>(s.size())});
    out += s;
  }
  return out;
}

Json FloatAttr() { return {{"type", "DT_FLOAT"}}; }

Json ConstNode(const std::string& name, const std::string& dtype,
               const std::vector<int64_t>& shape) {
  Json dims = Json::array();
  for (int64_t d : shape) dims.push_back({{"size", std::to_string(d)}});
  // As the converter leaves it: dtype and shape, no values.
  return {{"name", name},
          {"op", "Const"},
          {"attr",
           {{"dtype", {{"type", dtype}}},
            {"value", {{"tensor", {{"dtype", dtype}, {"tensorShape", {{"dim", dims}}}}}}}}}};
}

// x[?,3] -> MatMul(w[3,2]) -> BiasAdd(b[2]) -> Relu = y, with a signature.
Json DenseModel(const Json& manifest) {
  Json nodes = Json::array();
  nodes.push_back({{"name", "x"},
                   {"op", "Placeholder"},
                   {"attr",
                    {{"dtype", FloatAttr()},
                     {"shape", {{"shape", {{"dim", {{{"size", "-1"}}, {{"size", "3"}}}}}}}}}}});
  nodes.push_back(ConstNode("w", "DT_FLOAT", {3, 2}));
  nodes.push_back(ConstNode("b", "DT_FLOAT", {2}));
  nodes.push_back({{"name", "mm"},
                   {"op", "MatMul"},
                   {"input", {"x", "w"}},
                   {"device", "/device:CPU:0"},
                   {"attr",
                    {{"T", FloatAttr()},
                     {"transpose_a", {{"b", false}}},
                     {"transpose_b", {{"b", false}}}}}});
  nodes.push_back({{"name", "ba"},
                   {"op", "BiasAdd"},
                   {"input", {"mm", "b"}},
                   // "NHWC", base64 as protobuf's JSON mapping writes bytes.
                   {"attr", {{"T", FloatAttr()}, {"data_format", {{"s", "TkhXQw=="}}}}}});
  nodes.push_back({{"name", "y"}, {"op", "Relu"}, {"input", {"ba"}}, {"attr", {{"T", FloatAttr()}}}});
  Json model = {
      {"format", "graph-model"},
      {"generatedBy", "2.15.0"},
      {"convertedBy", "TensorFlow.js Converter v4.17.0"},
      {"modelTopology", {{"node", nodes}, {"library", Json::object()}, {"versions", {{"producer", 1482}}}}},
      {"signature",
       {{"inputs", {{"x", {{"name", "x:0"}, {"dtype", "DT_FLOAT"},
                           {"tensorShape", {{"dim", {{{"size", "-1"}}, {{"size", "3"}}}}}}}}}},
        {"outputs", {{"y", {{"name", "y:0"}, {"dtype", "DT_FLOAT"}}}}}}},
      {"weightsManifest", manifest}};
  return model;
}

const std::vector<float> kW = {0.5f, -1.0f, 1.0f, 2.0f, -0.25f, 0.5f};
const std::vector<float> kB = {0.1f, -5.0f};

Json FloatManifest(const Json& paths) {
  return Json::array({{{"paths", paths},
                       {"weights",
                        {{{"name", "w"}, {"shape", {3, 2}}, {"dtype", "float32"}},
                         {{"name", "b"}, {"shape", {2}}, {"dtype", "float32"}}}}}});
}

class TfjsModelTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = ::testing::TempDir() + "/opkit_tfjs_" + info->name();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
    std::filesystem::create_directories(dir_);
  }

  // Writes model.json and the shard files; returns model.json's path.
  std::string Write(const Json& model,
                    const std::vector<std::pair<std::string, std::string>>& files) {
    for (const auto& [name, data] : files) {
      EXPECT_THAT(WriteStringToFile(dir_ + "/" + name, data), IsOk());
    }
    const std::string path = dir_ + "/model.json";
    EXPECT_THAT(WriteStringToFile(path, model.dump()), IsOk());
    return path;
  }

  std::string WriteDense() {
    return Write(DenseModel(FloatManifest({"group1-shard1of1.bin"})),
                 {{"group1-shard1of1.bin", Bytes(kW) + Bytes(kB)}});
  }

  // Loads `path` and runs it with x = [[1, 2, 3]], fetching y:0.
  std::vector<float> RunDense(const std::string& path) {
    GraphDef def;
    TfjsSignature signature;
    Status s = ReadTfjsGraphModel(path, &def, &signature);
    EXPECT_THAT(s, IsOk());
    if (!s.ok()) return {};
    return RunGraph(def, "y:0");
  }

  static std::vector<float> RunGraph(const GraphDef& def, const std::string& fetch) {
    auto session = Session::New(SessionOptions());
    EXPECT_THAT(session.status(), IsOk());
    if (!session.ok()) return {};
    EXPECT_THAT((*session)->Create(def), IsOk());
    Tensor x(DT_FLOAT, TensorShape({1, 3}));
    x.flat<float>()(0) = 1;
    x.flat<float>()(1) = 2;
    x.flat<float>()(2) = 3;
    std::vector<Tensor> out;
    Status s = (*session)->Run({{"x:0", x}}, {fetch}, {}, &out);
    EXPECT_THAT(s, IsOk());
    if (!s.ok() || out.size() != 1) return {};
    std::vector<float> values;
    for (int64_t i = 0; i < out[0].NumElements(); ++i) values.push_back(out[0].flat<float>()(i));
    return values;
  }

  // Loads the model at `path`, expecting an error.
  static Status Load(const std::string& path) {
    GraphDef def;
    return ReadTfjsGraphModel(path, &def, nullptr);
  }

  // Fetches one Const of a loaded model, no feeds.
  static Tensor FetchConst(const std::string& path, const std::string& name) {
    GraphDef def;
    EXPECT_THAT(ReadTfjsGraphModel(path, &def, nullptr), IsOk());
    auto session = Session::New(SessionOptions());
    EXPECT_THAT(session.status(), IsOk());
    if (!session.ok()) return Tensor();
    EXPECT_THAT((*session)->Create(def), IsOk());
    std::vector<Tensor> out;
    EXPECT_THAT((*session)->Run({}, {name + ":0"}, {}, &out), IsOk());
    return out.empty() ? Tensor() : out[0];
  }

  std::string dir_;
};

TEST_F(TfjsModelTest, Float32DenseModelRuns) {
  // numpy: relu([[1,2,3]] @ w + b) in float32 = [[1.85, 0]] (x@w+b = [1.85, -0.5]).
  EXPECT_THAT(RunDense(WriteDense()), ElementsAre(::testing::FloatEq(1.85f), 0.0f));
}

TEST_F(TfjsModelTest, SignatureAndProvenanceAreRead) {
  GraphDef def;
  TfjsSignature signature;
  OPKIT_ASSERT_OK(ReadTfjsGraphModel(WriteDense(), &def, &signature));
  EXPECT_EQ(signature.format, "graph-model");
  EXPECT_EQ(signature.generated_by, "2.15.0");
  EXPECT_EQ(signature.converted_by, "TensorFlow.js Converter v4.17.0");
  ASSERT_EQ(signature.inputs.size(), 1u);
  EXPECT_EQ(signature.inputs[0].key, "x");
  EXPECT_EQ(signature.inputs[0].tensor_name, "x:0");
  EXPECT_EQ(signature.inputs[0].dtype, DT_FLOAT);
  ASSERT_EQ(signature.inputs[0].shape.dim_size(), 2);
  EXPECT_EQ(signature.inputs[0].shape.dim(0).size(), -1);
  EXPECT_EQ(signature.inputs[0].shape.dim(1).size(), 3);
  ASSERT_EQ(signature.outputs.size(), 1u);
  EXPECT_EQ(signature.outputs[0].tensor_name, "y:0");
  EXPECT_TRUE(signature.outputs[0].shape.unknown_rank());
  // The device and the bytes attr came through protobuf's JSON mapping.
  EXPECT_EQ(def.node(3).device(), "/device:CPU:0");
  EXPECT_EQ(def.node(4).attr().at("data_format").s(), "NHWC");
  EXPECT_EQ(def.versions().producer(), 1482);
}

TEST_F(TfjsModelTest, ReadGraphDefFromFileTakesModelJsonAndItsFolder) {
  const std::string path = WriteDense();
  for (const std::string& p : {path, dir_, dir_ + "/"}) {
    GraphDef def;
    TfjsSignature signature;
    OPKIT_ASSERT_OK(ReadGraphDefFromFile(p, &def, &signature));
    ASSERT_EQ(signature.outputs.size(), 1u) << p;
    EXPECT_THAT(RunGraph(def, signature.outputs[0].tensor_name),
                ElementsAre(::testing::FloatEq(1.85f), 0.0f));
    GraphDef plain;
    OPKIT_ASSERT_OK(ReadGraphDefFromFile(p, &plain));
    EXPECT_EQ(plain.node_size(), 6);
  }
}

TEST_F(TfjsModelTest, Uint8AndUint16QuantisedWeights) {
  // w quantised to uint8 with scale 0.25, min -1: q = (w + 1) / 0.25;
  // b = [0.5, -5] to uint16 with scale 0.5, min -5: q = [11, 0].
  Json manifest = Json::array(
      {{{"paths", {"q.bin"}},
        {"weights",
         {{{"name", "w"}, {"shape", {3, 2}}, {"dtype", "float32"},
           {"quantization", {{"dtype", "uint8"}, {"scale", 0.25}, {"min", -1.0},
                             {"original_dtype", "float32"}}}},
          {{"name", "b"}, {"shape", {2}}, {"dtype", "float32"},
           {"quantization", {{"dtype", "uint16"}, {"scale", 0.5}, {"min", -5.0}}}}}}}});
  const std::string path =
      Write(DenseModel(manifest), {{"q.bin", Bytes(std::vector<uint8_t>{6, 0, 8, 12, 3, 6}) +
                                                 Bytes(std::vector<uint16_t>{11, 0})}});
  // numpy: relu([[1,2,3]] @ w + [0.5, -5]) = [[2.25, 0]].
  EXPECT_THAT(RunDense(path), ElementsAre(2.25f, 0.0f));
}

TEST_F(TfjsModelTest, QuantisedInt32WeightIsRounded) {
  Json model = DenseModel(FloatManifest({"a.bin"}));
  model["modelTopology"]["node"].push_back(ConstNode("k", "DT_INT32", {4}));
  model["weightsManifest"].push_back(
      {{"paths", {"k.bin"}},
       {"weights", {{{"name", "k"}, {"shape", {4}}, {"dtype", "int32"},
                     {"quantization", {{"dtype", "uint8"}, {"scale", 0.5}, {"min", -1.0}}}}}}});
  const std::string path = Write(model, {{"a.bin", Bytes(kW) + Bytes(kB)},
                                         {"k.bin", Bytes(std::vector<uint8_t>{0, 1, 2, 3})}});
  // q * 0.5 - 1 = [-1, -0.5, 0, 0.5]; Math.round -> [-1, 0, 0, 1].
  Tensor k = FetchConst(path, "k");
  ASSERT_EQ(k.dtype(), DT_INT32);
  EXPECT_THAT(std::vector<int32_t>(k.flat<int32_t>().data(), k.flat<int32_t>().data() + 4),
              ElementsAre(-1, 0, 0, 1));
}

TEST_F(TfjsModelTest, Float16QuantisedWeights) {
  Json manifest = FloatManifest({"h.bin"});
  manifest[0]["weights"][0]["quantization"] = {{"dtype", "float16"}};
  Json model = DenseModel(manifest);
  model["modelTopology"]["node"].push_back(ConstNode("h", "DT_FLOAT", {5}));
  manifest[0]["weights"].push_back({{"name", "h"}, {"shape", {5}}, {"dtype", "float32"},
                                    {"quantization", {{"dtype", "float16"}}}});
  model["weightsManifest"] = manifest;
  // numpy: np.array(w, np.float16).view(np.uint16), and for h
  // np.array([0.1, 65504, -0.0, 6e-8, -2.5], np.float16).view(np.uint16).
  const std::vector<uint16_t> w_bits = {0x3800, 0xbc00, 0x3c00, 0x4000, 0xb400, 0x3800};
  const std::vector<uint16_t> h_bits = {0x2e66, 0x7bff, 0x8000, 0x0001, 0xc100};
  const std::string path =
      Write(model, {{"h.bin", Bytes(w_bits) + Bytes(kB) + Bytes(h_bits)}});
  EXPECT_THAT(RunDense(path), ElementsAre(::testing::FloatEq(1.85f), 0.0f));
  // numpy: those halves .astype(np.float32).
  Tensor h = FetchConst(path, "h");
  ASSERT_EQ(h.dtype(), DT_FLOAT);
  EXPECT_THAT(std::vector<float>(h.flat<float>().data(), h.flat<float>().data() + 5),
              ElementsAre(0.0999755859375f, 65504.0f, -0.0f, 5.960464477539063e-08f, -2.5f));
  EXPECT_TRUE(std::signbit(h.flat<float>()(2)));
}

TEST_F(TfjsModelTest, ShardsAndGroupsAreConcatenatedInOrder) {
  // w split across two shards of group 1 (the cut falls inside w), b in
  // group 2.
  Json manifest = Json::array(
      {{{"paths", {"group1-shard1of2.bin", "group1-shard2of2.bin"}},
        {"weights", {{{"name", "w"}, {"shape", {3, 2}}, {"dtype", "float32"}}}}},
       {{"paths", {"group2-shard1of1.bin"}},
        {"weights", {{{"name", "b"}, {"shape", {2}}, {"dtype", "float32"}}}}}});
  const std::string w = Bytes(kW);
  const std::string path = Write(DenseModel(manifest), {{"group1-shard1of2.bin", w.substr(0, 10)},
                                                        {"group1-shard2of2.bin", w.substr(10)},
                                                        {"group2-shard1of1.bin", Bytes(kB)}});
  EXPECT_THAT(RunDense(path), ElementsAre(::testing::FloatEq(1.85f), 0.0f));
}

TEST_F(TfjsModelTest, ShardsInASubfolder) {
  std::filesystem::create_directories(dir_ + "/weights");
  const std::string path = Write(DenseModel(FloatManifest({"weights/./all.bin"})),
                                 {{"weights/all.bin", Bytes(kW) + Bytes(kB)}});
  EXPECT_THAT(RunDense(path), ElementsAre(::testing::FloatEq(1.85f), 0.0f));
}

TEST_F(TfjsModelTest, StringBoolAndWidenedWeights) {
  Json model = DenseModel(FloatManifest({"a.bin"}));
  Json& nodes = model["modelTopology"]["node"];
  nodes.push_back(ConstNode("s", "DT_STRING", {3}));
  nodes.push_back(ConstNode("empty", "DT_STRING", {0}));
  nodes.push_back(ConstNode("flags", "DT_BOOL", {2}));
  // The converter stores int64 and double Consts narrowed to int32/float32.
  nodes.push_back(ConstNode("big", "DT_INT64", {2}));
  nodes.push_back(ConstNode("d", "DT_DOUBLE", {1}));
  model["weightsManifest"].push_back(
      {{"paths", {"b.bin"}},
       {"weights", {{{"name", "s"}, {"shape", {3}}, {"dtype", "string"}},
                    {{"name", "empty"}, {"shape", {0}}, {"dtype", "string"}},
                    {{"name", "flags"}, {"shape", {2}}, {"dtype", "bool"}},
                    {{"name", "big"}, {"shape", {2}}, {"dtype", "int32"}},
                    {{"name", "d"}, {"shape", {1}}, {"dtype", "float32"}}}}});
  const std::string path =
      Write(model, {{"a.bin", Bytes(kW) + Bytes(kB)},
                    {"b.bin", StringBytes({"hi", "", "h\xc3\xa9llo"}) +
                                  Bytes(std::vector<uint8_t>{0, 7}) +
                                  Bytes(std::vector<int32_t>{-3, 2147483647}) +
                                  Bytes(std::vector<float>{0.5f})}});
  Tensor s = FetchConst(path, "s");
  ASSERT_EQ(s.dtype(), DT_STRING);
  EXPECT_THAT(std::vector<std::string>(s.flat<tstring>().data(), s.flat<tstring>().data() + 3),
              ElementsAre("hi", "", "h\xc3\xa9llo"));
  EXPECT_EQ(FetchConst(path, "empty").NumElements(), 0);
  Tensor flags = FetchConst(path, "flags");
  ASSERT_EQ(flags.dtype(), DT_BOOL);
  EXPECT_FALSE(flags.flat<bool>()(0));
  EXPECT_TRUE(flags.flat<bool>()(1));  // any non-zero byte is true
  Tensor big = FetchConst(path, "big");
  ASSERT_EQ(big.dtype(), DT_INT64);
  EXPECT_EQ(big.flat<int64_t>()(0), -3);
  EXPECT_EQ(big.flat<int64_t>()(1), 2147483647);
  Tensor d = FetchConst(path, "d");
  ASSERT_EQ(d.dtype(), DT_DOUBLE);
  EXPECT_EQ(d.flat<double>()(0), 0.5);
}

TEST_F(TfjsModelTest, PreluBecomesReluSubMulAddV2) {
  Json nodes = Json::array();
  nodes.push_back({{"name", "x"}, {"op", "Placeholder"}, {"attr", {{"dtype", FloatAttr()}}}});
  nodes.push_back(ConstNode("alpha", "DT_FLOAT", {3}));
  // As fuse_prelu.py writes it: inputs x and alpha, no T attr.
  nodes.push_back({{"name", "p"}, {"op", "Prelu"}, {"input", {"x", "alpha"}}});
  nodes.push_back({{"name", "p/relu"}, {"op", "Identity"}, {"input", {"p"}},
                   {"attr", {{"T", FloatAttr()}}}});
  Json model = {{"format", "graph-model"},
                {"modelTopology", {{"node", nodes}}},
                {"weightsManifest",
                 Json::array({{{"paths", {"a.bin"}},
                               {"weights", {{{"name", "alpha"}, {"shape", {3}},
                                             {"dtype", "float32"}}}}}})}};
  const std::string path =
      Write(model, {{"a.bin", Bytes(std::vector<float>{0.25f, 0.5f, 2.0f})}});
  GraphDef def;
  OPKIT_ASSERT_OK(ReadTfjsGraphModel(path, &def, nullptr));
  std::vector<std::string> ops;
  for (const NodeDef& n : def.node()) ops.push_back(n.name() + "=" + n.op());
  // "p/relu" was taken by the model's own node, so the expansion's Relu is
  // "p/relu_1"; "p" is the AddV2 that consumers read.
  EXPECT_THAT(ops, ElementsAre("x=Placeholder", "alpha=Const", "p/relu_1=Relu",
                               "p/negative=Sub", "p/scaled=Mul", "p=AddV2",
                               "p/relu=Identity"));
  Tensor x(DT_FLOAT, TensorShape({1, 3}));
  x.flat<float>()(0) = -2;
  x.flat<float>()(1) = 3;
  x.flat<float>()(2) = -0.5f;
  auto session = Session::New(SessionOptions());
  OPKIT_ASSERT_OK(session.status());
  OPKIT_ASSERT_OK((*session)->Create(def));
  std::vector<Tensor> out;
  OPKIT_ASSERT_OK((*session)->Run({{"x:0", x}}, {"p/relu:0"}, {}, &out));
  // numpy: np.where(x < 0, alpha * x, x) = [[-0.5, 3, -1]].
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].flat<float>()(0), -0.5f);
  EXPECT_EQ(out[0].flat<float>()(1), 3.0f);
  EXPECT_EQ(out[0].flat<float>()(2), -1.0f);
}

// fuse_prelu.py folds a Prelu into a fused op: _FusedMatMul with fused_ops
// [BiasAdd, Prelu] and alpha as its second arg. The loader splits it into
// the _FusedMatMul [BiasAdd] and the Prelu expansion named like the node.
TEST_F(TfjsModelTest, PreluFusedIntoAFusedOpIsSplitOff) {
  Json nodes = Json::array();
  nodes.push_back({{"name", "x"}, {"op", "Placeholder"}, {"attr", {{"dtype", FloatAttr()}}}});
  nodes.push_back(ConstNode("w", "DT_FLOAT", {2, 2}));
  nodes.push_back(ConstNode("b", "DT_FLOAT", {2}));
  nodes.push_back(ConstNode("alpha", "DT_FLOAT", {2}));
  nodes.push_back({{"name", "m"}, {"op", "_FusedMatMul"},
                   {"input", {"x", "w", "b", "alpha"}},
                   {"attr", {{"T", FloatAttr()},
                             {"num_args", {{"i", "2"}}},
                             {"fused_ops", {{"list", {{"s", {"Qmlhc0FkZA==", "UHJlbHU="}}}}}}}}});
  Json model = {{"format", "graph-model"},
                {"modelTopology", {{"node", nodes}}},
                {"weightsManifest",
                 Json::array({{{"paths", {"a.bin"}},
                               {"weights", {{{"name", "w"}, {"shape", {2, 2}}, {"dtype", "float32"}},
                                            {{"name", "b"}, {"shape", {2}}, {"dtype", "float32"}},
                                            {{"name", "alpha"}, {"shape", {2}}, {"dtype", "float32"}}}}}})}};
  // w = identity, b = [-1, 1], alpha = [0.5, 0.25].
  const std::string path = Write(
      model, {{"a.bin", Bytes(std::vector<float>{1, 0, 0, 1, -1, 1, 0.5f, 0.25f})}});
  GraphDef def;
  OPKIT_ASSERT_OK(ReadTfjsGraphModel(path, &def, nullptr));
  std::vector<std::string> ops;
  for (const NodeDef& n : def.node()) ops.push_back(n.name() + "=" + n.op());
  EXPECT_THAT(ops, ElementsAre("x=Placeholder", "w=Const", "b=Const", "alpha=Const",
                               "m/prelu_input=_FusedMatMul", "m/relu=Relu",
                               "m/negative=Sub", "m/scaled=Mul", "m=AddV2"));
  EXPECT_EQ(def.node(4).attr().at("num_args").i(), 1);
  EXPECT_EQ(def.node(4).attr().at("fused_ops").list().s_size(), 1);
  Tensor x(DT_FLOAT, TensorShape({1, 2}));
  x.flat<float>()(0) = -3;
  x.flat<float>()(1) = -3;
  auto session = Session::New(SessionOptions());
  OPKIT_ASSERT_OK(session.status());
  OPKIT_ASSERT_OK((*session)->Create(def));
  std::vector<Tensor> out;
  OPKIT_ASSERT_OK((*session)->Run({{"x:0", x}}, {"m:0"}, {}, &out));
  // x @ I + b = [-4, -2]; prelu with alpha [0.5, 0.25] = [-2, -0.5].
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].flat<float>()(0), -2.0f);
  EXPECT_EQ(out[0].flat<float>()(1), -0.5f);
}

TEST_F(TfjsModelTest, FusedDepthwiseConvIsRenamedAndFusedOpsStay) {
  Json nodes = Json::array();
  nodes.push_back({{"name", "d"}, {"op", "FusedDepthwiseConv2dNative"}, {"input", {"x", "f", "b"}}});
  nodes.push_back({{"name", "c"}, {"op", "_FusedConv2D"}, {"input", {"x", "f", "b"}}});
  nodes.push_back({{"name", "m"}, {"op", "_FusedMatMul"}, {"input", {"x", "f", "b"}}});
  const std::string path =
      Write({{"modelTopology", {{"node", nodes}}}, {"weightsManifest", Json::array()}}, {});
  GraphDef def;
  OPKIT_ASSERT_OK(ReadTfjsGraphModel(path, &def, nullptr));
  EXPECT_EQ(def.node(0).op(), "_FusedDepthwiseConv2dNative");
  EXPECT_EQ(def.node(1).op(), "_FusedConv2D");
  EXPECT_EQ(def.node(2).op(), "_FusedMatMul");
}

// --- Errors: each names the file and the weight or node. ---

TEST_F(TfjsModelTest, BadJsonGivesThePosition) {
  const std::string path = dir_ + "/model.json";
  OPKIT_ASSERT_OK(WriteStringToFile(path, "{\"modelTopology\": {\"node\": [}"));
  EXPECT_THAT(Load(path), StatusIs(error::INVALID_ARGUMENT,
                                   AllOf(HasSubstr(path), HasSubstr("not valid JSON"),
                                         HasSubstr("at byte 29"))));
  // Through ReadGraphDefFromFile too: a leading '{' means JSON.
  GraphDef def;
  EXPECT_THAT(ReadGraphDefFromFile(path, &def),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("not valid JSON")));
}

TEST_F(TfjsModelTest, MissingOrWrongTopology) {
  EXPECT_THAT(Load(Write({{"format", "graph-model"}, {"weightsManifest", Json::array()}}, {})),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("has no modelTopology")));
  EXPECT_THAT(Load(Write({{"format", "layers-model"}, {"modelTopology", Json::object()}}, {})),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("format 'layers-model'")));
  EXPECT_THAT(Load(Write({{"modelTopology", {{"class_name", "Sequential"}}}}, {})),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("not a GraphDef")));
  EXPECT_THAT(Load(Write({{"modelTopology", {{"node", "not a list"}}}}, {})),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("modelTopology is not a GraphDef in protobuf's JSON")));
  EXPECT_THAT(Load(Write(Json::array({1, 2}), {})),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("not an object")));
}

TEST_F(TfjsModelTest, MissingOrUnreadableShard) {
  const std::string path = Write(DenseModel(FloatManifest({"gone.bin"})), {});
  EXPECT_THAT(Load(path), StatusIs(error::NOT_FOUND,
                                   AllOf(HasSubstr("model.json"), HasSubstr("'gone.bin'"))));
  std::filesystem::create_directories(dir_ + "/adir.bin");
  EXPECT_THAT(Load(Write(DenseModel(FloatManifest({"adir.bin"})), {})),
              StatusIs(error::INVALID_ARGUMENT,
                       AllOf(HasSubstr("'adir.bin'"), HasSubstr("directory"))));
}

TEST_F(TfjsModelTest, ShardPathsMayNotLeaveTheFolder) {
  for (const std::string p : {"../outside.bin", "/etc/passwd", "a/../../x.bin", "..", ""}) {
    EXPECT_THAT(Load(Write(DenseModel(FloatManifest({p})), {})),
                StatusIs(error::INVALID_ARGUMENT,
                         AllOf(HasSubstr("model.json"), HasSubstr("inside the model's folder"))))
        << p;
  }
}

TEST_F(TfjsModelTest, ShardsShorterOrLongerThanTheManifest) {
  const std::string all = Bytes(kW) + Bytes(kB);
  EXPECT_THAT(Load(Write(DenseModel(FloatManifest({"a.bin"})), {{"a.bin", all.substr(0, 30)}})),
              StatusIs(error::INVALID_ARGUMENT,
                       AllOf(HasSubstr("weight 'b'"), HasSubstr("needs 8 bytes at offset 24"),
                             HasSubstr("hold 30 bytes"))));
  EXPECT_THAT(Load(Write(DenseModel(FloatManifest({"a.bin"})), {{"a.bin", all + "xx"}})),
              StatusIs(error::INVALID_ARGUMENT,
                       AllOf(HasSubstr("hold 34 bytes"), HasSubstr("take 32"))));
}

TEST_F(TfjsModelTest, WeightSizeDoesNotFitShapeAndDtype) {
  // w declared [3, 3] (36 bytes): b no longer fits in the 32 bytes.
  Json manifest = FloatManifest({"a.bin"});
  manifest[0]["weights"][0]["shape"] = {3, 3};
  EXPECT_THAT(Load(Write(DenseModel(manifest), {{"a.bin", Bytes(kW) + Bytes(kB)}})),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("weight 'w' (float, shape [3, 3]) needs 36")));
}

TEST_F(TfjsModelTest, UnknownDtypes) {
  Json manifest = FloatManifest({"a.bin"});
  manifest[0]["weights"][1]["dtype"] = "float64";
  EXPECT_THAT(Load(Write(DenseModel(manifest), {{"a.bin", Bytes(kW) + Bytes(kB)}})),
              StatusIs(error::INVALID_ARGUMENT,
                       AllOf(HasSubstr("weights[1] ('b')"), HasSubstr("dtype 'float64'"))));
  manifest = FloatManifest({"a.bin"});
  manifest[0]["weights"][0]["quantization"] = {{"dtype", "int8"}, {"scale", 1}, {"min", 0}};
  EXPECT_THAT(Load(Write(DenseModel(manifest), {{"a.bin", Bytes(kW) + Bytes(kB)}})),
              StatusIs(error::INVALID_ARGUMENT,
                       AllOf(HasSubstr("('w')"), HasSubstr("quantization dtype '\"int8\"'"))));
  manifest[0]["weights"][0]["quantization"] = {{"dtype", "uint8"}};
  EXPECT_THAT(Load(Write(DenseModel(manifest), {{"a.bin", Bytes(kW) + Bytes(kB)}})),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("lacks the numbers")));
  manifest[0]["weights"][0]["dtype"] = "int32";
  manifest[0]["weights"][0]["quantization"] = {{"dtype", "float16"}};
  EXPECT_THAT(Load(Write(DenseModel(manifest), {{"a.bin", Bytes(kW) + Bytes(kB)}})),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("only float32 weights can be")));
}

TEST_F(TfjsModelTest, NegativeOrOverflowingDimensions) {
  const std::string bytes = Bytes(kW) + Bytes(kB);
  Json manifest = FloatManifest({"a.bin"});
  manifest[0]["weights"][0]["shape"] = {-1, 2};
  EXPECT_THAT(Load(Write(DenseModel(manifest), {{"a.bin", bytes}})),
              StatusIs(error::INVALID_ARGUMENT,
                       AllOf(HasSubstr("('w')"), HasSubstr("negative dimension"))));
  manifest[0]["weights"][0]["shape"] = {int64_t{1} << 62, 4};  // 2^64 elements
  EXPECT_THAT(Load(Write(DenseModel(manifest), {{"a.bin", bytes}})),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("overflows int64")));
  manifest[0]["weights"][0]["shape"] = {int64_t{1} << 61, 1};  // 2^63 bytes
  EXPECT_THAT(Load(Write(DenseModel(manifest), {{"a.bin", bytes}})),
              StatusIs(error::INVALID_ARGUMENT,
                       AllOf(HasSubstr("weight 'w'"), HasSubstr("more bytes than int64"))));
  manifest[0]["weights"][0]["shape"] = {1.5, 2};
  EXPECT_THAT(Load(Write(DenseModel(manifest), {{"a.bin", bytes}})),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("must be integers")));
  manifest[0]["weights"][0]["shape"] = {uint64_t{1} << 63};
  EXPECT_THAT(Load(Write(DenseModel(manifest), {{"a.bin", bytes}})),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("must be integers")));
}

TEST_F(TfjsModelTest, ConstWithoutWeight) {
  Json manifest = FloatManifest({"a.bin"});
  manifest[0]["weights"].erase(1);
  EXPECT_THAT(Load(Write(DenseModel(manifest), {{"a.bin", Bytes(kW)}})),
              StatusIs(error::INVALID_ARGUMENT,
                       AllOf(HasSubstr("model.json"), HasSubstr("Const node 'b' has no value"))));
}

TEST_F(TfjsModelTest, TruncatedStringWeight) {
  Json model = DenseModel(FloatManifest({"a.bin"}));
  model["modelTopology"]["node"].push_back(ConstNode("s", "DT_STRING", {2}));
  model["weightsManifest"][0]["weights"].push_back(
      {{"name", "s"}, {"shape", {2}}, {"dtype", "string"}});
  // Element 0 says 100 bytes; 2 follow.
  const std::string path = Write(model, {{"a.bin", Bytes(kW) + Bytes(kB) +
                                                       Bytes(std::vector<uint32_t>{100}) + "ab"}});
  EXPECT_THAT(Load(path), StatusIs(error::INVALID_ARGUMENT,
                                   AllOf(HasSubstr("weight 's'"), HasSubstr("is 100 bytes"))));
  // Element 1's length field is cut short.
  const std::string path2 = Write(model, {{"a.bin", Bytes(kW) + Bytes(kB) + StringBytes({"ab"}) +
                                                        std::string("\x01\x00", 2)}});
  EXPECT_THAT(Load(path2), StatusIs(error::INVALID_ARGUMENT,
                                    AllOf(HasSubstr("weight 's'"), HasSubstr("string element 1"))));
}

TEST_F(TfjsModelTest, DuplicateWeightAndDtypeMismatch) {
  Json manifest = FloatManifest({"a.bin"});
  manifest[0]["weights"][1]["name"] = "w";
  EXPECT_THAT(Load(Write(DenseModel(manifest), {{"a.bin", Bytes(kW) + Bytes(kB)}})),
              StatusIs(error::INVALID_ARGUMENT,
                       AllOf(HasSubstr("weight 'w'"), HasSubstr("appears twice"))));
  Json model = DenseModel(FloatManifest({"a.bin"}));
  model["modelTopology"]["node"][2] = ConstNode("b", "DT_INT32", {2});
  EXPECT_THAT(Load(Write(model, {{"a.bin", Bytes(kW) + Bytes(kB)}})),
              StatusIs(error::INVALID_ARGUMENT,
                       AllOf(HasSubstr("Const node 'b' has dtype int32"),
                             HasSubstr("weight is float"))));
}

TEST_F(TfjsModelTest, QuantisedInt32OutOfRange) {
  Json model = DenseModel(FloatManifest({"a.bin"}));
  model["modelTopology"]["node"].push_back(ConstNode("k", "DT_INT32", {1}));
  model["weightsManifest"][0]["weights"].push_back(
      {{"name", "k"}, {"shape", {1}}, {"dtype", "int32"},
       {"quantization", {{"dtype", "uint8"}, {"scale", 1e10}, {"min", 0}}}});
  EXPECT_THAT(Load(Write(model, {{"a.bin", Bytes(kW) + Bytes(kB) + std::string(1, '\x02')}})),
              StatusIs(error::INVALID_ARGUMENT,
                       AllOf(HasSubstr("weight 'k'"), HasSubstr("outside int32"))));
}

TEST_F(TfjsModelTest, PreluWithWrongInputs) {
  Json nodes = Json::array({{{"name", "p"}, {"op", "Prelu"}, {"input", {"x"}}}});
  EXPECT_THAT(Load(Write({{"modelTopology", {{"node", nodes}}}}, {})),
              StatusIs(error::INVALID_ARGUMENT,
                       AllOf(HasSubstr("Prelu node 'p' has 1 data inputs"))));
}

TEST_F(TfjsModelTest, MissingModelJsonInFolder) {
  GraphDef def;
  EXPECT_THAT(ReadGraphDefFromFile(dir_, &def),
              StatusIs(error::NOT_FOUND, HasSubstr("is a folder without a model.json")));
}

TEST(TfjsModelJsonDetection, LeadingBraceMeansJson) {
  EXPECT_TRUE(LooksLikeTfjsModelJson("  \n{\"a\": 1}"));
  EXPECT_FALSE(LooksLikeTfjsModelJson("node { name: 'a' }"));
  EXPECT_FALSE(LooksLikeTfjsModelJson(""));
  EXPECT_FALSE(LooksLikeTfjsModelJson(std::string("\x0a\x05", 2)));
}

}  // namespace
}  // namespace opkit
