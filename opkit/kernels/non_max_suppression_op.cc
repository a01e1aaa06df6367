// NonMaxSuppressionV3, V4 and V5 on CPU: greedy selection of boxes by
// descending score, dropping every box whose IOU with an already selected
// one exceeds iou_threshold, with TensorFlow's semantics:
//
// - a box is two corners in either order ([y1, x1, y2, x2]); a box of zero
//   or negative area overlaps nothing (IOU 0);
// - only scores > score_threshold are candidates; equal scores go lower
//   index first;
// - V4/V5 with pad_to_max_output_size pad the selections with zeros to
//   max_output_size and report how many are real in valid_outputs;
// - V5 with soft_nms_sigma > 0 is Soft-NMS (Bodla et al.): instead of
//   dropping an overlapping box its score decays by exp(-0.5 * iou^2 /
//   sigma); a decayed box goes back into the queue while its score stays
//   above score_threshold. selected_scores holds the (decayed) scores.
//
// Arithmetic is in float for half inputs too. Each candidate is compared
// only with the boxes selected since it was last looked at, so the work is
// O(num_boxes * selected) at worst.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <deque>
#include <limits>
#include <queue>
#include <vector>

#include "opkit/kernel/op_kernel.h"
#include "opkit/kernel/op_requires.h"
#include "opkit/tensor/types.h"

namespace opkit {
namespace {

// The value of a scalar float or half tensor.
float ScalarAsFloat(const Tensor& t) {
  if (t.dtype() == DT_HALF) return static_cast<float>(t.scalar<half>()());
  return t.scalar<float>()();
}

// All of a float or half tensor's elements as floats.
std::vector<float> ValuesAsFloat(const Tensor& t) {
  std::vector<float> v(t.NumElements());
  if (t.dtype() == DT_HALF) {
    auto f = t.flat<half>();
    for (int64_t i = 0; i < f.size(); ++i) v[i] = static_cast<float>(f(i));
  } else {
    auto f = t.flat<float>();
    for (int64_t i = 0; i < f.size(); ++i) v[i] = f(i);
  }
  return v;
}

// Boxes normalised to (ymin, xmin, ymax, xmax), with their areas.
struct Boxes {
  std::vector<float> ymin, xmin, ymax, xmax, area;

  explicit Boxes(const std::vector<float>& raw) {
    const size_t n = raw.size() / 4;
    ymin.resize(n);
    xmin.resize(n);
    ymax.resize(n);
    xmax.resize(n);
    area.resize(n);
    for (size_t i = 0; i < n; ++i) {
      const float* b = &raw[4 * i];
      ymin[i] = std::min(b[0], b[2]);
      xmin[i] = std::min(b[1], b[3]);
      ymax[i] = std::max(b[0], b[2]);
      xmax[i] = std::max(b[1], b[3]);
      area[i] = (ymax[i] - ymin[i]) * (xmax[i] - xmin[i]);
    }
  }

  float Iou(int i, int j) const {
    if (area[i] <= 0 || area[j] <= 0) return 0.0f;
    const float h = std::max(std::min(ymax[i], ymax[j]) - std::max(ymin[i], ymin[j]), 0.0f);
    const float w = std::max(std::min(xmax[i], xmax[j]) - std::max(xmin[i], xmin[j]), 0.0f);
    const float inter = h * w;
    return inter / (area[i] + area[j] - inter);
  }
};

// The checked inputs of one call.
struct NmsInputs {
  int num_boxes = 0;
  int max_output_size = 0;
  float iou_threshold = 0;
  float score_threshold = 0;
  float soft_nms_sigma = 0;
};

Status CheckScalar(const Tensor& t, const char* name) {
  if (t.dims() != 0) {
    return errors::InvalidArgument(name, " must be 0-D, got shape ", t.shape().DebugString());
  }
  return OkStatus();
}

// Validates inputs 0..4 (and 5, soft_nms_sigma, if `soft`) with
// TensorFlow's messages.
Status ReadNmsInputs(OpKernelContext* ctx, bool soft, NmsInputs* in) {
  const Tensor& boxes = ctx->input(0);
  const Tensor& scores = ctx->input(1);
  OPKIT_RETURN_IF_ERROR(CheckScalar(ctx->input(2), "max_output_size"));
  OPKIT_RETURN_IF_ERROR(CheckScalar(ctx->input(3), "iou_threshold"));
  OPKIT_RETURN_IF_ERROR(CheckScalar(ctx->input(4), "score_threshold"));
  in->max_output_size = ctx->input(2).scalar<int32>()();
  in->iou_threshold = ScalarAsFloat(ctx->input(3));
  in->score_threshold = ScalarAsFloat(ctx->input(4));
  if (!(in->iou_threshold >= 0.0f && in->iou_threshold <= 1.0f)) {
    return errors::InvalidArgument("iou_threshold must be in [0, 1], got ",
                                   in->iou_threshold);
  }
  if (soft) {
    OPKIT_RETURN_IF_ERROR(CheckScalar(ctx->input(5), "soft_nms_sigma"));
    in->soft_nms_sigma = ScalarAsFloat(ctx->input(5));
    if (!(in->soft_nms_sigma >= 0.0f)) {
      return errors::InvalidArgument("soft_nms_sigma_val must be non-negative, got ",
                                     in->soft_nms_sigma);
    }
  }
  if (boxes.dims() != 2) {
    return errors::InvalidArgument("boxes must be 2-D", boxes.shape().DebugString(),
                                   " (Shape must be rank 2 but is rank ", boxes.dims(), ")");
  }
  if (boxes.dim_size(1) != 4) {
    return errors::InvalidArgument("boxes must have 4 columns (Dimension must be 4 but is ",
                                   boxes.dim_size(1), ")");
  }
  if (boxes.dim_size(0) > std::numeric_limits<int32>::max()) {
    return errors::InvalidArgument("too many boxes for int32 indices: ", boxes.dim_size(0));
  }
  in->num_boxes = static_cast<int>(boxes.dim_size(0));
  if (scores.dims() != 1) {
    return errors::InvalidArgument("scores must be 1-D", scores.shape().DebugString(),
                                   " (Shape must be rank 1 but is rank ", scores.dims(), ")");
  }
  if (scores.dim_size(0) != in->num_boxes) {
    return errors::InvalidArgument(
        "scores has incompatible shape (Dimensions must be equal, but are ", in->num_boxes,
        " and ", scores.dim_size(0), ")");
  }
  if (in->max_output_size < 0) {
    return errors::InvalidArgument("output size must be non-negative, got ",
                                   in->max_output_size);
  }
  return OkStatus();
}

// Runs the selection; `selected` and `selected_scores` get the result.
void Suppress(const NmsInputs& in, const Boxes& boxes, const std::vector<float>& scores,
              std::vector<int32>* selected, std::vector<float>* selected_scores) {
  struct Candidate {
    int box;
    float score;
    // Selections before this one were already compared with the box.
    int suppress_begin;
  };
  // Highest score on top; equal scores: lower index on top.
  auto lower_priority = [](const Candidate& a, const Candidate& b) {
    return a.score < b.score || (a.score == b.score && a.box > b.box);
  };
  std::priority_queue<Candidate, std::deque<Candidate>, decltype(lower_priority)> queue(
      lower_priority);
  for (int i = 0; i < in.num_boxes; ++i) {
    if (scores[i] > in.score_threshold) queue.push(Candidate{i, scores[i], 0});
  }
  const bool soft = in.soft_nms_sigma > 0.0f;
  const float scale = soft ? -0.5f / in.soft_nms_sigma : 0.0f;
  while (static_cast<int>(selected->size()) < in.max_output_size && !queue.empty()) {
    Candidate next = queue.top();
    queue.pop();
    const float original = next.score;
    bool hard_suppressed = false;
    // Newest selections first: overlapping boxes tend to have close scores.
    for (int j = static_cast<int>(selected->size()) - 1; j >= next.suppress_begin; --j) {
      const float iou = boxes.Iou(next.box, (*selected)[j]);
      if (!soft) {
        if (iou > in.iou_threshold) {
          hard_suppressed = true;
          break;
        }
        continue;
      }
      next.score *= std::exp(scale * iou * iou);
      if (next.score <= in.score_threshold) break;
    }
    next.suppress_begin = static_cast<int>(selected->size());
    if (hard_suppressed) continue;
    if (next.score == original) {
      selected->push_back(next.box);
      selected_scores->push_back(next.score);
    } else if (next.score > in.score_threshold) {
      queue.push(next);  // Decayed but still a candidate.
    }
  }
}

// Kind of op: which inputs and outputs it has.
enum class NmsVersion { kV3, kV4, kV5 };

template <NmsVersion kVersion>
class NonMaxSuppressionOp : public OpKernel {
 public:
  explicit NonMaxSuppressionOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    if constexpr (kVersion != NmsVersion::kV3) {
      OP_REQUIRES_OK(ctx, ctx->GetAttr("pad_to_max_output_size", &pad_));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    NmsInputs in;
    OP_REQUIRES_OK(ctx, ReadNmsInputs(ctx, kVersion == NmsVersion::kV5, &in));
    const Boxes boxes(ValuesAsFloat(ctx->input(0)));
    const std::vector<float> scores = ValuesAsFloat(ctx->input(1));
    std::vector<int32> selected;
    std::vector<float> selected_scores;
    Suppress(in, boxes, scores, &selected, &selected_scores);
    const int32 num_valid = static_cast<int32>(selected.size());
    // Padding zeros go straight into the outputs: a huge max_output_size is
    // then a failed allocation (a Status), not a failed vector resize.
    const int64_t n = pad_ ? in.max_output_size : num_valid;
    Tensor* indices = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({n}), &indices));
    auto out_indices = indices->flat<int32>();
    for (int64_t i = 0; i < n; ++i) out_indices(i) = i < num_valid ? selected[i] : 0;
    int valid_output = 1;
    if constexpr (kVersion == NmsVersion::kV5) {
      Tensor* out_scores = nullptr;
      OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape({n}), &out_scores));
      for (int64_t i = 0; i < n; ++i) {
        const float score = i < num_valid ? selected_scores[i] : 0.0f;
        if (out_scores->dtype() == DT_HALF) {
          out_scores->flat<half>()(i) = static_cast<half>(score);
        } else {
          out_scores->flat<float>()(i) = score;
        }
      }
      valid_output = 2;
    }
    if constexpr (kVersion != NmsVersion::kV3) {
      Tensor* valid = nullptr;
      OP_REQUIRES_OK(ctx, ctx->allocate_output(valid_output, TensorShape({}), &valid));
      valid->scalar<int32>()() = num_valid;
    }
  }

 private:
  bool pad_ = false;
};

REGISTER_KERNEL_BUILDER(Name("NonMaxSuppressionV3")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", {DT_FLOAT, DT_HALF})
                            .TypeConstraint("T_threshold", {DT_FLOAT, DT_HALF}),
                        NonMaxSuppressionOp<NmsVersion::kV3>);
REGISTER_KERNEL_BUILDER(Name("NonMaxSuppressionV4")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", {DT_FLOAT, DT_HALF})
                            .TypeConstraint("T_threshold", {DT_FLOAT, DT_HALF}),
                        NonMaxSuppressionOp<NmsVersion::kV4>);
REGISTER_KERNEL_BUILDER(Name("NonMaxSuppressionV5")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", {DT_FLOAT, DT_HALF}),
                        NonMaxSuppressionOp<NmsVersion::kV5>);

}  // namespace
}  // namespace opkit
