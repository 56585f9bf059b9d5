// Kernels take their scratch from the Session's arena, never from the heap: this program replaces
// the global operator new with one that counts the allocations (and their bytes) made while a
// counter is armed, armed around Op::execute alone, and runs ops with a Scratch of exactly the
// bytes their scratch_bytes() declares. An op may keep its plan (a few words per axis) in
// ordinary containers, so the check is that execute() allocates the same few bytes on a large
// input as on a small one of the same rank: nothing that grows with the data. It is a program of
// its own so that the replacement does not touch the main suite.

#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "api/model_impl.hpp"
#include "core/buffer.hpp"
#include "core/parallel.hpp"
#include "graph/op.hpp"
#include "irlite/irlite.hpp"
#include "kernels/element.hpp"
#include "op_tester.hpp"

namespace {

std::atomic<bool> armed{false};
std::atomic<std::size_t> allocations{0};
std::atomic<std::size_t> allocated_bytes{0};

void* counted(std::size_t bytes, std::size_t align) {
  if (armed.load(std::memory_order_relaxed)) {
    allocations.fetch_add(1, std::memory_order_relaxed);
    allocated_bytes.fetch_add(bytes, std::memory_order_relaxed);
  }
  if (bytes == 0) bytes = 1;
  void* p = align <= alignof(std::max_align_t)
                ? std::malloc(bytes)
                : std::aligned_alloc(align, (bytes + align - 1) / align * align);
  return p;
}

}  // namespace

void* operator new(std::size_t bytes) {
  if (void* p = counted(bytes, 0)) return p;
  throw std::bad_alloc();
}
void* operator new(std::size_t bytes, std::align_val_t align) {
  if (void* p = counted(bytes, static_cast<std::size_t>(align))) return p;
  throw std::bad_alloc();
}
void* operator new(std::size_t bytes, const std::nothrow_t&) noexcept {
  return counted(bytes, 0);
}
void* operator new(std::size_t bytes, std::align_val_t align, const std::nothrow_t&) noexcept {
  return counted(bytes, static_cast<std::size_t>(align));
}
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, std::align_val_t) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t, std::align_val_t) noexcept {
  std::free(p);
}

using namespace irlite;
using irlite::test::OpTester;

namespace {

/// What execute() allocated from the heap.
struct Allocated {
  std::size_t count = 0;
  std::size_t bytes = 0;
  /// Whether the layer ran with the data its op prepared at load (a Const packed).
  bool prepared = false;
};

/// Runs the tester's op on `inputs` (all of them, in port order, a Const's value included) with
/// `threads` threads and a Scratch of exactly its declared bytes, as the executor runs it (with
/// the data prepared at load, if any); returns what execute() allocated from the heap.
Allocated allocated_in_execute(OpTester& tester, const std::vector<Tensor>& inputs,
                               unsigned threads, const LoadOptions& options = {}) {
  const Model model = tester.load(options);
  const detail::ModelImpl& impl = detail::ModelAccess::impl(model);
  const Node* node = nullptr;
  for (const Node& n : impl.graph.nodes)
    if (n.kind() == OpKind::compute) node = &n;
  REQUIRE(node != nullptr);
  std::vector<ValueInfo> infos;
  for (const Tensor& t : inputs)
    infos.push_back({t.element_type(), PartialShape::from_shape(t.shape()), &t});
  std::vector<Tensor> outputs;
  for (const OutputInfo& o : node->op->infer(infos, Phase::run))
    outputs.push_back(uninitialized_tensor(o.type, o.shape.to_shape()));
  ThreadPool pool(threads);
  const Parallel parallel(&pool);
  const std::size_t declared =
      node->prepared
          ? node->op->scratch_bytes_prepared(inputs, outputs, parallel.threads(), *node->prepared)
          : node->op->scratch_bytes(inputs, outputs, parallel.threads());
  const std::shared_ptr<void> arena = allocate_buffer(declared);
  const ExecContext context{parallel, Scratch(arena.get(), declared)};
  allocations = 0;
  allocated_bytes = 0;
  armed = true;
  if (node->prepared)
    node->op->execute_prepared(inputs, outputs, context, *node->prepared);
  else
    node->op->execute(inputs, outputs, context);
  armed = false;
  // Taking more than declared throws; what was taken is at most the slice.
  CHECK(context.scratch.bytes() <= declared);
  return {allocations.load(), allocated_bytes.load(), node->prepared != nullptr};
}

/// The most an op's plan may take from the heap.
constexpr std::size_t kPlanBytes = 4096;

/// The op allocates no more than a plan's few words, on `small` inputs and on `large` ones
/// (of the same ranks, with 30000 elements or more, so that any buffer sized by the data would
/// be several times the bound), at 1 and 3 threads. A plan may be per thread: a split over more
/// threads on the large inputs may take a few words more.
void check_no_data_sized_allocation(OpTester& tester, const std::vector<Tensor>& small,
                                    const std::vector<Tensor>& large) {
  for (const unsigned threads : {1u, 3u}) {
    CAPTURE(threads);
    const Allocated a = allocated_in_execute(tester, small, threads);
    const Allocated b = allocated_in_execute(tester, large, threads);
    CHECK(a.bytes <= kPlanBytes);
    CHECK(b.bytes <= kPlanBytes);
  }
}

/// A tensor of `shape` whose elements are `value(i)` converted to `type`.
template <class F>
Tensor filled(ElementType type, const Shape& shape, F value) {
  Tensor t = uninitialized_tensor(type, shape);
  dispatch_numeric(type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* p = t.data<T>();
    for (std::size_t i = 0; i < t.size(); ++i) p[i] = static_cast<T>(value(i));
  });
  return t;
}

/// A shape of `rank` dynamic dims.
PartialShape any_shape(std::size_t rank) {
  return PartialShape(std::vector<Dimension>(rank, Dimension::dynamic()));
}

Tensor scalar_i64(std::int64_t v) {
  return filled(ElementType::i64, {}, [&](std::size_t) { return v; });
}

}  // namespace

TEST_CASE("the counter sees an allocation made while armed") {
  allocations = 0;
  armed = true;
  auto p = std::make_unique<int>(1);
  armed = false;
  CHECK(allocations.load() == 1);
}

TEST_CASE("Softmax takes its scratch from the arena: rows and columns, float and half") {
  for (const ElementType type : {ElementType::f32, ElementType::f16, ElementType::f64})
    for (const std::int64_t axis : {1, 0})
      for (const unsigned threads : {1u, 3u}) {
        CAPTURE(to_string(type));
        CAPTURE(axis);
        CAPTURE(threads);
        OpTester t("Softmax", "opset8");
        t.attr("axis", axis).input_parameter("x", type, PartialShape::from_shape({64, 40}));
        Tensor x = uninitialized_tensor(type, {64, 40});
        std::memset(x.data(), 0, x.byte_size());
        CHECK(allocated_in_execute(t, {x}, threads).count == 0);
      }
}

namespace {

/// Doubles its input through a scratch copy: a custom op with a scratch of its own.
class Doubling final : public CustomOp {
 public:
  std::vector<CustomOutput> infer(std::span<const CustomInput> inputs) const override {
    return {{inputs[0].element_type, inputs[0].shape}};
  }
  std::size_t scratch_bytes(std::span<const Tensor> inputs,
                            std::span<const Tensor>) const override {
    const Scratch counting = Scratch::counting();
    (void)counting.take<float>(inputs[0].size());
    return counting.bytes();
  }
  void execute(std::span<const Tensor> inputs, std::span<Tensor> outputs,
               const Scratch& scratch) const override {
    const std::span<float> copy = scratch.take<float>(inputs[0].size());
    for (std::size_t i = 0; i < copy.size(); ++i) copy[i] = inputs[0].data<float>()[i] * 2;
    std::memcpy(outputs[0].data(), copy.data(), copy.size() * sizeof(float));
  }
};

}  // namespace

TEST_CASE("a custom op takes its declared scratch from the arena, after its adapter's") {
  LoadOptions options;
  options.custom_ops.add(
      {.type = "Doubling", .opset = "extension", .create = [](const LayerAttributes&) {
         return std::make_shared<const Doubling>();
       }});
  OpTester t("Doubling", "extension");
  t.input_parameter("x", ElementType::f32, PartialShape::from_shape({100})).outputs(1);
  Tensor x = uninitialized_tensor(ElementType::f32, {100});
  for (std::size_t i = 0; i < 100; ++i) x.data<float>()[i] = static_cast<float>(i);
  CHECK(allocated_in_execute(t, {x}, 1, options).count == 0);
  // Through a Session, the result is the op's.
  Session session(t.load(options));
  const Outputs out = session.run({{"x", x}});
  CHECK(out[0].second.data<float>()[99] == 198.0f);
}

TEST_CASE("TopK takes its heaps and keys from the arena, on every strategy") {
  // k small or large against the slice (the filter or the radix selection), slices along the
  // last axis or an outer one, one row or many (a row split over threads).
  struct Case {
    Shape small, large;
    std::int64_t axis, k;
  };
  const Case cases[] = {
      {{4, 300}, {4, 30000}, 1, 3},      // rows, filter
      {{1, 300}, {1, 300000}, 1, 3},     // one long row, split
      {{4, 300}, {4, 30000}, 1, 200},    // rows, selection
      {{300, 40}, {30000, 40}, 0, 3},    // columns, filter
      {{300, 40}, {30000, 40}, 0, 200},  // columns, selection
  };
  for (const ElementType type : {ElementType::f32, ElementType::f16, ElementType::i64})
    for (const Case& c : cases) {
      CAPTURE(to_string(type));
      CAPTURE(c.axis);
      CAPTURE(c.k);
      CAPTURE(c.large.back());
      OpTester t("TopK", "opset11");
      t.attr("axis", c.axis).attr("mode", "max").attr("sort", "value");
      t.input_parameter("x", type, any_shape(2));
      t.input_parameter("k", ElementType::i64, PartialShape::from_shape({}));
      const auto value = [](std::size_t i) { return static_cast<double>((i * 7919) % 1000); };
      check_no_data_sized_allocation(t, {filled(type, c.small, value), scalar_i64(c.k)},
                                     {filled(type, c.large, value), scalar_i64(c.k)});
    }
}

TEST_CASE("reductions take their partial results and float copies from the arena") {
  struct Case {
    const char* op;
    Shape small, large;
    std::vector<std::int64_t> axes;
  };
  const Case cases[] = {
      {"ReduceSum", {64, 8}, {64, 8000}, {0}},      // columns kept, rows split
      {"ReduceMax", {64, 8}, {6400, 8}, {0}},       // rows split over threads
      {"ReduceMean", {8, 64}, {8000, 64}, {0, 1}},  // everything into one value, in blocks
      {"ReduceProd", {4, 8, 3}, {4, 800, 3}, {1}},  // a middle axis
      {"ReduceL2", {64, 8}, {64, 8000}, {1}},       // rows reduced
  };
  for (const ElementType type : {ElementType::f32, ElementType::f16, ElementType::bf16})
    for (const Case& c : cases) {
      CAPTURE(std::string(c.op));
      CAPTURE(to_string(type));
      OpTester t(c.op, std::string(c.op) == "ReduceL2" ? "opset4" : "opset1");
      t.attr("keep_dims", false);
      t.input_parameter("x", type, any_shape(c.small.size()));
      t.input_parameter("axes", ElementType::i64,
                        PartialShape::from_shape({static_cast<std::int64_t>(c.axes.size())}));
      const Tensor axes = filled(ElementType::i64, {static_cast<std::int64_t>(c.axes.size())},
                                 [&](std::size_t i) { return c.axes[i]; });
      const auto value = [](std::size_t i) { return static_cast<double>(i % 5) * 0.25; };
      check_no_data_sized_allocation(t, {filled(type, c.small, value), axes},
                                     {filled(type, c.large, value), axes});
    }
}

TEST_CASE("EmbeddingSegmentsSum takes its checks, borders and sums from the arena") {
  for (const bool sorted : {true, false})
    for (const ElementType type : {ElementType::f32, ElementType::f16, ElementType::i32}) {
      CAPTURE(sorted);
      CAPTURE(to_string(type));
      OpTester t("EmbeddingSegmentsSum", "opset3");
      t.input_parameter("table", type, any_shape(2));
      t.input_parameter("indices", ElementType::i32, any_shape(1));
      t.input_parameter("segment_ids", ElementType::i32, any_shape(1));
      t.input_parameter("num_segments", ElementType::i32, PartialShape::from_shape({}));
      const auto inputs = [&](std::int64_t n) {
        const std::int64_t segments = n / 4;
        return std::vector<Tensor>{
            filled(type, {100, 8}, [](std::size_t i) { return static_cast<double>(i % 7); }),
            filled(ElementType::i32, {n}, [](std::size_t i) { return (i * 31) % 100; }),
            filled(ElementType::i32, {n},
                   [&](std::size_t i) {
                     return sorted ? i / 4 : (i * 13) % static_cast<std::size_t>(segments);
                   }),
            filled(ElementType::i32, {}, [&](std::size_t) { return segments; })};
      };
      check_no_data_sized_allocation(t, inputs(400), inputs(40000));
    }
}

TEST_CASE("SegmentMax takes its scratch from the arena") {
  for (const ElementType type : {ElementType::f32, ElementType::f16}) {
    CAPTURE(to_string(type));
    OpTester t("SegmentMax", "opset16");
    t.attr("fill_mode", "lowest");
    t.input_parameter("data", type, any_shape(2));
    t.input_parameter("segment_ids", ElementType::i32, any_shape(1));
    const auto inputs = [&](std::int64_t n) {
      return std::vector<Tensor>{
          filled(type, {n, 16}, [](std::size_t i) { return static_cast<double>(i % 9); }),
          filled(ElementType::i32, {n}, [](std::size_t i) { return i / 3; })};
    };
    check_no_data_sized_allocation(t, inputs(300), inputs(30000));
  }
}

TEST_CASE("Convolution takes its patches, packed filters and GEMM buffers from the arena") {
  // A 1x1 kernel (the GEMM on the input in place), a 3x3 one (im2col blocks; the large input
  // needs several), a depthwise layer and groups; filters given as a Parameter, so that they are
  // packed into scratch at every call.
  struct Case {
    const char* type;
    Shape filters;
    std::int64_t channels, pad;
  };
  const Case cases[] = {
      {"Convolution", {8, 16, 1, 1}, 16, 0},
      {"Convolution", {8, 16, 3, 3}, 16, 1},
      {"GroupConvolution", {16, 1, 1, 3, 3}, 16, 1},
      {"GroupConvolution", {4, 2, 4, 3, 3}, 16, 1},
  };
  for (const ElementType type : {ElementType::f32, ElementType::f16})
    for (const Case& c : cases) {
      CAPTURE(to_string(type));
      CAPTURE(std::string(c.type));
      CAPTURE(to_string(c.filters));
      OpTester t(c.type, "opset1");
      const std::string pad = std::to_string(c.pad) + "," + std::to_string(c.pad);
      t.attr("strides", "1,1")
          .attr("dilations", "1,1")
          .attr("pads_begin", pad)
          .attr("pads_end", pad);
      t.input_parameter("x", type, any_shape(4));
      t.input_parameter("w", type, PartialShape::from_shape(c.filters));
      const auto value = [](std::size_t i) { return static_cast<double>(i % 7) * 0.125; };
      const Tensor w = filled(type, c.filters, value);
      check_no_data_sized_allocation(t, {filled(type, {1, c.channels, 6, 6}, value), w},
                                     {filled(type, {1, c.channels, 120, 130}, value), w});
    }
}

TEST_CASE("ConvolutionBackpropData takes its packed filters, columns and row sums from the arena") {
  // Filters given as a Parameter, so that they are packed into scratch at every call; an
  // output_shape Parameter, read at every run.
  struct Case {
    const char* type;
    Shape filters;
    std::int64_t channels;
  };
  const Case cases[] = {
      {"ConvolutionBackpropData", {16, 8, 3, 3}, 16},
      {"GroupConvolutionBackpropData", {4, 4, 2, 3, 3}, 16},
  };
  for (const ElementType type : {ElementType::f32, ElementType::bf16})
    for (const Case& c : cases)
      for (const bool given_shape : {false, true}) {
        CAPTURE(to_string(type));
        CAPTURE(std::string(c.type));
        CAPTURE(given_shape);
        OpTester t(c.type, "opset1");
        t.attr("strides", "2,2")
            .attr("dilations", "1,1")
            .attr("pads_begin", "1,1")
            .attr("pads_end", "1,1")
            .attr("auto_pad", given_shape ? "same_upper" : "explicit");
        t.input_parameter("x", type, any_shape(4));
        t.input_parameter("w", type, PartialShape::from_shape(c.filters));
        const auto value = [](std::size_t i) { return static_cast<double>(i % 7) * 0.125; };
        const Tensor w = filled(type, c.filters, value);
        std::vector<Tensor> small{filled(type, {1, c.channels, 6, 6}, value), w};
        std::vector<Tensor> large{filled(type, {1, c.channels, 60, 65}, value), w};
        if (given_shape) {
          t.input_parameter("s", ElementType::i64, PartialShape::from_shape({2}));
          small.push_back(filled(ElementType::i64, {2}, [](std::size_t) { return 12; }));
          large.push_back(
              filled(ElementType::i64, {2}, [](std::size_t i) { return i == 0 ? 120 : 130; }));
        }
        check_no_data_sized_allocation(t, small, large);
      }
}

TEST_CASE("pools take their row buffers from the arena and allocate nothing else") {
  struct Case {
    const char* op;
    const char* opset;
  };
  // MaxPool-1 runs the 2-D path with a row buffer per chunk; MaxPool-8 and AvgPool the general
  // one, without scratch.
  for (const Case c :
       {Case{"MaxPool", "opset1"}, Case{"MaxPool", "opset8"}, Case{"AvgPool", "opset1"}})
    for (const ElementType type : {ElementType::f32, ElementType::f16}) {
      CAPTURE(c.op);
      CAPTURE(c.opset);
      CAPTURE(to_string(type));
      OpTester t(c.op, c.opset);
      t.attr("kernel", "3,3").attr("strides", "2,2").attr("pads_begin", "1,1");
      t.attr("pads_end", "1,1").attr("rounding_type", "ceil").attr("exclude-pad", "true");
      t.input_parameter("x", type, any_shape(4));
      const auto value = [](std::size_t i) { return static_cast<double>(i % 17) - 8; };
      check_no_data_sized_allocation(t, {filled(type, {1, 2, 5, 7}, value)},
                                     {filled(type, {2, 8, 61, 67}, value)});
      CHECK(allocated_in_execute(t, {filled(type, {2, 8, 61, 67}, value)}, 3).count == 0);
    }
}

TEST_CASE("FakeQuantize takes its converted limits from the arena and allocates nothing else") {
  // f16 data with per-channel f32 limits (converted into scratch), and f32 with per-tensor ones.
  for (const ElementType type : {ElementType::f16, ElementType::f32}) {
    CAPTURE(to_string(type));
    OpTester t("FakeQuantize", "opset1");
    t.attr("levels", 256);
    t.input_parameter("x", type, any_shape(4));
    const Shape channel = type == ElementType::f16 ? Shape{1, 8, 1, 1} : Shape{};
    const auto limit = [&](double v) {
      return filled(ElementType::f32, channel, [&](std::size_t i) { return v + 0.25 * i; });
    };
    const std::vector<Tensor> limits = {limit(-1), limit(1), limit(-2), limit(2)};
    for (const char* name : {"il", "ih", "ol", "oh"})
      t.input_parameter(name, ElementType::f32, PartialShape::from_shape(channel));
    const auto value = [](std::size_t i) { return static_cast<double>(i % 41) / 10 - 2; };
    std::vector<Tensor> small{filled(type, {1, 8, 3, 5}, value)};
    std::vector<Tensor> large{filled(type, {2, 8, 61, 67}, value)};
    small.insert(small.end(), limits.begin(), limits.end());
    large.insert(large.end(), limits.begin(), limits.end());
    check_no_data_sized_allocation(t, small, large);
  }
}

TEST_CASE("MatMul takes its matrix indices, packed B and per-thread buffers from the arena") {
  // Batched products (a pair of matrix indices per output matrix: 640 on the large inputs), B's
  // batch broadcast, a row or two of A (B read in place, or folded into the rows), and large
  // matrices (the per-thread blocks). f32 and f16 go through the GEMM, B fed (packed into
  // scratch at every call) or a Const (packed at load); i32 and f64 through the other kernel.
  struct Case {
    Shape a_small, a_large, b_small, b_large;
  };
  const Case fed[] = {
      {{64, 8, 16}, {640, 8, 16}, {64, 16, 8}, {640, 16, 8}},
      {{64, 8, 16}, {640, 8, 16}, {16, 8}, {16, 8}},
      {{64, 2, 16}, {640, 2, 16}, {64, 16, 40}, {640, 16, 40}},
      {{2, 8, 16}, {2, 300, 100}, {2, 16, 8}, {2, 100, 120}},
  };
  // A Const B is the same on the small and the large input.
  const Case constant[] = {
      {{64, 8, 16}, {640, 8, 16}, {16, 8}, {16, 8}},
      {{4, 8, 16}, {4, 800, 16}, {4, 16, 40}, {4, 16, 40}},
  };
  const auto value = [](std::size_t i) { return static_cast<double>(i % 7) * 0.125; };
  for (const ElementType type :
       {ElementType::f32, ElementType::f16, ElementType::i32, ElementType::f64}) {
    CAPTURE(to_string(type));
    for (const Case& c : fed) {
      CAPTURE(to_string(c.a_large));
      CAPTURE(to_string(c.b_large));
      OpTester t("MatMul", "opset1");
      t.input_parameter("a", type, any_shape(c.a_small.size()));
      t.input_parameter("b", type, any_shape(c.b_small.size()));
      check_no_data_sized_allocation(
          t, {filled(type, c.a_small, value), filled(type, c.b_small, value)},
          {filled(type, c.a_large, value), filled(type, c.b_large, value)});
    }
    for (const Case& c : constant) {
      CAPTURE(to_string(c.a_large));
      CAPTURE(to_string(c.b_large));
      const Tensor b = filled(type, c.b_small, value);
      OpTester t("MatMul", "opset1");
      t.input_parameter("a", type, any_shape(c.a_small.size()));
      t.input_const("b", b);
      check_no_data_sized_allocation(t, {filled(type, c.a_small, value), b},
                                     {filled(type, c.a_large, value), b});
      // The GEMM's types pack a Const B at load; the others have nothing to prepare.
      const bool gemm = type == ElementType::f32 || type == ElementType::f16;
      CHECK(allocated_in_execute(t, {filled(type, c.a_small, value), b}, 1).prepared == gemm);
    }
  }
}

TEST_CASE("DetectionOutput takes its boxes, candidates and conversions from the arena") {
  // f32 codes (used in place) and f16 ones (converted into scratch), f32 priors; Caffe's and
  // MXNet's suppression, shared and per-class boxes.
  for (const ElementType type : {ElementType::f32, ElementType::f16})
    for (const bool mxnet : {false, true})
      for (const bool shared : {true, false}) {
        CAPTURE(to_string(type));
        CAPTURE(mxnet);
        CAPTURE(shared);
        const std::int64_t classes = 3;
        const std::int64_t sets = shared ? 1 : classes;
        OpTester t("DetectionOutput", "opset8");
        t.attr("keep_top_k", "50").attr("top_k", "100").attr("nms_threshold", "0.5");
        t.attr("normalized", "1").attr("share_location", shared ? "1" : "0");
        t.attr("decrease_label_id", mxnet ? "1" : "0").attr("confidence_threshold", "0.2");
        t.input_parameter("loc", type, any_shape(2));
        t.input_parameter("conf", type, any_shape(2));
        t.input_parameter("priors", ElementType::f32, any_shape(3));
        const auto inputs = [&](std::int64_t priors) {
          return std::vector<Tensor>{
              filled(type, {1, priors * sets * 4},
                     [](std::size_t i) { return static_cast<double>(i % 7) / 10 - 0.3; }),
              filled(type, {1, priors * classes},
                     [](std::size_t i) { return static_cast<double>((i * 37) % 101) / 100; }),
              filled(ElementType::f32, {1, 2, priors * 4}, [&](std::size_t i) {
                const std::size_t k = i % 4;
                const double base = static_cast<double>((i / 4 * 13) % 97) / 100;
                return i >= static_cast<std::size_t>(priors * 4) ? 0.1 : base + (k >= 2 ? 0.05 : 0);
              })};
        };
        check_no_data_sized_allocation(t, inputs(50), inputs(8000));
      }
}

TEST_CASE("Interpolate takes its padded copy and tap tables from the arena") {
  // The fast path (a feature map's H and W), the general one (an odd axis list), and the
  // Pillow passes' temporaries; pads make the padded copy.
  struct Case {
    const char* mode;
    const char* axes;
  };
  for (const Case c : {Case{"nearest", "2,3"}, Case{"linear", "2,3"}, Case{"cubic", "3,1"},
                       Case{"linear_onnx", "1,2,3"}, Case{"bicubic_pillow", "3,2"}})
    for (const ElementType type : {ElementType::f32, ElementType::f16}) {
      CAPTURE(c.mode);
      CAPTURE(to_string(type));
      OpTester t("Interpolate", "opset11");
      t.attr("mode", c.mode).attr("shape_calculation_mode", "scales");
      t.attr("pads_begin", "0,0,1,0").attr("pads_end", "0,1,0,1").attr("antialias", "true");
      t.input_parameter("x", type, any_shape(4));
      t.input_parameter("scales", ElementType::f32, any_shape(1));
      t.input_parameter("axes", ElementType::i64, any_shape(1));
      const std::int64_t count = std::count(c.axes, c.axes + std::strlen(c.axes), ',') + 1;
      std::vector<std::int64_t> axes;
      for (const char* p = c.axes; *p; ++p)
        if (*p != ',') axes.push_back(*p - '0');
      const Tensor scales =
          filled(ElementType::f32, {count}, [](std::size_t i) { return i % 2 == 0 ? 2.0 : 0.75; });
      const Tensor axes_t = filled(ElementType::i64, {count},
                                   [&](std::size_t i) { return static_cast<double>(axes[i]); });
      const auto value = [](std::size_t i) { return static_cast<double>(i % 13) - 6; };
      check_no_data_sized_allocation(t, {filled(type, {1, 2, 5, 7}, value), scales, axes_t},
                                     {filled(type, {2, 8, 41, 47}, value), scales, axes_t});
    }
}

TEST_CASE("Pad takes its coordinate maps from the arena and allocates nothing else") {
  for (const char* mode : {"constant", "reflect", "symmetric", "edge"}) {
    CAPTURE(mode);
    OpTester t("Pad", "opset12");
    t.attr("pad_mode", mode);
    t.input_parameter("x", ElementType::f32, any_shape(3));
    t.input_parameter("b", ElementType::i64, any_shape(1));
    t.input_parameter("e", ElementType::i64, any_shape(1));
    const auto pads = [](std::int64_t a, std::int64_t b, std::int64_t c) {
      return filled(ElementType::i64, {3}, [=](std::size_t i) {
        return static_cast<double>(i == 0 ? a : i == 1 ? b : c);
      });
    };
    const auto value = [](std::size_t i) { return static_cast<double>(i % 11); };
    check_no_data_sized_allocation(
        t, {filled(ElementType::f32, {2, 3, 4}, value), pads(1, 2, 1), pads(0, -1, 2)},
        {filled(ElementType::f32, {4, 90, 100}, value), pads(1, 2, 3), pads(2, -1, 2)});
  }
}

TEST_CASE("MVN, NormalizeL2 and BatchNormInference allocate nothing that grows with the data") {
  // No scratch at all: the statistics of a group live in registers; only the plan of the axes
  // may come from the heap. Both the contiguous path (axes 2, 3) and the strided one (axis 1).
  const auto value = [](std::size_t i) { return static_cast<double>(i % 23) / 7 - 1.5; };
  for (const ElementType type : {ElementType::f32, ElementType::f16}) {
    CAPTURE(to_string(type));
    for (const std::vector<std::int64_t>& axes : {std::vector<std::int64_t>{2, 3}, {1}}) {
      const Tensor axes_t = filled(ElementType::i64, {static_cast<std::int64_t>(axes.size())},
                                   [&](std::size_t i) { return axes[i]; });
      OpTester mvn("MVN", "opset6");
      mvn.attr("eps", "1e-9").attr("normalize_variance", true).attr("eps_mode", "inside_sqrt");
      mvn.input_parameter("x", type, any_shape(4));
      mvn.input_parameter("axes", ElementType::i64, any_shape(1));
      check_no_data_sized_allocation(mvn, {filled(type, {1, 2, 3, 5}, value), axes_t},
                                     {filled(type, {2, 8, 61, 67}, value), axes_t});
      OpTester l2("NormalizeL2", "opset1");
      l2.attr("eps", "1e-6").attr("eps_mode", "max");
      l2.input_parameter("x", type, any_shape(4));
      l2.input_parameter("axes", ElementType::i64, any_shape(1));
      check_no_data_sized_allocation(l2, {filled(type, {1, 2, 3, 5}, value), axes_t},
                                     {filled(type, {2, 8, 61, 67}, value), axes_t});
    }
    OpTester bn("BatchNormInference", "opset5");
    bn.attr("epsilon", "1e-5");
    bn.input_parameter("x", type, any_shape(4));
    for (const char* name : {"gamma", "beta", "mean", "variance"})
      bn.input_parameter(name, type, any_shape(1));
    const auto params = [&](std::int64_t c) {
      std::vector<Tensor> p;
      for (int k = 0; k < 4; ++k) p.push_back(filled(type, {c}, [](std::size_t i) { return 1.0 + i; }));
      return p;
    };
    std::vector<Tensor> small{filled(type, {1, 2, 3, 5}, value)};
    std::vector<Tensor> large{filled(type, {2, 8, 61, 67}, value)};
    for (const Tensor& p : params(2)) small.push_back(p);
    for (const Tensor& p : params(8)) large.push_back(p);
    check_no_data_sized_allocation(bn, small, large);
  }
}

TEST_CASE("Split and DepthToSpace allocate nothing that grows with the data") {
  const auto value = [](std::size_t i) { return static_cast<double>(i % 11); };
  OpTester split("Split", "opset1");
  split.attr("num_splits", 2);
  split.input_parameter("x", ElementType::f32, any_shape(3));
  split.input_const("axis", scalar_i64(1));
  split.outputs(2);
  check_no_data_sized_allocation(split, {filled(ElementType::f32, {1, 4, 3}, value), scalar_i64(1)},
                                 {filled(ElementType::f32, {9, 64, 67}, value), scalar_i64(1)});
  OpTester d2s("DepthToSpace", "opset1");
  d2s.attr("mode", "depth_first").attr("block_size", 2);
  d2s.input_parameter("x", ElementType::f32, any_shape(4));
  check_no_data_sized_allocation(d2s, {filled(ElementType::f32, {1, 4, 3, 5}, value)},
                                 {filled(ElementType::f32, {2, 16, 31, 67}, value)});
}
