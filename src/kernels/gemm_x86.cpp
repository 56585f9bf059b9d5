// The GEMM's x86-64 micro-kernels, AVX2 + FMA and AVX-512, each in functions compiled for its
// instruction set by a target attribute: the rest of the library stays baseline x86-64, and
// gemm.cpp calls these only on a CPU that runs them (gemm_isa()).
//
// A tile of C lives in registers over the whole of kc: per step q, the kernel loads the panel's
// row of B (nr floats) and, for each row r, broadcasts A's element and folds the product into
// the row's accumulators with one fused multiply-add per vector.
//
// AVX-512: 14 x 32, 28 of the 32 vector registers accumulating, two holding B and one the
// broadcast; per step 28 FMAs against 16 loads, so the two FMA pipes of a core stay busy.
// AVX2: 6 x 16, twelve of the sixteen registers accumulating.

#include "kernels/gemm_kernel.hpp"

#if defined(IRLITE_GEMM_X86)

#include <immintrin.h>

#define IRLITE_TARGET_AVX2 __attribute__((target("avx2,fma")))
#define IRLITE_TARGET_AVX512 __attribute__((target("avx512f,avx512vl,avx2,fma")))

namespace irlite::gemm_detail {
namespace {

constexpr std::int64_t kMr512 = 14, kNr512 = 32;
constexpr std::int64_t kMr256 = 6, kNr256 = 16;

/// FakeQuantize on 16 sums: round((x - il) / (ih - il) * L) / L * (oh - ol) + ol, ol at or
/// below min(il, ih), oh above max(il, ih), each operation rounded on its own.
IRLITE_TARGET_AVX512 __attribute__((always_inline)) inline __m512 quantize512(
    __m512 x, const QuantizeLimits<float>& q) {
  const __m512 scaled = _mm512_mul_ps(
      _mm512_div_ps(_mm512_sub_ps(x, _mm512_set1_ps(q.in_low)), _mm512_set1_ps(q.in_range)),
      _mm512_set1_ps(q.steps));
  // Masked with every lane set, as relu's max (GCC 12 takes the plain form's undefined start
  // for an uninitialized value).
  const __m512 level =
      _mm512_maskz_roundscale_ps(0xFFFF, scaled, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  const __m512 r = _mm512_add_ps(
      _mm512_mul_ps(_mm512_div_ps(level, _mm512_set1_ps(q.steps)), _mm512_set1_ps(q.out_range)),
      _mm512_set1_ps(q.out_low));
  const __mmask16 low = _mm512_cmp_ps_mask(x, _mm512_set1_ps(q.below), _CMP_LE_OQ);
  const __mmask16 high =
      _mm512_cmp_ps_mask(x, _mm512_set1_ps(q.above), _CMP_GT_OQ) & static_cast<__mmask16>(~low);
  return _mm512_mask_blend_ps(high, _mm512_mask_blend_ps(low, r, _mm512_set1_ps(q.out_low)),
                              _mm512_set1_ps(q.out_high));
}

/// The same on 8 sums.
IRLITE_TARGET_AVX2 __attribute__((always_inline)) inline __m256 quantize256(
    __m256 x, const QuantizeLimits<float>& q) {
  const __m256 scaled = _mm256_mul_ps(
      _mm256_div_ps(_mm256_sub_ps(x, _mm256_set1_ps(q.in_low)), _mm256_set1_ps(q.in_range)),
      _mm256_set1_ps(q.steps));
  const __m256 level = _mm256_round_ps(scaled, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  const __m256 r = _mm256_add_ps(
      _mm256_mul_ps(_mm256_div_ps(level, _mm256_set1_ps(q.steps)), _mm256_set1_ps(q.out_range)),
      _mm256_set1_ps(q.out_low));
  const __m256 low = _mm256_cmp_ps(x, _mm256_set1_ps(q.below), _CMP_LE_OQ);
  const __m256 high = _mm256_andnot_ps(low, _mm256_cmp_ps(x, _mm256_set1_ps(q.above), _CMP_GT_OQ));
  return _mm256_blendv_ps(_mm256_blendv_ps(r, _mm256_set1_ps(q.out_low), low),
                          _mm256_set1_ps(q.out_high), high);
}

/// The steps on a tile's sums, held in registers (see TileSteps).
template <int R, bool Quantize, bool Half>
IRLITE_TARGET_AVX512 __attribute__((always_inline)) inline void steps512(__m512 (&lo)[R],
                                                                         __m512 (&hi)[R],
                                                                         const TileSteps& t) {
  const __m512 zero = _mm512_setzero_ps();
  for (std::int64_t s = 0; s < t.count; ++s) {
    const EpilogueStep& step = t.steps[s];
    if (step.kind == EpilogueStep::Kind::relu) {
      // max(x, 0) gives its second operand for a NaN and for two zeros: 0, as x > 0 ? x : 0.
      // (Masked with every lane set: the plain form starts from an undefined value, which GCC
      // 12 takes for an uninitialized one.)
#pragma GCC unroll 16
      for (int r = 0; r < R; ++r) {
        lo[r] = _mm512_maskz_max_ps(0xFFFF, lo[r], zero);
        if constexpr (!Half) hi[r] = _mm512_maskz_max_ps(0xFFFF, hi[r], zero);
      }
      continue;
    }
    if (Quantize && step.kind == EpilogueStep::Kind::fake_quantize) {
      // Unrolled, as every loop over the rows here: an array indexed in a loop would live in
      // memory, and the accumulators with it, all through the tile.
#pragma GCC unroll 16
      for (int r = 0; r < R; ++r) {
        const QuantizeLimits<float> q = step_limits(step, t.row + r);
        lo[r] = quantize512(lo[r], q);
        if constexpr (!Half) hi[r] = quantize512(hi[r], q);
      }
      continue;
    }
    const float* v = step.values + t.row;
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r) {
      const __m512 x = _mm512_set1_ps(v[r]);
      switch (step.kind) {
        case EpilogueStep::Kind::add:
          lo[r] = _mm512_add_ps(lo[r], x);
          if constexpr (!Half) hi[r] = _mm512_add_ps(hi[r], x);
          break;
        case EpilogueStep::Kind::multiply:
          lo[r] = _mm512_mul_ps(lo[r], x);
          if constexpr (!Half) hi[r] = _mm512_mul_ps(hi[r], x);
          break;
        case EpilogueStep::Kind::prelu:
          lo[r] = _mm512_mask_mul_ps(lo[r], _mm512_cmp_ps_mask(lo[r], zero, _CMP_LT_OQ), lo[r], x);
          if constexpr (!Half)
            hi[r] =
                _mm512_mask_mul_ps(hi[r], _mm512_cmp_ps_mask(hi[r], zero, _CMP_LT_OQ), hi[r], x);
          break;
        default:
          break;
      }
    }
  }
}

template <int R, bool Quantize>
IRLITE_TARGET_AVX2 __attribute__((always_inline)) inline void steps256(__m256 (&lo)[R],
                                                                       __m256 (&hi)[R],
                                                                       const TileSteps& t) {
  const __m256 zero = _mm256_setzero_ps();
  for (std::int64_t s = 0; s < t.count; ++s) {
    const EpilogueStep& step = t.steps[s];
    if (step.kind == EpilogueStep::Kind::relu) {
      // max(x, 0) gives its second operand for a NaN and for two zeros: 0, as x > 0 ? x : 0.
#pragma GCC unroll 8
      for (int r = 0; r < R; ++r) {
        lo[r] = _mm256_max_ps(lo[r], zero);
        hi[r] = _mm256_max_ps(hi[r], zero);
      }
      continue;
    }
    if (Quantize && step.kind == EpilogueStep::Kind::fake_quantize) {
#pragma GCC unroll 8
      for (int r = 0; r < R; ++r) {
        const QuantizeLimits<float> q = step_limits(step, t.row + r);
        lo[r] = quantize256(lo[r], q);
        hi[r] = quantize256(hi[r], q);
      }
      continue;
    }
    const float* v = step.values + t.row;
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
      const __m256 x = _mm256_set1_ps(v[r]);
      switch (step.kind) {
        case EpilogueStep::Kind::add:
          lo[r] = _mm256_add_ps(lo[r], x);
          hi[r] = _mm256_add_ps(hi[r], x);
          break;
        case EpilogueStep::Kind::multiply:
          lo[r] = _mm256_mul_ps(lo[r], x);
          hi[r] = _mm256_mul_ps(hi[r], x);
          break;
        case EpilogueStep::Kind::prelu:
          lo[r] = _mm256_blendv_ps(lo[r], _mm256_mul_ps(lo[r], x),
                                   _mm256_cmp_ps(lo[r], zero, _CMP_LT_OQ));
          hi[r] = _mm256_blendv_ps(hi[r], _mm256_mul_ps(hi[r], x),
                                   _mm256_cmp_ps(hi[r], zero, _CMP_LT_OQ));
          break;
        default:
          break;
      }
    }
  }
}

template <int R, bool Quantize, bool Offsets, bool Half>
IRLITE_TARGET_AVX512 void tile512(std::int64_t kc, const float* ap, std::int64_t a_stride,
                                  const float* bp, std::int64_t b_stride,
                                  const std::int64_t* b_rows, float* c, std::int64_t ldc,
                                  bool accumulate, const TileSteps* steps) {
  __m512 lo[R], hi[R];
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r) {
    lo[r] = accumulate ? _mm512_loadu_ps(c + r * ldc) : _mm512_setzero_ps();
    hi[r] = Half || !accumulate ? _mm512_setzero_ps() : _mm512_loadu_ps(c + r * ldc + 16);
  }
  for (std::int64_t q = 0; q < kc; ++q) {
    const float* const row = Offsets ? bp + b_rows[q] : bp;
    const __m512 b0 = _mm512_loadu_ps(row);
    const __m512 b1 = Half ? _mm512_setzero_ps() : _mm512_loadu_ps(row + 16);
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r) {
      const __m512 x = _mm512_set1_ps(ap[r]);
      lo[r] = _mm512_fmadd_ps(x, b0, lo[r]);
      if constexpr (!Half) hi[r] = _mm512_fmadd_ps(x, b1, hi[r]);
    }
    ap += a_stride;
    if (!Offsets) bp += b_stride;
  }
  if (steps) steps512<R, Quantize, Half>(lo, hi, *steps);
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r) {
    _mm512_storeu_ps(c + r * ldc, lo[r]);
    if constexpr (!Half) _mm512_storeu_ps(c + r * ldc + 16, hi[r]);
  }
}

template <int R, bool Quantize, bool Offsets>
IRLITE_TARGET_AVX2 void tile256(std::int64_t kc, const float* ap, std::int64_t a_stride,
                                const float* bp, std::int64_t b_stride, const std::int64_t* b_rows,
                                float* c, std::int64_t ldc, bool accumulate,
                                const TileSteps* steps) {
  __m256 lo[R], hi[R];
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r) {
    lo[r] = accumulate ? _mm256_loadu_ps(c + r * ldc) : _mm256_setzero_ps();
    hi[r] = accumulate ? _mm256_loadu_ps(c + r * ldc + 8) : _mm256_setzero_ps();
  }
  for (std::int64_t q = 0; q < kc; ++q) {
    const float* const row = Offsets ? bp + b_rows[q] : bp;
    const __m256 b0 = _mm256_loadu_ps(row);
    const __m256 b1 = _mm256_loadu_ps(row + 8);
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
      const __m256 x = _mm256_broadcast_ss(ap + r);
      lo[r] = _mm256_fmadd_ps(x, b0, lo[r]);
      hi[r] = _mm256_fmadd_ps(x, b1, hi[r]);
    }
    ap += a_stride;
    if (!Offsets) bp += b_stride;
  }
  if (steps) steps256<R, Quantize>(lo, hi, *steps);
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r) {
    _mm256_storeu_ps(c + r * ldc, lo[r]);
    _mm256_storeu_ps(c + r * ldc + 8, hi[r]);
  }
}

/// The kernel for `rows` rows: one instantiation per row count, so that every accumulator is a
/// register.
template <template <int> class F, int... R>
void dispatch_rows(std::int64_t rows, std::int64_t kc, const float* ap, std::int64_t a_stride,
                   const float* bp, std::int64_t b_stride, const std::int64_t* b_rows, float* c,
                   std::int64_t ldc, bool accumulate, const TileSteps* steps,
                   std::integer_sequence<int, R...>) {
  ((rows == R + 1 ? F<R + 1>::run(kc, ap, a_stride, bp, b_stride, b_rows, c, ldc, accumulate, steps)
                  : void()),
   ...);
}

template <bool Half>
struct Tile512Of {
  template <bool Quantize, bool Offsets>
  struct Tile512 {
    template <int R>
    struct Of {
      static void run(std::int64_t kc, const float* ap, std::int64_t a_stride, const float* bp,
                      std::int64_t b_stride, const std::int64_t* b_rows, float* c, std::int64_t ldc,
                      bool accumulate, const TileSteps* steps) {
        tile512<R, Quantize, Offsets, Half>(kc, ap, a_stride, bp, b_stride, b_rows, c, ldc,
                                            accumulate, steps);
      }
    };
  };
};

template <bool Quantize, bool Offsets>
struct Tile256 {
  template <int R>
  struct Of {
    static void run(std::int64_t kc, const float* ap, std::int64_t a_stride, const float* bp,
                    std::int64_t b_stride, const std::int64_t* b_rows, float* c, std::int64_t ldc,
                    bool accumulate, const TileSteps* steps) {
      tile256<R, Quantize, Offsets>(kc, ap, a_stride, bp, b_stride, b_rows, c, ldc, accumulate,
                                    steps);
    }
  };
};

/// Whether `steps` hold a FakeQuantize: its tiles are instantiated apart, so that the code it
/// takes does not crowd the registers of the tiles without it.
bool quantizes(const TileSteps* steps) {
  if (!steps) return false;
  for (std::int64_t s = 0; s < steps->count; ++s)
    if (steps->steps[s].kind == EpilogueStep::Kind::fake_quantize) return true;
  return false;
}

/// The tiles of one ISA (T: Tile512 or Tile256, mr rows at most), by what they take.
template <template <bool, bool> class T, int Mr>
void any_tile(std::int64_t rows, std::int64_t kc, const float* ap, std::int64_t a_stride,
              const float* bp, std::int64_t b_stride, const std::int64_t* b_rows, float* c,
              std::int64_t ldc, bool accumulate, const TileSteps* steps) {
  const auto call = [&]<bool Q, bool O>() {
    dispatch_rows<T<Q, O>::template Of>(rows, kc, ap, a_stride, bp, b_stride, b_rows, c, ldc,
                                        accumulate, steps, std::make_integer_sequence<int, Mr>{});
  };
  const bool quantize = quantizes(steps);
  if (b_rows)
    quantize ? call.template operator()<true, true>() : call.template operator()<false, true>();
  else
    quantize ? call.template operator()<true, false>() : call.template operator()<false, false>();
}

void avx512_tile(std::int64_t rows, std::int64_t kc, const float* ap, std::int64_t a_stride,
                 const float* bp, std::int64_t b_stride, const std::int64_t* b_rows, float* c,
                 std::int64_t ldc, bool accumulate, const TileSteps* steps) {
  any_tile<Tile512Of<false>::Tile512, kMr512>(rows, kc, ap, a_stride, bp, b_stride, b_rows, c, ldc,
                                              accumulate, steps);
}

/// The left half of a tile (16 columns), for a last panel that has no more: the same sums.
void avx512_half_tile(std::int64_t rows, std::int64_t kc, const float* ap, std::int64_t a_stride,
                      const float* bp, std::int64_t b_stride, const std::int64_t* b_rows, float* c,
                      std::int64_t ldc, bool accumulate, const TileSteps* steps) {
  any_tile<Tile512Of<true>::Tile512, kMr512>(rows, kc, ap, a_stride, bp, b_stride, b_rows, c, ldc,
                                             accumulate, steps);
}

void avx2_tile(std::int64_t rows, std::int64_t kc, const float* ap, std::int64_t a_stride,
               const float* bp, std::int64_t b_stride, const std::int64_t* b_rows, float* c,
               std::int64_t ldc, bool accumulate, const TileSteps* steps) {
  any_tile<Tile256, kMr256>(rows, kc, ap, a_stride, bp, b_stride, b_rows, c, ldc, accumulate,
                            steps);
}

}  // namespace

const Kernel kAvx512Kernel{kMr512, kNr512, true, avx512_tile, avx512_half_tile};
const Kernel kAvx2Kernel{kMr256, kNr256, true, avx2_tile};

}  // namespace irlite::gemm_detail

#endif
