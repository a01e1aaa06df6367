// make_mobilenet_v2: writes the MobileNetV2 GraphDef of mobilenet_v2.h as a
// binary .pb, for `opkit bench` and for Python.
//
//   make_mobilenet_v2 mobilenet_v2.pb                 # 224x224x3, batch 1, alpha 1.0
//   make_mobilenet_v2 folded.pb --bias --input-size 160 --alpha 0.5
//   opkit bench mobilenet_v2.pb --threads 2
//
// Exit status: 0 written; 1 bad option value or write error; 2 bad usage.
#include <cstdint>
#include <exception>
#include <iostream>
#include <string>

#include "CLI/CLI.hpp"
#include "bench/models/mobilenet_v2.h"
#include "opkit/core/env.h"
#include "opkit/core/errors.h"

int main(int argc, char** argv) {
  opkit::bench::MobileNetV2Options options;
  std::string out_path;
  bool bias = false;
  CLI::App app("Write a MobileNetV2 GraphDef with random weights (binary .pb).",
               "make_mobilenet_v2");
  app.add_option("OUT", out_path, "the .pb file to write")->required();
  app.add_option("--input-size", options.input_size, "image height and width (224)");
  app.add_option("--batch", options.batch, "images per step (1)");
  app.add_option("--alpha", options.alpha, "width multiplier (1.0)");
  app.add_option("--classes", options.num_classes, "output classes (1000)");
  app.add_option("--seed", options.seed, "seed of the random weights (1)");
  app.add_flag("--bias", bias, "BiasAdd in place of each FusedBatchNormV3 (a folded graph)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  options.batch_norm = !bias;
  opkit::GraphDef graph;
  opkit::Status s = opkit::bench::MakeMobileNetV2(options, &graph);
  std::string bytes;
  if (s.ok() && !graph.SerializeToString(&bytes)) {
    s = opkit::errors::Internal("cannot serialize the GraphDef");
  }
  if (s.ok()) s = opkit::WriteStringToFile(out_path, bytes);
  if (!s.ok()) {
    std::cerr << "make_mobilenet_v2: error: " << s.message() << "\n";
    return 1;
  }
  std::cout << "wrote " << out_path << " (" << graph.node_size() << " nodes, "
            << bytes.size() << " bytes; input '" << opkit::bench::kMobileNetV2Input
            << "', output '" << opkit::bench::kMobileNetV2Output << "')\n";
  return 0;
}
