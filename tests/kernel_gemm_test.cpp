// The float GEMM (kernels/gemm.hpp) against a plain loop over k, for every kernel this CPU runs:
// random shapes with tails of the register tile and of the k blocks, transposes, batches with
// broadcast indices, 16-bit floats, the epilogue, B packed ahead or given raw (packed into a
// lent Scratch or not), and the same bits on 1, 2, 3 and 8 threads.
//
// The loop sums acc = fma(a, b, acc) from zero in increasing k for the kernels that fuse
// (gemm_fuses(): AVX2 + FMA and AVX-512), and acc = acc + a * b with the product rounded first
// for the portable kernel: each kernel is exact against its own loop, so the comparison is of
// bits, not within a tolerance.

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <span>
#include <type_traits>
#include <vector>

#include "core/buffer.hpp"
#include "irlite/float16.hpp"
#include "irlite/scratch.hpp"
#include "kernels/fake_quantize.hpp"
#include "kernels/gemm.hpp"
#include "op_test_util.hpp"

using namespace irlite;
using namespace irlite::test;

namespace {

const char* isa_name(GemmIsa isa) {
  switch (isa) {
    case GemmIsa::generic:
      return "generic";
    case GemmIsa::avx2:
      return "avx2";
    case GemmIsa::avx512:
      return "avx512";
  }
  return "?";
}

std::vector<GemmIsa> supported_isas() {
  std::vector<GemmIsa> isas;
  for (GemmIsa isa : {GemmIsa::generic, GemmIsa::avx2, GemmIsa::avx512})
    if (gemm_isa_supported(isa)) isas.push_back(isa);
  return isas;
}

template <class T>
std::vector<T> random_values(std::mt19937& rng, std::int64_t count) {
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  std::vector<T> v(static_cast<std::size_t>(count));
  for (T& x : v) x = T(d(rng));
  return v;
}

struct Case {
  std::int64_t m, n, k;
  bool ta = false, tb = false;
  std::int64_t a_count = 1, b_count = 1, batches = 1;
};

/// The oracle: for each output element a plain loop over k from zero, then the epilogue.
template <class T>
std::vector<T> oracle(const Case& c, const std::vector<T>& a, const std::vector<T>& b,
                      const std::vector<std::int64_t>& ai, const std::vector<std::int64_t>& bi,
                      const GemmEpilogue& e, bool fused) {
  std::vector<T> out;
  for (std::int64_t batch = 0; batch < c.batches; ++batch) {
    const T* ma = a.data() + ai[static_cast<std::size_t>(batch)] * c.m * c.k;
    const T* mb = b.data() + bi[static_cast<std::size_t>(batch)] * c.k * c.n;
    for (std::int64_t i = 0; i < c.m; ++i)
      for (std::int64_t j = 0; j < c.n; ++j) {
        float acc = 0.0f;
        for (std::int64_t q = 0; q < c.k; ++q) {
          const auto x = static_cast<float>(c.ta ? ma[q * c.m + i] : ma[i * c.k + q]);
          const auto y = static_cast<float>(c.tb ? mb[j * c.k + q] : mb[q * c.n + j]);
          acc = fused ? std::fma(x, y, acc) : acc + x * y;
        }
        if (e.bias) acc = acc + e.bias[e.bias_per_row ? i : j];
        if (e.activation == GemmEpilogue::Activation::relu) acc = acc > 0.0f ? acc : 0.0f;
        for (const EpilogueStep& step : e.steps) {
          const std::int64_t at = e.steps_per_row ? i : j;
          const float v = step.values ? step.values[at] : 0.0f;
          switch (step.kind) {
            case EpilogueStep::Kind::add:
              acc = acc + v;
              break;
            case EpilogueStep::Kind::multiply:
              acc = acc * v;
              break;
            case EpilogueStep::Kind::relu:
              acc = acc > 0.0f ? acc : 0.0f;
              break;
            case EpilogueStep::Kind::prelu:
              acc = acc < 0.0f ? acc * v : acc;
              break;
            case EpilogueStep::Kind::add_tensor:  // C's element at the same place
              acc = acc + step.values[out.size()];
              break;
            case EpilogueStep::Kind::fake_quantize:
              acc = quantize_value(
                  acc, QuantizeLimits<float>::make(v, step.values[at + step.stride],
                                                   step.values[at + 2 * step.stride],
                                                   step.values[at + 3 * step.stride], step.steps));
              break;
          }
        }
        out.push_back(T(acc));
      }
  }
  return out;
}

template <class T>
bool same_bits(const std::vector<T>& x, const std::vector<T>& y, const char* what) {
  REQUIRE(x.size() == y.size());
  for (std::size_t i = 0; i < x.size(); ++i)
    if (std::memcmp(&x[i], &y[i], sizeof(T)) != 0) {
      FAIL_CHECK(what << ": element " << i << " is " << static_cast<float>(x[i]) << ", want "
                      << static_cast<float>(y[i]));
      return false;
    }
  return true;
}

enum class Bias { none, per_column, per_row };

template <class T>
void check_case(std::mt19937& rng, const Case& c, Bias bias_kind = Bias::none,
                GemmEpilogue::Activation activation = GemmEpilogue::Activation::none,
                std::span<const EpilogueStep> row_steps = {}) {
  CAPTURE(c.m);
  CAPTURE(c.n);
  CAPTURE(c.k);
  CAPTURE(c.ta);
  CAPTURE(c.tb);
  CAPTURE(c.batches);
  const std::vector<T> a = random_values<T>(rng, c.a_count * c.m * c.k);
  const std::vector<T> b = random_values<T>(rng, c.b_count * c.k * c.n);
  std::vector<std::int64_t> ai, bi;
  for (std::int64_t i = 0; i < c.batches; ++i) {
    ai.push_back(i % c.a_count);
    bi.push_back(i / c.a_count % c.b_count);
  }
  std::vector<float> bias;
  GemmEpilogue epilogue;
  epilogue.activation = activation;
  epilogue.steps = row_steps;
  epilogue.steps_per_row = true;
  if (bias_kind != Bias::none) {
    epilogue.bias_per_row = bias_kind == Bias::per_row;
    bias = random_values<float>(rng, epilogue.bias_per_row ? c.m : c.n);
    epilogue.bias = bias.data();
  }
  GemmArgs<T> args;
  args.m = c.m;
  args.n = c.n;
  args.k = c.k;
  args.a = a.data();
  args.transpose_a = c.ta;
  args.batches = c.batches;
  args.a_index = ai.data();
  args.b_index = bi.data();
  args.epilogue = epilogue;
  // With `lent`, B given raw is packed into a Scratch of exactly gemm_scratch() bytes, which
  // also holds the per-thread buffers; taking more throws.
  const auto run = [&](const Parallel& par, GemmIsa isa, bool packed, bool lent = false) {
    std::vector<T> out(static_cast<std::size_t>(c.batches * c.m * c.n), T(-7.0f));
    GemmArgs<T> call = args;
    call.c = out.data();
    // An added tensor is read at C's place: the steps run on this C.
    std::vector<EpilogueStep> steps(row_steps.begin(), row_steps.end());
    if constexpr (std::is_same_v<T, float>)
      for (EpilogueStep& step : steps)
        if (step.kind == EpilogueStep::Kind::add_tensor) step.output = out.data();
    call.epilogue.steps = steps;
    const std::size_t bytes = lent ? gemm_scratch(c.m, c.n, c.k, c.b_count, par.threads()) : 0;
    const std::shared_ptr<void> arena = allocate_buffer(bytes);
    const Scratch scratch(arena.get(), bytes);
    if (lent) call.scratch = &scratch;
    if (packed)
      gemm(par, call, PackedB(b.data(), c.b_count, c.k, c.n, c.tb, isa, par));
    else
      gemm(par, call, b.data(), c.b_count, c.tb);
    CHECK(scratch.bytes() <= bytes);
    return out;
  };
  for (GemmIsa isa : supported_isas()) {
    CAPTURE(isa_name(isa));
    const std::vector<T> want = oracle(c, a, b, ai, bi, epilogue, gemm_fuses(isa));
    const std::vector<T> got = run(Parallel(), isa, true);
    if (!same_bits(got, want, "packed B, one thread")) continue;
    for (ThreadPool* pool : test_pools()) {
      CAPTURE(pool->size());
      same_bits(run(Parallel(pool), isa, true), want, "packed B, threads");
    }
  }
  // B as given (packed for the call, or read in place for a few rows of A), with the CPU's
  // kernel.
  const std::vector<T> want = oracle(c, a, b, ai, bi, epilogue, gemm_fuses(gemm_isa()));
  same_bits(run(Parallel(), gemm_isa(), false), want, "raw B, one thread");
  same_bits(run(Parallel(), gemm_isa(), false, true), want, "raw B in scratch, one thread");
  for (ThreadPool* pool : test_pools()) {
    CAPTURE(pool->size());
    same_bits(run(Parallel(pool), gemm_isa(), false), want, "raw B, threads");
    same_bits(run(Parallel(pool), gemm_isa(), false, true), want, "raw B in scratch, threads");
  }
}

}  // namespace

TEST_CASE("GEMM: the CPU's kernel is among the supported ones") {
  CHECK(gemm_isa_supported(GemmIsa::generic));
  CHECK(gemm_isa_supported(gemm_isa()));
  CHECK_FALSE(gemm_fuses(GemmIsa::generic));
#if defined(__x86_64__)
  CHECK(gemm_fuses(GemmIsa::avx2));
  CHECK(gemm_fuses(GemmIsa::avx512));
#endif
}

TEST_CASE("GEMM against a plain loop over k: sizes and transposes") {
  std::mt19937 rng(5);
  const std::vector<Case> cases = {
      {1, 1, 1},     {1, 1, 7},     {1, 40, 3},    {5, 1, 9},     {2, 33, 17},
      {3, 64, 64},   {4, 100, 31},  {13, 29, 37},  {14, 32, 256}, {15, 33, 257},
      {29, 61, 97},  {6, 16, 5},    {7, 17, 1},    {127, 45, 19}, {131, 67, 600},
      {20, 530, 40}, {3, 10, 1031}, {200, 96, 64}, {37, 1, 513},
  };
  for (const Case& base : cases)
    for (bool ta : {false, true})
      for (bool tb : {false, true}) {
        Case c = base;
        c.ta = ta;
        c.tb = tb;
        check_case<float>(rng, c);
      }
}

TEST_CASE("GEMM against a plain loop over k: batches, 16-bit floats, epilogue, empty k") {
  std::mt19937 rng(6);
  // Output i takes A i % a_count and B i / a_count % b_count.
  check_case<float>(rng, {.m = 9, .n = 40, .k = 23, .a_count = 3, .b_count = 2, .batches = 6});
  check_case<float>(rng, {.m = 2, .n = 35, .k = 23, .a_count = 1, .b_count = 3, .batches = 3});
  check_case<float>(rng, {.m = 30, .n = 5, .k = 300, .tb = true, .a_count = 4, .batches = 4});
  check_case<float16>(rng, {.m = 17, .n = 45, .k = 300});
  check_case<float16>(rng, {.m = 3, .n = 20, .k = 11, .ta = true, .tb = true});
  check_case<bfloat16>(rng, {.m = 23, .n = 70, .k = 40, .ta = true});
  check_case<bfloat16>(rng, {.m = 1, .n = 9, .k = 600});
  using enum GemmEpilogue::Activation;
  check_case<float>(rng, {.m = 19, .n = 50, .k = 300}, Bias::per_column);
  check_case<float>(rng, {.m = 33, .n = 47, .k = 20, .ta = true}, Bias::per_row, relu);
  check_case<bfloat16>(rng, {.m = 16, .n = 70, .k = 9}, Bias::per_row, relu);
  check_case<float>(rng, {.m = 3, .n = 33, .k = 0}, Bias::none, relu);
  check_case<float>(rng, {.m = 40, .n = 33, .k = 0}, Bias::per_column);
}

TEST_CASE("GEMM: per-row steps, run by the register tiles or on the finished block") {
  // Add, multiply, relu, prelu and FakeQuantize run on the sums in the tiles of the last k
  // block; with the Add of a tensor among them, the steps from that one on run on the block
  // after. Either way each element takes the steps' float operations in order.
  std::mt19937 rng(9);
  const std::int64_t m = 40;
  const std::vector<float> add = random_values<float>(rng, m);
  const std::vector<float> scale = random_values<float>(rng, m);
  const std::vector<float> slope = random_values<float>(rng, m);
  std::vector<float> limits(static_cast<std::size_t>(4 * m));
  // Each row's own limits, some input limits swapped (low above high), so that a tile that
  // reads another row's limits or swaps a comparison fails.
  for (std::int64_t i = 0; i < m; ++i) {
    const float f = static_cast<float>(i);
    const bool swapped = i % 7 == 3;
    limits[static_cast<std::size_t>(i)] = swapped ? 0.5f : -0.5f + 0.01f * f;        // input_low
    limits[static_cast<std::size_t>(m + i)] = swapped ? -0.25f : 0.75f - 0.02f * f;  // input_high
    limits[static_cast<std::size_t>(2 * m + i)] = -1.0f + 0.01f * f;                 // output_low
    limits[static_cast<std::size_t>(3 * m + i)] = 1.0f - 0.03f * f;                  // output_high
  }
  using Kind = EpilogueStep::Kind;
  std::vector<EpilogueStep> in_tiles = {
      {Kind::add, add.data()},
      {Kind::prelu, slope.data()},
      {Kind::multiply, scale.data()},
      {Kind::relu, nullptr},
  };
  std::vector<EpilogueStep> quantized = in_tiles;
  quantized.insert(quantized.begin() + 2, {Kind::fake_quantize, limits.data(), m, 255.0f});
  // The Add of a tensor of C's shape (a residual connection) runs on the block too, the steps
  // before it in the tiles.
  const std::vector<float> residual = random_values<float>(rng, m * 50);
  std::vector<EpilogueStep> tensor = in_tiles;
  tensor.insert(tensor.begin() + 1, {Kind::add_tensor, residual.data()});
  for (const auto* steps : {&in_tiles, &quantized, &tensor}) {
    CAPTURE(steps->size());
    using enum GemmEpilogue::Activation;
    // Several k blocks, a partial panel and sliver, one sliver, and no k at all.
    check_case<float>(rng, {.m = m, .n = 50, .k = 300}, Bias::none, none, *steps);
    check_case<float>(rng, {.m = 37, .n = 21, .k = 7}, Bias::none, none, *steps);
    check_case<float>(rng, {.m = 5, .n = 16, .k = 64, .ta = true}, Bias::none, none, *steps);
    check_case<float>(rng, {.m = 9, .n = 3, .k = 0}, Bias::none, none, *steps);
  }
}

TEST_CASE("GEMM: B's rows read where they are, at any offsets, on every ISA") {
  // gemm_b_rows(): row q of B starts at b + rows[q] (a convolution's padded input, shifted per
  // kernel position): rows overlap, come in any order, and the last panel reads past n into
  // the buffer's slack. With the steps in the tiles, FakeQuantize among them.
  std::mt19937 rng(21);
  const std::int64_t m = 31;
  const std::vector<float> add = random_values<float>(rng, m);
  const std::vector<float> slope = random_values<float>(rng, m);
  std::vector<float> limits(static_cast<std::size_t>(4 * m));
  for (std::int64_t i = 0; i < m; ++i) {
    limits[static_cast<std::size_t>(i)] = -0.5f - 0.01f * static_cast<float>(i);
    limits[static_cast<std::size_t>(m + i)] = 0.5f;
    limits[static_cast<std::size_t>(2 * m + i)] = -1.0f;
    limits[static_cast<std::size_t>(3 * m + i)] = 1.0f + 0.02f * static_cast<float>(i);
  }
  using Kind = EpilogueStep::Kind;
  const std::vector<EpilogueStep> plain = {{Kind::add, add.data()}, {Kind::relu, nullptr}};
  const std::vector<EpilogueStep> quantized = {{Kind::add, add.data()},
                                               {Kind::prelu, slope.data()},
                                               {Kind::fake_quantize, limits.data(), m, 255.0f}};
  for (const std::int64_t n : {1, 37, 70})
    for (const std::int64_t k : {5, 300})
      for (const auto* steps : {&plain, &quantized}) {
        CAPTURE(n);
        CAPTURE(k);
        CAPTURE(steps->size());
        const std::int64_t source = 3 * n + 11;
        const std::vector<float> data = random_values<float>(rng, source + kGemmRowSlack);
        std::vector<std::int64_t> rows(static_cast<std::size_t>(k));
        for (std::int64_t& r : rows)
          r = std::uniform_int_distribution<std::int64_t>(0, source - n)(rng);
        const std::vector<float> a = random_values<float>(rng, m * k);
        // B as a matrix, for the oracle.
        std::vector<float> b(static_cast<std::size_t>(k * n));
        for (std::int64_t q = 0; q < k; ++q)
          for (std::int64_t j = 0; j < n; ++j)
            b[static_cast<std::size_t>(q * n + j)] =
                data[static_cast<std::size_t>(rows[static_cast<std::size_t>(q)] + j)];
        GemmEpilogue epilogue;
        epilogue.steps = *steps;
        epilogue.steps_per_row = true;
        const Case c{.m = m, .n = n, .k = k};
        const std::vector<std::int64_t> index{0};
        for (GemmIsa isa : supported_isas()) {
          CAPTURE(isa_name(isa));
          const std::vector<float> want = oracle(c, a, b, index, index, epilogue, gemm_fuses(isa));
          const auto run = [&](const Parallel& par) {
            std::vector<float> out(static_cast<std::size_t>(m * n), -7.0f);
            GemmArgs<float> args;
            args.m = m;
            args.n = n;
            args.k = k;
            args.a = a.data();
            args.c = out.data();
            args.epilogue = epilogue;
            gemm_b_rows(par, args, data.data(), rows.data(), isa);
            return out;
          };
          if (!same_bits(run(Parallel()), want, "rows in place, one thread")) continue;
          for (ThreadPool* pool : test_pools()) {
            CAPTURE(pool->size());
            same_bits(run(Parallel(pool)), want, "rows in place, threads");
          }
        }
      }
}

TEST_CASE("GEMM: a large product gives the same bits on every thread count") {
  std::mt19937 rng(7);
  check_case<float>(rng, {.m = 300, .n = 700, .k = 520});
}

TEST_CASE(
    "GEMM: C stored transposed with a row stride, B packed into lent memory, buffers from "
    "a Scratch") {
  // A convolution's call: output matrix (i, j) at c[j * ldc + i], inside a wider output whose
  // other elements must keep their value; the per-thread buffers in a Scratch of exactly
  // gemm_scratch() bytes, which takes more at its peril.
  std::mt19937 rng(8);
  const auto check = [&](auto tag, Case c, std::int64_t ldc) {
    using T = decltype(tag);
    CAPTURE(c.m);
    CAPTURE(c.n);
    CAPTURE(c.k);
    CAPTURE(ldc);
    const std::vector<T> a = random_values<T>(rng, c.batches * c.m * c.k);
    const std::vector<T> b = random_values<T>(rng, c.k * c.n);
    std::vector<std::int64_t> ai, bi;
    for (std::int64_t i = 0; i < c.batches; ++i) {
      ai.push_back(i);
      bi.push_back(0);
    }
    const std::vector<T> rows = oracle(c, a, b, ai, bi, {}, gemm_fuses(gemm_isa()));
    // The oracle's m x n matrices, stored n x m with row stride ldc; the rest -7.
    const T fill(-7.0f);
    std::vector<T> want(static_cast<std::size_t>(c.batches * c.n * ldc), fill);
    for (std::int64_t batch = 0; batch < c.batches; ++batch)
      for (std::int64_t i = 0; i < c.m; ++i)
        for (std::int64_t j = 0; j < c.n; ++j)
          want[static_cast<std::size_t>((batch * c.n + j) * ldc + i)] =
              rows[static_cast<std::size_t>((batch * c.m + i) * c.n + j)];
    std::vector<Parallel> pars{Parallel()};
    for (ThreadPool* pool : test_pools()) pars.emplace_back(pool);
    for (const Parallel& par : pars) {
      CAPTURE(par.threads());
      std::vector<float> lent(PackedB::bytes(1, c.k, c.n, gemm_isa()) / sizeof(float));
      const PackedB packed(b.data(), 1, c.k, c.n, false, lent.data(), gemm_isa(), par);
      const std::size_t bytes = gemm_scratch(c.m, c.n, c.k, 0, par.threads());
      std::vector<std::byte> arena(bytes + Scratch::kAlign);
      void* start = arena.data();
      std::size_t space = arena.size();
      REQUIRE(std::align(Scratch::kAlign, bytes, start, space));
      const Scratch scratch(start, bytes);
      std::vector<T> got(want.size(), fill);
      GemmArgs<T> args;
      args.m = c.m;
      args.n = c.n;
      args.k = c.k;
      args.a = a.data();
      args.batches = c.batches;
      args.b_index = bi.data();
      args.c = got.data();
      args.transpose_c = true;
      args.ldc = ldc;
      args.scratch = &scratch;
      gemm(par, args, packed);
      CHECK(scratch.bytes() <= bytes);
      same_bits(got, want, "C transposed");
    }
  };
  check(float{}, {.m = 50, .n = 37, .k = 300}, 61);
  check(float{}, {.m = 300, .n = 70, .k = 40, .batches = 2}, 300);
  check(float{}, {.m = 7, .n = 3, .k = 5}, 7);
  check(bfloat16{}, {.m = 45, .n = 20, .k = 19}, 50);
  check(float16{}, {.m = 130, .n = 9, .k = 270}, 131);
}
