// The convolution kernels: im2col, the GEMM driver around it, and the depthwise loop.

#include "kernels/convolution.hpp"

#include <algorithm>
#include <cmath>
#include <span>
#include <type_traits>

#include "irlite/float16.hpp"
#include "kernels/simd.hpp"

namespace irlite {

bool ConvGeometry::pointwise() const {
  for (std::size_t i = 0; i < 3; ++i)
    if (kernel[i] != 1 || stride[i] != 1 || pad_begin[i] != 0 || in[i] != out[i]) return false;
  return true;
}

namespace {

template <class T>
float to_float(T x) {
  return static_cast<float>(x);
}

template <class T>
T from_float(float x) {
  if constexpr (std::is_same_v<T, float>)
    return x;
  else
    return T(x);
}

/// The output positions [lo, hi) along an axis of `out` positions whose input position
/// o * stride + offset lies inside [0, extent).
struct Span {
  std::int64_t lo = 0, hi = 0;
};

IRLITE_INLINE Span inside(std::int64_t out, std::int64_t stride, std::int64_t offset,
                          std::int64_t extent) {
  const std::int64_t lo = offset >= 0 ? 0 : (-offset + stride - 1) / stride;
  const std::int64_t last = extent - 1 - offset;  // o * stride <= last
  const std::int64_t hi = last < 0 ? 0 : last / stride + 1;
  Span s{std::min(lo, out), std::min(hi, out)};
  s.lo = std::min(s.lo, s.hi);
  return s;
}

/// Output rows (the leading two spatial axes, flattened) per im2col block: as many as fit in
/// kColumnBytes, at least one.
std::int64_t rows_per_block(const ConvGeometry& g, std::size_t element) {
  const std::int64_t rows = g.out[0] * g.out[1];
  const auto row_bytes = static_cast<std::size_t>(g.patch() * g.out[2]) * element;
  const auto fit = static_cast<std::int64_t>(kColumnBytes / std::max<std::size_t>(row_bytes, 1));
  return std::clamp<std::int64_t>(fit, 1, std::max<std::int64_t>(rows, 1));
}

/// How the depthwise loop holds an input row: split into `stride` phases (phase p holds input
/// columns p, p + stride, ...), each `phase` floats long: `left` zeros, the phase's columns, then
/// zeros. Every kernel position then reads inside the held row for every output column up to
/// ow rounded up to a whole vector, zeros where it falls outside the input.
struct RowLayout {
  std::int64_t left = 0, phase = 0;
};

/// Where kernel position kw along a row reads in a held row: output column o reads element
/// base + o, which is inside the input when 0 <= o + q < phase_len.
struct ColumnTap {
  std::int64_t base = 0, q = 0, phase_len = 0;
};

/// The split rows' phase length: ceil(iw / stride).
IRLITE_INLINE std::int64_t phase_length(std::int64_t iw, std::int64_t stride) {
  return (iw + stride - 1) / stride;
}

/// floor(offset / stride): where kernel position offset `offset` starts in its phase.
IRLITE_INLINE std::int64_t phase_start(std::int64_t offset, std::int64_t stride) {
  return offset >= 0 ? offset / stride : -((-offset + stride - 1) / stride);
}

RowLayout row_layout(const ConvGeometry& g) {
  constexpr auto L = static_cast<std::int64_t>(simd::lanes<float>);
  const std::int64_t s = g.stride[2];
  // The taps' starts grow with kw: the first reads furthest left, the last furthest right.
  const std::int64_t first = phase_start(-g.pad_begin[2], s);
  const std::int64_t last = phase_start((g.kernel[2] - 1) * g.dilation[2] - g.pad_begin[2], s);
  const std::int64_t columns = (g.out[2] + L - 1) / L * L;
  RowLayout r;
  r.left = std::max<std::int64_t>(0, -first);
  r.phase = r.left + std::max(phase_length(g.in[2], s), last + columns);
  return r;
}

/// Fills `taps`, one per kernel position along the row.
void column_taps(const ConvGeometry& g, const RowLayout& layout, std::span<ColumnTap> taps) {
  const std::int64_t s = g.stride[2], iw = g.in[2];
  for (std::int64_t kw = 0; kw < g.kernel[2]; ++kw) {
    const std::int64_t offset = kw * g.dilation[2] - g.pad_begin[2];
    const std::int64_t q = phase_start(offset, s), p = offset - q * s;
    const std::int64_t phase_len = p < iw ? phase_length(iw - p, s) : 0;
    taps[static_cast<std::size_t>(kw)] = {p * layout.phase + layout.left + q, q, phase_len};
  }
}

/// Splits a row of `iw` floats into its even and odd columns (a stride of 2), a vector at a time.
IRLITE_MULTIVERSION void split_even_odd(const float* __restrict row, std::int64_t iw,
                                        float* __restrict even, float* __restrict odd) {
  using V = simd::vec<float>;
  constexpr auto L = static_cast<std::int64_t>(simd::lanes<float>);
  static_assert(L == 8);
  std::int64_t j = 0;
  for (; 2 * j + 2 * L <= iw; j += L) {
    const V a = simd::load(row + 2 * j), b = simd::load(row + 2 * j + L);
    simd::store(even + j, __builtin_shufflevector(a, b, 0, 2, 4, 6, 8, 10, 12, 14));
    simd::store(odd + j, __builtin_shufflevector(a, b, 1, 3, 5, 7, 9, 11, 13, 15));
  }
  if (j < iw / 2 && iw >= 2 * L) {
    // The last whole pairs through one more vector, overlapping the ones made.
    j = (iw - 2 * L) / 2;
    const V a = simd::load(row + 2 * j), b = simd::load(row + 2 * j + L);
    simd::store(even + j, __builtin_shufflevector(a, b, 0, 2, 4, 6, 8, 10, 12, 14));
    simd::store(odd + j, __builtin_shufflevector(a, b, 1, 3, 5, 7, 9, 11, 13, 15));
    j += L;
  }
  for (; 2 * j + 1 < iw; ++j) {
    even[j] = row[2 * j];
    odd[j] = row[2 * j + 1];
  }
  if (2 * j < iw) even[j] = row[2 * j];
}

/// Input rows the depthwise loop holds per chunk: one per kernel position across the rows (a
/// row is loaded once and kept while the output rows under it are made).
std::int64_t held_rows(const ConvGeometry& g) {
  return g.kernel[0] * g.kernel[1];
}

/// The floats per chunk of the depthwise loop: the held rows, then, unless T is float (whose
/// sums go straight to the output), a row of sums.
template <class T>
std::size_t depthwise_chunk_floats(const ConvGeometry& g) {
  const std::int64_t sums = std::is_same_v<T, float> ? 0 : g.out[2];
  return static_cast<std::size_t>(held_rows(g) * g.stride[2] * row_layout(g).phase + sums);
}

/// The depthwise loop's buffers: per chunk, depthwise_chunk_floats() floats, which input row
/// each held row is (-1: none yet), and a pointer to each input row under the kernel and to its
/// weights; the taps along a row.
struct DepthwiseBuffers {
  std::span<float> floats;
  std::span<std::int64_t> held;
  std::span<const float*> rows, weights;
  std::span<ColumnTap> taps;
};

/// Whether the GEMM takes the filters as its A and the input (or its im2col block) as its B, read
/// in place: C is then the channels-first output itself. For f32; f16 and bf16 take the input as
/// A and the filters, packed, as B, and store C transposed and rounded.
template <class T>
inline constexpr bool filters_first = std::is_same_v<T, float>;

/// Whether a run takes the filters as the GEMM's B: filters_as_b(), with the filters packed as
/// B when they were prepared (f32 weights prepared as A are read as A).
template <class T>
bool run_filters_as_b(const ConvGeometry& g, const ConvWeights* weights) {
  if (!filters_first<T>) return true;
  return filters_as_b<T>(g) && (!weights || weights->filters.empty());
}

/// An f32 convolution over one or two spatial axes runs without im2col ("shifted rows"). An
/// image group's input is copied once, zero-padded: the padded input's (0, 0) is the input's
/// (-top, -left), and its row R, column C goes to phase (R % stride_h, C % stride_w) of its
/// channel, at (R / stride_h, C / stride_w) of that phase's height x width plane. Output (oh, ow)
/// reads the padded input at (oh * stride_h + kh * dilation_h, ow * stride_w + kw * dilation_w):
/// in one phase, at (oh + kh * dilation_h / stride_h, ow + kw * dilation_w / stride_w). So the
/// GEMM's B row for (channel, kh, kw) is that phase read from one offset on, its element
/// oh * width + ow serving output (oh, ow). The GEMM makes these "wide" rows of `width`
/// outputs; the columns from out[2] on are dropped when a block of them is copied out. Every sum
/// is the im2col GEMM's, term for term. With stride 1 there is one phase: the padded input.
struct ShiftedLayout {
  std::int64_t stride_h = 1, stride_w = 1;
  std::int64_t height = 0, width = 0;  ///< of a phase's plane
  std::int64_t top = 0, left = 0;
  std::int64_t plane() const { return height * width; }
  /// The floats of one channel: its phases' planes, one after another.
  std::int64_t channel() const { return stride_h * stride_w * plane(); }
};

template <class T>
bool shifted_rows(const ConvGeometry& g, const ConvWeights* weights) {
  return !run_filters_as_b<T>(g, weights) && !g.pointwise() && g.in[0] == 1 && g.out[0] == 1 &&
         g.kernel[0] == 1 && g.pad_begin[0] == 0 && g.pad_begin[1] >= 0 && g.pad_begin[2] >= 0;
}

ShiftedLayout shifted_layout(const ConvGeometry& g) {
  ShiftedLayout s;
  s.stride_h = g.stride[1];
  s.stride_w = g.stride[2];
  s.top = g.pad_begin[1];
  s.left = g.pad_begin[2];
  // Large enough for the reads (the last output's, at the last kernel position) and for the
  // whole input.
  const auto up = [](std::int64_t x, std::int64_t d) { return (x + d - 1) / d; };
  s.height = std::max(g.out[1] + (g.kernel[1] - 1) * g.dilation[1] / s.stride_h,
                      up(s.top + g.in[1], s.stride_h));
  s.width = std::max(g.out[2] + (g.kernel[2] - 1) * g.dilation[2] / s.stride_w,
                     up(s.left + g.in[2], s.stride_w));
  // Narrower when the reads past a row's end all land on the next row's left padding, zeros as
  // the padding past the end would be: a row's right padding and the next one's left padding
  // are then one (a 3x3 layer with one column of padding makes wide rows of ow + 1 outputs, not
  // ow + 2; a stride-2 one on an odd map none past ow). Every read finds the value it found
  // before, so every sum is the same.
  const auto wraps_to_padding = [&](std::int64_t width) {
    for (std::int64_t j = 0; j < g.kernel[2]; ++j) {
      const std::int64_t dj = j * g.dilation[2];
      const std::int64_t phase = dj % s.stride_w, last = g.out[2] - 1 + dj / s.stride_w;
      if (last < width) continue;
      // Phase columns [width, last] read padded columns c * stride + phase past the input (the
      // width holds the input), and read instead the next row's columns from 0 on, which must be
      // left padding (and, after the last plane, within the zeros the GEMM may read past it).
      const std::int64_t past = last - width;
      if (past * s.stride_w + phase >= s.left || past >= kGemmRowSlack) return false;
    }
    return true;
  };
  for (std::int64_t w = up(s.left + g.in[2], s.stride_w); w < s.width; ++w)
    if (wraps_to_padding(w)) {
      s.width = w;
      break;
    }
  return s;
}

/// The row stride of a block of `pixels` wide outputs: whole cache lines, so that the threads,
/// which split the GEMM's columns at whole panels, never write the same line.
std::int64_t wide_stride(std::int64_t pixels) {
  return (pixels + 15) / 16 * 16;
}

/// Output rows per shifted-rows GEMM: as many as keep its block of wide outputs near
/// kColumnBytes, at least one.
std::int64_t shifted_rows_per_block(const ConvGeometry& g, const ShiftedLayout& s) {
  const auto row_bytes = static_cast<std::size_t>(g.out_channels * s.width) * sizeof(float);
  const auto fit = static_cast<std::int64_t>(kColumnBytes / std::max<std::size_t>(row_bytes, 1));
  return std::clamp<std::int64_t>(fit, 1, std::max<std::int64_t>(g.out[1], 1));
}

/// Whether a convolution that takes the filters as the GEMM's B packs its input's patches as the
/// GEMM's A straight from the input, instead of copying them into im2col columns for the GEMM
/// to pack: f32 over a map of fewer than kFiltersFirstMinPixels outputs per image (one block),
/// where im2col's rows are a few elements each and its cost per row is all of its cost.
template <class T>
bool patches_as_a(const ConvGeometry& g, bool as_b) {
  return std::is_same_v<T, float> && as_b && !g.pointwise() &&
         g.out_size() < kFiltersFirstMinPixels;
}

/// What convolution() takes from its scratch, by one function for the counting run
/// (convolution_scratch()) and the real one.
template <class T>
struct Buffers {
  std::span<float> packed;          ///< the filters packed for the GEMM, when not prepared
  std::span<float> depthwise;       ///< the depthwise filters as floats, when not prepared
  DepthwiseBuffers depthwise_rows;  ///< the depthwise loop's
  std::span<T> columns;             ///< an im2col block
  /// A small map's patches packed as the GEMM's A (patches_as_a()), and where each pixel reads
  /// its input at each kernel position.
  std::span<float> patches;
  std::span<std::int64_t> patch_offsets;
  /// Shifted rows: the padded input, B's row offsets in it, a block of wide outputs.
  std::span<float> padded, wide;
  std::span<std::int64_t> row_offsets;
  Scratch::Slices gemm;  ///< the GEMM's buffers, the same piece for every call
};

template <class T>
Buffers<T> take_buffers(const Scratch& s, const ConvGeometry& g, const ConvWeights* weights,
                        unsigned threads) {
  const bool prepared = weights != nullptr;
  const bool as_b = run_filters_as_b<T>(g, weights);
  Buffers<T> b;
  if (g.depthwise()) {
    if (!prepared)
      b.depthwise = s.take<float>(static_cast<std::size_t>(g.groups * g.kernel_size()));
    const auto row_taps = static_cast<std::size_t>(g.kernel[0] * g.kernel[1]);
    b.depthwise_rows.floats = s.take<float>(depthwise_chunk_floats<T>(g) * threads);
    b.depthwise_rows.held = s.take<std::int64_t>(static_cast<std::size_t>(held_rows(g)) * threads);
    b.depthwise_rows.rows = s.take<const float*>(row_taps * threads);
    b.depthwise_rows.weights = s.take<const float*>(row_taps * threads);
    b.depthwise_rows.taps = s.take<ColumnTap>(static_cast<std::size_t>(g.kernel[2]));
    return b;
  }
  const GemmIsa isa = gemm_isa();
  if (as_b && (!prepared || weights->packed.count() == 0))
    b.packed =
        s.take<float>(PackedB::bytes(g.groups, g.patch(), g.out_channels, isa) / sizeof(float));
  std::int64_t pixels = g.out_size();
  if (shifted_rows<T>(g, weights)) {
    const ShiftedLayout layout = shifted_layout(g);
    pixels = shifted_rows_per_block(g, layout) * layout.width;
    // The GEMM reads B's rows a panel at a time, up to kGemmRowSlack floats past the last.
    b.padded =
        s.take<float>(static_cast<std::size_t>(g.in_channels * layout.channel() + kGemmRowSlack));
    b.row_offsets = s.take<std::int64_t>(static_cast<std::size_t>(g.patch()));
    b.wide = s.take<float>(static_cast<std::size_t>(g.out_channels * wide_stride(pixels)));
  } else if (patches_as_a<T>(g, as_b)) {
    b.patches =
        s.take<float>(static_cast<std::size_t>(PackedALayout(pixels, g.patch(), isa).floats()));
    b.patch_offsets = s.take<std::int64_t>(static_cast<std::size_t>(g.kernel_size() * pixels));
  } else if (!g.pointwise()) {
    pixels = rows_per_block(g, sizeof(T)) * g.out[2];
    b.columns = s.take<T>(static_cast<std::size_t>(g.patch() * pixels));
  }
  b.gemm = s.slices(1, as_b ? gemm_scratch(pixels, g.out_channels, g.patch(), 0, threads, isa)
                            : gemm_scratch(g.out_channels, pixels, g.patch(), 0, threads, isa));
  return b;
}

/// Output rows narrower than this are made one element at a time (fill and memmove calls
/// would cost more than the row); wider ones by fill and copy.
inline constexpr std::int64_t kShortRow = 32;

/// dst[o] = src[o * stride] for o in `valid`, zero elsewhere, for o < ow: a small map's row. One
/// loop with a condition, which the compiler does not turn into calls to memset.
template <class T>
IRLITE_INLINE void short_row(const T* src, std::int64_t stride, T* dst, std::int64_t ow, Span valid,
                             T zero) {
  for (std::int64_t o = 0; o < ow; ++o)
    dst[o] = o >= valid.lo && o < valid.hi ? src[o * stride] : zero;
}

/// Copies the patches of output rows [r0, r0 + rows) of one image's group (`x` at its first
/// channel) into `columns`: row q = (channel, kernel position) holds, for each output pixel of
/// the block, the input under that kernel position, or zero in the padding.
template <class T>
void im2col(const Parallel& par, const ConvGeometry& g, const T* x, std::int64_t r0,
            std::int64_t rows, T* columns) {
  const std::int64_t ow = g.out[2], m = rows * ow;
  const std::int64_t kernel = g.kernel_size();
  const T zero = from_float<T>(0.0f);
  // The geometry in locals: the row loops are short on a small map, and the compiler cannot
  // keep g's fields in registers across the stores.
  const std::int64_t kernel_d = g.kernel[0], kernel_h = g.kernel[1], kernel_w = g.kernel[2];
  const std::int64_t in_d = g.in[0], in_h = g.in[1], in_w = g.in[2], out_h = g.out[1];
  const std::int64_t stride_d = g.stride[0], stride_h = g.stride[1], stride_w = g.stride[2];
  const std::int64_t plane_size = g.in_size();
  par.for_range(static_cast<std::size_t>(g.patch()),
                static_cast<std::size_t>(std::max<std::int64_t>(1, (1 << 14) / m)),
                [&](std::size_t first, std::size_t last, std::size_t) {
                  // Row q = (channel c, kernel position kd, kh, kw), counted up from `first`.
                  const auto q0 = static_cast<std::int64_t>(first);
                  std::int64_t c = q0 / kernel, kd = q0 % kernel / (kernel_h * kernel_w);
                  std::int64_t kh = q0 / kernel_w % kernel_h, kw = q0 % kernel_w;
                  for (std::int64_t q = q0; q < static_cast<std::int64_t>(last); ++q) {
                    const T* plane = x + c * plane_size;
                    const std::int64_t offset = kw * g.dilation[2] - g.pad_begin[2];
                    const Span cols = inside(ow, stride_w, offset, in_w);
                    const std::int64_t d0 = kd * g.dilation[0] - g.pad_begin[0];
                    const std::int64_t h0 = kh * g.dilation[1] - g.pad_begin[1];
                    T* dst = columns + q * m;
                    std::int64_t od = r0 / out_h, oh = r0 % out_h;
                    for (std::int64_t r = 0; r < rows; ++r, dst += ow) {
                      const std::int64_t id = od * stride_d + d0, ih = oh * stride_h + h0;
                      if (++oh == out_h) {
                        oh = 0;
                        ++od;
                      }
                      const bool outside = id < 0 || id >= in_d || ih < 0 || ih >= in_h;
                      const T* src = outside ? plane : plane + (id * in_h + ih) * in_w + offset;
                      if (ow < kShortRow) {
                        short_row(src, stride_w, dst, ow, outside ? Span{} : cols, zero);
                        continue;
                      }
                      if (outside) {
                        std::fill_n(dst, ow, zero);
                        continue;
                      }
                      std::fill_n(dst, cols.lo, zero);
                      if (stride_w == 1)
                        std::copy(src + cols.lo, src + cols.hi, dst + cols.lo);
                      else
                        for (std::int64_t o = cols.lo; o < cols.hi; ++o) dst[o] = src[o * stride_w];
                      std::fill(dst + cols.hi, dst + ow, zero);
                    }
                    if (++kw == kernel_w) {
                      kw = 0;
                      if (++kh == kernel_h) {
                        kh = 0;
                        if (++kd == kernel_d) {
                          kd = 0;
                          ++c;
                        }
                      }
                    }
                  }
                });
}

/// One depthwise output row: out[o] = the sum, over the `count` held input rows and then the
/// taps along the row, in increasing order, of the weight times the input, each product rounded
/// before it is added, from 0; taps outside the input add nothing. Columns below `vector_end`
/// (ow, or 0) run a vector at a time and add the held rows' zeros for taps outside the input:
/// with finite weights each adds a zero, which changes no sum (a sum from +0 is never -0).
IRLITE_MULTIVERSION void depthwise_row(float* __restrict out, const float* const* rows,
                                       const float* const* weights, std::int64_t count,
                                       const ColumnTap* taps, std::int64_t tap_count,
                                       std::int64_t ow, std::int64_t vector_end) {
  using V = simd::vec<float>;
  constexpr auto L = static_cast<std::int64_t>(simd::lanes<float>);
  std::int64_t o = 0;
  for (; o + 4 * L <= vector_end; o += 4 * L) {
    V a0{}, a1{}, a2{}, a3{};
    for (std::int64_t r = 0; r < count; ++r)
      for (std::int64_t t = 0; t < tap_count; ++t) {
        const V w = simd::broadcast(weights[r][t]);
        const float* src = rows[r] + (taps[t].base + o);
        a0 = a0 + w * simd::load(src);
        a1 = a1 + w * simd::load(src + L);
        a2 = a2 + w * simd::load(src + 2 * L);
        a3 = a3 + w * simd::load(src + 3 * L);
      }
    simd::store(out + o, a0);
    simd::store(out + o + L, a1);
    simd::store(out + o + 2 * L, a2);
    simd::store(out + o + 3 * L, a3);
  }
  for (; o < vector_end; o += L) {
    V a{};
    for (std::int64_t r = 0; r < count; ++r)
      for (std::int64_t t = 0; t < tap_count; ++t)
        a = a + simd::broadcast(weights[r][t]) * simd::load(rows[r] + (taps[t].base + o));
    if (o + L <= vector_end) {
      simd::store(out + o, a);
    } else {
      // The held rows reach a whole vector past ow; the output row does not.
      alignas(32) float last[L];
      simd::store(last, a);
      std::copy_n(last, vector_end - o, out + o);
    }
  }
  for (o = vector_end; o < ow; ++o) {
    float acc = 0.0f;
    for (std::int64_t r = 0; r < count; ++r)
      for (std::int64_t t = 0; t < tap_count; ++t)
        if (o + taps[t].q >= 0 && o + taps[t].q < taps[t].phase_len)
          acc = acc + weights[r][t] * rows[r][taps[t].base + o];
    out[o] = acc;
  }
}

// ---- The depthwise 3 x 3 case: stride 1 or 2, one pixel of padding before -----------------
// MobileNet's layers. Every tap of an inner column reads inside its input row, so the rows are
// read where they are (no held copies) and only the first and last columns skip taps. Same sums
// as depthwise_row(), in the same order.

/// Whether `g` is that case: 2D, a 3 x 3 kernel, dilation 1, the same stride of 1 or 2 on both
/// axes, one pixel of padding before the rows and the columns (any after).
bool rows_in_place(const ConvGeometry& g) {
  return g.in[0] == 1 && g.out[0] == 1 && g.kernel[0] == 1 && g.kernel[1] == 3 &&
         g.kernel[2] == 3 && g.stride[1] == g.stride[2] && (g.stride[1] == 1 || g.stride[1] == 2) &&
         g.dilation[1] == 1 && g.dilation[2] == 1 && g.pad_begin[1] == 1 && g.pad_begin[2] == 1;
}

/// Output column o of a row from the R input rows under it (weights w, R rows of three): the
/// taps inside the row only.
template <int R, int S>
IRLITE_INLINE float in_place_column(const float* const* rows, const float* w, std::int64_t iw,
                                    std::int64_t o) {
  float acc = 0.0f;
  for (int r = 0; r < R; ++r)
    for (std::int64_t t = 0; t < 3; ++t) {
      const std::int64_t i = S * o - 1 + t;
      if (i >= 0 && i < iw) acc = acc + w[r * 3 + t] * rows[r][i];
    }
  return acc;
}

/// acc plus, in tap order, the three weights wr times the inputs under them in `row` for output
/// columns o to o + L - 1 (stride S).
template <int S, class V>
IRLITE_INLINE V add_row_taps(V acc, const V (&wr)[3], const float* row, std::int64_t o) {
  constexpr auto L = static_cast<std::int64_t>(simd::lanes<float>);
  static_assert(L == 8);
  if constexpr (S == 1) {
    acc = acc + wr[0] * simd::load(row + o - 1);
    acc = acc + wr[1] * simd::load(row + o);
    return acc + wr[2] * simd::load(row + o + 1);
  } else {
    // Columns 2o - 1, 2o + 1, ... (tap 0), 2o, 2o + 2, ... (tap 1) and 2o + 1, 2o + 3, ... (tap 2).
    const V before = simd::load(row + 2 * o - 1), before_hi = simd::load(row + 2 * o + L - 1);
    const V at = simd::load(row + 2 * o), at_hi = simd::load(row + 2 * o + L);
    acc = acc + wr[0] * __builtin_shufflevector(before, before_hi, 0, 2, 4, 6, 8, 10, 12, 14);
    acc = acc + wr[1] * __builtin_shufflevector(at, at_hi, 0, 2, 4, 6, 8, 10, 12, 14);
    return acc + wr[2] * __builtin_shufflevector(at, at_hi, 1, 3, 5, 7, 9, 11, 13, 15);
  }
}

/// The leading fused steps of one channel that the in-place loop runs on its sums before it
/// stores them: Add, Multiply, ReLU and PReLU, each with the channel's value.
struct PlaneSteps {
  std::int64_t count = 0;
  std::array<EpilogueStep::Kind, kMaxConvSteps> kind{};
  std::array<float, kMaxConvSteps> value{};
};

/// Whether the in-place loop runs `kind` on its sums.
bool plane_step(EpilogueStep::Kind kind) {
  return kind == EpilogueStep::Kind::add || kind == EpilogueStep::Kind::multiply ||
         kind == EpilogueStep::Kind::relu || kind == EpilogueStep::Kind::prelu;
}

/// The steps on a vector or a float of sums: each element as run_steps() computes it.
template <class V>
IRLITE_INLINE V finish(V a, const PlaneSteps& ps) {
  for (std::int64_t i = 0; i < ps.count; ++i)
    a = value_step(ps.kind[static_cast<std::size_t>(i)], a, ps.value[static_cast<std::size_t>(i)]);
  return a;
}

/// Stride 1, one pixel of padding on each side of the row (ow == iw), at least 2 vectors: the
/// row's first and last vectors with the padding's zero shifted into their taps, every inner
/// vector between. Tap by tap the sums of in_place_column(), which skips the padding: a finite
/// weight times that zero adds a zero, which changes no sum (a sum from +0 is never -0).
template <int R, class V>
IRLITE_INLINE void in_place_padded_row(float* __restrict out, const float* const* rows,
                                       const V (*wv)[3], std::int64_t ow, const PlaneSteps& ps) {
  constexpr auto L = static_cast<std::int64_t>(simd::lanes<float>);
  static_assert(L == 8);
  const V zero{};
  V first{}, last{};
  const std::int64_t end = ow - L;
#pragma GCC unroll 3
  for (int r = 0; r < R; ++r) {
    const V head = simd::load(rows[r]), tail = simd::load(rows[r] + end);
    // Columns -1 to 6 (the padding's zero first), 0 to 7, 1 to 8.
    first = first + wv[r][0] * __builtin_shufflevector(zero, head, 7, 8, 9, 10, 11, 12, 13, 14);
    first = first + wv[r][1] * head;
    first = first + wv[r][2] * simd::load(rows[r] + 1);
    // Columns end - 1 to ow - 2, end to ow - 1, end + 1 to ow (the padding's zero last).
    last = last + wv[r][0] * simd::load(rows[r] + end - 1);
    last = last + wv[r][1] * tail;
    last = last + wv[r][2] * __builtin_shufflevector(tail, zero, 1, 2, 3, 4, 5, 6, 7, 8);
  }
  std::int64_t o = L;
  for (; o + L <= end; o += L) {
    V a{};
#pragma GCC unroll 3
    for (int r = 0; r < R; ++r) a = add_row_taps<1>(a, wv[r], rows[r], o);
    simd::store(out + o, finish(a, ps));
  }
  if (o < end) {
    // The columns left: a vector that ends where the last begins (their sums again, the same).
    V a{};
#pragma GCC unroll 3
    for (int r = 0; r < R; ++r) a = add_row_taps<1>(a, wv[r], rows[r], end - L);
    simd::store(out + end - L, finish(a, ps));
  }
  simd::store(out, finish(first, ps));
  simd::store(out + end, finish(last, ps));
}

/// One output row (ow columns) from the R input rows under it (R consecutive kernel rows,
/// weights w on, and wv, the same broadcast), stride S, the steps `ps` on every sum.
/// `vector_edges`: the weights are finite, so a stride-1 row padded by one pixel on each side
/// may take in_place_padded_row(), and a stride-2 row's first vector may read the padding as a
/// zero.
template <int R, int S, class V>
IRLITE_INLINE void in_place_row(float* __restrict out, const float* const* rows, const float* w,
                                const V (*wv)[3], std::int64_t iw, std::int64_t ow,
                                const PlaneSteps& ps, bool vector_edges) {
  constexpr auto L = static_cast<std::int64_t>(simd::lanes<float>);
  if constexpr (S == 1) {
    if (vector_edges && ow == iw && ow >= 2 * L)
      return in_place_padded_row<R>(out, rows, wv, ow, ps);
  }
  // Inner columns from 1 on: their taps read S * o - 1 to S * o + 1, inside the row while
  // S * o + 1 < iw. A vector of them reads up to S * (o + L - 1) + 1.
  const std::int64_t inner_end = std::min(ow, iw >= 2 ? (iw - 2) / S + 1 : 0);
  const auto inner = [&](std::int64_t o) {
    V a{};
#pragma GCC unroll 3
    for (int r = 0; r < R; ++r) a = add_row_taps<S>(a, wv[r], rows[r], o);
    return finish(a, ps);
  };
  std::int64_t o = 1;
  if (S == 2 && vector_edges && inner_end >= L && iw >= 2 * L) {
    // The first vector with the padding's zero shifted into tap 0 of column 0 (columns -1, 1,
    // ..., 13), as in_place_padded_row() does: the same sums as in_place_column().
    const V zero{};
    V first{};
#pragma GCC unroll 3
    for (int r = 0; r < R; ++r) {
      const V at = simd::load(rows[r]), at_hi = simd::load(rows[r] + L);
      const V even = __builtin_shufflevector(at, at_hi, 0, 2, 4, 6, 8, 10, 12, 14);
      const V odd = __builtin_shufflevector(at, at_hi, 1, 3, 5, 7, 9, 11, 13, 15);
      first = first + wv[r][0] * __builtin_shufflevector(zero, odd, 7, 8, 9, 10, 11, 12, 13, 14);
      first = first + wv[r][1] * even;
      first = first + wv[r][2] * odd;
    }
    simd::store(out, finish(first, ps));
    o = L;
  } else {
    out[0] = finish(in_place_column<R, S>(rows, w, iw, 0), ps);
  }
  // Four vectors at a time for stride 1, two for stride 2 (whose taps take more registers).
  if constexpr (S == 1) {
    for (; o + 4 * L <= inner_end; o += 4 * L) {
      V a0{}, a1{}, a2{}, a3{};
#pragma GCC unroll 3
      for (int r = 0; r < R; ++r) {
        a0 = add_row_taps<S>(a0, wv[r], rows[r], o);
        a1 = add_row_taps<S>(a1, wv[r], rows[r], o + L);
        a2 = add_row_taps<S>(a2, wv[r], rows[r], o + 2 * L);
        a3 = add_row_taps<S>(a3, wv[r], rows[r], o + 3 * L);
      }
      simd::store(out + o, finish(a0, ps));
      simd::store(out + o + L, finish(a1, ps));
      simd::store(out + o + 2 * L, finish(a2, ps));
      simd::store(out + o + 3 * L, finish(a3, ps));
    }
  } else {
    for (; o + 2 * L <= inner_end; o += 2 * L) {
      V a0{}, a1{};
#pragma GCC unroll 3
      for (int r = 0; r < R; ++r) {
        a0 = add_row_taps<S>(a0, wv[r], rows[r], o);
        a1 = add_row_taps<S>(a1, wv[r], rows[r], o + L);
      }
      simd::store(out + o, finish(a0, ps));
      simd::store(out + o + L, finish(a1, ps));
    }
  }
  for (; o + L <= inner_end; o += L) simd::store(out + o, inner(o));
  // The inner columns left, fewer than a vector: a vector that ends at inner_end, over columns
  // already made (their sums again, the same).
  if (o < inner_end && inner_end - L >= 1) {
    simd::store(out + inner_end - L, inner(inner_end - L));
    o = inner_end;
  }
  for (o = std::max<std::int64_t>(o, 1); o < ow; ++o)
    out[o] = finish(in_place_column<R, S>(rows, w, iw, o), ps);
}

/// Output rows [oh_begin, oh_end) of one channel (`out` its plane, ow columns; plane x of
/// ih x iw, weights w: nine floats), stride S, the steps `ps` on every sum.
template <int S>
IRLITE_MULTIVERSION void in_place_plane_rows(float* __restrict out, const float* x, const float* w,
                                             std::int64_t ih, std::int64_t iw, std::int64_t ow,
                                             std::int64_t oh_begin, std::int64_t oh_end,
                                             const PlaneSteps& ps) {
  using V = simd::vec<float>;
  V wv[3][3];
  bool finite = true;
  for (int r = 0; r < 3; ++r)
    for (int t = 0; t < 3; ++t) {
      wv[r][t] = simd::broadcast(w[r * 3 + t]);
      finite = finite && std::isfinite(w[r * 3 + t]);
    }
  for (std::int64_t oh = oh_begin; oh < oh_end; ++oh) {
    // The kernel rows inside the input: kh from first to last, input row S * oh - 1 + kh.
    const std::int64_t top = S * oh - 1;
    const std::int64_t first = top < 0 ? 1 : 0, last = std::min<std::int64_t>(2, ih - 1 - top);
    const float* rows[3];
    for (std::int64_t kh = first; kh <= last; ++kh) rows[kh - first] = x + (top + kh) * iw;
    const float* wk = w + first * 3;
    float* const row = out + oh * ow;
    switch (last - first + 1) {
      case 3:
        in_place_row<3, S>(row, rows, wk, wv + first, iw, ow, ps, finite);
        break;
      case 2:
        in_place_row<2, S>(row, rows, wk, wv + first, iw, ow, ps, finite);
        break;
      case 1:
        in_place_row<1, S>(row, rows, wk, wv + first, iw, ow, ps, finite);
        break;
      default:  // no input row under it (padding only): zeros, then the steps
        std::fill_n(row, ow, finish(0.0f, ps));
    }
  }
}

/// The outputs the depthwise loops run the fused steps on at once, at most: 8 KiB.
inline constexpr std::int64_t kStepFloats = 2048;

/// The rows_in_place() case, f32.
void depthwise_in_place(const Parallel& par, const ConvGeometry& g, const float* x, const float* w,
                        float* y, std::span<const EpilogueStep> steps) {
  const std::int64_t rows = g.out[1], ow = g.out[2], ih = g.in[1], iw = g.in[2];
  if (ow == 0) return;
  const std::int64_t units = g.batch * g.groups * rows;
  const auto plane_rows = g.stride[1] == 1 ? in_place_plane_rows<1> : in_place_plane_rows<2>;
  // The leading Adds, Multiplies, ReLUs and PReLUs run on the sums before they are stored; the
  // steps from the first other one on run on the rows a call makes, while those are in L1.
  const auto in_row = static_cast<std::size_t>(
      std::find_if_not(steps.begin(), steps.end(),
                       [](const EpilogueStep& s) { return plane_step(s.kind); }) -
      steps.begin());
  const std::span<const EpilogueStep> after = steps.subspan(in_row);
  const std::int64_t span_rows = std::max<std::int64_t>(1, kStepFloats / ow);
  par.for_range(
      static_cast<std::size_t>(units),
      static_cast<std::size_t>(std::max<std::int64_t>(1, (1 << 13) / (ow * 9))),
      [&](std::size_t begin, std::size_t end, std::size_t) {
        for (auto u = static_cast<std::int64_t>(begin); u < static_cast<std::int64_t>(end);) {
          const std::int64_t plane = u / rows, oh = u % rows;
          const std::int64_t span =
              std::min({span_rows, rows - oh, static_cast<std::int64_t>(end) - u});
          const std::int64_t group = plane % g.groups;
          float* const out = y + plane * g.out_size();
          PlaneSteps ps;
          ps.count = static_cast<std::int64_t>(in_row);
          for (std::size_t i = 0; i < in_row; ++i) {
            ps.kind[i] = steps[i].kind;
            ps.value[i] = steps[i].kind == EpilogueStep::Kind::relu ? 0.0f : steps[i].values[group];
          }
          plane_rows(out, x + plane * g.in_size(), w + group * 9, ih, iw, ow, oh, oh + span, ps);
          if (!after.empty()) apply_steps(after, group, out + oh * ow, span * ow);
          u += span;
        }
      });
}

/// Copies input row `src` (iw elements) into `dst` as `layout` holds it, as floats.
template <class T>
void hold_row(const T* src, std::int64_t iw, std::int64_t s, const RowLayout& layout, float* dst) {
  for (std::int64_t p = 0; p < s; ++p) {
    float* d = dst + p * layout.phase;
    const std::int64_t len = p < iw ? phase_length(iw - p, s) : 0;
    std::fill_n(d, layout.left, 0.0f);
    std::fill(d + layout.left + len, d + layout.phase, 0.0f);
  }
  if constexpr (std::is_same_v<T, float>) {
    if (s == 1) {
      std::copy_n(src, iw, dst + layout.left);
      return;
    }
    if (s == 2) {
      split_even_odd(src, iw, dst + layout.left, dst + layout.phase + layout.left);
      return;
    }
  }
  for (std::int64_t p = 0; p < s; ++p) {
    float* d = dst + p * layout.phase + layout.left;
    for (std::int64_t i = p, j = 0; i < iw; i += s, ++j) d[j] = to_float(src[i]);
  }
}

/// Whether `g`'s one output per plane reads every tap inside the input: a window that starts at
/// the plane's first element (no padding before) and ends inside it (a "global" depthwise layer,
/// whose kernel covers the map).
bool single_window(const ConvGeometry& g) {
  if (g.out_size() != 1) return false;
  for (std::size_t i = 0; i < 3; ++i)
    if (g.pad_begin[i] != 0 || (g.kernel[i] - 1) * g.dilation[i] >= g.in[i]) return false;
  return true;
}

/// The single_window() case: per plane, the sum over the kernel's positions in row-major order,
/// from 0, of the weight times the input under it, each product rounded before it is added (the
/// depthwise loop's sum, term for term). Eight planes at a time, one sum per plane, so that the
/// additions of different planes overlap.
template <class T>
void depthwise_single_window(const Parallel& par, const ConvGeometry& g, const T* x, const float* w,
                             T* y, std::span<const EpilogueStep> steps) {
  constexpr std::int64_t kPlanes = 8;
  const std::int64_t planes = g.batch * g.groups, kernel = g.kernel_size();
  const std::int64_t blocks = (planes + kPlanes - 1) / kPlanes;
  par.for_range(static_cast<std::size_t>(blocks),
                static_cast<std::size_t>(std::max<std::int64_t>(1, (1 << 13) / (kPlanes * kernel))),
                [&](std::size_t first, std::size_t last, std::size_t) {
                  for (auto block = static_cast<std::int64_t>(first);
                       block < static_cast<std::int64_t>(last); ++block) {
                    const std::int64_t p0 = block * kPlanes, count = std::min(kPlanes, planes - p0);
                    const T* in[kPlanes];
                    const float* weights[kPlanes];
                    for (std::int64_t l = 0; l < count; ++l) {
                      in[l] = x + (p0 + l) * g.in_size();
                      weights[l] = w + (p0 + l) % g.groups * kernel;
                    }
                    float acc[kPlanes] = {};
                    for (std::int64_t kd = 0; kd < g.kernel[0]; ++kd)
                      for (std::int64_t kh = 0; kh < g.kernel[1]; ++kh)
                        for (std::int64_t kw = 0; kw < g.kernel[2]; ++kw) {
                          const std::int64_t at =
                              (kd * g.dilation[0] * g.in[1] + kh * g.dilation[1]) * g.in[2] +
                              kw * g.dilation[2];
                          const std::int64_t tap = (kd * g.kernel[1] + kh) * g.kernel[2] + kw;
                          for (std::int64_t l = 0; l < count; ++l)
                            acc[l] = acc[l] + weights[l][tap] * to_float(in[l][at]);
                        }
                    // The steps on the block's channels at once, unless it wraps past the
                    // last group into the next image.
                    const std::int64_t group = p0 % g.groups;
                    if (group + count <= g.groups) {
                      apply_channel_steps(steps, group, acc, count);
                    } else {
                      for (std::int64_t l = 0; l < count; ++l)
                        apply_steps(steps, (p0 + l) % g.groups, acc + l, 1);
                    }
                    for (std::int64_t l = 0; l < count; ++l) y[p0 + l] = from_float<T>(acc[l]);
                  }
                });
}

/// The depthwise loop: each output row is the sum over kernel positions, in increasing order,
/// of the weight times the input under it, in float (depthwise_row()).
template <class T>
void depthwise(const Parallel& par, const ConvGeometry& g, const T* x, const float* w, T* y,
               const DepthwiseBuffers& buffers, std::span<const EpilogueStep> steps) {
  if constexpr (std::is_same_v<T, float>) {
    if (rows_in_place(g)) return depthwise_in_place(par, g, x, w, y, steps);
  }
  if (single_window(g)) return depthwise_single_window(par, g, x, w, y, steps);
  const std::int64_t rows = g.out[0] * g.out[1], ow = g.out[2], iw = g.in[2];
  const std::int64_t planes = g.batch * g.groups, kernel = g.kernel_size();
  const std::int64_t units = planes * rows, row_taps = g.kernel[0] * g.kernel[1];
  const std::int64_t s = g.stride[2], held = held_rows(g);
  const RowLayout layout = row_layout(g);
  column_taps(g, layout, buffers.taps);
  const std::int64_t row_floats = s * layout.phase;
  const std::size_t chunk_floats = depthwise_chunk_floats<T>(g);
  // A weight of inf or NaN times a held zero is NaN where the sum must skip the tap: such
  // filters take the scalar loop, which skips taps outside the input.
  const bool finite =
      std::all_of(w, w + g.groups * kernel, [](float v) { return std::isfinite(v); });
  const std::int64_t vector_end = finite ? ow : 0;
  par.for_range(
      static_cast<std::size_t>(units),
      static_cast<std::size_t>(
          std::max<std::int64_t>(1, (1 << 13) / std::max<std::int64_t>(ow * kernel, 1))),
      [&](std::size_t first, std::size_t last, std::size_t chunk) {
        float* const data = buffers.floats.data() + chunk * chunk_floats;
        float* const acc = data + held * row_floats;
        std::int64_t* const held_row = buffers.held.data() + chunk * static_cast<std::size_t>(held);
        std::fill_n(held_row, held, -1);
        const float** const in_rows =
            buffers.rows.data() + chunk * static_cast<std::size_t>(row_taps);
        const float** const weights =
            buffers.weights.data() + chunk * static_cast<std::size_t>(row_taps);
        for (std::size_t t = first; t < last; ++t) {
          const auto u = static_cast<std::int64_t>(t);
          const std::int64_t plane = u / rows, row = u % rows;
          const std::int64_t od = row / g.out[1], oh = row % g.out[1];
          const T* xp = x + plane * g.in_size();
          const float* wk = w + plane % g.groups * kernel;
          std::int64_t count = 0;
          for (std::int64_t kd = 0; kd < g.kernel[0]; ++kd) {
            const std::int64_t id = od * g.stride[0] - g.pad_begin[0] + kd * g.dilation[0];
            if (id < 0 || id >= g.in[0]) continue;
            for (std::int64_t kh = 0; kh < g.kernel[1]; ++kh) {
              const std::int64_t ih = oh * g.stride[1] - g.pad_begin[1] + kh * g.dilation[1];
              if (ih < 0 || ih >= g.in[1]) continue;
              // Input rows a kernel apart along an axis land in different slots: rows under
              // one output row never share one, and a row stays held while the next output
              // rows read it.
              const std::int64_t slot =
                  id / g.dilation[0] % g.kernel[0] * g.kernel[1] + ih / g.dilation[1] % g.kernel[1];
              const std::int64_t input_row = (plane * g.in[0] + id) * g.in[1] + ih;
              float* const dst = data + slot * row_floats;
              if (held_row[slot] != input_row) {
                hold_row(xp + (id * g.in[1] + ih) * iw, iw, s, layout, dst);
                held_row[slot] = input_row;
              }
              in_rows[count] = dst;
              weights[count++] = wk + (kd * g.kernel[1] + kh) * g.kernel[2];
            }
          }
          // f32 sums go straight to the output row; others through `acc`, rounded once.
          T* const out = y + plane * g.out_size() + row * ow;
          float* sums = acc;
          if constexpr (std::is_same_v<T, float>) sums = out;
          depthwise_row(sums, in_rows, weights, count, buffers.taps.data(), g.kernel[2], ow,
                        vector_end);
          apply_steps(steps, plane % g.groups, sums, ow);
          if constexpr (!std::is_same_v<T, float>)
            for (std::int64_t o = 0; o < ow; ++o) out[o] = from_float<T>(acc[o]);
        }
      });
}

/// Packs the patches of one image's group (`x` at its first channel) as the GEMM's A (`layout`,
/// of out_size() x patch()): row i is output pixel i, column q = (channel, kernel position) the
/// input under that position, or zero in the padding. `offsets` (kernel_size() x out_size())
/// first takes where each pixel reads each kernel position in a channel's plane, -1 in the
/// padding.
void pack_patches(const Parallel& par, const ConvGeometry& g, const float* x,
                  const PackedALayout& layout, std::span<std::int64_t> offsets, float* a) {
  const std::int64_t pixels = g.out_size(), kernel = g.kernel_size(), plane = g.in_size();
  for (std::int64_t k = 0; k < kernel; ++k) {
    const std::int64_t kd = k / (g.kernel[1] * g.kernel[2]);
    const std::int64_t kh = k / g.kernel[2] % g.kernel[1], kw = k % g.kernel[2];
    for (std::int64_t i = 0; i < pixels; ++i) {
      const std::int64_t od = i / (g.out[1] * g.out[2]);
      const std::int64_t oh = i / g.out[2] % g.out[1], ow = i % g.out[2];
      const std::int64_t id = od * g.stride[0] - g.pad_begin[0] + kd * g.dilation[0];
      const std::int64_t ih = oh * g.stride[1] - g.pad_begin[1] + kh * g.dilation[1];
      const std::int64_t iw = ow * g.stride[2] - g.pad_begin[2] + kw * g.dilation[2];
      const bool inside =
          id >= 0 && id < g.in[0] && ih >= 0 && ih < g.in[1] && iw >= 0 && iw < g.in[2];
      offsets[static_cast<std::size_t>(k * pixels + i)] =
          inside ? (id * g.in[1] + ih) * g.in[2] + iw : -1;
    }
  }
  const std::int64_t mr = layout.mr();
  par.for_range(static_cast<std::size_t>(g.patch()),
                static_cast<std::size_t>(std::max<std::int64_t>(1, (1 << 14) / pixels)),
                [&](std::size_t first, std::size_t last, std::size_t) {
                  const auto q0 = static_cast<std::int64_t>(first);
                  std::int64_t c = q0 / kernel, k = q0 % kernel;
                  for (std::int64_t q = q0; q < static_cast<std::int64_t>(last); ++q) {
                    const float* const xc = x + c * plane;
                    const std::int64_t* const at = offsets.data() + k * pixels;
                    for (std::int64_t i0 = 0; i0 < pixels; i0 += mr) {
                      float* const column = a + layout.column(i0, q);
                      const std::int64_t rows = std::min(mr, pixels - i0);
                      for (std::int64_t r = 0; r < rows; ++r)
                        column[r] = at[i0 + r] >= 0 ? xc[at[i0 + r]] : 0.0f;
                    }
                    if (++k == kernel) {
                      k = 0;
                      ++c;
                    }
                  }
                });
}

/// The steps with their values from group `group`'s first output channel on.
std::array<EpilogueStep, kMaxConvSteps> group_steps(std::span<const EpilogueStep> steps,
                                                    std::int64_t group, std::int64_t channels) {
  std::array<EpilogueStep, kMaxConvSteps> out;
  for (std::size_t s = 0; s < std::min(steps.size(), kMaxConvSteps); ++s) {
    out[s] = steps[s];
    // An added tensor is read at each output's own place, whatever its channel.
    if (steps[s].values && steps[s].kind != EpilogueStep::Kind::add_tensor)
      out[s].values += group * channels;
  }
  return out;
}

/// Runs one GEMM per image, group and block of output rows, as
/// `block_gemm(group, steps, in, pixels, out)`: `in` is the group's input itself (pointwise) or
/// the block's im2col columns, `pixels` the block's output pixels, `out` where its output starts in
/// the group's channels-first output (a row of out_size() pixels per channel), and `steps` the
/// fused steps with their values from the group's first channel on.
template <class T, class BlockGemm>
void for_each_block(const Parallel& par, const ConvGeometry& g, const T* x, T* y,
                    const Buffers<T>& b, std::span<const EpilogueStep> steps,
                    const BlockGemm& block_gemm) {
  const std::int64_t out_size = g.out_size();
  const std::size_t step_count = std::min(steps.size(), kMaxConvSteps);
  for (std::int64_t n = 0; n < g.batch; ++n)
    for (std::int64_t group = 0; group < g.groups; ++group) {
      const std::int64_t image_group = n * g.groups + group;
      const auto values = group_steps(steps, group, g.out_channels);
      const std::span<const EpilogueStep> own(values.data(), step_count);
      const T* xg = x + image_group * g.in_channels * g.in_size();
      T* yg = y + image_group * g.out_channels * out_size;
      if (g.pointwise()) {
        block_gemm(group, own, xg, out_size, yg);
        continue;
      }
      const std::int64_t rows = g.out[0] * g.out[1];
      const std::int64_t block = rows_per_block(g, sizeof(T));
      for (std::int64_t r0 = 0; r0 < rows; r0 += block) {
        const std::int64_t count = std::min(block, rows - r0);
        im2col(par, g, xg, r0, count, b.columns.data());
        block_gemm(group, own, b.columns.data(), count * g.out[2], yg + r0 * g.out[2]);
      }
    }
}

/// From this many floats, a row is copied by memmove (whose wider vectors then pay for the call).
inline constexpr std::int64_t kLongRow = 64;

/// dst[i] = src[i] for i < n, n below kLongRow: a vector at a time, the last overlapping the one
/// before, or element by element below a vector (a call to memmove would cost more than either).
/// Inlined into the function clones that call it, for their vectors.
IRLITE_INLINE void copy_short(const float* __restrict src, float* __restrict dst, std::int64_t n) {
  constexpr auto L = static_cast<std::int64_t>(simd::lanes<float>);
  if (n < L) {
    for (std::int64_t i = 0; i < L - 1; ++i)
      if (i < n) dst[i] = src[i];
    return;
  }
  for (std::int64_t i = 0; i < n; i += L) {
    const std::int64_t at = std::min(i, n - L);
    simd::store(dst + at, simd::load(src + at));
  }
}

/// dst's `rows` rows of n floats (n apart) from src's (`stride` apart). A row shorter than
/// kLongRow a vector at a time, the last overlapping the ones before, rather than by a call to
/// memmove (a small map's rows are a few vectors long, and the call would cost more).
IRLITE_MULTIVERSION void copy_rows(const float* __restrict src, std::int64_t stride,
                                   float* __restrict dst, std::int64_t rows, std::int64_t n) {
  for (std::int64_t r = 0; r < rows; ++r, src += stride, dst += n) {
    if (n >= kLongRow)
      std::copy_n(src, n, dst);
    else
      copy_short(src, dst, n);
  }
}

/// row[0, width) = `left` zeros, the iw floats of `in`, zeros. A few vectors, rather than calls
/// to memset and memmove for a zero or two and a short row: zeros at both ends first, then the
/// row over them, a vector at a time (the last overlapping the one before).
IRLITE_MULTIVERSION void pad_row(const float* __restrict in, std::int64_t iw, std::int64_t left,
                                 std::int64_t width, float* __restrict row) {
  using V = simd::vec<float>;
  constexpr auto L = static_cast<std::int64_t>(simd::lanes<float>);
  if (width < L || left > L || width - left - iw > L || iw >= kLongRow) {
    std::fill_n(row, left, 0.0f);
    std::copy_n(in, iw, row + left);
    std::fill(row + left + iw, row + width, 0.0f);
    return;
  }
  simd::store(row, V{});
  simd::store(row + width - L, V{});
  copy_short(in, row + left, iw);
}

/// Copies the `g.in_channels` channels of `x` into `padded` as the layout holds them: padded
/// with zeros and, for strides above 1, split into phases.
void pad_input(const Parallel& par, const ConvGeometry& g, const ShiftedLayout& s, const float* x,
               float* padded) {
  const std::int64_t ih = g.in[1], iw = g.in[2];
  const std::int64_t plane = s.plane();
  par.for_range(
      static_cast<std::size_t>(g.in_channels),
      static_cast<std::size_t>(std::max<std::int64_t>(1, (1 << 14) / s.channel())),
      [&](std::size_t first, std::size_t last, std::size_t) {
        for (auto c = static_cast<std::int64_t>(first); c < static_cast<std::int64_t>(last); ++c) {
          float* const dst = padded + c * s.channel();
          const float* const src = x + c * g.in_size();
          if (s.stride_h == 1 && s.stride_w == 1) {
            // One phase: zeros around the rows, written once.
            std::fill_n(dst, s.top * s.width, 0.0f);
            for (std::int64_t r = 0; r < ih; ++r)
              pad_row(src + r * iw, iw, s.left, s.width, dst + (s.top + r) * s.width);
            std::fill(dst + (s.top + ih) * s.width, dst + plane, 0.0f);
            continue;
          }
          std::fill_n(dst, s.channel(), 0.0f);
          for (std::int64_t r = 0; r < ih; ++r) {
            const std::int64_t row = s.top + r;
            // Padded column C of this row is at phase C % stride_w, C / stride_w of `base`.
            float* const base =
                dst + (row % s.stride_h * s.stride_w) * plane + row / s.stride_h * s.width;
            const float* const in = src + r * iw;
            if (s.stride_w == 1) {
              std::copy_n(in, iw, base + s.left);
            } else if (s.stride_w == 2) {
              const std::int64_t odd = s.left % 2;
              split_even_odd(in, iw, base + odd * plane + s.left / 2,
                             base + (1 - odd) * plane + (s.left + 1) / 2);
            } else {
              for (std::int64_t i = 0; i < iw; ++i) {
                const std::int64_t col = s.left + i;
                base[col % s.stride_w * plane + col / s.stride_w] = in[i];
              }
            }
          }
        }
      });
}

/// The shifted-rows convolution (see ShiftedLayout), for each image and group: the input padded
/// once, then one GEMM per block of output rows into `b.wide`, copied out without the columns
/// past the output. `gemm_block(group, steps, b, b_rows, pixels, out, ldc)` runs one GEMM of
/// `pixels` columns (wide outputs) into `out` (rows ldc floats apart), its B row q at
/// b + b_rows[q].
template <class BlockGemm>
void shifted_blocks(const Parallel& par, const ConvGeometry& g, const float* x, float* y,
                    const Buffers<float>& b, std::span<const EpilogueStep> steps,
                    const BlockGemm& gemm_block) {
  const ShiftedLayout s = shifted_layout(g);
  const std::int64_t kh = g.kernel[1], kw = g.kernel[2], positions = kh * kw;
  std::int64_t* const offsets = b.row_offsets.data();
  for (std::int64_t i = 0; i < kh; ++i)
    for (std::int64_t j = 0; j < kw; ++j) {
      // Kernel position (i, j) reads padded row oh * stride_h + di, column ow * stride_w + dj.
      const std::int64_t di = i * g.dilation[1], dj = j * g.dilation[2];
      const std::int64_t phase = di % s.stride_h * s.stride_w + dj % s.stride_w;
      offsets[i * kw + j] = phase * s.plane() + di / s.stride_h * s.width + dj / s.stride_w;
    }
  // The other channels' rows: the first channel's, a channel further on each.
  for (std::int64_t c = 1; c < g.in_channels; ++c)
    for (std::int64_t t = 0; t < positions; ++t)
      offsets[c * positions + t] = offsets[t] + c * s.channel();
  const std::int64_t out_size = g.out_size(), oh = g.out[1], ow = g.out[2];
  const std::int64_t block = shifted_rows_per_block(g, s);
  const std::size_t step_count = std::min(steps.size(), kMaxConvSteps);
  for (std::int64_t n = 0; n < g.batch; ++n)
    for (std::int64_t group = 0; group < g.groups; ++group) {
      const std::int64_t image_group = n * g.groups + group;
      const auto values = group_steps(steps, group, g.out_channels);
      const std::span<const EpilogueStep> own(values.data(), step_count);
      pad_input(par, g, s, x + image_group * g.in_channels * g.in_size(), b.padded.data());
      std::fill(b.padded.end() - kGemmRowSlack, b.padded.end(), 0.0f);
      float* const yg = y + image_group * g.out_channels * out_size;
      for (std::int64_t r0 = 0; r0 < oh; r0 += block) {
        const std::int64_t count = std::min(block, oh - r0);
        // The last row's columns past the output are not made: the reads stay in the planes.
        const std::int64_t pixels = (count - 1) * s.width + ow;
        const std::int64_t ldw = wide_stride(pixels);
        gemm_block(group, own, b.padded.data() + r0 * s.width, b.row_offsets.data(), pixels,
                   b.wide.data(), ldw);
        par.for_range(static_cast<std::size_t>(g.out_channels * count),
                      static_cast<std::size_t>(std::max<std::int64_t>(1, (1 << 12) / ow)),
                      [&](std::size_t first, std::size_t last, std::size_t) {
                        // Pair t = (channel t / count, row t % count), a channel's rows at a time.
                        for (auto t = static_cast<std::int64_t>(first);
                             t < static_cast<std::int64_t>(last);) {
                          const std::int64_t ch = t / count, r = t % count;
                          const std::int64_t rows =
                              std::min(count - r, static_cast<std::int64_t>(last) - t);
                          copy_rows(b.wide.data() + ch * ldw + r * s.width, s.width,
                                    yg + ch * out_size + (r0 + r) * ow, rows, ow);
                          t += rows;
                        }
                      });
      }
    }
}

template <class T>
void convert_filters(const T* filters, std::int64_t count, float* out) {
  for (std::int64_t i = 0; i < count; ++i) out[i] = to_float(filters[i]);
}

/// y[C_OUT, pixels] = W[C_OUT, patch] x X[patch, pixels] per image and group, the filters as the
/// GEMM's A: X (the input, its im2col blocks or its shifted rows) is read in place, y written
/// directly, and the steps run on each channel's row.
void filters_first_gemm(const Parallel& par, const ConvGeometry& g, const float* x,
                        const float* filters, const ConvWeights* weights, float* y,
                        const Buffers<float>& b, std::span<const EpilogueStep> steps) {
  // Filters packed at load serve when made for the kernel this run takes.
  const bool packed_filters =
      weights && !weights->filters.empty() && weights->filters.isa() == gemm_isa();
  const auto filter_args = [&](std::int64_t group, std::span<const EpilogueStep> own,
                               std::int64_t pixels, float* out, std::int64_t ldc,
                               const Scratch* gemm_scratch) {
    GemmArgs<float> args;
    args.m = g.out_channels;
    args.n = pixels;
    args.k = g.patch();
    args.a = filters + group * g.out_channels * g.patch();
    if (packed_filters) args.a_packed = weights->filters.matrix(group);
    args.c = out;
    args.ldc = ldc;
    args.scratch = gemm_scratch;
    args.epilogue.steps = own;
    args.epilogue.steps_per_row = true;
    return args;
  };
  if (shifted_rows<float>(g, weights)) {
    shifted_blocks(
        par, g, x, y, b, steps,
        [&](std::int64_t group, std::span<const EpilogueStep> own, const float* in,
            const std::int64_t* in_rows, std::int64_t pixels, float* out, std::int64_t ldc) {
          const Scratch gemm_scratch = b.gemm[0];
          gemm_b_rows(par, filter_args(group, own, pixels, out, ldc, &gemm_scratch), in, in_rows);
        });
    return;
  }
  for_each_block(par, g, x, y, b, steps,
                 [&](std::int64_t group, std::span<const EpilogueStep> own, const float* in,
                     std::int64_t pixels, float* out) {
                   const Scratch gemm_scratch = b.gemm[0];
                   gemm_b_in_place(
                       par, filter_args(group, own, pixels, out, g.out_size(), &gemm_scratch), in);
                 });
}

}  // namespace

template <class T>
bool filters_as_b(const ConvGeometry& g) {
  return !filters_first<T> || g.out_size() < kFiltersFirstMinPixels;
}

template <class T>
ConvWeights prepare_conv_weights(const T* filters, const ConvGeometry& g, bool as_b) {
  ConvWeights w;
  if (g.depthwise()) {
    const std::int64_t count = g.groups * g.kernel_size();
    w.depthwise = std::shared_ptr<float[]>(new float[static_cast<std::size_t>(count)]);
    convert_filters(filters, count, w.depthwise.get());
    return w;
  }
  if constexpr (filters_first<T>) {
    if (!as_b) {
      w.filters = PackedA(filters, g.groups, g.out_channels, g.patch());
      return w;
    }
  }
  w.packed = PackedB(filters, g.groups, g.patch(), g.out_channels, /*transposed=*/true);
  return w;
}

template <class T>
std::size_t convolution_scratch(const ConvGeometry& g, const ConvWeights* weights,
                                unsigned threads) {
  return Scratch::bytes_of(
      [&](const Scratch& s) { (void)take_buffers<T>(s, g, weights, threads); });
}

template <class T>
void convolution(const Parallel& par, const ConvGeometry& g, const T* x, const T* filters,
                 const ConvWeights* weights, T* y, const Scratch& scratch,
                 std::span<const EpilogueStep> steps) {
  if (g.batch == 0 || g.groups == 0 || g.out_channels == 0 || g.out_size() == 0) return;
  // An added tensor (a residual connection) is read at each output's place. The filters-first
  // GEMM without shifted rows stores its sums where they belong in y, so its epilogue runs every
  // step; the other kernels (some run the steps on rows in scratch) run the steps before the
  // first such Add, then the rest on y, a channel's plane at a time.
  if constexpr (std::is_same_v<T, float>) {
    const auto added = std::find_if(steps.begin(), steps.end(), [](const EpilogueStep& s) {
      return s.kind == EpilogueStep::Kind::add_tensor;
    });
    const bool sums_in_place =
        !g.depthwise() && !run_filters_as_b<T>(g, weights) && !shifted_rows<T>(g, weights);
    if (added != steps.end() && !sums_in_place) {
      const auto before = static_cast<std::size_t>(added - steps.begin());
      convolution(par, g, x, filters, weights, y, scratch, steps.first(before));
      const std::span<const EpilogueStep> rest = steps.subspan(before);
      const std::int64_t plane = g.out_size();
      const std::int64_t channels = g.groups * g.out_channels;
      par.for_range(static_cast<std::size_t>(g.batch * channels),
                    static_cast<std::size_t>(std::max<std::int64_t>(1, (1 << 14) / plane)),
                    [&](std::size_t first, std::size_t last, std::size_t) {
                      for (auto p = static_cast<std::int64_t>(first);
                           p < static_cast<std::int64_t>(last); ++p)
                        apply_steps(rest, p % channels, y + p * plane, plane);
                    });
      return;
    }
  }
  const Buffers<T> b = take_buffers<T>(scratch, g, weights, par.threads());
  if (g.depthwise()) {
    const float* w = weights ? weights->depthwise.get() : b.depthwise.data();
    if (!weights) convert_filters(filters, g.groups * g.kernel_size(), b.depthwise.data());
    depthwise(par, g, x, w, y, b.depthwise_rows, steps);
    return;
  }
  if constexpr (filters_first<T>) {
    if (!run_filters_as_b<T>(g, weights)) {
      filters_first_gemm(par, g, x, filters, weights, y, b, steps);
      return;
    }
  }
  // C[pixels, C_OUT] = X^T x W^T on the packed filters, stored transposed (channels first) and
  // rounded to T.
  const bool prepared = weights && weights->packed.count() > 0;
  const PackedB lent = prepared ? PackedB()
                                : PackedB(filters, g.groups, g.patch(), g.out_channels,
                                          /*transposed=*/true, b.packed.data(), gemm_isa(), par);
  const PackedB& packed = prepared ? weights->packed : lent;
  if constexpr (std::is_same_v<T, float>) {
    if (patches_as_a<T>(g, true)) {
      const PackedALayout layout(g.out_size(), g.patch(), gemm_isa());
      const std::size_t step_count = std::min(steps.size(), kMaxConvSteps);
      for (std::int64_t n = 0; n < g.batch; ++n)
        for (std::int64_t group = 0; group < g.groups; ++group) {
          const std::int64_t image_group = n * g.groups + group;
          pack_patches(par, g, x + image_group * g.in_channels * g.in_size(), layout,
                       b.patch_offsets, b.patches.data());
          const auto values = group_steps(steps, group, g.out_channels);
          const Scratch gemm_scratch = b.gemm[0];
          GemmArgs<float> args;
          args.m = g.out_size();
          args.n = g.out_channels;
          args.k = g.patch();
          args.a_packed = b.patches.data();
          args.c = y + image_group * g.out_channels * g.out_size();
          args.transpose_c = true;
          args.ldc = g.out_size();
          args.b_index = &group;
          args.scratch = &gemm_scratch;
          args.epilogue.steps = std::span<const EpilogueStep>(values.data(), step_count);
          gemm(par, args, packed);
        }
      return;
    }
  }
  for_each_block(par, g, x, y, b, steps,
                 [&](std::int64_t group, std::span<const EpilogueStep> own, const T* in,
                     std::int64_t pixels, T* out) {
                   const Scratch gemm_scratch = b.gemm[0];
                   GemmArgs<T> args;
                   args.m = pixels;
                   args.n = g.out_channels;
                   args.k = g.patch();
                   args.a = in;
                   args.transpose_a = true;
                   args.c = out;
                   args.transpose_c = true;
                   args.ldc = g.out_size();
                   args.b_index = &group;
                   args.scratch = &gemm_scratch;
                   args.epilogue.steps = own;
                   gemm(par, args, packed);
                 });
}

#define IRLITE_CONV_INSTANTIATE(T)                                                                \
  template bool filters_as_b<T>(const ConvGeometry&);                                             \
  template ConvWeights prepare_conv_weights<T>(const T*, const ConvGeometry&, bool);              \
  template std::size_t convolution_scratch<T>(const ConvGeometry&, const ConvWeights*, unsigned); \
  template void convolution<T>(const Parallel&, const ConvGeometry&, const T*, const T*,          \
                               const ConvWeights*, T*, const Scratch&,                            \
                               std::span<const EpilogueStep>);
IRLITE_CONV_INSTANTIATE(float)
IRLITE_CONV_INSTANTIATE(float16)
IRLITE_CONV_INSTANTIATE(bfloat16)
#undef IRLITE_CONV_INSTANTIATE

}  // namespace irlite
