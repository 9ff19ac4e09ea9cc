#!/bin/bash
# screenshot.sh [DIR] - the README's picture, doc/img/page.png: the page
# `flameprof report` writes of make demo's capture, as headless chromium
# draws it. DIR: a capture to draw instead (default: examples/demo.sh runs
# the demo shop into a scratch directory, as make demo does). Needs `make`
# first (build/flameprof) and chromium; the PNG must stay under 200 KB.
#   scripts/screenshot.sh              # the demo, 20 s
#   scripts/screenshot.sh demo-out     # a capture already made
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
FP=$ROOT/build/flameprof
PNG=$ROOT/doc/img/page.png
[ -x "$FP" ] || { echo "screenshot: $FP is not built; run 'make' first" >&2; exit 1; }
command -v chromium >/dev/null || { echo "screenshot: needs chromium (apt-get install chromium)" >&2; exit 1; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/fp-screenshot.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
DIR=${1:-}
if [ -z "$DIR" ]; then
	DIR=$WORK/demo-out
	DEMO_OUT=$DIR "$ROOT/examples/demo.sh" "$FP" >"$WORK/demo.log" 2>&1 ||
		{ cat "$WORK/demo.log" >&2; exit 1; }
fi
"$FP" report -q "$DIR" -o "$WORK/page.html" --title "demo_shop, a 20 s capture"
# --headless exits once the page has loaded and drawn (its script draws at
# load); timeout bounds it all the same
timeout 120 chromium --headless=new --no-sandbox --disable-gpu --hide-scrollbars \
	--user-data-dir="$WORK/chromium" --window-size=1100,900 \
	--screenshot="$WORK/page.png" "file://$WORK/page.html" >"$WORK/chromium.log" 2>&1 ||
	{ cat "$WORK/chromium.log" >&2; exit 1; }
size=$(stat -c %s "$WORK/page.png")
[ "$size" -lt 204800 ] || { echo "screenshot: the PNG is $size bytes, over 200 KB" >&2; exit 1; }
mkdir -p "$(dirname "$PNG")" && mv "$WORK/page.png" "$PNG"
echo "screenshot: $PNG ($size bytes)"
