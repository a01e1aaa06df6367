// Training a small MLP from C++ through the gradient registry: the graph is
// built with GraphBuilder, AddSymbolicGradients adds the backward pass, and
// one Session::Run per batch does forward, gradients and the SGD update of
// resource variables.
//
//   MlpTrainingOptions options;            // 3 blobs in 2-D, 2-16-3 MLP
//   MlpTrainingResult result;
//   OPKIT_RETURN_IF_ERROR(TrainMlp(options, &result));
//   // result.losses falls; result.accuracy is on held-out points
#ifndef OPKIT_EXAMPLES_TRAIN_MLP_MLP_TRAINING_H_
#define OPKIT_EXAMPLES_TRAIN_MLP_MLP_TRAINING_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "opkit/core/status.h"
#include "opkit/graph.pb.h"

namespace opkit {
namespace examples {

struct MlpTrainingOptions {
  int classes = 3;           // Gaussian blobs, one per class, in 2-D
  int points_per_class = 200;
  int hidden = 16;
  int batch = 32;
  int epochs = 30;
  float learning_rate = 0.1f;
  uint32_t seed = 1;
  // Called after each epoch with its number and mean loss (may be empty).
  std::function<void(int epoch, float loss)> on_epoch;
};

struct MlpTrainingResult {
  std::vector<float> losses;   // mean training loss of each epoch
  float accuracy = 0;          // on held-out points of the same blobs
  GraphDef graph;              // the training graph, gradients included
};

Status TrainMlp(const MlpTrainingOptions& options, MlpTrainingResult* result);

}  // namespace examples
}  // namespace opkit

#endif  // OPKIT_EXAMPLES_TRAIN_MLP_MLP_TRAINING_H_
