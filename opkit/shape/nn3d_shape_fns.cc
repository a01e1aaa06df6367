// Shape functions of the 3-D neural-network ops: Conv3D and the 3-D pooling
// ops (declared in common_shape_fns.h; their gradients are in
// nn_shape_fns.cc with the 2-D ones). Behaviour and
// messages follow TensorFlow's common_shape_fns.cc; window arithmetic is
// GetWindowedOutputSizeFromDimsV2's (nn_shape_fns.cc), overflow-checked.
#include <cstdint>
#include <string>
#include <vector>

#include "opkit/core/errors.h"
#include "opkit/shape/common_shape_fns.h"

namespace opkit {
namespace shape_inference {
namespace {

// Whether the optional data_format attr asks for channels first ("NCDHW").
// Anything but "NCDHW" is channels last, as in TensorFlow.
bool ChannelsFirst3D(InferenceContext* c) {
  std::string data_format;
  return c->GetAttr("data_format", &data_format).ok() &&
         data_format == "NCDHW";
}

// `shape` (rank 5) with its dimensions reordered to N, D, H, W, C.
ShapeHandle ToNDHWC(InferenceContext* c, ShapeHandle shape,
                    bool channels_first) {
  if (!channels_first) return shape;
  return c->MakeShape({c->Dim(shape, 0), c->Dim(shape, 2), c->Dim(shape, 3),
                       c->Dim(shape, 4), c->Dim(shape, 1)});
}

// An N, D, H, W, C output in the node's layout.
ShapeHandle FromNDHWC(InferenceContext* c, bool channels_first,
                      DimensionHandle n, DimensionHandle d, DimensionHandle h,
                      DimensionHandle w, DimensionHandle ch) {
  if (channels_first) return c->MakeShape({n, ch, d, h, w});
  return c->MakeShape({n, d, h, w, ch});
}

// The three spatial values of a 5-value attr in the node's layout.
void Spatial3D(const std::vector<int32>& v, bool channels_first,
               int64_t out[3]) {
  const int first = channels_first ? 2 : 1;
  for (int i = 0; i < 3; ++i) out[i] = v[first + i];
}

Status ReadPadding(InferenceContext* c, Padding* padding) {
  std::string s;
  OPKIT_RETURN_IF_ERROR(c->GetAttr("padding", &s));
  OPKIT_RETURN_IF_ERROR(GetPaddingFromString(s, padding));
  if (*padding == Padding::EXPLICIT) {
    return errors::InvalidArgument(
        "3-D convolution and pooling do not support EXPLICIT padding; use "
        "SAME or VALID");
  }
  return OkStatus();
}

// The D, H, W output sizes of a window of `window` (unknown entries -1)
// moved by `strides` with `dilations` over N, D, H, W, C `input`.
Status SpatialOutputs3D(InferenceContext* c, ShapeHandle input,
                        const DimensionOrConstant window[3],
                        const int64_t dilations[3], const int64_t strides[3],
                        Padding padding, DimensionHandle out[3]) {
  for (int i = 0; i < 3; ++i) {
    OPKIT_RETURN_IF_ERROR(GetWindowedOutputSizeFromDimsV2(
        c, c->Dim(input, 1 + i), window[i], dilations[i], strides[i], padding,
        -1, -1, &out[i]));
  }
  return OkStatus();
}

}  // namespace

Status Conv3DShape(InferenceContext* c) {
  ShapeHandle input, filter;
  OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(0), 5, &input));
  OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(1), 5, &filter));
  std::vector<int32> dilations, strides;
  OPKIT_RETURN_IF_ERROR(c->GetAttr("dilations", &dilations));
  if (dilations.size() != 5) {
    return errors::InvalidArgument(
        "Conv3D requires the dilation attribute to contain 5 values, but "
        "got: ",
        dilations.size());
  }
  OPKIT_RETURN_IF_ERROR(c->GetAttr("strides", &strides));
  if (strides.size() != 5) {
    return errors::InvalidArgument(
        "Conv3D requires the stride attribute to contain 5 values, but got: ",
        strides.size());
  }
  const bool channels_first = ChannelsFirst3D(c);
  input = ToNDHWC(c, input, channels_first);
  DimensionHandle in_depth = c->Dim(input, 4);
  DimensionHandle filter_in_depth = c->Dim(filter, 3);
  DimensionHandle out_depth = c->Dim(filter, 4);
  if (c->ValueKnown(in_depth) && c->ValueKnown(filter_in_depth)) {
    const int64_t in_d = c->Value(in_depth);
    const int64_t f_d = c->Value(filter_in_depth);
    if (f_d == 0) return errors::InvalidArgument("Depth of filter must not be 0");
    if (in_d % f_d != 0) {
      return errors::InvalidArgument(
          "Depth of input (", in_d,
          ") is not a multiple of input depth of filter (", f_d, ")");
    }
    const int64_t groups = in_d / f_d;
    if (groups > 0 && c->ValueKnown(out_depth) &&
        c->Value(out_depth) % groups != 0) {
      return errors::InvalidArgument(
          "Depth of output (", c->Value(out_depth),
          ") is not a multiple of the number of groups (", groups, ")");
    }
  }
  Padding padding;
  OPKIT_RETURN_IF_ERROR(ReadPadding(c, &padding));
  int64_t stride[3], dilation[3];
  Spatial3D(strides, channels_first, stride);
  Spatial3D(dilations, channels_first, dilation);
  const DimensionOrConstant window[3] = {c->Dim(filter, 0), c->Dim(filter, 1),
                                         c->Dim(filter, 2)};
  DimensionHandle out[3];
  OPKIT_RETURN_IF_ERROR(
      SpatialOutputs3D(c, input, window, dilation, stride, padding, out));
  c->set_output(0, FromNDHWC(c, channels_first, c->Dim(input, 0), out[0],
                             out[1], out[2], out_depth));
  return OkStatus();
}

Status Pool3DShape(InferenceContext* c) {
  ShapeHandle input;
  OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(0), 5, &input));
  std::vector<int32> strides, ksize;
  OPKIT_RETURN_IF_ERROR(c->GetAttr("strides", &strides));
  if (strides.size() != 5) {
    return errors::InvalidArgument(
        "Pool3D ops require the stride attribute to contain 5 values, but "
        "got: ",
        strides.size());
  }
  OPKIT_RETURN_IF_ERROR(c->GetAttr("ksize", &ksize));
  if (ksize.size() != 5) {
    return errors::InvalidArgument(
        "Pool3D requires the ksize attribute to contain 5 values, but got: ",
        ksize.size());
  }
  const bool channels_first = ChannelsFirst3D(c);
  input = ToNDHWC(c, input, channels_first);
  Padding padding;
  OPKIT_RETURN_IF_ERROR(ReadPadding(c, &padding));
  int64_t stride[3], kernel[3];
  Spatial3D(strides, channels_first, stride);
  Spatial3D(ksize, channels_first, kernel);
  const DimensionOrConstant window[3] = {kernel[0], kernel[1], kernel[2]};
  const int64_t no_dilation[3] = {1, 1, 1};
  DimensionHandle out[3];
  OPKIT_RETURN_IF_ERROR(
      SpatialOutputs3D(c, input, window, no_dilation, stride, padding, out));
  c->set_output(0, FromNDHWC(c, channels_first, c->Dim(input, 0), out[0],
                             out[1], out[2], c->Dim(input, 4)));
  return OkStatus();
}

}  // namespace shape_inference
}  // namespace opkit
