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

# SONICSIM_TEST_QUICK=1 (the ASan pass of scripts/test.sh): leave out the statistical and
# whole-dataset checks the Release pass makes; under ASan they would only cost minutes.
QUICK="${SONICSIM_TEST_QUICK:-0}"

# The address-space limit for runs that must stay bounded. An AddressSanitizer build reserves
# terabytes of shadow address space up front, which any such limit refuses: there the bound is
# the timeout alone. The linked libraries are captured, not piped into `grep -q`: under
# pipefail, grep's early exit can kill ldd with SIGPIPE and make the test read "not ASan".
asan_build() { local libs; libs="$(ldd "$SONICSIM" 2>/dev/null)"; [[ $libs == *libasan* ]]; }
MEMORY_LIMIT=(prlimit --as=4000000000)
if asan_build; then MEMORY_LIMIT=(); fi

# ends CODE MESSAGE CMD...: a bounded run (timeout, MEMORY_LIMIT) that must end with exit status
# CODE, not 124 (timed out) nor above 128 (a signal), with MESSAGE on stderr and no output left:
# neither $RESULTS (when the test sets it) nor the temporary file it is written through.
ends() {
  local code="$1" message="$2"; shift 2
  local bound=("${RUN_BOUND[@]}")
  bound_every_run
  run "$@"
  RUN_BOUND=("${bound[@]}")
  ((STATUS == code)) || fail "exit status $STATUS (expected $code; 124: timed out, >128: a signal): $(_label "$@")"
  pass "exit $code: $(_label "$@")"
  assert_stderr_contains "$message"
  if [[ -n ${RESULTS:-} ]]; then
    assert_no_file "$RESULTS"
    compgen -G "$(dirname "$RESULTS")/.$(basename "$RESULTS").*" >/dev/null &&
      fail "a temporary output file was left beside $RESULTS"
    pass "no temporary output file"
  fi
}
# refused MESSAGE CMD...: bad input, refused fast (see ends).
refused() { ends 2 "$@"; }

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
# A hostile-input test calls bound_every_run first: every `run` after it is bounded in time and
# memory (a regression then fails the test instead of hanging the suite or eating the machine).
RUN_BOUND=()
bound_every_run() { RUN_BOUND=(timeout 60 "${MEMORY_LIMIT[@]}"); }
run() {
  echo "\$ $(_label "$@")"
  STATUS=0
  "${RUN_BOUND[@]}" "$@" >"$OUT" 2>"$ERR" </dev/null || STATUS=$?
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

# ---- JSON helpers that work with jq or, when jq is absent, with python3 ---------------------
# Paths are dotted like `--set` paths: `events.time_per_event_s.p99`, `servers.0.name` (numeric
# components index arrays). Call need_json_tool first; it skips the test when neither tool exists.
JSON_TOOL=""
JSON_PY=""
need_json_tool() {
  if command -v jq >/dev/null; then JSON_TOOL=jq; return 0; fi
  local py
  for py in /usr/bin/python3 python3; do
    if command -v "$py" >/dev/null && "$py" -c 'import json' 2>/dev/null; then
      JSON_TOOL=py; JSON_PY="$py"; return 0
    fi
  done
  skip "neither jq nor python3 is installed (scripts/test.sh installs jq)"
}
# Shared jq definition: dotted path -> jq path array.
_JQ_PATH='def p: $p | split(".") | map(tonumber? // .);'
# Shared python: dotted path -> key list, and a walker.
_PY_PATH='
import json, sys
def keys(p):
    return [int(k) if k.lstrip("-").isdigit() else k for k in p.split(".")] if p else []
def walk(d, ks):
    for k in ks:
        if isinstance(d, list) and isinstance(k, int) and -len(d) <= k < len(d): d = d[k]
        elif isinstance(d, dict) and str(k) in d: d = d[str(k)]
        else: raise KeyError(k)
    return d
'
# _PY_PATH, then v = the value at PATH argv[2] in the JSON file argv[1]; exit 1 when it is
# missing or the file is not JSON.
_PY_VALUE="$_PY_PATH"'
try:
    v = walk(json.load(open(sys.argv[1])), keys(sys.argv[2]))
except Exception:
    sys.exit(1)
'
# json_get FILE PATH: prints the value (strings raw, everything else as compact JSON); status 1
# when the path does not exist or the file is not JSON.
json_get() {
  if [[ $JSON_TOOL == jq ]]; then
    jq -r --arg p "$2" "$_JQ_PATH"'
      reduce p[] as $k (.;
        if type == "object" and has($k | tostring) then .[$k | tostring]
        elif type == "array" and ($k | type) == "number" and $k < length then .[$k]
        else error("missing") end)
      | if type == "string" then . else tojson end' "$1" 2>/dev/null
  else
    "$JSON_PY" -c "$_PY_VALUE"'
print(v if isinstance(v, str) else json.dumps(v, separators=(",", ":")))' "$1" "$2" 2>/dev/null
  fi
}
# json_keys FILE PATH: the keys of the object (indices of the array) at PATH (empty path: the
# top level), one a line.
json_keys() {
  if [[ $JSON_TOOL == jq ]]; then
    jq -r --arg p "$2" "$_JQ_PATH"'(if $p == "" then . else getpath(p) end) | keys_unsorted[]' "$1" 2>/dev/null
  else
    "$JSON_PY" -c "$_PY_VALUE"'
for k in (range(len(v)) if isinstance(v, list) else v): print(k)' "$1" "$2" 2>/dev/null
  fi
}
# json_has FILE PATH: status 0 when the path exists (even if its value is null).
json_has() { json_get "$1" "$2" >/dev/null; }
# json_missing FILE PATH...: prints the paths that do not exist (one a line; all of them if the
# file is not JSON), in one pass.
json_missing() {
  local file="$1"; shift
  if [[ $JSON_TOOL == jq ]]; then
    jq -r '. as $doc | $ARGS.positional[] | . as $p
      | select(($doc | try (reduce ($p | split(".") | map(tonumber? // .))[] as $k (.;
          if type == "object" and has($k | tostring) then .[$k | tostring]
          elif type == "array" and ($k | type) == "number" and $k < length then .[$k]
          else error("missing") end) | true) catch false) | not)' "$file" --args "$@" 2>/dev/null ||
      printf '%s\n' "$@"
  else
    "$JSON_PY" -c "$_PY_PATH"'
try:
    doc = json.load(open(sys.argv[1]))
except Exception:
    doc = None
for p in sys.argv[2:]:
    try:
        walk(doc, keys(p))
    except Exception:
        print(p)' "$file" "$@"
  fi
}
# assert_json_paths FILE PATH...: every path exists.
assert_json_paths() {
  local file="$1" missing; shift
  [[ -s "$file" ]] || fail "missing or empty file: $file"
  missing="$(json_missing "$file" "$@")"
  [[ -z "$missing" ]] || fail "${file##*/}: missing keys: ${missing//$'\n'/ }"
  pass "${file##*/} has $# keys (${*:1:3}$( (($# > 3)) && echo " ..."))"
}
# json_edit IN OUT EDIT...: writes IN with edits applied to OUT. An EDIT is PATH=JSON (set; the
# parent must exist, an array index equal to the length appends) or -PATH (delete).
json_edit() {
  local in="$1" out="$2"; shift 2
  if [[ $JSON_TOOL == jq ]]; then
    local e tmp="$out.tmp.$$"
    cp "$in" "$tmp"
    for e in "$@"; do
      if [[ $e == -* ]]; then
        jq --arg p "${e#-}" "$_JQ_PATH"'delpaths([p])' "$tmp" >"$tmp.2" || { rm -f "$tmp" "$tmp.2"; return 1; }
      else
        jq --arg p "${e%%=*}" --argjson v "${e#*=}" "$_JQ_PATH"'setpath(p; $v)' "$tmp" >"$tmp.2" ||
          { rm -f "$tmp" "$tmp.2"; return 1; }
      fi
      mv "$tmp.2" "$tmp"
    done
    mv "$tmp" "$out"
  else
    "$JSON_PY" -c "$_PY_PATH"'
doc = json.load(open(sys.argv[1]))
for e in sys.argv[3:]:
    if e.startswith("-"):
        ks = keys(e[1:]); parent = walk(doc, ks[:-1]); k = ks[-1]
        del parent[k if isinstance(parent, list) else str(k)]
    else:
        p, v = e.split("=", 1)
        ks = keys(p); parent = walk(doc, ks[:-1]); k = ks[-1]; v = json.loads(v)
        if isinstance(parent, list) and k == len(parent): parent.append(v)
        elif isinstance(parent, list): parent[k] = v
        else: parent[str(k)] = v
json.dump(doc, open(sys.argv[2], "w"), indent=1)' "$in" "$out" "$@"
  fi
}
# json_canon FILE [TOP_LEVEL_KEY...]: the document with those keys removed, keys sorted, one
# canonical text (for comparing two results files).
json_canon() {
  local file="$1"; shift
  if [[ $JSON_TOOL == jq ]]; then
    local k dels=()
    for k in "$@"; do dels+=(".\"$k\""); done
    local filter="."
    ((${#dels[@]})) && filter="del($(IFS=,; echo "${dels[*]}"))"
    jq -S "$filter" "$file"
  else
    "$JSON_PY" -c '
import json, sys
d = json.load(open(sys.argv[1]))
for k in sys.argv[2:]: d.pop(k, None)
print(json.dumps(d, sort_keys=True, indent=1))' "$file" "$@"
  fi
}
# float_cmp A OP B: numeric comparison of two decimal numbers (OP: < <= > >= == !=).
float_cmp() {
  awk -v a="$1" -v op="$2" -v b="$3" 'BEGIN {
    if (op == "<") r = a < b; else if (op == "<=") r = a <= b; else if (op == ">") r = a > b
    else if (op == ">=") r = a >= b; else if (op == "==") r = a == b; else if (op == "!=") r = a != b
    else r = 0
    exit !r }'
}
# near A B RELTOL: |A - B| <= RELTOL * |B|.
near() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; m = b < 0 ? -b : b;
  exit !(d <= t * m) }'; }

# Sweep outputs. col FILE NAME: the index (1-based) of a CSV column, for awk and cut.
col() { head -1 "$1" | tr ',' '\n' | grep -nx -- "$2" | cut -d: -f1; }
# same_results A.jsonl B.jsonl: the same runs but for the timings in perf (needs jq).
same_results() {
  diff <(jq -c 'del(.results.perf)' "$1") <(jq -c 'del(.results.perf)' "$2") >/dev/null ||
    fail "${1##*/} and ${2##*/} hold different results"
  pass "${1##*/} and ${2##*/} hold the same results (perf aside)"
}
same_bytes() { cmp -s "$1" "$2" || fail "${1##*/} and ${2##*/} differ"; pass "${1##*/} == ${2##*/}"; }

# start_prometheus TSDB_DIR [FLAG...]: a Prometheus on 127.0.0.1 serving the TSDB folder (a
# backfill), with 30 days of retention so that blocks from hours ago stay, and FLAGs added;
# stopped when the test ends (stop_prometheus stops it before). A port of this process's own,
# and a second one when that is taken. Sets PORT and PROM_PID; returns 1, with PROM_PID empty
# and the log in $TMP/prometheus.log, when it did not become ready on either.
PROM_PID=""
start_prometheus() {
  local tsdb="$1" attempt tries
  shift
  printf 'global:\n  scrape_interval: 5s\n' >"$TMP/prometheus.yml"
  trap 'stop_prometheus; rm -rf "$TMP"' EXIT
  for attempt in 0 1; do
    PORT=$((20000 + ($$ * 7 + attempt * 7919) % 30000))
    prometheus --config.file="$TMP/prometheus.yml" --storage.tsdb.path="$tsdb" \
      --web.listen-address="127.0.0.1:$PORT" --storage.tsdb.retention.time=30d "$@" \
      >"$TMP/prometheus.log" 2>&1 &
    PROM_PID=$!
    for ((tries = 0; tries < 60; tries++)); do
      curl -fs "127.0.0.1:$PORT/-/ready" >/dev/null 2>&1 && return 0
      kill -0 "$PROM_PID" 2>/dev/null || break
      sleep 0.5
    done
    stop_prometheus
  done
  return 1
}
stop_prometheus() {
  [[ -n $PROM_PID ]] && { kill "$PROM_PID"; wait "$PROM_PID"; } 2>/dev/null
  PROM_PID=""
}
