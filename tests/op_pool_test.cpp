// MaxPool-1/8/14 and AvgPool-1/14: the shape rule on static, interval and dynamic shapes, its
// located errors, small cases worked out by hand (ceil and ceil_torch windows, exclude-pad,
// automatic pads, dilations, MaxPool-8's indices along each axis, NaN), and the kernels against
// a plain oracle on random shapes and attributes of every rank, on any number of threads.

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "core/attributes.hpp"
#include "graph/op.hpp"
#include "irlite/irlite.hpp"
#include "op_test_util.hpp"
#include "op_tester.hpp"

using namespace irlite;
using namespace irlite::test;

namespace {

using Attrs = std::map<std::string, std::string>;

/// The op built from `attrs`, as a layer of `opset` would be.
std::unique_ptr<const Op> make_pool(const char* type, const char* opset, const Attrs& attrs) {
  std::vector<std::pair<std::string, std::string>> items(attrs.begin(), attrs.end());
  return op_def(type, opset).create(Attributes(std::move(items)));
}

/// The attributes of a pool over `kernel` with unit strides and no padding, to be adjusted.
Attrs basic(const std::string& kernel, const std::string& strides) {
  return {{"kernel", kernel},
          {"strides", strides},
          {"pads_begin", ""},
          {"pads_end", ""},
          {"exclude-pad", "true"}};
}

std::string shape_of(const char* type, const char* opset, const Attrs& attrs,
                     const char* data_shape, ElementType t = ElementType::f32) {
  auto op = make_pool(type, opset, attrs);
  return output_text(op->infer(std::vector<ValueInfo>{info(t, data_shape)})[0]);
}

std::string error_of(const char* type, const char* opset, const Attrs& attrs,
                     const char* data_shape) {
  const auto e = caught([&] { (void)shape_of(type, opset, attrs, data_shape); });
  return e ? e->what() : "";
}

// ---- The oracle: every window position visited, padding tested one tap at a time. ----

/// A pool's description for the oracle, over s spatial axes.
struct Spec {
  bool max = true;
  std::vector<std::int64_t> kernel, strides, dilations, pads_begin, pads_end;
  int rounding = 0;  // 0 floor, 1 ceil, 2 ceil_torch
  int auto_pad = 0;  // 0 explicit, 1 valid, 2 same_upper, 3 same_lower
  bool exclude_pad = true;
  std::int64_t axis = 0;

  Attrs attrs(bool indices) const {
    const auto list = [](const std::vector<std::int64_t>& v) {
      std::string s;
      for (std::size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
      return s;
    };
    Attrs a = {{"kernel", list(kernel)},
               {"strides", list(strides)},
               {"pads_begin", list(pads_begin)},
               {"pads_end", list(pads_end)},
               {"rounding_type", rounding == 0   ? "floor"
                                 : rounding == 1 ? "ceil"
                                                 : "ceil_torch"},
               {"auto_pad", auto_pad == 0   ? "explicit"
                            : auto_pad == 1 ? "valid"
                            : auto_pad == 2 ? "same_upper"
                                            : "same_lower"}};
    if (!max) a["exclude-pad"] = exclude_pad ? "true" : "false";
    if (indices) {
      a["dilations"] = list(dilations);
      a["axis"] = std::to_string(axis);
    }
    return a;
  }
};

/// The pads the oracle works with along axis i for extent n, from the specification's rules.
std::pair<std::int64_t, std::int64_t> oracle_pads(const Spec& s, std::size_t i, std::int64_t n) {
  if (s.auto_pad == 1) return {0, 0};
  if (s.auto_pad == 0) return {s.pads_begin[i], s.pads_end[i]};
  const std::int64_t reach = (s.kernel[i] - 1) * s.dilations[i] + 1;
  const std::int64_t out = (n + s.strides[i] - 1) / s.strides[i];
  const std::int64_t total = std::max<std::int64_t>(0, (out - 1) * s.strides[i] + reach - n);
  return s.auto_pad == 2 ? std::pair{total / 2, total - total / 2}
                         : std::pair{total - total / 2, total / 2};
}

/// The output extent along axis i, or -1 when the kernel does not fit.
std::int64_t oracle_extent(const Spec& s, std::size_t i, std::int64_t n) {
  const auto [b, e] = oracle_pads(s, i, n);
  const std::int64_t reach = (s.kernel[i] - 1) * s.dilations[i] + 1;
  const std::int64_t room = n + b + e - reach;
  if (room < 0) return -1;
  const double q = static_cast<double>(room) / static_cast<double>(s.strides[i]);
  std::int64_t out = static_cast<std::int64_t>(s.rounding == 0 ? std::floor(q) : std::ceil(q)) + 1;
  // ceil_torch: a last window starting past the data and the begin padding is dropped.
  if (s.rounding == 2 && (out - 1) * s.strides[i] >= n + b) --out;
  return out;
}

struct OracleResult {
  Shape shape;
  std::vector<double> values;
  std::vector<std::int64_t> indices;
};

/// The pool of `x` (shape `shape`, values as doubles rounded from their type) the slow way.
OracleResult oracle(const Spec& s, const Shape& shape, const std::vector<double>& x,
                    ElementType type) {
  const bool integer = is_integral(type);
  const std::size_t sp = shape.size() - 2;
  OracleResult r;
  r.shape = {shape[0], shape[1]};
  std::vector<std::int64_t> begin(sp);
  for (std::size_t i = 0; i < sp; ++i) {
    r.shape.push_back(oracle_extent(s, i, shape[2 + i]));
    begin[i] = oracle_pads(s, i, shape[2 + i]).first;
  }
  bool padded = false;
  for (std::size_t i = 0; i < sp; ++i) {
    const auto [b, e] = oracle_pads(s, i, shape[2 + i]);
    padded = padded || b != 0 || e != 0;
  }
  std::int64_t plane = 1, out_plane = 1, window = 1;
  for (std::size_t i = 0; i < sp; ++i) {
    plane *= shape[2 + i];
    out_plane *= r.shape[2 + i];
    window *= s.kernel[i];
  }
  std::int64_t modulus = 0;
  if (s.axis != 0) {
    const std::size_t a = static_cast<std::size_t>(s.axis < 0 ? s.axis + 2 + sp : s.axis);
    modulus = 1;
    for (std::size_t i = a; i < shape.size(); ++i) modulus *= shape[i];
  }
  for (std::int64_t p = 0; p < shape[0] * shape[1]; ++p) {
    for (std::int64_t o = 0; o < out_plane; ++o) {
      std::vector<std::int64_t> oc(sp);
      for (std::size_t i = sp, rest = static_cast<std::size_t>(o); i-- > 0;) {
        oc[i] = static_cast<std::int64_t>(rest) % r.shape[2 + i];
        rest /= static_cast<std::size_t>(r.shape[2 + i]);
      }
      double best = 0, sum = 0;
      std::int64_t at = -1, count = 0;
      for (std::int64_t w = 0; w < window; ++w) {
        std::int64_t flat = 0;
        bool inside = true;
        for (std::size_t i = 0, rest = static_cast<std::size_t>(w); i < sp; ++i) {
          std::size_t inner = 1;
          for (std::size_t j = i + 1; j < sp; ++j) inner *= static_cast<std::size_t>(s.kernel[j]);
          const auto k = static_cast<std::int64_t>(rest / inner);
          rest %= inner;
          const std::int64_t pos = oc[i] * s.strides[i] - begin[i] + k * s.dilations[i];
          inside = inside && pos >= 0 && pos < shape[2 + i];
          flat = flat * shape[2 + i] + pos;
        }
        if (!inside) continue;
        const double v = x[static_cast<std::size_t>(p * plane + flat)];
        ++count;
        sum += v;
        if (at < 0 || v > best || (std::isnan(v) && !std::isnan(best))) {
          best = v;
          at = flat;
        }
      }
      if (s.max) {
        r.values.push_back(at < 0 ? -std::numeric_limits<double>::infinity() : best);
        std::int64_t index = p * plane + (at < 0 ? 0 : at);
        if (modulus) index %= modulus;
        r.indices.push_back(index);
      } else {
        const std::int64_t n = !s.exclude_pad && padded ? window : count;
        // The quotient in the type's compute precision (float for the 16-bit floats), then
        // rounded once to the type; integers divide toward zero.
        double avg = n == 0 ? 0 : sum / static_cast<double>(n);
        if (integer) {
          avg = std::trunc(avg);
        } else if (type != ElementType::f64) {
          avg = n == 0 ? 0 : static_cast<float>(sum) / static_cast<float>(n);
          avg = doubles(tensor(type, {}, {avg}))[0];
        }
        r.values.push_back(avg);
      }
    }
  }
  return r;
}

/// The lowest finite value of `type`, as a double.
double lowest_of(ElementType type) {
  Tensor t(type, {});
  dispatch_numeric(type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    t.data<T>()[0] = lowest_value<T>();
  });
  return element_as_double(t, 0);
}

/// A random pool over `sp` spatial axes whose kernel fits `shape`'s spatial extents.
Spec random_spec(std::mt19937& rng, bool max, bool dilate, std::size_t sp, const Shape& shape) {
  const auto pick = [&](int lo, int hi) {
    return static_cast<std::int64_t>(std::uniform_int_distribution<int>(lo, hi)(rng));
  };
  Spec s;
  s.max = max;
  s.rounding = static_cast<int>(pick(0, 2));
  s.auto_pad = static_cast<int>(pick(0, 5) < 3 ? 0 : pick(1, 3));
  s.exclude_pad = pick(0, 1) == 1;
  for (std::size_t i = 0; i < sp; ++i) {
    const std::int64_t n = shape[2 + i];
    s.kernel.push_back(pick(1, static_cast<int>(std::min<std::int64_t>(n, 4))));
    s.strides.push_back(pick(1, 3));
    s.dilations.push_back(dilate ? pick(1, 2) : 1);
    while ((s.kernel[i] - 1) * s.dilations[i] + 1 > n) s.dilations[i] = 1;
    // Padding below the kernel's reach, as models have it; the end may take more.
    s.pads_begin.push_back(pick(0, static_cast<int>(s.kernel[i] - 1)));
    s.pads_end.push_back(pick(0, static_cast<int>(s.kernel[i])));
  }
  s.axis = pick(-static_cast<int>(sp + 2), static_cast<int>(sp + 1));
  return s;
}

/// Compares one random pool of type `type` with the oracle and the thread counts with each
/// other.
void check_random(std::mt19937& rng, ElementType type, bool max, const char* opset,
                  std::size_t sp) {
  Shape shape = {std::uniform_int_distribution<std::int64_t>(1, 2)(rng),
                 std::uniform_int_distribution<std::int64_t>(1, 3)(rng)};
  for (std::size_t i = 0; i < sp; ++i)
    shape.push_back(std::uniform_int_distribution<std::int64_t>(1, sp == 3 ? 6 : 11)(rng));
  const bool indices = max && std::string(opset) != "opset1";
  Spec s = random_spec(rng, max, indices, sp, shape);
  if (std::string(opset) != "opset14" && s.rounding == 2) s.rounding = 1;
  // Small whole numbers make ties, and averages exact in every float type.
  std::size_t size = 1;
  for (const auto d : shape) size *= static_cast<std::size_t>(d);
  std::vector<double> x(size);
  const bool is_unsigned = type == ElementType::u8 || type == ElementType::u16 ||
                           type == ElementType::u32 || type == ElementType::u64;
  for (double& v : x)
    v = static_cast<double>(std::uniform_int_distribution<int>(is_unsigned ? 0 : -8, 8)(rng));
  const Tensor data = tensor(type, shape, x);
  const OracleResult want = oracle(s, shape, x, type);
  const Attrs attrs = s.attrs(indices);
  const auto op = make_pool(max ? "MaxPool" : "AvgPool", opset, attrs);
  // One capture of them all: a CAPTURE lasts only to the end of its scope, a loop body's included.
  std::string attributes;
  for (const auto& attribute : attrs) attributes += attribute.first + "=" + attribute.second + " ";
  CAPTURE(to_string(type));
  CAPTURE(to_string(shape));
  CAPTURE(std::string(opset));
  CAPTURE(attributes);
  const std::vector<Tensor> got = run_all(*op, {data}, indices ? 2 : 1);
  REQUIRE(got[0].shape() == want.shape);
  const std::vector<double> values = doubles(got[0]);
  for (std::size_t i = 0; i < values.size(); ++i) {
    // An empty max window gives the type's lowest finite value.
    const double w = std::isinf(want.values[i]) ? lowest_of(type) : want.values[i];
    if (values[i] != w) FAIL("element " << i << ": got " << values[i] << ", want " << w);
  }
  if (indices) CHECK(integers(got[1]) == want.indices);
  // The same bytes on any number of threads.
  std::vector<Tensor> inputs{data};
  const auto infos = infer_at_run_time(*op, inputs, indices ? 2 : 1);
  for (ThreadPool* pool : test_pools()) {
    const auto many = allocate_and_execute(*op, inputs, infos, ExecContext{Parallel(pool)});
    for (std::size_t k = 0; k < got.size(); ++k)
      CHECK(std::memcmp(many[k].data(), got[k].data(), got[k].byte_size()) == 0);
  }
}

}  // namespace

TEST_CASE("Pools: registry entries and versions") {
  CHECK(op_def("MaxPool", "opset1").version == 1);
  CHECK(op_def("MaxPool", "opset8").version == 8);
  CHECK(op_def("MaxPool", "opset13").version == 8);
  CHECK(op_def("MaxPool", "opset14").version == 14);
  CHECK(op_def("MaxPool", "opset8").num_outputs == 2);
  CHECK(op_def("AvgPool", "opset1").version == 1);
  CHECK(op_def("AvgPool", "opset14").version == 14);
  // ceil_torch is a word of the -14 versions only.
  Attrs a = basic("2", "2");
  a["rounding_type"] = "ceil_torch";
  CHECK_THROWS_WITH_AS((void)make_pool("MaxPool", "opset8", a), doctest::Contains("rounding_type"),
                       Error);
  CHECK(shape_of("MaxPool", "opset14", a, "[1,1,5]") == "f32 [1,1,3]");
  a["auto_pad"] = "sideways";
  CHECK_THROWS_WITH_AS((void)make_pool("AvgPool", "opset14", a), doctest::Contains("auto_pad"),
                       Error);
  Attrs i = basic("2", "2");
  i["index_element_type"] = "f32";
  CHECK_THROWS_WITH_AS((void)make_pool("MaxPool", "opset8", i),
                       doctest::Contains("expected i32 or i64"), Error);
}

TEST_CASE("Pools: shape rule on static shapes") {
  // The models' pools: 3x3 stride 2 with ceil, 2x2 stride 2 with floor.
  Attrs a = basic("3,3", "2,2");
  a["rounding_type"] = "ceil";
  CHECK(shape_of("MaxPool", "opset1", a, "[1,64,30,30]", ElementType::f16) == "f16 [1,64,15,15]");
  CHECK(shape_of("MaxPool", "opset1", a, "[1,128,8,8]") == "f32 [1,128,4,4]");
  a["rounding_type"] = "floor";
  CHECK(shape_of("MaxPool", "opset1", a, "[1,64,30,30]") == "f32 [1,64,14,14]");
  // Automatic pads: same gives ceil(n / stride) whatever the kernel; valid drops the pads.
  Attrs same = basic("3,3", "2,2");
  same["pads_begin"] = "5,5";
  same["pads_end"] = "5,5";
  same["auto_pad"] = "same_lower";
  CHECK(shape_of("AvgPool", "opset1", same, "[2,3,7,8]") == "f32 [2,3,4,4]");
  same["auto_pad"] = "valid";
  CHECK(shape_of("AvgPool", "opset1", same, "[2,3,7,8]") == "f32 [2,3,3,3]");
  same["auto_pad"] = "notset";  // the specification's word for the explicit pads
  CHECK(shape_of("AvgPool", "opset1", same, "[2,3,7,8]") == "f32 [2,3,8,8]");
  // 1-D and 3-D, with MaxPool-8's second output of the index type.
  Attrs d = basic("2,2,2", "1,1,1");
  d["dilations"] = "2,1,1";
  d["index_element_type"] = "i32";
  auto op = make_pool("MaxPool", "opset8", d);
  const auto outs = infer_outputs(*op, {info(ElementType::i8, "[1,2,5,4,3]")}, 2);
  CHECK(output_text(outs[0]) == "i8 [1,2,3,3,2]");
  CHECK(output_text(outs[1]) == "i32 [1,2,3,3,2]");
  CHECK(shape_of("MaxPool", "opset1", basic("4", "3"), "[1,1,10]") == "f32 [1,1,3]");
}

TEST_CASE("Pools: shape rule on interval and dynamic shapes") {
  Attrs a = basic("3,3", "2,2");
  a["rounding_type"] = "ceil";
  // An unknown extent: at least one window, no upper bound.
  CHECK(shape_of("MaxPool", "opset1", a, "[1,64,?,30]") == "f32 [1,64,1..,15]");
  CHECK(shape_of("MaxPool", "opset1", a, "[?,?,10..20,8]") == "f32 [?,?,5..10,4]");
  // An interval reaching below the kernel starts at one window.
  CHECK(shape_of("MaxPool", "opset1", basic("3", "1"), "[1,1,1..10]") == "f32 [1,1,1..8]");
  CHECK(shape_of("MaxPool", "opset1", a, "[...]") == "f32 [?,?,?,?]");
  // Automatic pads on an unknown extent: any extent, as OpenVINO.
  a["auto_pad"] = "same_upper";
  CHECK(shape_of("AvgPool", "opset1", a, "[1,3,2..9,9]") == "f32 [1,3,?,5]");
  // ceil_torch bounds each end with its own rule.
  Attrs t = basic("2", "2");
  t["pads_begin"] = "1";
  t["pads_end"] = "1";
  t["rounding_type"] = "ceil_torch";
  CHECK(shape_of("MaxPool", "opset14", t, "[1,1,5..6]") == "f32 [1,1,3..4]");
}

TEST_CASE("Pools: located shape errors") {
  CHECK(error_of("MaxPool", "opset1", basic("2", "2"), "[1,3,4,4]")
            .find("has 2 spatial axes but the kernel [2] has 1") != std::string::npos);
  CHECK(error_of("MaxPool", "opset1", basic("2,2", "2,0"), "[1,3,4,4]")
            .find("strides [2,0] must not hold a zero") != std::string::npos);
  CHECK(error_of("AvgPool", "opset1", basic("0,2", "1,1"), "[1,3,4,4]")
            .find("kernel [0,2] must not hold a zero") != std::string::npos);
  CHECK(error_of("AvgPool", "opset1", basic("2,2", "1"), "[1,3,4,4]")
            .find("one value per kernel axis") != std::string::npos);
  CHECK(error_of("MaxPool", "opset1", basic("5,2", "1,1"), "[1,3,4,4]")
            .find("larger than the padded input (4 + 0 + 0)") != std::string::npos);
  CHECK(error_of("MaxPool", "opset1", basic("5,2", "1,1"), "[1,3,..3,4]")
            .find("larger than any padded input") != std::string::npos);
  CHECK(error_of("MaxPool", "opset1", basic("2,2", "1,1"), "[3,4]").find("rank 3, 4 or 5") !=
        std::string::npos);
  CHECK(error_of("MaxPool", "opset1", basic("2,2", "1,1"), "[0,3,4,4]").find("no batch") !=
        std::string::npos);
  Attrs axis = basic("2", "1");
  axis["axis"] = "3";
  CHECK(error_of("MaxPool", "opset8", axis, "[1,3,4]").find("out of the tensor rank") !=
        std::string::npos);
  Attrs narrow = basic("1", "1");
  narrow["index_element_type"] = "i32";
  CHECK(error_of("MaxPool", "opset8", narrow, "[2,1024,1048577]")
            .find("use index_element_type "
                  "i64") != std::string::npos);
  // Through a model: the error names the layer and the input port.
  OpTester t("MaxPool", "opset1", "pool");
  t.attr("kernel", "3,3").attr("strides", "2,2").attr("pads_begin", "0,0").attr("pads_end", "0,0");
  t.input_parameter("x", ElementType::f32, ps("[1,3,2,8]"));
  CHECK_THROWS_WITH_AS(t.load(), doctest::Contains("'pool' (MaxPool-1), input port 0: the kernel"),
                       Error);
}

TEST_CASE("Pools: a MaxPool-1 layer written with MaxPool-8's attributes") {
  // As converters write them: float dilations, axis and index type, which MaxPool-1 ignores.
  OpTester t("MaxPool", "opset1");
  t.attr("auto_pad", "explicit").attr("axis", "0").attr("dilations", "1.0,1.0");
  t.attr("index_element_type", "i64").attr("kernel", "2,2").attr("pads_begin", "0,0");
  t.attr("pads_end", "0,0").attr("rounding_type", "floor").attr("strides", "2,2");
  t.input_parameter("x", tensor(ElementType::f32, {1, 1, 2, 4}, {1, 5, 2, 0, 3, 4, 8, 7}));
  CHECK(doubles(t.run()[0]) == std::vector<double>{5, 8});
  // MaxPool-8 reads whole floats as integers and refuses a fraction.
  OpTester v8("MaxPool", "opset8");
  v8.attr("dilations", "2.0").attr("kernel", "2").attr("pads_begin", "0").attr("pads_end", "0");
  v8.attr("strides", "1");
  v8.input_parameter("x", tensor(ElementType::f32, {1, 1, 4}, {1, 9, 3, 2}));
  const auto out = v8.run();
  CHECK(doubles(out[0]) == std::vector<double>{3, 9});
  CHECK(integers(out[1]) == std::vector<std::int64_t>{2, 1});
  v8.attr("dilations", "1.5");
  CHECK_THROWS_WITH_AS(v8.load(), doctest::Contains("whole numbers"), Error);
}

TEST_CASE("Pools: ceil and ceil_torch windows, worked out by hand") {
  // Five elements, kernel 2, stride 2, one pad on each side: ceil gives 4 windows, the last
  // wholly in the end padding; ceil_torch drops it.
  const Tensor x = tensor(ElementType::f32, {1, 1, 5}, {1, 2, 3, 4, 5});
  Attrs a = basic("2", "2");
  a["pads_begin"] = "1";
  a["pads_end"] = "1";
  a["rounding_type"] = "ceil";
  const double lowest = std::numeric_limits<float>::lowest();
  CHECK(doubles(run(*make_pool("MaxPool", "opset1", a), {x})) ==
        std::vector<double>{1, 3, 5, lowest});
  const auto v8 = run_all(*make_pool("MaxPool", "opset8", a), {x}, 2);
  CHECK(integers(v8[1]) == std::vector<std::int64_t>{0, 2, 4, 0});
  CHECK(doubles(run(*make_pool("AvgPool", "opset1", a), {x})) ==
        std::vector<double>{1, 2.5, 4.5, 0});
  a["exclude-pad"] = "false";  // padding counts: every window divides by 2
  CHECK(doubles(run(*make_pool("AvgPool", "opset1", a), {x})) ==
        std::vector<double>{0.5, 2.5, 4.5, 0});
  a["rounding_type"] = "ceil_torch";
  CHECK(doubles(run_all(*make_pool("MaxPool", "opset14", a), {x}, 2)[0]) ==
        std::vector<double>{1, 3, 5});
  CHECK(doubles(run(*make_pool("AvgPool", "opset14", a), {x})) ==
        std::vector<double>{0.5, 2.5, 4.5});
  // Without padding a ceil window is cut at the data's end and divides by what it covers,
  // whatever exclude-pad says.
  Attrs c = basic("2", "2");
  c["rounding_type"] = "ceil";
  c["exclude-pad"] = "false";
  CHECK(doubles(run(*make_pool("AvgPool", "opset1", c), {x})) == std::vector<double>{1.5, 3.5, 5});
  // A window running past the end padding still divides by the whole kernel with
  // exclude-pad false (OpenVINO's reference): [5, 6 | pad, past] / 3.
  const Tensor six = tensor(ElementType::f32, {1, 1, 6}, {1, 2, 3, 4, 5, 6});
  Attrs e = basic("3", "2");
  e["pads_begin"] = "1";
  e["pads_end"] = "1";
  e["rounding_type"] = "ceil";
  CHECK(doubles(run(*make_pool("AvgPool", "opset1", e), {six})) ==
        std::vector<double>{1.5, 3, 5, 6});
  e["exclude-pad"] = "false";
  CHECK(doubles(run(*make_pool("AvgPool", "opset1", e), {six})) == std::vector<double>{1, 3, 5, 2});
}

TEST_CASE("Pools: automatic pads, dilations and integers, worked out by hand") {
  const Tensor x = tensor(ElementType::f32, {1, 1, 5}, {1, 2, 3, 4, 5});
  Attrs a = basic("2", "1");
  a["auto_pad"] = "same_upper";  // the one pad at the end
  CHECK(doubles(run(*make_pool("MaxPool", "opset1", a), {x})) ==
        std::vector<double>{2, 3, 4, 5, 5});
  a["auto_pad"] = "same_lower";  // at the beginning
  a["exclude-pad"] = "false";
  CHECK(doubles(run(*make_pool("AvgPool", "opset1", a), {x})) ==
        std::vector<double>{0.5, 1.5, 2.5, 3.5, 4.5});
  // Kernel 2 dilated by 2: taps i and i + 2; equal values keep the first index.
  Attrs d = basic("2", "1");
  d["dilations"] = "2";
  const auto out = run_all(*make_pool("MaxPool", "opset8", d),
                           {tensor(ElementType::f32, {1, 1, 7}, {3, 1, 4, 1, 5, 9, 2})}, 2);
  CHECK(doubles(out[0]) == std::vector<double>{4, 1, 5, 9, 5});
  CHECK(integers(out[1]) == std::vector<std::int64_t>{2, 1, 4, 5, 4});
  // Integer averages are exact sums divided toward zero.
  const Attrs two = basic("2", "2");
  CHECK(doubles(run(*make_pool("AvgPool", "opset1", two),
                    {tensor(ElementType::i32, {1, 1, 4}, {-3, -4, 3, 4})})) ==
        std::vector<double>{-3, 3});
  CHECK(doubles(run(*make_pool("AvgPool", "opset1", basic("3", "1")),
                    {tensor(ElementType::u8, {1, 1, 3}, {255, 255, 254})})) ==
        std::vector<double>{254});
}

TEST_CASE("Pools: MaxPool-8 indices along each axis") {
  // Four planes of 2x2, one window each; each plane's maximum at another position.
  const Tensor x =
      tensor(ElementType::f32, {2, 2, 2, 2}, {1, 5, 2, 3, 9, 0, 0, 0, 0, 0, 7, 1, 0, 1, 2, 8});
  const std::pair<int, std::vector<std::int64_t>> cases[] = {{0, {1, 4, 10, 15}},
                                                             {1, {1, 4, 2, 7}},
                                                             {2, {1, 0, 2, 3}},
                                                             {-1, {1, 0, 0, 1}},
                                                             {-4, {1, 4, 10, 15}}};
  for (const auto& [along, want] : cases) {
    const auto axis = along;  // CAPTURE cannot take a structured binding
    CAPTURE(axis);
    for (const char* type : {"i32", "i64"}) {
      Attrs a = basic("2,2", "1,1");
      a["axis"] = std::to_string(axis);
      a["index_element_type"] = type;
      const auto out = run_all(*make_pool("MaxPool", "opset8", a), {x}, 2);
      CHECK(doubles(out[0]) == std::vector<double>{5, 9, 7, 8});
      CHECK(integers(out[1]) == want);
    }
  }
}

TEST_CASE("Pools: NaN and infinities") {
  const double nan = std::nan("");
  const double inf = std::numeric_limits<double>::infinity();
  for (ElementType type : {ElementType::f32, ElementType::f16, ElementType::bf16}) {
    CAPTURE(to_string(type));
    const Tensor x = tensor(type, {1, 1, 2, 6},
                            {1, nan, -inf, -inf, 3, 2,  //
                             4, 2, -inf, -inf, nan, 1});
    // The 2-D path (MaxPool-1) and the general one (MaxPool-8) agree: NaN wins, -inf stays.
    for (const char* opset : {"opset1", "opset8"}) {
      CAPTURE(opset);
      const auto out = run_all(*make_pool("MaxPool", opset, basic("2,2", "2,2")), {x},
                               std::string(opset) == "opset1" ? 1 : 2);
      const std::vector<double> v = doubles(out[0]);
      REQUIRE(v.size() == 3);
      CHECK(std::isnan(v[0]));
      CHECK(v[1] == -inf);
      CHECK(std::isnan(v[2]));
      if (out.size() == 2) CHECK(integers(out[1]) == std::vector<std::int64_t>{1, 2, 10});
    }
    CHECK(std::isnan(doubles(run(*make_pool("AvgPool", "opset1", basic("2,2", "2,2")), {x}))[0]));
  }
}

TEST_CASE("Pools: random shapes and attributes against the oracle, on any thread count") {
  std::mt19937 rng(20250611);
  const ElementType types[] = {ElementType::f32, ElementType::f16, ElementType::bf16,
                               ElementType::f64, ElementType::i32, ElementType::u8,
                               ElementType::i64, ElementType::i8};
  for (int round = 0; round < 60; ++round) {
    for (std::size_t sp = 1; sp <= 3; ++sp) {
      const ElementType type = types[static_cast<std::size_t>(round) % std::size(types)];
      check_random(rng, type, true, "opset1", sp);
      check_random(rng, type, true, "opset8", sp);
      check_random(rng, type, true, "opset14", sp);
      check_random(rng, type, false, "opset1", sp);
      check_random(rng, type, false, "opset14", sp);
    }
  }
}

TEST_CASE("Pools: the 2-D path on large planes, split over threads") {
  // Wide rows and many planes: the models' 3x3 / 2 ceil and 2x2 / 2 pools, padded and not
  // (floats with a stride of 2 and windows 2 or 3 wide read the rows in place, eight outputs at
  // a time; rows of 12 and 7 have fewer; rows twice the output's width, unpadded, are made a
  // block of rows at a time). The data: uniform, or a few values with NaN and -inf, so
  // that ties and NaNs fall in the vectors, the columns left over and the padded edges.
  std::mt19937 rng(7);
  const double nan = std::nan(""), inf = std::numeric_limits<double>::infinity();
  const double few[] = {nan, -inf, -2, -1, 1, 2};
  for (const char* kernel : {"3,3", "2,2", "3,1", "3,2"}) {
    for (const char* pads : {"0,0", "1,1"})
      for (const bool uniform : {true, false})
        for (const std::int64_t width : {61, 30, 12, 8, 7, 4}) {
          CAPTURE(kernel);
          CAPTURE(pads);
          CAPTURE(uniform);
          Attrs a = basic(kernel, std::string(kernel) == "3,1" ? "1,1" : "2,2");
          a["rounding_type"] = "ceil";
          a["pads_begin"] = pads;
          a["pads_end"] = pads;
          CAPTURE(width);
          const Shape shape = {2, 5, 37, width};
          std::vector<double> x(static_cast<std::size_t>(2 * 5 * 37 * width));
          for (double& v : x)
            v = uniform
                    ? std::uniform_real_distribution<double>(-1, 1)(rng)
                    : few[std::uniform_int_distribution<std::size_t>(0, std::size(few) - 1)(rng)];
          const Tensor data = tensor(ElementType::f32, shape, x);
          const auto v1 = run(*make_pool("MaxPool", "opset1", a), {data});
          // MaxPool-8 takes the general path: the same values.
          const auto v8 = run_all(*make_pool("MaxPool", "opset8", a), {data}, 2);
          REQUIRE(v1.shape() == v8[0].shape());
          CHECK(std::memcmp(v1.data(), v8[0].data(), v1.byte_size()) == 0);
          const auto op = make_pool("MaxPool", "opset1", a);
          const std::vector<Tensor> inputs{data};
          const auto infos = infer_at_run_time(*op, inputs, 1);
          for (ThreadPool* pool : test_pools()) {
            const auto many = allocate_and_execute(*op, inputs, infos, ExecContext{Parallel(pool)});
            CHECK(std::memcmp(many[0].data(), v1.data(), v1.byte_size()) == 0);
          }
        }
  }
}
