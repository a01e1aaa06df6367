// ValidateControlFlow: frames assigned in topological order (loop back edges
// left out), then the back edges checked against them.
#include "opkit/graph/control_flow.h"

#include <string>
#include <unordered_map>
#include <vector>

#include "opkit/core/errors.h"
#include "opkit/graph/graph.h"
#include "opkit/op/node_def_util.h"

namespace opkit {
namespace {

struct Frame {
  std::string name;  // "" for the root frame
  int parent = -1;   // index into the frame list; -1 for the root
};

std::string FrameName(const std::vector<Frame>& frames, int frame) {
  return frame == 0 ? std::string("the root frame")
                    : StrCat("loop frame '", frames[frame].name, "'");
}

}  // namespace

Status ValidateControlFlow(const Graph& graph) {
  const int n = graph.num_nodes();
  std::vector<Frame> frames(1);
  std::unordered_map<std::string, int> frame_by_name;
  // The frame a node runs in and the frame its outputs are in.
  std::vector<int> frame(n, 0);
  std::vector<int> out_frame(n, 0);
  // The node whose output decided frame[id], for messages (-1: none).
  std::vector<int> frame_from(n, -1);

  for (int id : graph.topological_order()) {
    const Node& node = graph.node(id);
    int f = -1;
    for (int e : node.in_edges()) {
      const GraphEdge& edge = graph.edge(e);
      if (graph.node(edge.src).IsNextIteration()) continue;  // checked below
      const int from = out_frame[edge.src];
      if (f < 0) {
        f = from;
        frame_from[id] = edge.src;
      } else if (from != f) {
        return errors::InvalidArgument(
            "Node '", node.name(), "' has inputs from two frames: ",
            FrameName(frames, f), " (from node '",
            graph.node(frame_from[id]).name(), "') and ",
            FrameName(frames, from), " (from node '",
            graph.node(edge.src).name(),
            "'); values must enter a loop through Enter and leave it "
            "through Exit ", FormatNodeNameForError(node.name()));
      }
    }
    if (f < 0) f = 0;
    frame[id] = f;
    out_frame[id] = f;
    if (node.IsNextIteration() && f == 0) {
      return errors::InvalidArgument(
          "NextIteration node '", node.name(),
          "' is in the root frame: a loop's back edge must stay inside a "
          "loop frame, which values enter through an Enter node "
          "(tf.while_loop builds Enter -> Merge -> Switch -> ... -> "
          "NextIteration -> Merge) ", FormatNodeNameForError(node.name()));
    }
    if (node.IsEnter()) {
      std::string name;
      if (!TryGetNodeAttr(AttrSlice(node.def()), "frame_name", &name)) {
        return errors::InvalidArgument("Enter node '", node.name(),
                                       "' has no frame_name attr ",
                                       FormatNodeNameForError(node.name()));
      }
      auto it = frame_by_name.find(name);
      if (it == frame_by_name.end()) {
        frames.push_back(Frame{name, f});
        it = frame_by_name.emplace(name, static_cast<int>(frames.size()) - 1)
                 .first;
      } else if (frames[it->second].parent != f) {
        return errors::InvalidArgument(
            "The loop frame '", name, "' is entered from two different "
            "frames (", FrameName(frames, frames[it->second].parent), " and ",
            FrameName(frames, f), ") ", FormatNodeNameForError(node.name()));
      }
      out_frame[id] = it->second;
    } else if (node.IsExit()) {
      if (f == 0) {
        return errors::InvalidArgument(
            "Exit node '", node.name(),
            "' is not inside any loop frame (no Enter leads to it) ",
            FormatNodeNameForError(node.name()));
      }
      out_frame[id] = frames[f].parent;
    }
  }

  for (const GraphEdge& edge : graph.edges()) {
    const Node& src = graph.node(edge.src);
    if (!src.IsNextIteration()) continue;
    const Node& dst = graph.node(edge.dst);
    if (frame[edge.dst] != out_frame[edge.src]) {
      return errors::InvalidArgument(
          "NextIteration node '", src.name(), "' in ",
          FrameName(frames, frame[edge.src]), " feeds node '", dst.name(),
          "' in ", FrameName(frames, frame[edge.dst]),
          "; a loop's back edge must stay inside its frame ",
          FormatNodeNameForError(dst.name()));
    }
  }
  return OkStatus();
}

}  // namespace opkit
