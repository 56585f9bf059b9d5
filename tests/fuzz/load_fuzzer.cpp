// libFuzzer target for the loader and the executor: the input is IR XML, optionally followed by
// the marker FUZZ_NEXT_FIELD and the weights bytes. Any irlite::Error is a fine answer; a crash,
// a sanitizer report, a hang or another exception is a bug.
//
//   scripts/dev.sh fuzz [SECONDS]   (builds build-asan with clang, runs every target)

#include <irlite/irlite.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<std::byte> weights;
  constexpr std::string_view marker = "FUZZ_NEXT_FIELD";
  if (const auto at = text.find(marker); at != std::string_view::npos) {
    const std::string_view rest = text.substr(at + marker.size());
    weights.resize(rest.size());
    if (!rest.empty()) std::memcpy(weights.data(), rest.data(), rest.size());
    text = text.substr(0, at);
  }
  for (bool keep_going : {false, true}) {
    try {
      irlite::LoadOptions options;
      options.keep_going = keep_going;
      const irlite::Model model = irlite::Model::load_from_memory(text, weights, options, "fuzz.xml");
      if (!model.problems().empty()) continue;
      // Run on zeros when the inputs are small enough to be worth it.
      std::map<std::string, irlite::Tensor> inputs;
      bool small = true;
      for (const auto& in : model.inputs()) {
        irlite::Shape shape;
        if (!in.shape.rank_is_static()) {
          small = false;
          break;
        }
        for (const auto& d : in.shape.dims()) shape.push_back(d.min() > 0 ? d.min() : 1);
        const auto n = irlite::element_count(shape);
        if (!n || *n > 4096) small = false;
        if (small) inputs[in.name] = irlite::Tensor(in.element_type, shape);
      }
      if (small) {
        irlite::SessionOptions options;
        options.max_memory_bytes = 256 << 20;
        irlite::Session(model, options).run(inputs);
      }
    } catch (const irlite::Error&) {
    }
  }
  return 0;
}
