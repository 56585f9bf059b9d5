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
#include "irlite/model_info.hpp"
#include "irlite/outputs.hpp"
#include "irlite/profile.hpp"
#include "irlite/shape.hpp"
#include "irlite/tensor.hpp"

namespace irlite {

namespace detail {
struct ModelImpl;
struct ModelAccess;
struct SessionState;
}  // namespace detail

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

  /// Copies share the model. A move hands the model over without touching its reference count;
  /// the moved-from Model is empty: it may be assigned to or destroyed, and everything else on
  /// it (a getter, reshape, a Session built from it) throws Error(usage).
  Model(const Model&) = default;
  Model(Model&& other) noexcept = default;
  Model& operator=(const Model&) = default;
  Model& operator=(Model&& other) noexcept = default;
  ~Model() = default;

 private:
  friend struct detail::ModelAccess;
  explicit Model(std::shared_ptr<const detail::ModelImpl> impl);
  /// The shared model; Error(usage) for a moved-from Model.
  const detail::ModelImpl& get() const;

  std::shared_ptr<const detail::ModelImpl> impl_;
};

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
