// Per-node profiles and the progress bar (see profile.h).
#include "tools/opkit/profile.h"

#include <algorithm>
#include <iostream>
#include <string>

namespace opkit {
namespace cli {

void AddStepStats(const std::vector<NodeExecStats>& step_stats, NodeProfile* profile) {
  for (const NodeExecStats& st : step_stats) {
    NodeTime& nt = (*profile)[st.node_name];
    nt.op = st.op;
    ++nt.count;
    nt.total_ns += std::max<int64_t>(0, st.end_ns - st.start_ns);
  }
}

std::vector<std::pair<std::string, NodeTime>> SortByTotalTime(const NodeProfile& profile) {
  std::vector<std::pair<std::string, NodeTime>> rows(profile.begin(), profile.end());
  std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
    return a.second.total_ns > b.second.total_ns;
  });
  return rows;
}

void ProgressBar(int64_t done, int64_t total) {
  constexpr int64_t width = 30;
  static int64_t last_percent = -1;
  const int64_t percent = total > 0 ? done * 100 / total : 100;
  if (percent == last_percent && done != total) return;
  last_percent = percent;
  const int64_t filled = total > 0 ? done * width / total : width;
  std::cerr << "\r[" << std::string(filled, '#') << std::string(width - filled, '.')
            << "] " << done << "/" << total << std::flush;
  if (done == total) std::cerr << "\n";
}

}  // namespace cli
}  // namespace opkit
