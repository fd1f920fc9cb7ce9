#!/usr/bin/env bats
# mj_enqueue: flags, names, exit codes, the stored text, durability.

load helpers

MSG=$'Subject: hello\nFrom: bob@example.net\n\nbody line\n'

setup() {
	mjq_setup </dev/null
	mjq_list example.org mylist
	unset SENDER DEFAULT LOCAL
}

teardown() {
	if mountpoint -q "$BATS_TEST_TMPDIR/mnt" 2>/dev/null; then
		umount "$BATS_TEST_TMPDIR/mnt"
	fi
	if [ -n "${SERVER_PID:-}" ]; then
		kill "$SERVER_PID" 2>/dev/null || true
	fi
}

enqueue() {
	"$MJ_ENQUEUE" -C "$CONF" "$@"
}

@test "a post lands under QUEUE/<xx>/<domain>/<yy>/list with the queue name" {
	run enqueue -d example.org -l mylist -r <<<"$MSG"
	[ "$status" -eq 0 ]
	[ "$output" = "" ]
	run queue_files
	[ "${#lines[@]}" -eq 1 ]
	[[ "${lines[0]}" =~ ^QUEUE/10/example.org/10/list/[A-X][A-Z][A-Z]-[0-9]+-mylist$ ]]
	# the hour letter is the hour of arrival
	hour=$(date +%H)
	letter=$(printf "\\$(printf '%03o' $((65 + 10#$hour)))")
	[ "$(basename "${lines[0]}" | cut -c1)" = "$letter" ]
	# nothing left behind in tmp/
	[ -z "$(ls -A "$SPOOL/tmp")" ]
}

@test "the message is stored as received" {
	enqueue -d example.org -l mylist -r <<<"$MSG"
	diff <(printf '%s\n' "$MSG") "$SPOOL/$(queue_files)"
}

@test "functions and priorities choose the directory" {
	enqueue -d example.org -l mylist -o <<<"$MSG"
	enqueue -d example.org -l mylist -M <<<"$MSG"
	enqueue -d example.org -l mylist -q <<<"$MSG"
	enqueue -d example.org -m <<<"$MSG"
	enqueue -d example.org -l mylist -r -P 20 -p 05 <<<"$MSG"
	enqueue -d example.org -l mylist -P 0 -p 99 -r <<<"$MSG"
	run queue_files
	[ "${#lines[@]}" -eq 6 ]
	[[ "${lines[0]}" =~ ^QUEUE/00/example.org/99/list/...-[0-9]+-mylist$ ]]
	[[ "${lines[1]}" =~ ^QUEUE/10/example.org/10/majordomo/...-[0-9]+-GLOBAL$ ]]
	[[ "${lines[2]}" =~ ^QUEUE/10/example.org/10/owner/...-[0-9]+-mylist$ ]]
	[[ "${lines[3]}" =~ ^QUEUE/10/example.org/10/owner/...-[0-9]+-mylist$ ]]
	[[ "${lines[4]}" =~ ^QUEUE/10/example.org/10/request/...-[0-9]+-mylist$ ]]
	[[ "${lines[5]}" =~ ^QUEUE/20/example.org/05/list/...-[0-9]+-mylist$ ]]
}

@test "-c puts the command after a comma, -x the sublist after a colon" {
	enqueue -d example.org -l mylist -c subscribe <<<"$MSG"
	enqueue -d example.org -l mylist -x digest <<<"$MSG"
	run queue_files
	[[ "${lines[0]}" =~ ^QUEUE/10/example.org/10/list/...-[0-9]+-mylist:digest$ ]]
	[[ "${lines[1]}" =~ ^QUEUE/10/example.org/10/request/...-[0-9]+-mylist,subscribe$ ]]
}

@test "-Q derives list and function from the local part, or \$DEFAULT/\$LOCAL" {
	mjq_list example.org other
	enqueue -d example.org -Q mylist <<<"$MSG"
	enqueue -d example.org -Q mylist-owner <<<"$MSG"
	enqueue -d example.org -Q owner-other <<<"$MSG"
	enqueue -d example.org -Q mylist-request <<<"$MSG"
	enqueue -d example.org -Q MyList-Subscribe <<<"$MSG"
	DEFAULT=majordomo enqueue -d example.org -Q "" <<<"$MSG"
	LOCAL=other-request enqueue -d example.org -Q "" <<<"$MSG"
	run queue_files
	[ "${#lines[@]}" -eq 7 ]
	[[ "${lines[0]}" =~ /10/list/...-[0-9]+-mylist$ ]]
	[[ "${lines[1]}" =~ /10/majordomo/...-[0-9]+-GLOBAL$ ]]
	[[ "${lines[2]}" =~ /10/owner/...-[0-9]+-mylist$ ]]
	[[ "${lines[3]}" =~ /10/owner/...-[0-9]+-other$ ]]
	[[ "${lines[4]}" =~ /10/request/...-[0-9]+-mylist$ ]]
	[[ "${lines[5]}" =~ /10/request/...-[0-9]+-mylist,subscribe$ ]]
	[[ "${lines[6]}" =~ /10/request/...-[0-9]+-other$ ]]
	run enqueue -d example.org -Q "" <<<"$MSG"
	[ "$status" -eq 64 ]
	[[ "$output" == *'$DEFAULT'* ]]
}

@test "-S exits 99 after queueing" {
	run enqueue -d example.org -l mylist -r -S <<<"$MSG"
	[ "$status" -eq 99 ]
	[ "$(queue_files | wc -l)" -eq 1 ]
}

@test "a leading From_ line is dropped and gives Return-Path" {
	printf 'From alice@example.com Sat Nov 21 10:00:00 2026\n%s\n' "$MSG" |
		enqueue -d example.org -l mylist -r
	diff <(printf 'Return-Path: <alice@example.com>\n%s\n' "$MSG") \
		"$SPOOL/$(queue_files)"
}

@test "Return-Path comes from -f first, then \$SENDER, then From_" {
	printf 'From alice@x.com date\n%s\n' "$MSG" |
		SENDER=carol@x.com enqueue -d example.org -l mylist -r -f dave@x.com
	head -1 "$SPOOL/$(queue_files)" >"$BATS_TEST_TMPDIR/rp1"
	rm -f "$SPOOL"/QUEUE/10/example.org/10/list/*
	printf 'From alice@x.com date\n%s\n' "$MSG" |
		SENDER=carol@x.com enqueue -d example.org -l mylist -r
	head -1 "$SPOOL/$(queue_files)" >"$BATS_TEST_TMPDIR/rp2"
	[ "$(cat "$BATS_TEST_TMPDIR/rp1")" = "Return-Path: <dave@x.com>" ]
	[ "$(cat "$BATS_TEST_TMPDIR/rp2")" = "Return-Path: <carol@x.com>" ]
}

@test "the null sender is written as Return-Path: <>" {
	enqueue -d example.org -l mylist -r -f "" <<<"$MSG"
	[ "$(head -1 "$SPOOL/$(queue_files)")" = "Return-Path: <>" ]
	rm -f "$SPOOL"/QUEUE/10/example.org/10/list/*
	printf 'From MAILER-DAEMON Sat Nov 21 10:00:00 2026\n%s\n' "$MSG" |
		enqueue -d example.org -l mylist -r
	[ "$(head -1 "$SPOOL/$(queue_files)")" = "Return-Path: <>" ]
}

@test "an existing Return-Path is kept and none is added" {
	printf 'Received: x\nreturn-path: <old@x.com>\n%s\n' "$MSG" |
		enqueue -d example.org -l mylist -r -f new@x.com
	diff <(printf 'Received: x\nreturn-path: <old@x.com>\n%s\n' "$MSG") \
		"$SPOOL/$(queue_files)"
}

@test "a Return-Path in the body does not count; CRLF input gets a CRLF header" {
	printf 'Subject: x\r\n\r\nReturn-Path: <not@header>\r\n' |
		enqueue -d example.org -l mylist -r -f s@x.com
	diff <(printf 'Return-Path: <s@x.com>\r\nSubject: x\r\n\r\nReturn-Path: <not@header>\r\n') \
		"$SPOOL/$(queue_files)"
}

@test "no sender known: no Return-Path is invented" {
	enqueue -d example.org -l mylist -r <<<"$MSG"
	diff <(printf '%s\n' "$MSG") "$SPOOL/$(queue_files)"
}

@test "bad arguments exit 64 with one clear line and queue nothing" {
	run enqueue -d example.org -l mylist -r -z <<<"$MSG"
	[ "$status" -eq 64 ]
	[ "${lines[0]}" = "mj_enqueue: unknown flag -z" ]
	run enqueue -l mylist -r <<<"$MSG"
	[ "$status" -eq 64 ]
	[ "${lines[0]}" = "mj_enqueue: missing -d domain" ]
	run enqueue -d example.org -l mylist <<<"$MSG"
	[ "$status" -eq 64 ]
	[[ "${lines[0]}" == "mj_enqueue: no function flag"* ]]
	run enqueue -d example.org -l mylist -r -o <<<"$MSG"
	[ "$status" -eq 64 ]
	[[ "${lines[0]}" == "mj_enqueue: give only one of"* ]]
	run enqueue -d example.org -r <<<"$MSG"
	[ "$status" -eq 64 ]
	[ "${lines[0]}" = "mj_enqueue: missing -l list" ]
	run enqueue -d example.org -l mylist -r -d <<<"$MSG"
	[ "$status" -eq 64 ]
	[ "${lines[0]}" = "mj_enqueue: -d needs an argument" ]
	run enqueue -d example.org -l mylist -r extra <<<"$MSG"
	[ "$status" -eq 64 ]
	run enqueue -d example.org -m -l mylist <<<"$MSG"
	[ "$status" -eq 64 ]
	run enqueue -d example.org -l mylist -r -f 'a b@x' <<<"$MSG"
	[ "$status" -eq 64 ]
	[ "${lines[0]}" = "mj_enqueue: bad envelope sender after -f" ]
	[ -z "$(queue_files)" ]
}

@test "priorities outside 0-99 exit 64" {
	for p in 100 -1 1x "" 999; do
		run enqueue -d example.org -l mylist -r -P "$p" <<<"$MSG"
		[ "$status" -eq 64 ]
		[ "${lines[0]}" = "mj_enqueue: priority must be a number from 0 to 99" ]
		run enqueue -d example.org -l mylist -r -p "$p" <<<"$MSG"
		[ "$status" -eq 64 ]
	done
	[ -z "$(queue_files)" ]
}

@test "bad domain and list names exit 64 and never touch a path" {
	long=$(printf 'a%.0s' $(seq 1 65))
	longdom=$(printf 'b%.0s' $(seq 1 254))
	for bad in "a/b" ".." "../x" ".hidden" "Upper" $'ctl\001x' "$long" "" "sp ace" "x..y"; do
		run enqueue -d example.org -l "$bad" -r <<<"$MSG"
		[ "$status" -eq 64 ]
		[[ "${lines[0]}" == "mj_enqueue: bad list"* ]]
	done
	for bad in "a/b" ".." ".example.org" "Example.org" $'x\ty' "$longdom"; do
		run enqueue -d "$bad" -l mylist -r <<<"$MSG"
		[ "$status" -eq 64 ]
		[[ "${lines[0]}" == "mj_enqueue: bad domain"* ]]
	done
	run enqueue -d example.org -l mylist -c "sub/../x" <<<"$MSG"
	[ "$status" -eq 64 ]
	run enqueue -d example.org -l mylist -x ".x" <<<"$MSG"
	[ "$status" -eq 64 ]
	[ -z "$(queue_files)" ]
	[ -z "$(ls -A "$SPOOL/tmp")" ]
}

@test "an unknown list or domain exits 67; a missing lists directory 75" {
	run enqueue -d example.org -l nosuch -r <<<"$MSG"
	[ "$status" -eq 67 ]
	[ "$output" = "mj_enqueue: no such list nosuch@example.org" ]
	run enqueue -d other.org -m <<<"$MSG"
	[ "$status" -eq 67 ]
	[ "$output" = "mj_enqueue: no lists in domain other.org" ]
	mv "$LISTS" "$LISTS.gone"
	run enqueue -d example.org -l mylist -r <<<"$MSG"
	[ "$status" -eq 75 ]
	[[ "$output" == "mj_enqueue: cannot read lists directory"* ]]
	[ -z "$(queue_files)" ]
}

@test "empty input and input over max_message_size exit 65 and leave nothing" {
	run enqueue -d example.org -l mylist -r </dev/null
	[ "$status" -eq 65 ]
	[ "$output" = "mj_enqueue: empty message" ]
	run enqueue -d example.org -l mylist -r <<<"From a@b.c date"
	[ "$status" -eq 65 ]
	printf '[enqueue]\nmax_message_size = 1k\n' >>"$CONF"
	head -c 1024 /dev/zero | tr '\0' x >"$BATS_TEST_TMPDIR/1k"
	run enqueue -d example.org -l mylist -r <"$BATS_TEST_TMPDIR/1k"
	[ "$status" -eq 0 ]
	printf 'y' >>"$BATS_TEST_TMPDIR/1k"
	run enqueue -d example.org -l mylist -r <"$BATS_TEST_TMPDIR/1k"
	[ "$status" -eq 65 ]
	[ "$output" = "mj_enqueue: message larger than max_message_size (1024 bytes)" ]
	# a big body, past the header buffer, is cut off the same way
	{ printf 'Subject: big\n\n'; head -c 300000 /dev/zero; } >"$BATS_TEST_TMPDIR/big"
	printf '[enqueue]\nmax_message_size = 200k\n' >>"$CONF"
	run enqueue -d example.org -l mylist -r <"$BATS_TEST_TMPDIR/big"
	[ "$status" -eq 65 ]
	[ "$(queue_files | wc -l)" -eq 1 ]
	[ -z "$(ls -A "$SPOOL/tmp")" ]
}

@test "a broken configuration file exits 75 naming file, line and key" {
	printf '[enqueue]\nmax_message_size = lots\n' >>"$CONF"
	run enqueue -d example.org -l mylist -r <<<"$MSG"
	[ "$status" -eq 75 ]
	n=$(wc -l <"$CONF")
	[ "$output" = "mj_enqueue: $CONF:$n: [enqueue] max_message_size: 'lots' is not a size (bytes, or with k, M, G)" ]
	mjq_setup <<<$'[enqueue]\nno_such_key = 1'
	run enqueue -d example.org -l mylist -r <<<"$MSG"
	[ "$status" -eq 75 ]
	[ "$output" = "mj_enqueue: $CONF:10: [enqueue] no_such_key: unknown key" ]
	run "$MJ_ENQUEUE" -C "$BATS_TEST_TMPDIR/missing.conf" -d example.org -l mylist -r <<<"$MSG"
	[ "$status" -eq 75 ]
	[ "$output" = "mj_enqueue: $BATS_TEST_TMPDIR/missing.conf: No such file or directory" ]
}

@test "a read-only spool exits 75 and leaves nothing" {
	mkdir "$BATS_TEST_TMPDIR/mnt"
	mount -t tmpfs -o size=1m tmpfs "$BATS_TEST_TMPDIR/mnt"
	mkdir -p "$BATS_TEST_TMPDIR/mnt/tmp" "$BATS_TEST_TMPDIR/mnt/QUEUE"
	mount -o remount,ro "$BATS_TEST_TMPDIR/mnt"
	sed -i "s|^dir = $SPOOL\$|dir = $BATS_TEST_TMPDIR/mnt|" "$CONF"
	run enqueue -d example.org -l mylist -r <<<"$MSG"
	[ "$status" -eq 75 ]
	[[ "$output" == "mj_enqueue: cannot create spool file tmp/"*": Read-only file system" ]]
	[ -z "$(find "$BATS_TEST_TMPDIR/mnt" -type f)" ]
}

@test "a full file system exits 75 and leaves no partial file" {
	mkdir "$BATS_TEST_TMPDIR/mnt"
	mount -t tmpfs -o size=64k tmpfs "$BATS_TEST_TMPDIR/mnt"
	mkdir -p "$BATS_TEST_TMPDIR/mnt/tmp" "$BATS_TEST_TMPDIR/mnt/QUEUE"
	sed -i "s|^dir = $SPOOL\$|dir = $BATS_TEST_TMPDIR/mnt|" "$CONF"
	{ printf 'Subject: big\n\n'; head -c 200000 /dev/zero | tr '\0' x; } >"$BATS_TEST_TMPDIR/big"
	run enqueue -d example.org -l mylist -r <"$BATS_TEST_TMPDIR/big"
	[ "$status" -eq 75 ]
	[[ "$output" == "mj_enqueue: cannot write spool file tmp/"*": No space left on device" ]]
	[ -z "$(find "$BATS_TEST_TMPDIR/mnt" -type f)" ]
	# and a message that fits still goes in
	run enqueue -d example.org -l mylist -r <<<"$MSG"
	[ "$status" -eq 0 ]
	[ "$(find "$BATS_TEST_TMPDIR/mnt/QUEUE" -type f | wc -l)" -eq 1 ]
}

@test "a stale socket with no listener: queued, exit 0, no wait" {
	"$TOP/t/tools/mj_unixsock" stale "$SPOOL/queueserv.sock"
	[ -S "$SPOOL/queueserv.sock" ]
	run enqueue -d example.org -l mylist -r <<<"$MSG"
	[ "$status" -eq 0 ]
	[ "$(queue_files | wc -l)" -eq 1 ]
}

@test "a server that never answers does not hold the message or the MTA" {
	"$TOP/t/tools/mj_unixsock" mute "$SPOOL/queueserv.sock" &
	SERVER_PID=$!
	wait_for 5 test -S "$SPOOL/queueserv.sock"
	run timeout 5 "$MJ_ENQUEUE" -C "$CONF" -d example.org -l mylist -r <<<"$MSG"
	[ "$status" -eq 0 ]
	[ "$(queue_files | wc -l)" -eq 1 ]
}

@test "the poke is one line to queueserv.sock after the commit" {
	"$TOP/t/tools/mj_unixsock" serve "$SPOOL/queueserv.sock" 2 "$BATS_TEST_TMPDIR/pokes" &
	SERVER_PID=$!
	wait_for 5 test -S "$SPOOL/queueserv.sock"
	enqueue -d example.org -l mylist -r <<<"$MSG"
	enqueue -d example.org -l mylist -o <<<"$MSG"
	wait "$SERVER_PID"
	SERVER_PID=
	[ "$(cat "$BATS_TEST_TMPDIR/pokes")" = $'poke\npoke' ]
}

@test "200 concurrent enqueues of one list make 200 distinct files" {
	for i in $(seq 1 200); do
		printf 'Subject: %d\n\nbody %d\n' "$i" "$i" |
			"$MJ_ENQUEUE" -C "$CONF" -d example.org -l mylist -r &
	done
	wait
	[ "$(queue_files | wc -l)" -eq 200 ]
	# every message is there once, whole
	for f in $(queue_files); do sed -n 1p "$SPOOL/$f"; done | sort -u >"$BATS_TEST_TMPDIR/subjects"
	[ "$(wc -l <"$BATS_TEST_TMPDIR/subjects")" -eq 200 ]
	[ -z "$(ls -A "$SPOOL/tmp")" ]
}

@test "the spool file and its directories are not world-readable" {
	rm -rf "$SPOOL/QUEUE"/*
	enqueue -d example.org -l mylist -r <<<"$MSG"
	[ "$(stat -c %a "$SPOOL/$(queue_files)")" = 640 ]
	[ "$(stat -c %a "$SPOOL/QUEUE/10/example.org/10/list")" = 750 ]
	[ "$(stat -c %a "$SPOOL/QUEUE/10")" = 750 ]
}

@test "durability: write, fsync, link and fsync of the directory precede exit 0" {
	# LeakSanitizer cannot run under ptrace (make test SAN=1): off here
	# only; the other tests check for leaks.
	ASAN_OPTIONS=detect_leaks=0 strace -f -qq -o "$BATS_TEST_TMPDIR/trace" \
		-e trace=openat,write,fsync,fdatasync,link,linkat,unlink,unlinkat,exit_group \
		"$MJ_ENQUEUE" -C "$CONF" -d example.org -l mylist -r <<<"$MSG"
	# the order of the commit protocol, checked from outside
	run awk -f "$TOP/t/data/commit-order.awk" "$BATS_TEST_TMPDIR/trace"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "commit order ok: open write fsync link fsync-dir unlink exit0" ]
}

@test "with no server listening, start_server starts mj_queueserv detached" {
	sed -i 's/^start_server = no$/start_server = yes/' "$CONF"
	run enqueue -d example.org -l mylist -r <<<"$MSG"
	[ "$status" -eq 0 ]
	# the server comes up on its own, not as our child
	wait_for 10 test -S "$SPOOL/queueserv.sock"
	wait_for 10 test -s "$SPOOL/queueserv.pid"
	pid=$(cat "$SPOOL/queueserv.pid")
	# detached: a session of its own, not ours and not mj_enqueue's
	[ "$(ps -o sid= -p "$pid" | tr -d ' ')" != "$(ps -o sid= -p $$ | tr -d ' ')" ]
	run "$MJ_QUEUESERV" -C "$CONF" status
	[ "$status" -eq 0 ]
	"$MJ_QUEUESERV" -C "$CONF" stop
	wait_for 10 eval '! kill -0 '"$pid"' 2>/dev/null'
}

# enqueue_as PID ARG... - enqueue by an mj_enqueue whose process id is
# PID (a pid namespace of its own, ns_last_pid set just before the fork,
# as t/680 does)
enqueue_as() {
	local pid=$1
	shift
	unshare -pf --mount-proc sh -c \
		'echo $(($1 - 1)) >/proc/sys/kernel/ns_last_pid || exit 70
		shift; "$@"; r=$?; exit $r' \
		sh "$pid" "$MJ_ENQUEUE" -C "$CONF" "$@"
}

@test "a name held in HOLD/ or quarantined in BAD/ (message, state or .try) is not given to a new message by the same pid" {
	unshare -pf --mount-proc true 2>/dev/null || skip "no pid namespaces"
	enqueue_as 4646 -d example.org -l mylist -r <<<"$MSG"
	first=$(queue_files)
	name=$(basename "$first")
	[[ "$name" == ?AA-4646-mylist ]]
	# held by the operator: the same place under HOLD/, the same name
	rel=${first#QUEUE/}
	"$MJ_QUEUERUN" -C "$CONF" -h "$name"
	[ -f "$SPOOL/HOLD/$rel" ]
	enqueue_as 4646 -d example.org -l mylist -r <<<"$MSG"
	second=$(basename "$(queue_files)")
	[ "${second:0:1}" = "${name:0:1}" ] || skip "the hour changed between the posts"
	[ "$second" = "${name:0:1}AB-4646-mylist" ]
	# quarantined as the runner does (same place under BAD/)
	mkdir -p "$SPOOL/BAD/${rel%/*}"
	mv "$SPOOL/$(queue_files)" "$SPOOL/BAD/${rel%/*}/$second"
	# a .try left in BAD/ without its message takes its name too
	: >"$SPOOL/BAD/${rel%/*}/.${name:0:1}AC-4646-mylist.try"
	enqueue_as 4646 -d example.org -l mylist -r <<<"$MSG"
	[ "$(basename "$(queue_files)")" = "${name:0:1}AD-4646-mylist" ]
}
