# tap.sh - sourced by tests/e2e/report_*.t: a deadline, a scratch directory
# and TAP helpers (ok, is, skip, finish). No node, no epmd: report only
# reads files.
set -u
: "${FLAMEPROF:?set FLAMEPROF to the flameprof binary (make check does)}"
# Every test has a deadline: re-run this script under timeout(1).
if [ -z "${REP_DEADLINE:-}" ]; then
	REP_DEADLINE=${REP_TIMEOUT:-60} exec timeout "${REP_TIMEOUT:-60}" sh "$0" "$@"
fi
REP_ROOT=$(cd "$(dirname "$0")/../.." && pwd)
REP_LIB="$REP_ROOT/tests/report"
T=$(mktemp -d "${TMPDIR:-/tmp}/fp-report.XXXXXX")
T_COUNT=0
T_FAILED=0
trap 'if [ "$T_FAILED" -eq 0 ] && [ -z "${KEEP:-}" ]; then rm -rf "$T"; else echo "# kept $T"; fi' EXIT

ok() { # ok DESCRIPTION COMMAND...: passes when the command succeeds
	desc=$1
	shift
	T_COUNT=$((T_COUNT + 1))
	if "$@"; then
		echo "ok $T_COUNT - $desc"
	else
		T_FAILED=$((T_FAILED + 1))
		echo "not ok $T_COUNT - $desc"
	fi
}
is() { # is GOT WANT DESCRIPTION
	T_COUNT=$((T_COUNT + 1))
	if [ "$1" = "$2" ]; then
		echo "ok $T_COUNT - $3"
	else
		T_FAILED=$((T_FAILED + 1))
		echo "not ok $T_COUNT - $3"
		echo "#   got  '$1'"
		echo "#   want '$2'"
	fi
}
skip() { # skip DESCRIPTION REASON
	T_COUNT=$((T_COUNT + 1))
	echo "ok $T_COUNT - $1 # SKIP $2"
}
finish() {
	echo "1..$T_COUNT"
	[ "$T_FAILED" -eq 0 ]
}
gen() { python3 "$REP_LIB/gen.py" "$@"; }
