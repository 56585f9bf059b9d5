# shellcheck shell=bash
# Shared by scripts/dev.sh and scripts/bench.sh (sourced, not run): the repository root, the
# Debian packages irlite needs, and the build the README's commands use.

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
packages=(cmake ninja-build g++ pkgconf libpugixml-dev libfmt-dev doctest-dev libcli11-dev nlohmann-json3-dev zlib1g-dev)

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

# configure DIR [CMAKE OPTIONS...]: RelWithDebInfo, Ninja, warnings as errors.
configure() {
  local dir=$1
  shift
  cmake -S "$root" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DIRLITE_WERROR=ON "$@" >/dev/null
}

# build DIR [CMAKE OPTIONS...]: configure, then build every target.
build() {
  local dir=$1
  shift
  configure "$dir" "$@"
  cmake --build "$dir" -j "${JOBS:-$(nproc)}"
}
