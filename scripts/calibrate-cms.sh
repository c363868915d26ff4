#!/usr/bin/env bash
# Derives the shipped calibrations in calibration/cms-t4/ from the public perf_analyzer scans of
# the CMS paper (../shared/reference/perf_analyzer/cms-t4, read in place, never copied), and
# prints the round-trip table of docs/calibration.md "Round trip on the real CMS scans".
#
#   scripts/calibrate-cms.sh [REFERENCE_DIR] [OUT_DIR] [TRITON_CONFIG_DIR]
#
# The batching settings of each measured server come from the model's Triton config
# (../shared/reference/triton-configs/MODEL/config.pbtxt, read in place with --triton-config, so
# each file's server.from names it), where one matches the configuration's name: the folder's own
# name, or for a CPU-only server (_CPU, _CPU_CPU: the same model on a Triton server without GPU)
# the name without those suffixes. The TensorRT variants (_trt, _TRT) have no config there and
# keep the settings of their base model as flags: ParticleNet AK4 max_batch_size 500 (preferred
# 200), ParticleNet AK8 160 (preferred 80), DeepTau 1000, DeepMET no limit; so does every
# configuration when the config folder is missing.
# The scans contradict two settings of the configs, and they win:
# - DeepMET's config says max_batch_size 100, but its scans send requests of 128 and 256 items
#   and execute ~2 requests per execution (X E / B = 2.0 at B = 256): the measured server had no
#   such limit (--max-batch-size 0).
# - Neither did the measured DeepMET and DeepTau servers use their configs' preferred batch sizes
#   (8, 16 and 16, 32): a single request of B = 16 (DeepMET) or B = 32 (DeepTau) already forms
#   the largest preferred size, so Triton would have executed those requests one by one
#   (X E / B = 1), yet the rows show 1.9 to 2.0 requests per execution at every batch size, as a
#   batcher without preferred sizes gives with four clients (--no-preferred-batch-size).
#
# The host stage (--host-cores, docs/calibration.md "The host stage"): each server column is
# fitted as host CPU work on HOST_CORES cores (default 4: the scans ran four clients, so a host
# of 4 cores or more never made them wait, and the scans cannot tell such hosts apart). The
# payload per item comes from the config's tensors where they have fixed shapes (DeepMET:
# 4500 x 11 FP32 = 198,000 B in, 8 B out; DeepTau: 105,703 FP32 = 422,812 B in, 16 B out), and
# from the shapes of the CMS study otherwise (ParticleNet's variable dimensions: 100 particles,
# 10 secondary vertices; AK4 2x100 + 20x100 + 1x100 + 2x10 + 11x10 + 1x10 FP32 = 9,760 B in,
# 8 classes = 32 B out; AK8 with 25 features 11,760 B in, 20 classes = 80 B out), given as flags
# (as for the TensorRT variants, which have no config of their own).
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$SONICSIM_ROOT"
# Relative to the repository root, so that the files record the same paths wherever they are made.
REF="${1:-../shared/reference/perf_analyzer/cms-t4}"
OUT="${2:-calibration/cms-t4}"
# Relative to the repository root, so the files' server.from does not name this machine.
CONFIGS="${3:-../shared/reference/triton-configs}"
BIN="${SONICSIM_BIN:-build/sonicsim}"
[[ -d "$REF" ]] || die "no reference scans at $REF"
[[ -x "$BIN" ]] || die "build first: scripts/setup.sh"
[[ -d "$CONFIGS" ]] || log "no Triton configs at $CONFIGS: every configuration calibrated with flags"
mkdir -p "$OUT"

config_of() {  # the config.pbtxt of the model a configuration served, or nothing
  local name="$1"
  while true; do
    if [[ -f "$CONFIGS/$name/config.pbtxt" ]]; then
      echo "$CONFIGS/$name/config.pbtxt"
      return
    fi
    [[ "$name" == *_CPU ]] || return 0
    name="${name%_CPU}"
  done
}

HOST_CORES="${HOST_CORES:-4}"

payload_of() {  # payload flags of a configuration whose config cannot give them
  case "$1" in
    particlenet_AK4*) echo "--input-bytes-per-item 9760 --output-bytes-per-item 32" ;;
    particlenet*) echo "--input-bytes-per-item 11760 --output-bytes-per-item 80" ;;
    deeptau*) [[ -n "$2" ]] || echo "--input-bytes-per-item 422812 --output-bytes-per-item 16" ;;
    deepmet*) [[ -n "$2" ]] || echo "--input-bytes-per-item 198000 --output-bytes-per-item 8" ;;
  esac
}

flags_of() {  # batching flags of the server a configuration was measured on, without a config
  case "$1" in
    particlenet_AK4*) echo "--max-batch-size 500 --preferred-batch-size 200" ;;
    particlenet*) echo "--max-batch-size 160 --preferred-batch-size 80" ;;
    deeptau*) echo "--max-batch-size 1000" ;;
    deepmet*) echo "--max-batch-size 0" ;;
  esac
}

calibrate() {  # calibrate REFERENCE_CONFIG_DIR: one configuration, its summary beside it
  local dir="$1" config device hardware triton
  local -a server
  config="$(basename "$dir")"
  case "$config" in
    *_CPU*) device=CPU; hardware="Triton on CPU only (CMS paper, arXiv:2402.15366)" ;;
    *) device=T4; hardware="NVIDIA T4 (CMS paper, arXiv:2402.15366)" ;;
  esac
  triton="$(config_of "$config")"
  if [[ -n "$triton" ]]; then
    server=(--triton-config "$triton")
    [[ "$config" == deepmet* ]] && server+=(--max-batch-size 0)
    [[ "$config" == deep* ]] && server+=(--no-preferred-batch-size)
  else
    read -ra server <<<"$(flags_of "$config")"
  fi
  local -a host
  read -ra host <<<"--host-cores $HOST_CORES $(payload_of "$config" "$triton")"
  if ! "$BIN" calibrate perf-analyzer "$dir"*.csv --model "$config" --device "$device" \
    "${server[@]}" "${host[@]}" --hardware "$hardware" \
    --tool-version "perf_analyzer -i grpc --async --concurrency-range 4:4" \
    -o "$OUT/$config.json" >"$OUT/$config.txt"; then
    log "FAILED: $config (see $OUT/$config.txt and the message above)"
    return 1
  fi
  log "calibrated $config ($device; ${server[*]})"
}

# Configurations are independent and each is single-threaded: SONICSIM_JOBS at a time. The
# files do not depend on the order or the parallelism.
running=0 failed=0
for dir in "$REF"/*/; do
  if ((running >= SONICSIM_JOBS)); then
    wait -n || failed=1
    running=$((running - 1))
  fi
  calibrate "$dir" &
  running=$((running + 1))
done
while ((running > 0)); do
  wait -n || failed=1
  running=$((running - 1))
done
((failed == 0)) || die "some configurations failed to calibrate"
