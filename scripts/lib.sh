# shellcheck shell=bash
# Shared by scripts/dev.sh and scripts/bench.sh (sourced, not run): the repository root, the
# Debian packages irlite needs, and the build the README's commands use.

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# What building the library and the command needs; the tests also need doctest, and the Python
# module and its tests pybind11, the Python headers, NumPy and pytest.
run_packages=(cmake ninja-build g++ pkgconf libpugixml-dev libfmt-dev libcli11-dev nlohmann-json3-dev zlib1g-dev
  libpng-dev libturbojpeg0-dev)
python_packages=(python3-dev python3-pybind11 python3-numpy python3-pytest)
# The graph page's tests open it in headless Chromium (with a font of known metrics) and read
# the --dot file back with Graphviz.
packages=("${run_packages[@]}" doctest-dev "${python_packages[@]}" chromium fonts-dejavu-core graphviz)

# Installs the Debian packages named that are not installed yet (apt-get, as root or through sudo).
apt_install() {
  local missing=()
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "installing: ${missing[*]}" >&2
  local sudo=()
  [ "$(id -u)" -eq 0 ] || sudo=(sudo)
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
}

install_deps() {
  apt_install "${packages[@]}"
}

# Only what build_command needs.
install_run_deps() {
  apt_install "${run_packages[@]}"
}

# configure DIR [CMAKE OPTIONS...]: RelWithDebInfo, Ninja, warnings as errors.
configure() {
  local dir=$1
  shift
  cmake -S "$root" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DIRLITE_WERROR=ON "$@" >/dev/null
}

# The test build's optimisation: RelWithDebInfo's -O2 with line tables only (-g1). The machine
# code is -O2 -g's, instruction for instruction, and the library compiles in three quarters of
# the time (full debug information for the kernels' templates is most of a file's compile).
test_flags="-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG"

# The sanitizer builds' optimisation: -O1 with line tables only compiles in half the time of the
# library at -O2 -g and keeps the reports' file:line; -O2's warnings come from the test build.
sanitizer_flags="-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG"

# configure_sanitized DIR: the ASan + UBSan build that the sanitized tests and the fuzz targets
# share, so that CI compiles the library under the sanitizers once. clang: libFuzzer needs it, and
# it compiles sanitized code in half GCC's time. The library also carries libFuzzer's coverage
# hooks (IRLITE_FUZZ); in the test programs they are the sanitizer runtime's empty ones. The test
# files that instantiate kernels for every element type compile at -O0 (tests/CMakeLists.txt).
configure_sanitized() {
  apt_install clang-14 libclang-rt-14-dev
  # A directory configured with another compiler starts afresh: CMake would drop the options
  # given with the new one.
  if [ -f "$1/CMakeCache.txt" ] && ! grep -q '^CMAKE_CXX_COMPILER:.*clang++-14$' "$1/CMakeCache.txt"; then
    rm -rf "$1/CMakeCache.txt" "$1/CMakeFiles"
  fi
  configure "$1" -DCMAKE_CXX_COMPILER=clang++-14 -DIRLITE_SANITIZE=ON -DIRLITE_FUZZ=ON "$sanitizer_flags" \
    -DIRLITE_TEMPLATE_TEST_OPTIMIZATION=-O0
}

# build DIR [CMAKE OPTIONS...]: configure, then build every target.
build() {
  local dir=$1
  shift
  configure "$dir" "$@"
  cmake --build "$dir" -j "${JOBS:-$(nproc)}"
}

# build_command DIR: the library and the irlite command only, as a user runs them: the same
# optimisation as the test build (RelWithDebInfo's -O2, so the same kernels), but no tests, no
# benchmark programs, no debug information and no warnings as errors (a newer compiler's new
# warning must not stop a user's build). Its own directory, so that switching between this and
# the test build never rebuilds either from scratch.
build_command() {
  local dir=$1
  cmake -S "$root" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -DNDEBUG" -DIRLITE_WERROR=OFF -DIRLITE_BUILD_TESTS=OFF \
    >/dev/null
  cmake --build "$dir" --target irlite_cli -j "${JOBS:-$(nproc)}"
}
