// Loading TensorFlow.js graph models: a `model.json` written by
// tensorflowjs_converter (format "graph-model") and its binary weight shards,
// turned into an ordinary GraphDef whose Const nodes hold their values.
//
//   GraphDef def;
//   TfjsSignature signature;
//   OPKIT_RETURN_IF_ERROR(
//       ReadTfjsGraphModel("web_model/model.json", &def, &signature));
//   // def runs in a Session; signature.outputs[i].tensor_name ("Identity:0")
//   // says what to fetch.
//
// ReadGraphDefFromFile (graph.h) calls this for a model.json file or a
// folder holding one, so every caller that takes a GraphDef file takes a
// TF.js graph model too.
//
// What the loader does, in order (Note [TF.js graph models]):
//  1. Parses model.json with nlohmann-json; `modelTopology` goes through
//     protobuf's JSON parser (unknown fields ignored) into the GraphDef.
//  2. Reads the shards of every `weightsManifest` group, in order, from the
//     folder of model.json; the bytes of all groups form one buffer that the
//     weights take up in manifest order. Shard paths are relative and may not
//     leave that folder.
//  3. Decodes each weight: float32, int32, bool, complex64 and string as
//     stored; uint8/uint16 quantisation as q * scale + min (rounded for int32
//     weights); float16 quantisation to float32.
//  4. Fills each Const node's `value` from the weight of the same name. The
//     node's declared dtype wins when the converter narrowed the weight
//     (int64 stored as int32, double as float32, complex128 as complex64).
//  5. Maps the op names the converter invents onto opkit's:
//     `FusedDepthwiseConv2dNative` -> `_FusedDepthwiseConv2dNative`; a
//     `Prelu` node becomes Relu, Sub, Mul and AddV2 nodes computing
//     relu(x) + alpha * (x - relu(x)) (= x < 0 ? alpha * x : x), the last of
//     which keeps the Prelu node's name. `_FusedConv2D` and `_FusedMatMul`
//     stay as they are ("Prelu" in their fused_ops is left to their kernels).
//
// `modelInitializer` (table initialisers) is not run; a warning is logged.
// Thread-safe: the functions hold no state.
#ifndef OPKIT_GRAPH_TFJS_MODEL_H_
#define OPKIT_GRAPH_TFJS_MODEL_H_

#include <string>
#include <string_view>
#include <vector>

#include "opkit/core/export.h"
#include "opkit/core/status.h"
#include "opkit/graph.pb.h"
#include "opkit/tensor_shape.pb.h"
#include "opkit/types.pb.h"

namespace opkit {

// One input or output of a TF.js model's signature (a TensorFlow TensorInfo).
struct TfjsTensorInfo {
  std::string key;          // the signature's name for it, e.g. "x"
  std::string tensor_name;  // the graph tensor, e.g. "x:0"
  DataType dtype = DT_INVALID;
  TensorShapeProto shape;   // unknown_rank when the model does not say
};

// The `signature` of a model.json (empty when it has none), plus the
// provenance fields. Inputs and outputs keep the file's order.
struct TfjsSignature {
  std::vector<TfjsTensorInfo> inputs;
  std::vector<TfjsTensorInfo> outputs;
  std::string format;        // "graph-model"
  std::string generated_by;  // the TensorFlow version that wrote the model
  std::string converted_by;  // the converter's version
};

// Reads the TF.js graph model `model_json_path` (a model.json file, or a
// folder that holds one) into `graph_def`, its Const nodes filled from the
// weight shards. `signature` may be null. Every error is InvalidArgument
// (NotFound for a missing file or shard) and names the file and the weight or
// node at fault: JSON that does not parse (with the byte offset), no
// modelTopology, a layers model, a shard that is missing, unreadable or
// outside the model's folder, shards shorter or longer than the manifest
// needs, an unknown dtype or quantisation dtype, a negative or overflowing
// dimension, a duplicate weight name, a Const node with no weight.
OPKIT_EXPORT Status ReadTfjsGraphModel(const std::string& model_json_path,
                                       GraphDef* graph_def,
                                       TfjsSignature* signature);

// The same for model.json text already in memory; shard paths are resolved
// against `model_dir` and `source_name` names the file in messages.
OPKIT_EXPORT Status ParseTfjsGraphModel(std::string_view model_json,
                                        const std::string& model_dir,
                                        const std::string& source_name,
                                        GraphDef* graph_def,
                                        TfjsSignature* signature);

// True when `data` (a file's contents) should be read as a model.json: its
// first non-blank character is '{'. No GraphDef, text or binary, starts so.
OPKIT_EXPORT bool LooksLikeTfjsModelJson(std::string_view data);

}  // namespace opkit

#endif  // OPKIT_GRAPH_TFJS_MODEL_H_
