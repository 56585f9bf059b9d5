#pragma once
// The value types that describe a model and say how to load and run it: the options, the ports
// and the layers. Model and Session (irlite/model.hpp) are built on them; code that only passes
// such values around includes this header alone.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "irlite/custom_op.hpp"
#include "irlite/element_type.hpp"
#include "irlite/shape.hpp"
#include "irlite/tensor.hpp"

namespace irlite {

/// How Model::load holds the weights (.bin) file.
enum class WeightsMode {
  /// `copy` for a file smaller than 64 MiB, `map` for a larger one.
  automatic,
  /// The file is read into memory of the model's own at load time: the model is a snapshot, and
  /// whatever happens to the file afterwards (rewritten, truncated, removed) changes nothing.
  copy,
  /// The file is mapped read-only and Consts are read from the mapping when a session runs, so
  /// loading costs no copy and the pages are shared with the page cache. The file must stay as
  /// it was while the model, a session or a tensor obtained from it is alive:
  /// - bytes rewritten in place are seen by later runs (Consts take the new values; what the
  ///   load worked out from the old ones, such as output shapes from a Const `k`, stays);
  /// - a file truncated below a Const's bytes kills the process with SIGBUS at the next read of
  ///   them (a run, or Model::layers() showing small Const values);
  /// - a file replaced by a rename (`mv new.bin model.bin`) or removed is safe: the mapping
  ///   keeps the old file. `cp new.bin model.bin` truncates and rewrites it in place: not safe.
  /// A Const copied at load time (one not aligned for its type, a boolean one with bytes other
  /// than 0 and 1) keeps its values either way.
  map,
};

/// The element type that layers declared in f16 or bf16 compute in.
enum class InferencePrecision {
  /// float32, as OpenVINO's CPU plugin computes by default: f16 and bf16 Consts are widened to
  /// f32 once at load, Convert, Parameter and Range attributes that say f16 or bf16 say f32, and
  /// every layer between runs in f32. The model's inputs and outputs keep their declared types:
  /// a run takes an f16 input, widens it, and narrows an output back to f16 where the IR
  /// declares the port that feeds the Result as f16 (or bf16). Model::layers() shows the types
  /// the layers compute in beside the declared ones.
  f32,
  /// The types the IR declares: each f16 layer rounds its results to f16, as OpenVINO's
  /// reference implementation does.
  declared,
};

/// How to load a model.
struct LoadOptions {
  /// The weights file. Empty: the .xml's path with the extension replaced by .bin, used when
  /// it exists.
  std::filesystem::path weights;
  /// Whether the weights file is copied or mapped (Model::load only).
  WeightsMode weights_mode = WeightsMode::automatic;
  /// Collect every problem in Model::problems() instead of throwing the first; the model then
  /// cannot be run. A layer whose shape rule fails gets unknown outputs and the layers after it
  /// are not inferred; an op irlite lacks takes the types and dims its IR ports declare, so the
  /// layers after it can still be inspected. A missing weights file is a warning, and shapes
  /// that depend on Const values are inferred without them.
  bool keep_going = false;
  /// What f16 and bf16 layers compute in.
  InferencePrecision inference_precision = InferencePrecision::f32;
  /// Run the element-wise layers that follow a Convolution or GroupConvolution inside its
  /// kernel: the Add of a per-channel bias, Relu, PReLU, FakeQuantize, a per-channel Multiply or
  /// Add, and the Add of a tensor computed before it (a residual connection), each the only
  /// reader of the layer before it. The outputs are the same bits; the fused layers'
  /// own outputs are never made, so a LayerObserver sees only the last one's (under that
  /// layer), and a profile times them with the first (LayerProfile::fused_layers). Off: every
  /// layer runs alone, as `irlite run --dump` needs.
  bool fuse_layers = true;
  /// Ops of the caller's own for this load (irlite/custom_op.hpp), matched by the layer's
  /// exact type and version.
  CustomOps custom_ops;
};

/// A model input or output.
struct PortInfo {
  /// Inputs: the Parameter layer's name. Outputs: the first tensor name of the port that feeds
  /// the Result, or the Result layer's name when that port has none.
  std::string name;
  /// Every tensor name of the port (the `names` attribute), possibly empty.
  std::vector<std::string> tensor_names;
  ElementType element_type = ElementType::undefined;
  PartialShape shape;
};

/// One input of a layer: which output feeds it.
struct LayerInput {
  std::int64_t port = 0;        ///< the IR port id on this layer
  std::int64_t from_layer = 0;  ///< the producing layer's id
  std::int64_t from_port = 0;   ///< the producing layer's output port id
};

/// One output of a layer, as inferred, beside what the IR declared.
struct LayerOutput {
  std::int64_t port = 0;  ///< the IR port id
  std::vector<std::string> tensor_names;
  ElementType element_type = ElementType::undefined;
  PartialShape shape = PartialShape::dynamic_rank();
  /// The precision written on the port (undefined when absent).
  ElementType declared_element_type = ElementType::undefined;
  /// The `<dim>`s written on the port, -1 for dynamic ones.
  std::vector<std::int64_t> declared_dims;
  /// Whether the declared dims or precision contradict the inferred ones.
  bool declared_differs = false;
};

/// One layer of the model with its inferred output shapes.
struct LayerInfo {
  std::int64_t id = 0;
  std::string name;
  std::string type;   ///< the op's canonical name: "TopK", "Constant"
  int version = 0;    ///< the op version: 11 for TopK-11
  std::string opset;  ///< as written: "opset11"
  std::int64_t line = 0, column = 0;
  /// Key attributes as text, in a stable order (small Const values included as "value"); a
  /// layer irlite has no op for (with LoadOptions::keep_going) keeps its `<data>` as written.
  std::vector<std::pair<std::string, std::string>> attributes;
  std::vector<LayerInput> inputs;
  std::vector<LayerOutput> outputs;
  /// False when no Result depends on the layer: it is not run, and a shape rule that refuses
  /// it is a warning, not a problem (its outputs are then unknown).
  bool reaches_result = true;
  /// The layer was computed while loading, its inputs being all known (constant folding): runs
  /// use its value as a Const's, shown as "value" when small.
  bool folded = false;
  /// The index in Model::layers() of the layer whose kernel runs this one (LoadOptions::
  /// fuse_layers); nullopt when it runs alone.
  std::optional<std::size_t> fused_into;
};

/// How a Session runs.
struct SessionOptions {
  /// Kept for source compatibility: max_memory_bytes bounds every tensor. When not 0 and below
  /// max_memory_bytes, also the largest tensor a layer may produce: a layer that would need
  /// more fails with Error(value) before allocating it. 0: max_memory_bytes.
  std::size_t max_tensor_bytes = 0;
  /// Threads a layer's kernel may use, the calling thread included. 0: one per CPU the process
  /// may run on. Results are the same, bit for bit, whatever the count. Each Session owns its
  /// threads: sessions running side by side share the CPUs.
  unsigned num_threads = 0;
  /// The memory one run may use, in bytes: its outputs, the values between layers while they
  /// are alive (from their layer to their last reader; an output nothing reads only during its
  /// own layer) and the scratch space of the kernel running, counted together. The inputs are
  /// the caller's and not counted. Each is checked before it is allocated: a layer that would
  /// go over fails with Error(value) naming the layer and the bytes needed against the budget,
  /// instead of exhausting memory. The scratch counted is an upper bound of what the kernel may
  /// take on any values (so it may depend on num_threads). 0: half the machine's physical
  /// memory.
  std::size_t max_memory_bytes = 0;
  /// Record every run's layers and times in Session::profile(). Off, a run pays one branch per
  /// layer for it.
  bool profile = false;
};

/// Called by Session::run after each layer that has outputs (Parameters, Consts and compute
/// layers; not Results), in run order, with the layer's description (an element of
/// Model::layers()) and its outputs, before the run lets go of them. The tensors are valid only
/// during the call: clone() what must outlive it, and do not write to them. An exception it
/// throws ends the run and propagates from Session::run.
using LayerObserver = std::function<void(const LayerInfo& layer, std::span<const Tensor> outputs)>;

}  // namespace irlite
