// Loads a model given on the command line, runs it on zeros and prints each output's shape.
#include <irlite/irlite.hpp>

#include <iostream>

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  try {
    const irlite::Model model = irlite::Model::load(argv[1]);
    std::map<std::string, irlite::Tensor> inputs;
    for (const auto& in : model.inputs())
      inputs[in.name] = irlite::Tensor(in.element_type, in.shape.to_shape());
    irlite::Session session(model);
    for (const auto& [name, tensor] : session.run(inputs))
      std::cout << name << " " << irlite::to_string(tensor.shape()) << "\n";
    std::cout << "irlite " << irlite::version() << "\n";
    if (irlite::version() != IRLITE_VERSION_STRING) return 3;  // headers and library disagree
  } catch (const irlite::Error& e) {
    std::cerr << e.what() << "\n";
    return 1;
  }
  return 0;
}
