// libFuzzer target for Session::run: the sample models (models/, loaded once) on fuzzed inputs.
// The first byte picks a model; then, for each input, the bytes give the extent of every dynamic
// dimension (0 to 31) and finally the tensor's bytes, so any value of any element type reaches
// the kernels: out-of-range indices, unsorted ids, NaN, huge k. Any irlite::Error is a fine
// answer; a crash, a sanitizer report, a hang or another exception is a bug.
//
//   scripts/dev.sh fuzz [SECONDS]   (builds build-asan with clang, runs every target)

#include <irlite/irlite.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace {

/// The fuzzer's bytes, read front to back; zeros once they run out.
class Bytes {
 public:
  Bytes(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  std::uint8_t next() { return at_ < size_ ? data_[at_++] : 0; }
  void fill(void* dst, std::size_t n) {
    const std::size_t k = std::min(n, size_ - at_);
    if (k > 0) std::memcpy(dst, data_ + at_, k);
    std::memset(static_cast<char*>(dst) + k, 0, n - k);
    at_ += k;
  }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t at_ = 0;
};

/// Every model under models/ that loads, in path order (so a byte picks the same model on every
/// machine); models/invalid holds the ones that must not load.
const std::vector<irlite::Model>& models() {
  static const std::vector<irlite::Model> all = [] {
    std::vector<std::filesystem::path> paths;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(IRLITE_MODELS))
      if (entry.path().extension() == ".xml" &&
          entry.path().parent_path().filename() != "invalid")
        paths.push_back(entry.path());
    std::sort(paths.begin(), paths.end());
    std::vector<irlite::Model> loaded;
    for (const auto& path : paths) {
      try {
        loaded.push_back(irlite::Model::load(path));
      } catch (const irlite::Error&) {
      }
    }
    return loaded;
  }();
  return all;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto& all = models();
  if (all.empty() || size == 0) return 0;
  Bytes bytes(data, size);
  const irlite::Model& model = all[bytes.next() % all.size()];
  std::map<std::string, irlite::Tensor> inputs;
  for (const auto& in : model.inputs()) {
    irlite::Shape shape;
    if (in.shape.rank_is_static()) {
      for (const auto& d : in.shape.dims())
        shape.push_back(d.is_static() ? d.min() : bytes.next() % 32);
    } else {
      const std::size_t rank = bytes.next() % 4;
      for (std::size_t i = 0; i < rank; ++i) shape.push_back(bytes.next() % 32);
    }
    const auto count = irlite::element_count(shape);
    if (!count || *count > (1 << 16)) return 0;
    irlite::Tensor tensor(in.element_type, shape);
    bytes.fill(tensor.data(), tensor.byte_size());
    inputs[in.name] = std::move(tensor);
  }
  try {
    irlite::SessionOptions options;
    options.max_memory_bytes = 256 << 20;
    options.num_threads = 1 + bytes.next() % 3;
    irlite::Session(model, options).run(inputs);
  } catch (const irlite::Error&) {
  }
  return 0;
}
