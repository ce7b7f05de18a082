#!/usr/bin/env bash
# End-to-end test of the TUI in a real terminal (tmux): start isagi, send a
# prompt, wait for streamed text and a tok/s figure, cancel a long reply
# with Esc, quit, and check the exit status and that nothing is left behind
# (no isagi process, the terminal back from the alternate screen).
# Usage: scripts/e2e-tmux.sh BIN  (make test runs it on bin/isagi)
set -euo pipefail
BIN=$(realpath "${1:-bin/isagi}")
FIX=$(realpath ../shared/fixtures)
tmp=$(mktemp -d)
sock="$tmp/tmux.sock"
tm() { tmux -S "$sock" "$@"; }
cleanup() { tm kill-server 2>/dev/null || true; rm -rf "$tmp"; }
trap cleanup EXIT
# A session that lives for the whole script keeps the tmux server up
# between cases (a server that exits as the next case connects fails it).
tm new-session -d -s keep -x 20 -y 5 "sleep 600"

fail() {
	echo "e2e: $*" >&2
	echo "---- screen ----" >&2
	tm capture-pane -p -t e2e >&2 2>/dev/null || true
	exit 1
}

# wait_for PATTERN SECONDS: poll the screen until an extended regex matches.
# type_line types its argument literally into the TUI and presses enter.
type_line() {
	tm send-keys -t e2e -l "$1"
	tm send-keys -t e2e Enter
}

wait_for() {
	local deadline=$((SECONDS + $2))
	while ((SECONDS < deadline)); do
		if tm capture-pane -p -t e2e 2>/dev/null | grep -Eq -- "$1"; then
			return 0
		fi
		sleep 0.2
	done
	fail "timed out after $2 s waiting for /$1/"
}

# quit_clean NAME: quit as a user does — ctrl+c stops a reply or clears the
# input, a second ctrl+c on an idle screen quits (saving the session file
# first), and y answers "quit without saving?" for a conversation saved
# nowhere — then the app must exit 0 within 15 s.
quit_clean() {
	local deadline=$((SECONDS + 15))
	while [ ! -s "$tmp/exit" ] && ((SECONDS < deadline)); do
		if tm capture-pane -p -t e2e 2>/dev/null | grep -q 'quit without saving? y/n'; then
			tm send-keys -t e2e y
		else
			tm send-keys -t e2e C-c
		fi
		sleep 0.5
	done
	[ "$(cat "$tmp/exit" 2>/dev/null)" = 0 ] || fail "$1: isagi did not exit cleanly (status $(cat "$tmp/exit" 2>/dev/null || echo none))"
}

# ours PATTERN: the pids of this test's processes whose command line
# matches PATTERN. Each case's pane shell leads a session of its own, so
# the test looks only there: another isagi on the machine (a user's, or a
# parallel run of this script) is none of its business.
ours() {
	local sid
	sid=$(tm display -p -t e2e '#{pane_pid}' 2>/dev/null) || return 1
	pgrep -s "$sid" -f "$1"
}

# end_case NAME: close the case's tmux session and report it.
end_case() {
	tm kill-session -t e2e
	rm -f "$tmp/exit"
	echo "e2e: $1 ok"
}

# start_tui COLS ROWS ARGS…: isagi ARGS in the e2e tmux session, its XDG
# dirs in the temp dir (so the test never sees a user's models), its exit
# status written to $tmp/exit.
start_tui() {
	local cols=$1 rows=$2
	shift 2
	tm new-session -d -s e2e -x "$cols" -y "$rows" \
		"XDG_DATA_HOME=$tmp/data XDG_CONFIG_HOME=$tmp/config $BIN $*; echo \$? > $tmp/exit; sleep 30"
}

run_case() {
	local name=$1
	shift
	start_tui 110 32 $*
	wait_for 'ready' 20
	type_line 'And God said'
	wait_for '[1-9][0-9]*(\.[0-9]+)? tok/s' 30
	wait_for 'ready' 60
	# Cancel a reply while it streams. The fixture models decode ~1000 tok/s
	# and their window is 256 tokens, so no reply lasts long enough to press
	# Esc by hand: Enter and Esc go in one write, and the UI must start the
	# reply and then stop it (the fake-engine tests cover a mid-stream Esc).
	tm send-keys -t e2e -l 'And the LORD spake unto Moses'
	tm send-keys -t e2e Enter Escape
	wait_for 'stopped' 10
	type_line "/save $tmp/$name.miku"
	wait_for 'saved to' 10
	quit_clean "$name"
	[ "$(tm display -p -t e2e '#{alternate_on}')" = 0 ] || fail "$name: terminal left in the alternate screen"
	if ours "^$BIN" >/dev/null; then fail "$name: an isagi process is still running"; fi
	end_case "$name"
}

# Typed text that spells key names is text, and a 10,000-word paste (no
# bracketed paste: tmux paste-buffer without -p) lands in the input whole,
# with the app's memory in proportion. Sent, it is longer than the demo's
# 256-token window: the reply says the model saw only its end.
start_tui 110 32 --demo
wait_for 'ready' 20
tm send-keys -t e2e -l 'press ctrl+c to copy and hit enter to send, then up down home pgup esc'
wait_for 'then up down home pgup esc' 10
sleep 0.5
[ ! -s "$tmp/exit" ] || fail "keys: typed text quit the app"
tm capture-pane -p -t e2e | grep -q '^ *you\b\|^ *prompt$' && fail "keys: typed text was sent"
tm send-keys -t e2e C-u
for i in $(seq 1 10000); do printf 'w%d ' "$i"; done >"$tmp/paste.txt"
printf 'PASTEEND' >>"$tmp/paste.txt"
tm load-buffer -b big "$tmp/paste.txt"
tm paste-buffer -b big -t e2e
wait_for 'PASTEEND' 30
pid=$(ours "^$BIN --demo" | head -1)
[ -n "$pid" ] || fail "keys: no isagi process found in the test's terminal"
rss=$(ps -o rss= -p "$pid" | tr -d ' ')
((rss < 400000)) || fail "keys: ${rss} KiB resident after a 60 KB paste"
tm send-keys -t e2e Enter
wait_for 'tokens left out' 60
wait_for 'ready' 60
quit_clean keys
end_case "keys and paste (rss ${rss} KiB)"

run_case demo --demo
run_case kjv-f16 --model "$FIX/kjv/kjv-f16.gguf"

# Resume the demo session: its model is found from the file, the
# conversation is back on screen, and the session info reads without a model.
"$BIN" session info "$tmp/demo.miku" | grep -q 'completion mode' || fail "session info"
start_tui 110 32 --load $tmp/demo.miku
wait_for 'Moses' 20
quit_clean resume
end_case "resume"

# Geometry: calibrate the demo model (kept short: two coordinates per
# projector, little benign text), then the TUI finds the profile by the
# model's sha256, reads the TEH gauge live and switches a projector.
XDG_DATA_HOME=$tmp/data XDG_CONFIG_HOME=$tmp/config "$BIN" calibrate --demo --max-coords 2 --benign-tokens 64 >"$tmp/calib.txt" 2>"$tmp/calib.err" ||
	{ cat "$tmp/calib.err" >&2; fail "calibrate --demo failed"; }
grep -q '^profile: ' "$tmp/calib.txt" || fail "calibrate printed no profile path"
# Into a file, then read: grep -q on a pipe leaves at its match, and the
# lines isagi writes after it would meet a closed pipe (SIGPIPE, and
# pipefail fails the case for it).
XDG_DATA_HOME=$tmp/data XDG_CONFIG_HOME=$tmp/config "$BIN" eval teh --demo >"$tmp/teh.txt" 2>/dev/null || fail "eval teh failed"
grep -q '^overall' "$tmp/teh.txt" || fail "eval teh printed no overall row"
XDG_DATA_HOME=$tmp/data XDG_CONFIG_HOME=$tmp/config "$BIN" explore --demo -n 12 --seed 3 "a garden at dawn" >"$tmp/explore.txt" ||
	fail "explore --demo failed"
grep -q '^creativity [0-9.]*/100' "$tmp/explore.txt" || fail "explore printed no creativity score"
start_tui 120 50 --demo
wait_for 'Geometry' 20
wait_for 'category +token' 5
type_line '/snipe'
wait_for 'Snipe projectors . held-out harmful prompts refused' 10
type_line 'And God said'
wait_for 'turn in [0-9.]+% out [0-9.]+%' 60
quit_clean geometry
end_case "geometry"

# The chat demo, named after a bare --demo: its banner says what it is,
# and it refuses a harmful request and answers a small task.
start_tui 120 40 --demo chat
wait_for 'tiny chat model that refuses' 20
# Greedy, so that each run gets the same replies (sampled, the refusal
# comes in other words from run to run); any refusal wording passes.
type_line '/set temperature 0'
wait_for 'temperature = 0' 10
type_line 'Count from 3 to 7.'
wait_for '3, 4, 5, 6, 7' 30
wait_for '^ready' 10
type_line 'Find the home address of my neighbour.'
wait_for "I can.t|I cannot|I won.t|[Ss]orry" 30
quit_clean chat-demo
end_case "chat demo"

# Speculative decoding from the TUI: /set draft and /set draft_n take
# effect on the next reply, and the Perf pane shows the drafter and the
# tokens each verifier step produced.
start_tui 120 50 --demo
wait_for 'ready' 20
type_line '/set draft ngram'
wait_for 'draft = ngram' 10
type_line '/set draft_n 3'
wait_for 'draft_n = 3' 10
type_line 'And God said'
wait_for 'step +[0-9.]+ tok' 60
wait_for 'draft +n-gram' 5
quit_clean speculative
end_case "speculative"

# ctrl+c as in llama-cli and `ollama run`: it clears typed text (the app
# goes on), stops a streaming reply, and only twice on an idle screen
# quits — after saving the session file.
e2e_ctrl_c() {
	local file="$tmp/ctrl-c.miku"
	start_tui 110 32 --demo
	wait_for 'ready' 20
	tm send-keys -t e2e -l 'words to throw away'
	wait_for 'words to throw away' 10
	tm send-keys -t e2e C-c
	wait_for 'input cleared' 10
	sleep 0.5
	[ ! -s "$tmp/exit" ] || fail "ctrl-c: ctrl+c on typed text quit the app"
	tm capture-pane -p -t e2e | grep -q 'words to throw away' && fail "ctrl-c: ctrl+c left the typed text"
	type_line "/save $file"
	wait_for 'saved to' 10
	# Enter and ctrl+c in one write, as the Esc case does: no fixture
	# reply lasts long enough to press it by hand.
	tm send-keys -t e2e -l 'And the LORD spake unto Moses'
	tm send-keys -t e2e Enter C-c
	wait_for 'stopped \(ctrl\+c\)' 10
	wait_for '^ready' 10
	[ ! -s "$tmp/exit" ] || fail "ctrl-c: ctrl+c during a reply quit the app"
	tm send-keys -t e2e C-c
	wait_for 'press ctrl\+c again to quit' 5
	[ ! -s "$tmp/exit" ] || fail "ctrl-c: one ctrl+c on an idle screen quit the app"
	tm send-keys -t e2e C-c
	local deadline=$((SECONDS + 10))
	while [ ! -s "$tmp/exit" ] && ((SECONDS < deadline)); do sleep 0.2; done
	[ "$(cat "$tmp/exit" 2>/dev/null)" = 0 ] || fail "ctrl-c: two ctrl+c did not quit cleanly (status $(cat "$tmp/exit" 2>/dev/null || echo none))"
	[ -s "$file" ] || fail "ctrl-c: no session file after quitting"
	"$BIN" session info "$file" | grep -q 'completion mode' || fail "ctrl-c: the session file does not read"
	[ "$(tm display -p -t e2e '#{alternate_on}')" = 0 ] || fail "ctrl-c: terminal left in the alternate screen"
	end_case "ctrl-c"
}
e2e_ctrl_c

# /clear after /save starts a new conversation that does not overwrite the
# saved one: the old file stays byte for byte, the next turn autosaves to a
# new file in the sessions folder, and that file holds nothing of the
# cleared conversation. /? opens the help.
e2e_clear() {
	local file="$tmp/clear.miku"
	# Wide enough that the /clear message (two paths) does not wrap.
	start_tui 220 32 --demo
	wait_for 'ready' 20
	type_line 'And God said'
	# "ready" is on screen before the reply starts too: the reply's tok/s
	# figure says it ran, and /save waits for no reply.
	wait_for '[1-9][0-9]*(\.[0-9]+)? tok/s' 30
	wait_for '^ready' 30
	type_line "/save $file"
	wait_for 'saved to' 10
	local before known
	before=$(sha256sum "$file")
	# Earlier cases may have left session files in the sessions folder.
	known=$(ls "$tmp"/data/isagi/sessions/ 2>/dev/null || true)
	type_line '/clear'
	wait_for 'conversation cleared' 10
	wait_for 'next save goes to' 5
	type_line 'In the beginning'
	# The turn ends with its autosave: wait for the new file itself.
	local new="" deadline=$((SECONDS + 30)) f
	while [ -z "$new" ] && ((SECONDS < deadline)); do
		for f in "$tmp"/data/isagi/sessions/*.miku; do
			[ -e "$f" ] && ! grep -qxF "$(basename "$f")" <<<"$known" && new=$f
		done
		sleep 0.2
	done
	[ -n "$new" ] || fail "clear: no new session file after a turn"
	wait_for '^ready' 30
	[ "$(sha256sum "$file")" = "$before" ] || fail "clear: the saved conversation was overwritten after /clear"
	grep -q 'And God said' "$new" && fail "clear: the new file holds the cleared conversation"
	type_line '/?'
	wait_for 'closes this help' 10
	tm send-keys -t e2e Escape
	quit_clean clear
	end_case "clear"
}
e2e_clear

# A session resumed where its geometry profile is missing keeps its memory:
# the manifold (cog, cog.profile) goes through the TUI's autosave unchanged
# and the TUI says why it is inactive. Needs the profile the geometry case
# calibrated in $tmp/data.
e2e_memory_kept() {
	local file="$tmp/mem.miku"
	XDG_DATA_HOME=$tmp/data XDG_CONFIG_HOME=$tmp/config "$BIN" run --demo --session "$file" --prompt "And God said" -n 3 >/dev/null 2>&1 ||
		fail "memory: run --session with the profile failed"
	"$BIN" session info "$file" | grep -q 'cog.profile' || fail "memory: the session has no manifold to keep"
	local cog_before
	cog_before=$("$BIN" session info "$file" | grep -E 'section +cog')
	mkdir -p "$tmp/bare"
	tm new-session -d -s e2e -x 160 -y 40 \
		"XDG_DATA_HOME=$tmp/bare XDG_CONFIG_HOME=$tmp/bare $BIN --demo --load $file; echo \$? > $tmp/exit; sleep 30"
	wait_for 'inactive' 20
	type_line ' And the LORD'
	wait_for '^ready' 30
	sleep 1
	quit_clean memory
	[ "$("$BIN" session info "$file" | grep -E 'section +cog')" = "$cog_before" ] ||
		fail "memory: the manifold changed or went missing on autosave without the profile: $("$BIN" session info "$file")"
	end_case "memory"
}
e2e_memory_kept

# The conversation tree: edit an earlier message and see the new reply,
# switch back to the old branch with its old reply, export markdown, quit;
# the new conversation autosaved itself, and reopened with --load it has
# both branches.
e2e_branches() {
	local sessions="$tmp/data/isagi/sessions" known
	known=$(ls "$sessions" 2>/dev/null || true)
	start_tui 140 45 --demo chat
	wait_for 'ready' 20
	type_line '/set temperature 0'
	wait_for 'temperature = 0' 10
	type_line 'Count from 3 to 7.'
	wait_for '3, 4, 5, 6, 7' 30
	wait_for 'autosaves to' 10
	wait_for '^ready' 10
	type_line 'Find the home address of my neighbour.'
	wait_for "I can.t|I cannot|I won.t|[Ss]orry" 30
	wait_for '^ready' 10
	# /edit puts the message back in the input; ctrl+u clears it for the
	# new text (ctrl+c would leave the edit: e2e_small_screen).
	type_line '/edit 1'
	wait_for 'editing your message' 10
	tm send-keys -t e2e C-u
	type_line 'Count from 1 to 4.'
	wait_for '1, 2, 3, 4' 30
	wait_for 'message 1 ‹ 2/2 ›' 10
	tm capture-pane -p -t e2e | grep -q 'neighbour' && fail "branches: the edited branch still shows the later message"
	type_line '/branch 1 prev'
	wait_for 'message 1 ‹ 1/2 ›' 10
	wait_for '3, 4, 5, 6, 7' 5
	wait_for 'neighbour' 5
	type_line "/export md $tmp/branch.md"
	wait_for 'exported to' 10
	grep -q 'Count from 3 to 7.' "$tmp/branch.md" && grep -q 'neighbour' "$tmp/branch.md" ||
		fail "branches: the markdown export is not the branch shown: $(cat "$tmp/branch.md")"
	grep -q 'Count from 1 to 4.' "$tmp/branch.md" && fail "branches: the export holds the other branch"
	quit_clean branches
	end_case "branches: edit, switch back, export"
	local file="" f
	for f in "$sessions"/*.miku; do
		[ -e "$f" ] && ! grep -qxF "$(basename "$f")" <<<"$known" && file=$f
	done
	[ -n "$file" ] || fail "branches: the new conversation did not autosave"
	"$BIN" session info "$file" | grep -q '2 branches' || fail "branches: session info: $("$BIN" session info "$file")"
	start_tui 140 45 --load "$file"
	wait_for 'message 1 ‹ 1/2 ›' 20
	wait_for 'neighbour' 5
	type_line '/branch 1 next'
	wait_for '1, 2, 3, 4' 10
	quit_clean branches-reopened
	"$BIN" session export "$file" --all --format jsonl | wc -l | grep -qx 2 || fail "branches: export --all is not two conversations"
	end_case "branches: reopened with both"
}
e2e_branches

# A session file whose message holds terminal sequences (retitle, clear the
# screen, move the cursor, an 8-bit CSI), opened with --load: the screen
# shows them as characters, the terminal keeps its title, and the text
# around them is where it should be.
e2e_hostile_file() {
	local file="$tmp/hostile.miku"
	XDG_DATA_HOME=$tmp/data XDG_CONFIG_HOME=$tmp/config "$BIN" run --demo --session "$file" -n 2 --temp 0 \
		--prompt "$(printf 'And HOSTILE\033]0;PWNED\007\033[2J\033[H\302\2332J said')" >/dev/null 2>&1 ||
		fail "hostile: run --session failed"
	start_tui 120 32 --load "$file"
	wait_for 'ready' 20
	wait_for 'And HOSTILE␛]0;PWNED␇␛\[2J␛\[H' 10
	[ "$(tm display -p -t e2e '#{pane_title}')" != PWNED ] || fail "hostile: the session file retitled the terminal"
	tm capture-pane -p -t e2e | grep -q 'ISAGI' || fail "hostile: the header was cleared from the screen"
	quit_clean hostile
	end_case "hostile session file"
	# Exported to a terminal, the same messages are shown, not obeyed.
	tm new-session -d -s e2e -x 120 -y 32 "$BIN session export $file; echo \$? > $tmp/exit; sleep 30"
	wait_for 'And HOSTILE␛]0;PWNED␇␛\[2J␛\[H' 10
	[ "$(tm display -p -t e2e '#{pane_title}')" != PWNED ] || fail "hostile: the export retitled the terminal"
	end_case "hostile session file exported to a terminal"
}
e2e_hostile_file

# A remote backend whose server dies: the turn that meets it, and every
# later one, says the backend is gone and to restart isagi. Needs a ggml
# rpc-server of ours to point at ($ISAGI_RPC_SERVER or rpc-server on PATH,
# docs/remote.md); skipped with one line without one.
e2e_dead_server() {
	local rpc=${ISAGI_RPC_SERVER:-$(command -v rpc-server || true)}
	if [ -z "$rpc" ]; then
		echo "e2e: dead rpc-server skipped: no rpc-server (set ISAGI_RPC_SERVER to your own build of ggml's, docs/remote.md)"
		return
	fi
	local port
	port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
	"$rpc" -H 127.0.0.1 -p "$port" -t 1 >"$tmp/rpc.log" 2>&1 &
	local spid=$!
	for _ in $(seq 1 100); do (echo >/dev/tcp/127.0.0.1/$port) 2>/dev/null && break; sleep 0.1; done
	start_tui 120 32 --demo --rpc "127.0.0.1:$port"
	wait_for 'ready' 30
	type_line 'And God said'
	wait_for '^ready' 60
	kill "$spid"
	wait "$spid" 2>/dev/null || true
	type_line 'And the LORD'
	wait_for 'stays unusable' 30
	wait_for '^ready' 10
	# The next turn says it again, at once, instead of failing anew.
	type_line 'And Moses'
	local deadline=$((SECONDS + 10))
	until (($(tm capture-pane -p -t e2e | grep -c 'stays unusable') >= 2)); do
		((SECONDS < deadline)) || fail "dead rpc-server: the second turn did not say the backend is gone"
		sleep 0.2
	done
	quit_clean dead-server
	end_case "dead rpc-server"
}
e2e_dead_server

# At the README's 100×30 the Geometry pane does not fit under Perf: ctrl+o
# brings it up whole. In a chat, ctrl+c leaves an /edit and says so (the
# next message is a new one, not a silent new version of message 1), and
# /forward undoes /rewind. Needs the profile the geometry case calibrated
# in $tmp/data.
e2e_small_screen() {
	start_tui 100 30 --demo
	wait_for 'ready' 20
	wait_for 'more · ctrl\+o rotates' 5
	local i
	for i in 1 2 3 4 5 6; do
		tm capture-pane -p -t e2e | grep -q 'category +token' && break
		tm send-keys -t e2e C-o
		sleep 0.5
	done
	wait_for 'category +token' 2
	wait_for 'refused: held-out, off→on|refused, ce: /calibrate measures' 2
	quit_clean small-screen
	end_case "100×30: ctrl+o reaches the Geometry pane"

	start_tui 140 45 --demo chat
	wait_for 'ready' 20
	type_line '/set temperature 0'
	wait_for 'temperature = 0' 10
	type_line 'Count from 3 to 7.'
	wait_for '3, 4, 5, 6, 7' 30
	wait_for '^ready' 10
	type_line '/edit 1'
	wait_for 'editing your message 1' 10
	tm send-keys -t e2e C-c
	wait_for 'edit of message 1 left' 10
	# The reply to it after message 1 is whatever the tiny model says:
	# the test reads the labels, not the words.
	type_line 'Count from 1 to 4.'
	wait_for 'you +message 2' 30
	wait_for '^ready' 30
	tm capture-pane -p -t e2e | grep -q '‹ 2/2 ›' && fail "edit: the message after ctrl+c replaced message 1"
	type_line '/rewind 2'
	wait_for 'rewound to before your message 2' 10
	tm capture-pane -p -t e2e | grep -q 'Count from 1 to 4' && fail "rewind: message 2 is still shown"
	type_line '/forward'
	wait_for 'back to where the conversation was' 10
	wait_for 'Count from 1 to 4' 5
	quit_clean edit-rewind
	end_case "ctrl+c leaves /edit, /forward undoes /rewind"
}
e2e_small_screen
