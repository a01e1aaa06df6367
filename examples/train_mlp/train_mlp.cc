// train_mlp: trains a 2-16-3 MLP on three Gaussian blobs from C++ and prints
// the loss of each epoch and the held-out accuracy.
//
//   build/default/bin/train_mlp [epochs]
#include <cstdio>
#include <cstdlib>

#include "examples/train_mlp/mlp_training.h"

int main(int argc, char** argv) {
  opkit::examples::MlpTrainingOptions options;
  if (argc > 1) options.epochs = std::atoi(argv[1]);
  options.on_epoch = [&](int epoch, float loss) {
    std::printf("epoch %2d/%d  loss %.4f\n", epoch + 1, options.epochs, loss);
  };
  opkit::examples::MlpTrainingResult result;
  const opkit::Status s = opkit::examples::TrainMlp(options, &result);
  if (!s.ok()) {
    std::fprintf(stderr, "train_mlp: %s\n", s.ToString().c_str());
    return 1;
  }
  std::printf("held-out accuracy %.1f%% (%d nodes in the training graph)\n",
              100.f * result.accuracy, result.graph.node_size());
  return 0;
}
