#!/usr/bin/env bash
# The engine's dependency graph, read from the code: each part's `struct Uses` (src/engine/*.hpp)
# names the parts it may call, and nothing else compiles. Prints the parts, their edges and the
# pairs that call each other; --dot prints the graph for Graphviz; --check FILE fails unless FILE
# (docs/architecture.md) holds the same edge lines, so the map cannot drift from the code.
#
#   scripts/engine-graph.sh [--dot | --check docs/architecture.md]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

# "Part: used used ..." per part, in file order, from the class that declares each Uses. The
# parts are the members parts.hpp wires; a building block a part owns (a station, the worker
# nodes) takes the Context too but is no part of the graph.
edges() {
  local parts
  parts=" $(awk '/^  [A-Z][A-Za-z]+ [a-z_]+;/ && $1 != "Context" { printf "%s ", $1 }' \
    "$ROOT"/src/engine/parts.hpp)"
  awk '
    /^class [A-Za-z]+ *\{/ { cls = $2 }
    /^  struct Uses \{/ { inuses = 1; line = cls ":"; next }
    inuses && /^  \};/ { print line; inuses = 0; next }
    inuses { gsub(/[&;]/, ""); line = line " " $1 }
    /^  (explicit )?[A-Z][A-Za-z]+\(Context& ctx\)/ { print cls ":" }  # uses no other part
  ' "$ROOT"/src/engine/*.hpp | sort | while IFS= read -r l; do
    if [[ "$parts" == *" ${l%%:*} "* ]]; then echo "$l"; fi
  done
}

mode="${1:-}"
case "$mode" in
  --dot)
    echo "digraph engine {"
    edges | while IFS=: read -r part used; do
      for u in $used; do echo "  $part -> $u;"; done
    done
    echo "}"
    ;;
  --check)
    doc="${2:?usage: scripts/engine-graph.sh --check docs/architecture.md}"
    want="$(edges | sed 's/^/    /')"
    # The doc's block: the indented "Part: ..." lines after the marker line.
    have="$(awk '/<!-- engine-graph -->/ {on = 1; next} on && /^    [A-Za-z]+:/ {print; next} on && NF == 0 && seen {exit} on {seen = 1}' "$doc")"
    if [[ "$want" != "$have" ]]; then
      echo "engine-graph: $doc's engine graph differs from the code's Uses structs:" >&2
      diff <(echo "$have") <(echo "$want") >&2 || true
      echo "paste the lines of scripts/engine-graph.sh under <!-- engine-graph --> in $doc" >&2
      exit 1
    fi
    echo "engine-graph: $doc matches the code ($(edges | wc -l) parts)"
    ;;
  "")
    parts=0 count=0
    declare -A calls
    while IFS=: read -r part used; do
      parts=$((parts + 1))
      for u in $used; do
        count=$((count + 1))
        calls["$part>$u"]=1
      done
      printf '    %s:%s\n' "$part" "$used"
    done < <(edges)
    mutual=()
    for key in "${!calls[@]}"; do
      from="${key%%>*}" to="${key#*>}"
      [[ "$from" < "$to" && -n "${calls[$to>$from]:-}" ]] && mutual+=("$from-$to")
    done
    echo "parts: $parts, edges: $count, pairs that call each other: ${#mutual[@]}"
    ((${#mutual[@]})) && printf '  %s\n' "${mutual[@]}" | sort
    ;;
  *) echo "usage: scripts/engine-graph.sh [--dot | --check docs/architecture.md]" >&2; exit 2 ;;
esac
