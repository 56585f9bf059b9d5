#pragma once
// DetectionOutput's kernel: decodes every prior's box from the location predictions, keeps the
// confident ones per class through greedy non-maximum suppression (Caffe's per-class way, or
// MXNet's single best class per prior), keeps the best keep_top_k per image and writes
// [image, label, confidence, xmin, ymin, xmax, ymax] rows, ending with a row whose image is -1
// when there is room. The arithmetic is in C (float, or double for f64 data), in the order
// OpenVINO's reference does it; every buffer comes from the Scratch.
//
// The order is total, so the result does not depend on the sort: candidates go by descending
// confidence, then ascending prior index (OpenVINO's tie-break), then ascending label; the rows
// of an image go by ascending label, then that order.

#include <cstddef>
#include <cstdint>
#include <span>

#include "irlite/scratch.hpp"

namespace irlite {

/// What the op works out from its attributes and the inputs' shapes.
struct DetectionParams {
  std::size_t images = 0;         // batch
  std::size_t priors = 0;         // priors per image
  std::size_t classes = 0;        // classes, background included
  std::size_t loc_classes = 1;    // box sets per prior: 1 when shared, else classes
  std::size_t prior_batches = 1;  // the priors' batch: 1 (shared by every image) or images
  std::size_t results = 0;        // rows of the output
  bool normalized = true;         // priors of 4 values (else 5, the first skipped)
  bool variance_encoded = false;  // no variance row in the priors
  bool center_size = false;       // CENTER_SIZE codes, else CORNER
  bool share_location = true;
  bool clip_before_nms = false, clip_after_nms = false;
  bool decrease_label_id = false;  // MXNet's way: one class per prior, labels shifted down by 1
  std::int64_t background = 0;     // background label, -1 for none
  std::int64_t top_k = -1;         // candidates per NMS, -1 for all
  std::int64_t keep_top_k = -1;    // detections per image, -1 for all
  double nms_threshold = 0, confidence_threshold = 0, objectness_score = 0;
  double input_width = 1, input_height = 1;  // the priors' units when not normalized
};

/// The inputs in the compute type C. arm_confidence and arm_location are both null or both set.
template <class C>
struct DetectionInputs {
  const C* location = nullptr;
  const C* confidence = nullptr;
  const C* priors = nullptr;
  const C* arm_confidence = nullptr;
  const C* arm_location = nullptr;
};

/// Takes from `counting` (a counting Scratch) what the kernel takes for `p`, for C = float or
/// double.
template <class C>
void take_detection_scratch(const DetectionParams& p, const Scratch& counting);

/// Writes every one of the p.results * 7 values of `out`, taking from `scratch` what
/// take_detection_scratch() counts.
template <class C>
void detection_output(const DetectionParams& p, const DetectionInputs<C>& in, C* out,
                      const Scratch& scratch);

}  // namespace irlite
