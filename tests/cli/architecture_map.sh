#!/usr/bin/env bash
# The newcomer's map stays true: every file a recipe or table of docs/architecture.md names
# exists, the engine's dependency graph written there is the one the code declares
# (scripts/engine-graph.sh --check), and the README stays a five-minute read: at most 250 lines,
# its first code block the two commands, every file it links to there.
#
#   tests/cli/architecture_map.sh SONICSIM_BINARY SOURCE_DIR   (the binary is not used)
set -euo pipefail
ROOT="${2:?usage: architecture_map.sh SONICSIM_BINARY SOURCE_DIR}"
cd "$ROOT"
DOC=docs/architecture.md
fail() { echo "FAIL: $*" >&2; exit 1; }

# Backquoted words that name files: a path with a folder, or a name with a source extension.
# Brace lists expand (`site_operations.{hpp,cpp}`); placeholders (`<section>`) and globs
# (`test_engine_*.cpp`) must match at least one file.
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
