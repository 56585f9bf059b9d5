// Registers a custom op, Scale (y = x * factor), loads the model given on the command line
// (tests/consumer/scale.xml) with it, runs it on [1, 2, 3] and prints y.
#include <irlite/irlite.hpp>

#include <iostream>
#include <memory>
#include <vector>

namespace {

class Scale final : public irlite::CustomOp {
 public:
  explicit Scale(float factor) : factor_(factor) {}

  std::vector<irlite::CustomOutput> infer(
      std::span<const irlite::CustomInput> inputs) const override {
    if (inputs[0].element_type != irlite::ElementType::f32) fail_input(0, "Scale takes f32");
    return {{irlite::ElementType::f32, inputs[0].shape}};
  }

  void execute(std::span<const irlite::Tensor> inputs,
               std::span<irlite::Tensor> outputs) const override {
    const auto x = inputs[0].values<float>();
    const auto y = outputs[0].values<float>();
    for (std::size_t i = 0; i < x.size(); ++i) y[i] = x[i] * factor_;
  }

 private:
  float factor_;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  try {
    irlite::LoadOptions options;
    options.custom_ops.add(
        {.type = "Scale", .opset = "extension", .create = [](const irlite::LayerAttributes& a) {
           return std::make_shared<Scale>(static_cast<float>(a.get_float("factor")));
         }});
    const irlite::Model model = irlite::Model::load(argv[1], options);
    std::vector<float> x = {1, 2, 3};
    irlite::Session session(model);
    const auto outputs =
        session.run({{"x", irlite::Tensor::view(irlite::ElementType::f32, {3}, x.data())}});
    std::cout << "y";
    for (float v : outputs.at("y").values<float>()) std::cout << " " << v;
    std::cout << "\n";
  } catch (const irlite::Error& e) {
    std::cerr << e.what() << "\n";
    return 1;
  }
  return 0;
}
