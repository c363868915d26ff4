# Helpers for the shell-level tests in tests/cli/. Each test is run by ctest as
#   bash tests/cli/NAME.sh SONICSIM_BINARY SOURCE_DIR
# and starts with:
#   source "$(dirname "$0")/lib.sh" "$@"
# It then has: $SONICSIM (binary), $SRC (source dir), $TMP (scratch dir, removed at exit) and
# the helpers below. Every helper prints "ok - ..." or "not ok - ..." and the first failure ends
# the test with exit 1. Exit 77 marks the test as skipped. End the test with `finish`.

set -uo pipefail

if (($# < 2)); then
  echo "usage: $0 SONICSIM_BINARY SOURCE_DIR" >&2
  exit 2
fi
SONICSIM="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
SRC="$(cd "$2" && pwd)"
[[ -x "$SONICSIM" ]] || { echo "not ok - sonicsim binary not found: $SONICSIM" >&2; exit 1; }
TMP="$(mktemp -d "${TMPDIR:-/tmp}/sonicsim-cli.XXXXXX")"
trap 'rm -rf "$TMP"' EXIT
cd "$SRC"
CHECKS=0
# Output of the last `run`: exit status and files holding stdout and stderr.
STATUS=0
OUT="$TMP/.stdout"
ERR="$TMP/.stderr"

pass() { CHECKS=$((CHECKS + 1)); echo "ok - $*"; }
fail() {
  echo "not ok - $*"
  if [[ -s "$OUT" ]]; then echo "--- stdout of the last command:"; head -c 4000 "$OUT"; fi
  if [[ -s "$ERR" ]]; then echo "--- stderr of the last command:"; head -c 4000 "$ERR"; fi
  exit 1
}
skip() { echo "skipped - $*"; exit 77; }
finish() { echo "all $CHECKS checks passed"; exit 0; }

# _label CMD...: the command line as shown in messages (binary and scratch dir abbreviated).
_label() { local s="$*"; s="${s//$SONICSIM/sonicsim}"; echo "${s//$TMP/\$TMP}"; }
# run CMD...: run a command (use "$SONICSIM" ...), recording STATUS, OUT and ERR; never fails.
run() {
  echo "\$ $(_label "$@")"
  STATUS=0
  "$@" >"$OUT" 2>"$ERR" </dev/null || STATUS=$?
}
# run_ok CMD...: run and require exit status 0.
run_ok() {
  run "$@"
  ((STATUS == 0)) || fail "exit status $STATUS (expected 0): $(_label "$@")"
  pass "exit 0: $(_label "$@")"
}
# run_status CODE CMD...: run and require the given exit status.
run_status() {
  local want="$1"; shift
  run "$@"
  ((STATUS == want)) || fail "exit status $STATUS (expected $want): $(_label "$@")"
  pass "exit $want: $(_label "$@")"
}

# The JSON checks need jq (scripts/test.sh installs it); python3 would also do.
_json() {  # _json FILE JQ_FILTER -> prints the result, non-zero if the file is not JSON
  if command -v jq >/dev/null; then
    jq -e "$2" "$1" 2>/dev/null
  else
    echo "jq is required for JSON checks (apt-get install jq)" >&2
    return 3
  fi
}
# assert_json FILE: the file exists and is valid JSON.
assert_json() {
  [[ -s "$1" ]] || fail "missing or empty file: $1"
  _json "$1" 'true' >/dev/null || fail "not valid JSON: $1"
  pass "valid JSON: ${1##*/}"
}
# assert_json_has FILE KEY...: the top-level object (or the object at a jq path given as
# '.a.b') has every KEY.
assert_json_has() {
  local file="$1"; shift
  local base='.'
  if [[ "${1:-}" == .* ]]; then base="$1"; shift; fi
  local k
  for k in "$@"; do
    _json "$file" "$base | has(\"$k\")" >/dev/null || fail "${file##*/}: no key \"$k\" at $base"
    pass "${file##*/} has key \"$k\" at $base"
  done
}
# assert_jq FILE FILTER [MESSAGE]: the jq FILTER evaluates to true (not false/null).
assert_jq() {
  local out
  out="$(_json "$1" "$2")" || fail "${3:-${1##*/}: $2} (got: ${out:-<error>})"
  pass "${3:-${1##*/}: $2}"
}
# assert_file FILE / assert_no_file FILE
assert_file() { [[ -e "$1" ]] || fail "expected file $1"; pass "file exists: ${1##*/}"; }
assert_no_file() { [[ ! -e "$1" ]] || fail "file should not exist: $1"; pass "no file: ${1##*/}"; }
# assert_stdout_contains TEXT / assert_stderr_contains TEXT: for the last `run` (fixed string).
assert_stdout_contains() { grep -qF -- "$1" "$OUT" || fail "stdout lacks \"$1\""; pass "stdout has \"$1\""; }
assert_stderr_contains() { grep -qF -- "$1" "$ERR" || fail "stderr lacks \"$1\""; pass "stderr has \"$1\""; }
