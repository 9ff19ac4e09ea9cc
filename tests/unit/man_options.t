#!/bin/sh
# man_options.t - doc/flameprof.1 lists exactly the options of each
# command's table (the commands as --help all lists them, from the one
# list of them, cli/commands.c): every option --help prints (the help is generated from
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

# The option names (-x, --name) in the left column of --help all (the
# whole table; a command without a brief help prints the same for --help),
# one a line, sorted.
names_of() {
	sed -nE 's/^  (-([A-Za-z]), |    )--([A-Za-z][A-Za-z-]*).*/-\2 --\3/p' | tr ' ' '\n' | grep -vx -- - | sort
}
from_help() {
	"$fp" "$@" --help all | names_of
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
# The commands, as the one list of them (cli/commands.c) prints them in
# --help all's usage lines: "flameprof NAME [options] ...". Each one's
# section of the man page is its name in capitals, the capture's OPTIONS.
commands=$("$fp" --help all | sed -nE 's/^(usage:| ) +flameprof ([a-z][a-z-]*) .*/\2/p')
check "record: the table and the OPTIONS section agree" "" OPTIONS
for c in $commands; do
	check "$c: the table and the $(echo "$c" | tr a-z A-Z) section agree" "$c" "$(echo "$c" | tr a-z A-Z)"
done
n=$((n + 1))
if [ -n "$commands" ]; then
	echo "ok $n - --help all lists $(echo $commands | wc -w) commands besides the capture: $(echo $commands)"
else
	echo "not ok $n - --help all lists the commands ($(echo $commands))"
fi

# The capture's --help is the screen a newcomer meets: one screen of 80
# columns, naming only options of the table; the whole table behind
# --help all, wrapped to 80 columns too.
"$fp" --help > "$tmp/brief"
lines=$(wc -l < "$tmp/brief")
wide=$(awk 'length($0) > 80' "$tmp/brief" | wc -l)
n=$((n + 1))
if [ "$lines" -le 24 ] && [ "$wide" -eq 0 ]; then
	echo "ok $n - record --help: one screen ($lines lines, none wider than 80 columns)"
else
	echo "not ok $n - record --help: one screen ($lines lines of at most 24, $wide wider than 80 columns)"
fi
names_of < "$tmp/brief" > "$tmp/brief.names"
from_help > "$tmp/all.names"
n=$((n + 1))
if [ -s "$tmp/brief.names" ] && [ -z "$(comm -23 "$tmp/brief.names" "$tmp/all.names")" ]; then
	echo "ok $n - record --help names $(wc -l < "$tmp/brief.names") option names, each one of the table"
else
	echo "not ok $n - record --help names only options of the table"
	comm -23 "$tmp/brief.names" "$tmp/all.names" | sed 's/^/#   not in the table: /'
fi
n=$((n + 1))
wide=$("$fp" --help all | awk 'length($0) > 80' | wc -l)
if [ "$wide" -eq 0 ]; then
	echo "ok $n - record --help all: no line wider than 80 columns"
else
	echo "not ok $n - record --help all: $wide lines wider than 80 columns"
fi
# every command's --help and --help all fit a terminal of 80 columns
n=$((n + 1))
over=""
for c in $commands; do
	for h in "--help" "--help all"; do
		w=$("$fp" $c $h | awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }')
		[ "$w" -le 80 ] || over="$over $c $h: $w;"
	done
done
if [ -z "$over" ]; then
	echo "ok $n - every command's --help and --help all fit 80 columns"
else
	echo "not ok $n - wider than 80 columns:$over"
fi
n=$((n + 1))
"$fp" --help=all > "$tmp/eq"
"$fp" --help all > "$tmp/sp"
if cmp -s "$tmp/eq" "$tmp/sp" && ! cmp -s "$tmp/sp" "$tmp/brief"; then
	echo "ok $n - --help=all and --help all print the whole table, not the brief help"
else
	echo "not ok $n - --help=all and --help all print the whole table, not the brief help"
fi
echo "1..$n"
