// The library's folders depend on each other one way: core <- graph <- ops, loader, exec,
// shape_inference <- api, with kernels under the ops; the Python module (python/) uses the public
// API only. A stray include that turns an arrow round
// fails here rather than in a later refactoring. The plain reference kernels live with the tests
// (tests/reference/), and nothing in the library may use them.

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>

namespace {

namespace fs = std::filesystem;

// The folders each folder of src/ may include from, besides itself and the public headers.
const std::map<std::string, std::set<std::string>> kAllowed{
    {"core", {}},
    {"kernels", {"core"}},
    {"graph", {"core"}},
    {"ops", {"core", "graph", "kernels"}},
    {"loader", {"core", "graph"}},
    {"shape_inference", {"core", "graph"}},
    {"exec", {"core", "graph"}},
    {"api", {"core", "graph", "ops", "loader", "shape_inference", "exec"}},
    {"python", {}},
};

}  // namespace

TEST_CASE("layering: src/ folders include only the folders below them") {
  const fs::path src = fs::path(IRLITE_MODELS).parent_path() / "src";
  REQUIRE(fs::is_directory(src));
  std::size_t files = 0;
  for (const auto& entry : fs::recursive_directory_iterator(src)) {
    if (!entry.is_regular_file()) continue;
    const std::string folder = fs::relative(entry.path(), src).begin()->string();
    const auto allowed = kAllowed.find(folder);
    INFO("file: " << entry.path().string());
    REQUIRE_MESSAGE(allowed != kAllowed.end(), "src/" << folder << " is not in the layering table");
    ++files;
    std::ifstream in(entry.path());
    std::string line;
    while (std::getline(in, line)) {
      if (line.rfind("#include \"", 0) != 0) continue;
      CHECK_MESSAGE(line.find("reference/") == std::string::npos,
                    "src/ must not use the tests' reference kernels: " << line);
      const std::string target = line.substr(10, line.find('/', 10) - 10);
      // Below api/, the library passes the public value types around (irlite/model_info.hpp)
      // but never reaches for Model or Session; the Python module, above it, wraps them.
      if (folder != "api" && folder != "python")
        for (const char* whole :
             {"#include \"irlite/model.hpp\"", "#include \"irlite/irlite.hpp\""})
          CHECK_MESSAGE(line.rfind(whole, 0) != 0,
                        "src/" << folder << " must include irlite/model_info.hpp, not " << line);
      if (target == "irlite" || target == folder) continue;
      CHECK_MESSAGE(allowed->second.count(target) == 1,
                    "src/" << folder << " must not include " << target << "/: " << line);
    }
  }
  CHECK(files > 30);
}
