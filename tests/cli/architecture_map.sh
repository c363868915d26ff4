#!/usr/bin/env bash
# The newcomer's map stays true: every file a recipe or table of docs/architecture.md names
# exists, the engine's dependency graph written there is the one the code declares
# (scripts/engine-graph.sh --check), tests/unit/ mirrors src/ where the page says it does (every
# scenario section loader and every engine part and building block has its test file), and the
# README stays a five-minute read: at most 250 lines, its first code block the two commands,
# every file it links to there.
#
#   tests/cli/architecture_map.sh SONICSIM_BINARY SOURCE_DIR   (the binary is not used)
set -euo pipefail
ROOT="${2:?usage: architecture_map.sh SONICSIM_BINARY SOURCE_DIR}"
cd "$ROOT"
DOC=docs/architecture.md
fail() { echo "FAIL: $*" >&2; exit 1; }

# ---- tests/unit/ mirrors src/scenario/'s loaders and src/engine/'s parts --------------------
# Each section loader src/scenario/load_X.cpp has tests/unit/scenario/test_load_X.cpp. Each engine
# part (a member of struct Parts in src/engine/parts.hpp, its class name in snake case naming its
# files, e.g. ServerPools -> server_pools.{hpp,cpp}) and each building block below has
# tests/unit/engine/test_<stem>.cpp.
ENGINE_BLOCKS="batcher event_queue station autoscaler client_policy routing"
mirrored=0 unmirrored=()
for src in src/scenario/load_*.cpp; do
  stem="$(basename "$src" .cpp)"
  mirrored=$((mirrored + 1))
  [[ -f "tests/unit/scenario/test_$stem.cpp" ]] ||
    unmirrored+=("tests/unit/scenario/test_$stem.cpp (for $src)")
done
parts="$(awk '/^struct Parts \{/ {on = 1; next} on && /^};/ {on = 0}
  on && /^  [A-Z][A-Za-z]* [a-z_]+;$/ {sub(/;$/, "", $2); print $1}' src/engine/parts.hpp |
  grep -vx Context | sed -E 's/([a-z0-9])([A-Z])/\1_\2/g' | tr 'A-Z' 'a-z')"
(($(wc -w <<< "$parts") >= 10)) ||
  fail "found only these engine parts in src/engine/parts.hpp: $(echo $parts)"
for stem in $parts $ENGINE_BLOCKS; do
  mirrored=$((mirrored + 1))
  compgen -G "src/engine/$stem.*" > /dev/null || compgen -G "include/sonicsim/engine/$stem.*" \
    > /dev/null || unmirrored+=("src/engine/$stem.* (an engine part or block with no source)")
  [[ -f "tests/unit/engine/test_$stem.cpp" ]] ||
    unmirrored+=("tests/unit/engine/test_$stem.cpp (for engine/$stem)")
done
((${#unmirrored[@]} == 0)) || {
  printf 'missing: %s\n' "${unmirrored[@]}" >&2
  fail "tests/unit/ does not mirror src/ as $DOC says: ${#unmirrored[@]} missing of $mirrored"
}
echo "ok: $mirrored sources have their mirrored test file (loaders, engine parts and blocks)"

# ---- the files the page names --------------------------------------------------------------
# Backquoted words that name files: a path with a folder, or a name with a source extension.
# Brace lists expand (`site_operations.{hpp,cpp}`); placeholders (`<section>`) and globs
# (`test_load_*.cpp`) must match at least one file.
names="$(grep -o '`[^` ]*`' "$DOC" | tr -d '`' |
  grep -E '(^|/)[A-Za-z0-9_.*<>{},-]+\.(cpp|hpp|h|sh|py|json|md|proto|cmake|txt|csv)$|/$' | sort -u)"
checked=0 missing=()
while read -r name; do
  [[ -z "$name" ]] && continue
  for one in $(eval "echo ${name//[<>]/}" 2>/dev/null || echo "$name"); do
    pattern="${one}"
    [[ "$name" == *"<"* ]] && pattern="$(sed -E 's/<[^>]+>/*/g' <<< "$name")"
    checked=$((checked + 1))
    if [[ "$pattern" == */* ]]; then
      # A path: from the root, or under src/ or include/sonicsim/ as the recipes abbreviate.
      found=""
      for base in "" src/ include/sonicsim/ tests/ src/engine/; do
        compgen -G "$base$pattern" > /dev/null && { found=1; break; }
      done
    else
      found="$(find src include tests scripts docs cmake calibration analysis scenarios \
        -name "$pattern" -print -quit 2> /dev/null || true)"
    fi
    [[ -n "$found" ]] || missing+=("$one")
  done
done <<< "$names"
((${#missing[@]} == 0)) || fail "$DOC names files that do not exist: ${missing[*]}"
echo "ok: $checked file names in $DOC exist"
bash scripts/engine-graph.sh --check "$DOC"

# ---- the README ---------------------------------------------------------------------------
lines=$(wc -l < README.md)
((lines <= 250)) || fail "README.md has $lines lines; at most 250 (move the detail to docs/)"
block="$(awk '/^```/ {n++; next} n == 1' README.md)"
(($(grep -c . <<< "$block") == 2)) || fail "README.md's first code block is not exactly two commands"
grep -qx 'scripts/setup.sh && build/sonicsim run scenarios/default.json -o out/default-results.json' \
  <<< "$block" || fail "README.md's first command is not the set-up and default run"
grep -qx 'scripts/test.sh' <<< "$block" || fail "README.md's second command is not scripts/test.sh"
for page in README.md docs/overview.md; do
  dir="$(dirname "$page")"
  while read -r target; do
    target="${target%%#*}"
    [[ -z "$target" || "$target" == http* ]] && continue
    [[ -e "$dir/$target" ]] || fail "$page links to $target, which does not exist"
  done < <(grep -o '](\([^)]*\))' "$page" | sed 's/^](//; s/)$//')
done
echo "ok: README.md is $lines lines, its two commands, and its links and docs/overview.md's exist"
