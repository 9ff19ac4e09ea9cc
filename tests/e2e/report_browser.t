#!/bin/bash
# A real browser (Debian's headless chromium) loads the flame graph and the
# heatmap; the screenshots are kept in build/test-artifacts/ for a human to
# look at, and must not be blank.
: "${T_TIMEOUT:=60}"
. "$(dirname "$0")/../lib.sh"

browser=$(command -v chromium || command -v chromium-browser || true)
art="$ROOT/build/test-artifacts"
mkdir -p "$art"
gen --events 4000 --hostile --seed 21 --span 20 > "$T_DIR/in.perf"
zstd -q "$T_DIR/in.perf" -o "$T_DIR/in.perf.zst"
"$FLAMEPROF" report "$T_DIR/in.perf.zst" -o "$art/report_flame.svg" --heatmap "$art/report_heatmap.svg" \
	--title 'report_browser.t: synthetic capture' -q
is "$?" 0 "report writes both pictures"

shot() { # shot SVG PNG WIDTH,HEIGHT
	timeout 45 "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$(mktemp -d "$T_DIR/chrome.XXXXXX")" --screenshot="$2" --window-size="$3" \
		"file://$1" > "$T_DIR/chrome.log" 2>&1
}
if [ -z "$browser" ]; then
	skip "chromium screenshots" "no chromium (apt-get install chromium)"
else
	rm -f "$art/report_flame.png" "$art/report_heatmap.png"
	shot "$art/report_flame.svg" "$art/report_flame.png" 1200,800
	check "chromium saved a flame graph screenshot" test -s "$art/report_flame.png"
	shot "$art/report_heatmap.svg" "$art/report_heatmap.png" 800,560
	check "chromium saved a heatmap screenshot" test -s "$art/report_heatmap.png"
	n=$(python3 "$ROOT/tests/report/png_variety.py" "$art/report_flame.png" 0)
	check "the flame graph screenshot is not blank ($n colours)" test "${n:-0}" -ge 20
	n=$(python3 "$ROOT/tests/report/png_variety.py" "$art/report_heatmap.png" 0)
	check "the heatmap screenshot is not blank ($n colours)" test "${n:-0}" -ge 8
	echo "# screenshots: $art/report_flame.png $art/report_heatmap.png"
fi
finish
