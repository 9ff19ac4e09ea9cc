#!/bin/sh
# man_options.t - doc/flameprof.1 lists exactly the options of each
# command's table: every option --help prints (the help is generated from
# the table, cli/optparse.c) has an entry in the man page's section for
# that command, and every entry there is an option of the table. Hidden
# test switches are in neither. Run from the repo root by prove.
fp=${FLAMEPROF:-build/flameprof}
man=doc/flameprof.1
if [ ! -x "$fp" ]; then
	echo "1..0 # SKIP $fp not built (make $fp)"
	exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/fp_man.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

# The option names (-x, --name) in --help's left column, one a line, sorted.
from_help() {
	"$fp" "$@" --help | sed -nE 's/^  (-([A-Za-z]), |    )--([A-Za-z][A-Za-z-]*).*/-\2 --\3/p' |
		tr ' ' '\n' | grep -vx -- - | sort
}
# ... on the .TP entries of the man page section named $1, up to the next .SH
# (an entry may name several options: ".BI \-\-pid " PID" "\fR, \fB\-\-new"").
from_man() {
	awk -v sec="$1" '
		/^\.SH / { on = ($2 == sec); next }
		on && prev == ".TP" && /^\.B/ { print }
		{ prev = $0 }' "$man" |
		sed 's/\\-/-/g' | grep -oE '(^|[ "]|\\fB)--?[A-Za-z][A-Za-z-]*' |
		sed 's/^\\fB//' | tr -d ' "' | sort
}

n=0
check() { # description, command (report) section
	n=$((n + 1))
	from_help $2 > "$tmp/help" && from_man "$3" > "$tmp/man"
	if [ -s "$tmp/help" ] && cmp -s "$tmp/help" "$tmp/man"; then
		echo "ok $n - $1: $(wc -l < "$tmp/help") options in --help and in the man page"
	else
		echo "not ok $n - $1"
		diff "$tmp/help" "$tmp/man" | sed 's/^/#   /'
	fi
}
echo "1..5"
check "record: the table and the OPTIONS section agree" "" OPTIONS
check "report: the table and the REPORT section agree" report REPORT
check "calls: the table and the CALLS section agree" calls CALLS
check "requests: the table and the REQUESTS section agree" requests REQUESTS
check "top: the table and the TOP section agree" top TOP
