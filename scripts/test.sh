#!/usr/bin/env bash
# Install what is missing, build everything and run the whole test suite (unit + CLI tests).
# Exits non-zero when anything fails.
#
#   scripts/test.sh           Release build in build/
#   scripts/test.sh --asan    AddressSanitizer + UndefinedBehaviorSanitizer build in build-asan/
#                             (RelWithDebInfo at -O1 with line tables only, -g1: the reports
#                             keep file:line and the build takes a third less time; assertions
#                             on; every finding is fatal; the golden set and the examples'
#                             headline figures are the Release pass's)
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$SONICSIM_ROOT"

mode=release
EXCLUDE=()
case "${1:-}" in
  "") ;;
  --asan) mode=asan ;;
  -h|--help) sed -n '2,8p' "$0"; exit 0 ;;
  *) die "unknown option '$1' (expected --asan)" ;;
esac

ensure_packages "${BUILD_PKGS[@]}" "${TEST_PKGS[@]}"

if [[ $mode == asan ]]; then
  BUILD_DIR="${SONICSIM_ASAN_BUILD_DIR:-build-asan}"
  configure_build "$BUILD_DIR" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" -DSONICSIM_SANITIZE=ON -DSONICSIM_TESTS=ON
  # Fatal on the first finding. The unit-test binary also runs at build time (test discovery),
  # so these must be set before building.
  export ASAN_OPTIONS="halt_on_error=1:abort_on_error=0:detect_leaks=1:strict_init_order=1:check_initialization_order=1:detect_stack_use_after_return=0"
  export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
  # The memory checks need every code path, not every statistic: the CLI tests leave out their
  # whole-dataset and coverage checks, which the Release pass makes (tests/cli/lib.sh).
  export SONICSIM_TEST_QUICK=1
  # Two CLI tests check numbers, not code paths: the golden set's bytes and the examples'
  # headline figures (the Release pass checks both); every shipped scenario still runs under the
  # sanitizers in cli_shipped_scenarios. Three check tools around the binary, not its code: the
  # Python plots of analysis/, Slurm launching a sweep's tasks (cli_sweep runs the same shards),
  # and Chromium drawing the HTML report (cli_report_html writes it under the sanitizers). The
  # plan oracle checks answers, not code paths: its plans and runs are those of cli_plan.
  # Leaving them out keeps CI within its 30 minutes.
  EXCLUDE=(-E '^(cli_golden|cli_examples|cli_analysis_plots|cli_sweep_slurm|cli_report_chromium|cli_plan_oracle)$')
  if [[ -f tests/lsan.supp ]]; then
    export LSAN_OPTIONS="suppressions=$SONICSIM_ROOT/tests/lsan.supp:print_suppressions=0"
  fi
else
  BUILD_DIR="${SONICSIM_BUILD_DIR:-build}"
  configure_build "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DSONICSIM_SANITIZE=OFF \
    -DSONICSIM_TESTS=ON
fi

build "$BUILD_DIR"
log "running tests in $BUILD_DIR ($mode)"
ctest --test-dir "$BUILD_DIR" --output-on-failure --no-tests=error -j "$SONICSIM_JOBS" "${EXCLUDE[@]}"
