#!/bin/sh
# A real browser (Debian's headless chromium) loads the flame graph and the
# heatmap; the screenshots are kept in build/test-artifacts/ for a human to
# look at, and must not be blank.
. "$(dirname "$0")/../report/tap.sh"

browser=$(command -v chromium || command -v chromium-browser || true)
art="$REP_ROOT/build/test-artifacts"
mkdir -p "$art"
gen --events 4000 --hostile --seed 21 --span 20 > "$T/in.perf"
zstd -q "$T/in.perf" -o "$T/in.perf.zst"
"$FLAMEPROF" report "$T/in.perf.zst" -o "$art/report_flame.svg" --heatmap "$art/report_heatmap.svg" \
	--title 'report_browser.t: synthetic capture' -q
is "$?" 0 "report writes both pictures"

shot() { # shot SVG PNG WIDTH,HEIGHT
	timeout 45 "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$(mktemp -d "$T/chrome.XXXXXX")" --screenshot="$2" --window-size="$3" \
		"file://$1" > "$T/chrome.log" 2>&1
}
if [ -z "$browser" ]; then
	skip "chromium screenshots" "no chromium (apt-get install chromium)"
else
	rm -f "$art/report_flame.png" "$art/report_heatmap.png"
	shot "$art/report_flame.svg" "$art/report_flame.png" 1200,800
	ok "chromium saved a flame graph screenshot" test -s "$art/report_flame.png"
	shot "$art/report_heatmap.svg" "$art/report_heatmap.png" 800,560
	ok "chromium saved a heatmap screenshot" test -s "$art/report_heatmap.png"
	n=$(python3 "$REP_LIB/png_variety.py" "$art/report_flame.png" 0)
	ok "the flame graph screenshot is not blank ($n colours)" test "${n:-0}" -ge 20
	n=$(python3 "$REP_LIB/png_variety.py" "$art/report_heatmap.png" 0)
	ok "the heatmap screenshot is not blank ($n colours)" test "${n:-0}" -ge 8
	echo "# screenshots: $art/report_flame.png $art/report_heatmap.png"
fi
finish
