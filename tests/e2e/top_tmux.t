#!/bin/bash
# flameprof top on a terminal, driven through tmux at 80x24: the hot
# function shows, the keys switch the view, sort and pause, a resize
# redraws at the new size, 'q', SIGTERM, Ctrl-C
# and a hang-up (the session killed, as an SSH drop) each end it with the
# terminal restored (its stty settings as before, the main screen back)
# and the node left as it was.
. "$(dirname "$0")/../lib.sh"
if ! command -v tmux >/dev/null 2>&1; then
	echo "1..0 # SKIP tmux is not installed (scripts/install-deps.sh check)"
	exit 0
fi
start_epmd && compile_workloads && start_node topt "fp_busy:start(4)" || exit 1

TM="tmux -L fp_top_$$ -f /dev/null"
cleanup_tmux() { $TM kill-server 2>/dev/null; cleanup; }
trap cleanup_tmux EXIT
screen() { $TM capture-pane -p -t top; }
shows() { screen | grep -q -- "$1"; }

# run_top ARGS: a shell in an 80x24 pane notes its stty settings, runs
# top (its pid in top.pid), then notes its status and the settings again.
run_top() {
	rm -f "$T_DIR/top.rc" "$T_DIR/top.pid"
	cat > "$T_DIR/pane.sh" <<SH
# Ctrl-C is for top alone: the shell waits to note its status
trap '' INT
stty -g > '$T_DIR/stty.before'
sh -c 'echo \$\$ > "$T_DIR/top.pid"; exec "$FLAMEPROF" top --cookie-file "$T_DIR/cookie" $* 2>"$T_DIR/top.err"'
echo \$? > '$T_DIR/top.rc'
stty -g > '$T_DIR/stty.after'
echo 'shell prompt again'
sleep 600
SH
	$TM new-session -d -s top -x 80 -y 24 "sh $T_DIR/pane.sh"
}
top_pid() { cat "$T_DIR/top.pid" 2>/dev/null; }
ended() { [ -s "$T_DIR/top.rc" ]; }
# The pane's shell writes top.rc, then stty.after: ended/0 can be true
# before stty.after has its line (CI's bookworm root caught it so once).
restored() { [ -s "$T_DIR/stty.after" ] && cmp -s "$T_DIR/stty.before" "$T_DIR/stty.after"; }

run_top --every 500ms --name fp_idle_server "$NODE"
check "the view is drawn on the terminal" wait_until 30 shows "functions by self"
sleep 2
screen > "$T_DIR/screen1"
sed 's/^/#   | /' "$T_DIR/screen1"
check "the busy loop shows among the hottest functions" grep -qE '^ +[0-9.]+ +[0-9.]+  fp_busy:burn_cpu/1' "$T_DIR/screen1"
check "the keys are on the second line" grep -q '^Tab/v view .* q quit' "$T_DIR/screen1"
check "no line is wider than 80 columns" awk 'length($0) > 80 { exit 1 }' "$T_DIR/screen1"

$TM send-keys -t top Tab
check "Tab switches to the processes view, by on-CPU share" wait_until 10 shows "processes by on-CPU share"
check "... which names the registered process" wait_until 10 shows "fp_idle_server"
check "... and the busy processes' current function" shows "fp_busy:burn_cpu/1"
screen > "$T_DIR/screen2"
sed 's/^/#   | /' "$T_DIR/screen2"
# SIGWINCH: a wider terminal gets the whole title (cut at 80 columns above)
$TM resize-window -t top -x 100 -y 30
check "a resize redraws at the new width" wait_until 10 sh -c "$TM capture-pane -p -t top | grep -qE '^processes by .*  [0-9]{2}:[0-9]{2}:[0-9]{2}\$'"
$TM resize-window -t top -x 80 -y 24
$TM send-keys -t top s
check "s sorts by the next key (reductions)" wait_until 10 shows "processes by reductions/s"
$TM send-keys -t top 3
check "3 sorts by memory" wait_until 10 shows "processes by memory"
$TM send-keys -t top f
check "f goes back to the functions view" wait_until 10 shows "functions by self"
$TM send-keys -t top 2
check "2 sorts the functions by total" wait_until 10 shows "functions by total"
$TM send-keys -t top Space
check "space pauses" wait_until 10 shows "PAUSED"
# the paused screen is one write, but the terminal may take it in pieces:
# the first look waits for the whole of it (on a loaded machine, a look
# taken as soon as the title said PAUSED caught the rows still coming)
sleep 1; screen > "$T_DIR/paused1"; sleep 2.5; screen > "$T_DIR/paused2"
check "... and the paused screen stays as it is" cmp -s "$T_DIR/paused1" "$T_DIR/paused2"
$TM send-keys -t top Space
check "space again resumes" wait_until 10 sh -c "! $TM capture-pane -p -t top | grep -q PAUSED"
$TM send-keys -t top q
check "q ends top" wait_until 30 ended
is "$(cat "$T_DIR/top.rc" 2>/dev/null)" 0 "... with status 0"
check "... the terminal's settings restored" wait_until 10 restored
check "... and the main screen back" wait_until 10 sh -c "$TM capture-pane -p -t top | grep -q 'shell prompt again' && ! $TM capture-pane -p -t top | grep -q 'functions by'"
check "the node is left as it was after q" node_clean "$NODE"
$TM kill-session -t top

# SIGTERM
run_top --every 500ms "$NODE"
wait_until 30 shows "functions by self"
kill -TERM "$(top_pid)"
check "SIGTERM ends top" wait_until 30 ended
is "$(cat "$T_DIR/top.rc" 2>/dev/null)" 0 "... with status 0"
check "... the terminal's settings restored" wait_until 10 restored
check "the node is left as it was after SIGTERM" node_clean "$NODE"
$TM kill-session -t top

# Ctrl-C
run_top --every 500ms "$NODE"
wait_until 30 shows "functions by self"
$TM send-keys -t top C-c
check "Ctrl-C ends top" wait_until 30 ended
is "$(cat "$T_DIR/top.rc" 2>/dev/null)" 0 "... with status 0"
check "... the terminal's settings restored" wait_until 10 restored
check "the node is left as it was after Ctrl-C" node_clean "$NODE"
$TM kill-session -t top

# a hang-up: the terminal goes away under top (SIGHUP)
run_top --every 500ms "$NODE"
wait_until 30 shows "functions by self"
pid=$(top_pid)
$TM kill-session -t top
check "a hang-up ends top" wait_until 30 sh -c "! kill -0 $pid 2>/dev/null"
check "the node is left as it was after the hang-up" node_clean "$NODE"
finish
