# The HTML report in a real browser: headless Chromium loads a report of a run and a sweep,
# logs no console error, and paints the charts (the screenshot is not blank). Without
# chromium or python3-pil (scripts/test.sh installs both) the test is skipped, or fails when
# CI=true.
source "$(dirname "$0")/lib.sh" "$@"

missing() {
  if [[ ${CI:-} == true ]]; then fail "$1 (required when CI=true)"; fi
  echo "SKIPPED: $1"
  skip "$1"
}
CHROMIUM=""
for c in chromium chromium-browser; do command -v "$c" >/dev/null && { CHROMIUM=$c; break; }; done
[[ -n $CHROMIUM ]] || missing "chromium is not installed (apt-get install chromium)"
PY=/usr/bin/python3  # Debian's python3-pil is for Debian's interpreter
[[ -x $PY ]] && "$PY" -c 'import PIL' 2>/dev/null ||
  missing "python3-pil is not installed (apt-get install python3-pil)"

# load HTML PNG: headless screenshot; the browser's log goes to $TMP/browser.log.
load() {
  rm -f "$2"
  timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --no-first-run \
    --user-data-dir="$TMP/profile" --enable-logging=stderr --v=0 \
    --screenshot="$2" --window-size=1200,2000 "file://$1" >"$TMP/browser.out" 2>"$TMP/browser.log"
}
# Console messages of the page: Chromium logs them as CONSOLE lines; uncaught errors say so.
page_errors() { grep -E 'CONSOLE|Uncaught' "$TMP/browser.log" | grep -Ei 'error|uncaught'; }

# A control: a page with a script error must be caught, or the check below proves nothing.
printf '<!DOCTYPE html><html><body><p>x</p><script>no_such_function();</script></body></html>\n' \
  >"$TMP/control.html"
load "$TMP/control.html" "$TMP/control.png"
page_errors >/dev/null || fail "the browser log shows no error for a page that throws: cannot check"
pass "a page that throws is seen in the browser log"

run_ok "$SONICSIM" run scenarios/default.json --set duration=30 --set warmup=5 \
  --set timeseries=true -o "$TMP/run.json" -q
run_ok "$SONICSIM" sweep scenarios/examples/formula-knee.json --param workload.jobs=1:8:1 \
  --replications 2 --workers 1 -o "$TMP/sweep.csv"
run_ok "$SONICSIM" report "$TMP/run.json" "$TMP/sweep.csv" -o "$TMP/report.html"

load "$TMP/report.html" "$TMP/report.png" || fail "chromium failed: $(tail -5 "$TMP/browser.log")"
[[ -s "$TMP/report.png" ]] || fail "no screenshot: $(tail -5 "$TMP/browser.log")"
if page_errors; then fail "console errors while loading the report"; fi
pass "the report loads with no console error"

# The DOM as the browser built it: every chart an <svg> element with its paths.
timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --no-first-run \
  --user-data-dir="$TMP/profile" --dump-dom "file://$TMP/report.html" >"$TMP/dom.html" 2>/dev/null
want=$(grep -c '<svg' "$TMP/report.html")
got=$(grep -o '<svg' "$TMP/dom.html" | wc -l)
((want >= 10 && got == want)) || fail "the browser's DOM has $got charts, the file $want"
pass "the browser's DOM holds all $got charts"

"$PY" - "$TMP/report.png" <<'EOF' || fail "the screenshot looks blank"
import sys
from PIL import Image
im = Image.open(sys.argv[1]).convert("RGB")
w, h = im.size
pixels = im.getdata()
ink = sum(1 for r, g, b in pixels if r + g + b < 600)           # not white-ish
colour = sum(1 for r, g, b in pixels if max(r, g, b) - min(r, g, b) > 60)  # chart colours
print(f"{w}x{h}: {ink} non-white pixels ({100 * ink / (w * h):.1f}%), {colour} coloured")
sys.exit(0 if ink > 0.02 * w * h and colour > 2000 else 1)
EOF
pass "the screenshot shows text and coloured charts"

finish
