#!/usr/bin/env bash
# Install the build dependencies (Debian 12 packages) when missing and build the Release
# binary build/sonicsim. Safe to re-run: it only rebuilds what changed.
#
#   scripts/setup.sh && build/sonicsim run scenarios/default.json -o out/default-results.json
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$SONICSIM_ROOT"

BUILD_DIR="${SONICSIM_BUILD_DIR:-build}"
ensure_packages "${BUILD_PKGS[@]}"
configure_build "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DSONICSIM_SANITIZE=OFF
build "$BUILD_DIR" sonicsim
mkdir -p out
log "built $BUILD_DIR/sonicsim; results go to out/"
