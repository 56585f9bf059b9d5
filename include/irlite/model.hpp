#pragma once
// Loading a model, reading its inferred shapes, and running it.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "irlite/custom_op.hpp"
#include "irlite/element_type.hpp"
#include "irlite/error.hpp"
#include "irlite/outputs.hpp"
#include "irlite/profile.hpp"
#include "irlite/shape.hpp"
#include "irlite/tensor.hpp"

namespace irlite {

namespace detail {
struct ModelImpl;
struct SessionState;
}  // namespace detail

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
  std::string type;     ///< the op's canonical name: "TopK", "Constant"
  int version = 0;      ///< the op version: 11 for TopK-11
  std::string opset;    ///< as written: "opset11"
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
};

/// A loaded model: immutable, cheap to copy (copies share it) and safe to use from many threads.
class Model {
 public:
  /// Loads an IR .xml and its weights. Throws Error.
  static Model load(const std::filesystem::path& xml, const LoadOptions& options = {});
  /// Loads from memory. `weights` is not copied: it must outlive the model and every
  /// session and tensor obtained from it, unchanged (LoadOptions::weights and weights_mode are
  /// not used here). `source_name` names the model in errors.
  static Model load_from_memory(std::string_view xml, std::span<const std::byte> weights = {},
                                const LoadOptions& options = {},
                                std::string source_name = "<memory>");
  /// The same, with `keep_alive` owning the memory `weights` views: the model, its sessions and
  /// tensors hold a copy of it for as long as they use the bytes, so the caller may drop its
  /// own at once. The bytes must not change while they are held. `keep_alive` comes before
  /// `weights` so that a braced `{}` after the weights still means the options.
  static Model load_from_memory(std::string_view xml, std::shared_ptr<const void> keep_alive,
                                std::span<const std::byte> weights, const LoadOptions& options = {},
                                std::string source_name = "<memory>");

  /// The `name` of `<net>`.
  const std::string& name() const;
  /// The IR version: 10 or 11.
  int ir_version() const;
  /// The .xml path (or the source name for a model loaded from memory).
  const std::string& source() const;
  /// Parameters, in document order.
  const std::vector<PortInfo>& inputs() const;
  /// Results, in document order.
  const std::vector<PortInfo>& outputs() const;
  /// Every layer, in the order they run (topological, ties by document order).
  const std::vector<LayerInfo>& layers() const;
  /// Things worth knowing that do not stop the model: declared dims that differ from the
  /// inferred ones, layers that reach no Result, a missing weights file with keep_going.
  const std::vector<Error>& warnings() const;
  /// Problems collected with LoadOptions::keep_going; empty otherwise.
  const std::vector<Error>& problems() const;
  /// Whether some shape is not static: an input's, or an output of a layer that runs (a
  /// TopK's whose k is a Parameter, with static inputs). Such layers infer their output shapes
  /// again on every run, as does any layer whose shape rule reads a value other than a Const's.
  bool is_dynamic() const;
  /// The position in inputs() of the input called `name`: a Parameter layer name first, else a
  /// tensor name. nullopt when there is none.
  std::optional<std::size_t> find_input(std::string_view name) const;

  /// A copy of the model with new input shapes (keyed by input or tensor name) and shapes
  /// inferred again, as OpenVINO's reshape. Throws Error when a name is unknown or the new
  /// shapes do not fit the model.
  Model reshape(const std::map<std::string, PartialShape>& shapes) const;

  /// Copies share the model; a moved-from Model still refers to it (a move is a copy).
  Model(const Model&) = default;
  Model(Model&& other) noexcept : impl_(other.impl_) {}
  Model& operator=(const Model&) = default;
  Model& operator=(Model&& other) noexcept {
    impl_ = other.impl_;
    return *this;
  }

  /// Implementation access for the library itself.
  const detail::ModelImpl& impl() const { return *impl_; }
  /// For the library itself: `impl` must not be null.
  explicit Model(std::shared_ptr<const detail::ModelImpl> impl);

 private:
  std::shared_ptr<const detail::ModelImpl> impl_;
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

/// Running state for one thread: create one Session per thread that runs the model.
class Session {
 public:
  /// Throws Error(usage) for a model that cannot run: one with problems, or one loaded with
  /// keep_going whose Consts lack their weights.
  explicit Session(Model model, SessionOptions options = {});
  ~Session();
  Session(Session&&) noexcept;
  Session& operator=(Session&&) noexcept;
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  /// Runs the model. `inputs` maps each input's name (Parameter layer name or any of its tensor
  /// names) to a tensor; input buffers are read in place, not copied. Returns every output,
  /// named by PortInfo::name, in Model::outputs() order. Throws Error for a missing, unknown or
  /// ill-fitting input and for values the ops reject. An output fed straight by an input shares
  /// the caller's buffer.
  ///
  /// The Session keeps the memory of outputs and of values between layers from one run to the
  /// next, and a run writes into such memory only when nobody else holds it: an output the
  /// caller keeps (any copy of the Tensor) is never overwritten, and dropping the previous
  /// run's outputs before the next run lets it reuse their memory instead of allocating and
  /// first-touching it again. What the Session keeps between runs never exceeds the peak of a
  /// run's own tensors.
  Outputs run(const std::map<std::string, Tensor>& inputs);
  /// The same, calling `observer` after each layer with its outputs (see LayerObserver).
  Outputs run(const std::map<std::string, Tensor>& inputs, const LayerObserver& observer);

  /// Has the runs write output `name` (a PortInfo::name) into `tensor`, typically a
  /// Tensor::view of the caller's memory, instead of memory of the Session's; the Outputs of a
  /// run then hold `tensor` for it. The layer that produces the output writes straight into it;
  /// an output fed by an input or a Const is copied into it. Rules:
  /// - the Session keeps a copy of the Tensor (so its keep_alive) until unbind_output(), another
  ///   bind_output() of the name, or its own end; a view without keep_alive must stay valid as
  ///   long as that;
  /// - every run overwrites it, also when an earlier run's Outputs still hold it;
  /// - it must not overlap an input or another bound output, nor be a read-only view;
  /// - its type and shape must be those the run produces: checked here against the output's
  ///   PortInfo (Error(usage)), and at every run against the real ones, before the layer
  ///   writes; a mismatch (a dynamic output whose shape changed) fails the run with an
  ///   Error(usage) naming the output and both types and shapes. Bind again or unbind then;
  /// - it is not counted in SessionOptions::max_memory_bytes, as inputs are not;
  /// - another output fed by the same value shares it when not bound itself, and gets a copy
  ///   in its own bound tensor otherwise.
  /// Throws Error(usage) for an unknown name or a tensor without data.
  void bind_output(std::string_view name, Tensor tensor);
  /// Lets the runs return output `name` in memory of the Session's again. Throws Error(usage)
  /// for an unknown name; an output not bound is left as it is.
  void unbind_output(std::string_view name);

  /// The last run's layers and times when SessionOptions::profile is set; empty otherwise. After
  /// a run that failed, the layers that finished before the failure, with total_ns 0.
  const RunProfile& profile() const;

  const Model& model() const { return model_; }
  /// The options in force: max_memory_bytes, max_tensor_bytes and num_threads resolved (never
  /// 0).
  const SessionOptions& options() const { return options_; }

 private:
  Model model_;
  SessionOptions options_;
  std::unique_ptr<detail::SessionState> state_;
};

/// The library version, "major.minor.patch".
std::string_view version();

}  // namespace irlite
