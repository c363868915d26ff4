# Shared helpers for scripts/*.sh. Source it; do not run it.
#
# Environment knobs (all optional):
#   SONICSIM_JOBS=N      parallel build/test jobs (default 2)
#   SONICSIM_NO_APT=1    never call apt-get; fail with a list of what is missing instead
#   SONICSIM_BUILD_DIR   build directory of the Release build (default build)
#   SONICSIM_ASAN_BUILD_DIR  build directory of scripts/test.sh --asan (default build-asan)
#   SONICSIM_UNITY=1|0   configure with CMAKE_UNITY_BUILD ON/OFF (unset: leave the build
#                        directory as it is, off when fresh). CI sets 1: a clean build takes
#                        about a third less CPU; an edit recompiles its whole batch of files.

set -euo pipefail

SONICSIM_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SONICSIM_JOBS="${SONICSIM_JOBS:-2}"
export DEBIAN_FRONTEND=noninteractive

# Debian 12 packages, nothing else. Build: compiler, CMake, Ninja and the libraries in
# CMakeLists.txt (catch2 is header-only and needed to configure the tests; protobuf-compiler
# generates the reader of Triton's config.pbtxt).
BUILD_PKGS=(g++ cmake ninja-build pkg-config libsimgrid-dev libboost-dev libeigen3-dev
  nlohmann-json3-dev libcli11-dev catch2 libssl-dev libprotobuf-dev protobuf-compiler
  libyaml-cpp-dev)
# Shell-level tests (tests/cli) read results JSON with jq; cli_shipped_scenarios checks the
# scenarios against docs/scenario.schema.json with python3-jsonschema; cli_report_chromium loads
# the HTML report in headless Chromium and reads its screenshot with python3-pil.
TEST_PKGS=(jq python3-jsonschema chromium python3-pil)
# cli_sweep_slurm runs `sweep --slurm` on a single-node Slurm cluster (scripts/slurm-local.sh).
TEST_PKGS+=(slurm-wlm munge)
# scripts/bench.sh and analysis/: the SimPy reference model runs on Debian's /usr/bin/python3.
BENCH_PKGS=(jq python3 python3-simpy3)
# cli_analysis_plots runs the plotting scripts of analysis/ (numpy comes with matplotlib);
# cli_simpy_model runs the SimPy reference model, which a suite must test wherever it is set up.
TEST_PKGS+=(python3-matplotlib python3-simpy3)
# scripts/fuzz.sh (CI's short fuzz pass) builds the libFuzzer targets with clang.
TEST_PKGS+=(clang libclang-rt-14-dev)
# cli_openmetrics backfills a run into a Prometheus TSDB with promtool and queries it through a
# Prometheus server on 127.0.0.1 (Debian's prometheus 2.42 ships both).
TEST_PKGS+=(prometheus curl)

log() { printf '[sonicsim] %s\n' "$*" >&2; }
die() { printf '[sonicsim] error: %s\n' "$*" >&2; exit 1; }

# ensure_packages PKG...: install the Debian packages that are not installed yet.
ensure_packages() {
  local missing=() p
  for p in "$@"; do
    if [[ "$(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null)" != ii* ]]; then
      missing+=("$p")
    fi
  done
  ((${#missing[@]} == 0)) && return 0
  if [[ "${SONICSIM_NO_APT:-0}" == 1 ]]; then
    die "missing Debian packages (SONICSIM_NO_APT=1): ${missing[*]}"
  fi
  local sudo=()
  if ((EUID != 0)); then
    command -v sudo >/dev/null || die "missing packages ${missing[*]}: run as root or install them"
    sudo=(sudo -n)
  fi
  log "installing: ${missing[*]}"
  "${sudo[@]}" apt-get update -q </dev/null
  "${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}" </dev/null
}

# configure_build DIR [cmake -D args...]: configure DIR (Ninja when fresh and available).
configure_build() {
  local dir="$1"; shift
  local gen=() unity=()
  if [[ ! -f "$dir/CMakeCache.txt" ]] && command -v ninja >/dev/null; then
    gen=(-G Ninja)
  fi
  case "${SONICSIM_UNITY:-}" in
    1) unity=(-DCMAKE_UNITY_BUILD=ON) ;;
    0) unity=(-DCMAKE_UNITY_BUILD=OFF) ;;
    "") ;;
    *) die "SONICSIM_UNITY=$SONICSIM_UNITY: expected 1 or 0" ;;
  esac
  cmake -S "$SONICSIM_ROOT" -B "$dir" "${gen[@]}" "${unity[@]}" "$@"
}

# build DIR [targets...]
build() {
  local dir="$1"; shift
  local targets=()
  (($# > 0)) && targets=(--target "$@")
  cmake --build "$dir" --parallel "$SONICSIM_JOBS" "${targets[@]}"
}
