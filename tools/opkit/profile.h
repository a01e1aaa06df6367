// What `opkit run --profile` and `opkit bench` share to time graphs: per-node
// times summed over runs from the executor's step stats
// (RunOptions::collect_step_stats, NodeExecStats), and the progress bar
// they draw on stderr.
//
//   NodeProfile profile;
//   for (...) {
//     RunMetadata metadata;
//     session->Run(run_options, feeds, fetches, targets, &outputs, &metadata);
//     AddStepStats(metadata.step_stats, &profile);
//   }
//   for (const auto& [node, time] : SortByTotalTime(profile)) ...
//
// Not thread-safe (the command's main thread).
#ifndef OPKIT_TOOLS_OPKIT_PROFILE_H_
#define OPKIT_TOOLS_OPKIT_PROFILE_H_

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "opkit/runtime/executor.h"

namespace opkit {
namespace cli {

// One node's time summed over the runs.
struct NodeTime {
  std::string op;
  // Executions (a node inside a loop runs several times a step).
  int64_t count = 0;
  int64_t total_ns = 0;
};

// By node name.
using NodeProfile = std::map<std::string, NodeTime>;

// Adds the nodes of one step to *profile.
void AddStepStats(const std::vector<NodeExecStats>& step_stats, NodeProfile* profile);

// The nodes of `profile`, largest total first (ties in name order).
std::vector<std::pair<std::string, NodeTime>> SortByTotalTime(const NodeProfile& profile);

// Draws "[#####.....] done/total" on stderr, redrawing only when the shown
// percentage changes (a million fast runs must not spend their time writing
// to the terminal); ends the line when done == total.
void ProgressBar(int64_t done, int64_t total);

}  // namespace cli
}  // namespace opkit

#endif  // OPKIT_TOOLS_OPKIT_PROFILE_H_
