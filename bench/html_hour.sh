#!/bin/bash
# html_hour.sh FLAMEPROF CAPTURE_DIR [SECONDS [DENSE]] - the HTML page of an hour's
# capture: the real capture in CAPTURE_DIR (e.g. make demo's demo-out/, at
# the capture's defaults) stretched to SECONDS (3600) by bench/stretch.py,
# written as a capture writes it (build/ixgen: zstd with the report index),
# (DENSE: each event DENSE times, a node that many times as busy),
# then `report -o hour.html`: prints the page's size, the report's time,
# and the time to interactive in headless chromium (tests/report/html_drive.py:
# the browser's DevTools protocol on a pipe, Python alone).
set -eu
FP=${1:?usage: html_hour.sh FLAMEPROF CAPTURE_DIR [SECONDS]}
CAP=${2:?usage: html_hour.sh FLAMEPROF CAPTURE_DIR [SECONDS]}
SECS=${3:-3600}
DENSE=${4:-1}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
W=$(mktemp -d /tmp/fp-html-hour.XXXXXX)
trap 'rm -rf "$W"' EXIT
i=0
for f in "$CAP"/flameprof_*.perf*; do
	case $f in *.zst) zstd -dcq "$f" ;; *.gz) gzip -dc "$f" ;; *) cat "$f" ;; esac > "$W/in.$i"
	i=$((i + 1))
done
mkdir -p "$W/hour"
python3 "$ROOT/bench/stretch.py" --dense "$DENSE" "$SECS" "$W"/in.* | "$ROOT/build/ixgen" "$W/hour" "hour@bench" >/dev/null
rm -f "$W"/in.*
echo "capture files: $(du -sh "$W/hour" | cut -f1) ($(ls "$W/hour" | wc -l) files)"
/usr/bin/time -f "report -o hour.html: %e s, %M KiB max RSS" "$FP" report -q "$W/hour" -o "$W/hour.html"
/usr/bin/time -f "report -o hour.svg: %e s, %M KiB max RSS" "$FP" report -q "$W/hour" -o "$W/hour.svg"
echo "page: $(wc -c < "$W/hour.html") bytes ($(gzip -c "$W/hour.html" | wc -c) gzipped); the SVG flame graph: $(wc -c < "$W/hour.svg") bytes"
mkdir -p "$ROOT/build/test-artifacts"
for run in 1 2 3; do
	python3 "$ROOT/tests/report/html_drive.py" "$W/hour.html" "$W" \
		'{"a":[90000,90499],"b":[0,-1]}' | python3 -c '
import json, sys
j = json.load(sys.stdin)
print("chromium: interactive after %.0f ms (load event + first drawing), a range drawn in %s ms, the whole hour in %s ms, %d columns, errors %s"
      % (j["ready_ms"], j.get("a", {}).get("ms"), j.get("b", {}).get("ms"), j["cols"], j["errors"][:2]))'
done
cp "$W/html_diff.png" "$ROOT/build/test-artifacts/html_hour.png" && echo "screenshot: build/test-artifacts/html_hour.png"
