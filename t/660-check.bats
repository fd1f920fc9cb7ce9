#!/usr/bin/env bats
# mj_queuerun -c: the check pass finds and repairs damaged spool files.

load helpers

MSG=$'Subject: check\n\nbody\n'

setup() {
	# Port 1 on loopback refuses: every delivery defers, so each message
	# keeps a state file to damage.
	mjq_setup <<-EOF
	[transport_map]
	example.net = smtp:[127.0.0.1]:1
	EOF
	mjq_list example.org mylist a@example.net b@example.net
	for i in 1 2 3; do
		"$MJ_ENQUEUE" -C "$CONF" -d example.org -l mylist -r <<<"$MSG"
	done
	"$MJ_QUEUERUN" -C "$CONF" -1 2>/dev/null
	mapfile -t MSGS < <(queue_files)
	[ "${#MSGS[@]}" -eq 3 ]
	DIR=$SPOOL/$(dirname "${MSGS[0]}")
}

# check - run the check pass; its findings come in directory order, so
# $lines holds them sorted, with the summary last
check() {
	run "$MJ_QUEUERUN" -C "$CONF" -c
	echo "$output"
	mapfile -t lines < <(echo "$output" | grep -v '^check: ' | sort; echo "$output" | grep '^check: ')
}

@test "a sound spool: nothing found, exit 0" {
	check
	[ "$status" -eq 0 ]
	[ "$output" = "check: 3 messages, 0 findings, 0 repaired, 0 left" ]
}

@test "a state file without its message is removed, unless its lock is held (a commit in progress)" {
	rm "$SPOOL/${MSGS[0]}"
	state=$DIR/.$(basename "${MSGS[0]}")
	# a writer between linking the state file and linking its message
	bash -c 'exec 9<"$1" && flock -x 9 && exec sleep 30' sh "$state" &
	holder=$!
	wait_for 5 eval "! flock -n '$state' true"
	check
	kill "$holder"
	wait "$holder" 2>/dev/null || true
	[ "$status" -eq 0 ]
	[ "$output" = "check: 2 messages, 0 findings, 0 repaired, 0 left" ]
	[ -e "$state" ]
	check
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "${MSGS[0]%/*}/.$(basename "${MSGS[0]}"): no message beside it: removed" ]
	[ "${lines[1]}" = "check: 2 messages, 1 finding, 1 repaired, 0 left" ]
	[ ! -e "$state" ]
}

@test "truncated and garbage state files send their messages to BAD/ with a reason" {
	truncate -s 20 "$DIR/.$(basename "${MSGS[0]}")"
	head -c 3000 /dev/urandom >"$DIR/.$(basename "${MSGS[1]}")"
	check
	[ "$status" -eq 0 ]
	first=$(printf '%s\n' "${MSGS[0]}" "${MSGS[1]}" | sort | head -1)
	second=$(printf '%s\n' "${MSGS[0]}" "${MSGS[1]}" | sort | tail -1)
	[[ "${lines[0]}" == "$first: damaged state file: "*": moved to BAD/" ]]
	[[ "${lines[1]}" == "$second: damaged state file: "*": moved to BAD/" ]]
	grep -qx "${MSGS[0]}: damaged state file: line 2: truncated: moved to BAD/" <<<"$output"
	grep -qx "${MSGS[1]}: damaged state file: not a state file: moved to BAD/" <<<"$output"
	[ "${lines[2]}" = "check: 3 messages, 2 findings, 2 repaired, 0 left" ]
	for m in "${MSGS[0]}" "${MSGS[1]}"; do
		bad=$SPOOL/BAD/${m#QUEUE/}
		[ -f "$bad" ]
		[ -f "$(dirname "$bad")/.$(basename "$bad").why" ]
		grep -q '^mj_queuerun -c: damaged state file: ' "$(dirname "$bad")/.$(basename "$bad").why"
		[ ! -e "$SPOOL/$m" ]
	done
	# what is left is sound and a runner goes on with it
	check
	[ "$output" = "check: 1 message, 0 findings, 0 repaired, 0 left" ]
	run "$MJ_QUEUERUN" -C "$CONF" -1
	[ "$status" -eq 0 ]
}

@test "a stray name is quarantined; a directory where a message belongs is reported and left" {
	echo junk >"$DIR/not-a-queue-name"
	mkdir "$DIR/XAA-1-dir"
	check
	[ "$status" -eq 1 ]
	[ "${lines[0]}" = "${MSGS[0]%/*}/XAA-1-dir: not a regular file: left (remove it by hand)" ]
	[ "${lines[1]}" = "${MSGS[0]%/*}/not-a-queue-name: not a queue file name: moved to BAD/" ]
	[ "${lines[2]}" = "check: 3 messages, 2 findings, 1 repaired, 1 left" ]
	[ -f "$SPOOL/BAD/$(dirname "${MSGS[0]#QUEUE/}")/not-a-queue-name" ]
	[ "$(cat "$SPOOL/BAD/$(dirname "${MSGS[0]#QUEUE/}")/.not-a-queue-name.why")" = "mj_queuerun -c: not a queue file name" ]
	[ ! -e "$DIR/not-a-queue-name" ]
	# the runner is not disturbed by the directory either
	run "$MJ_QUEUERUN" -C "$CONF" -1
	[ "$status" -eq 0 ]
}

@test "a message a runner holds is not judged" {
	head -c 3000 /dev/urandom >"$DIR/.$(basename "${MSGS[2]}")"
	exec 9<"$SPOOL/${MSGS[2]}"
	flock -x 9
	check
	exec 9<&-
	[ "$status" -eq 0 ]
	[ "$output" = "check: 3 messages, 0 findings, 0 repaired, 0 left" ]
	[ -e "$SPOOL/${MSGS[2]}" ]
	check
	[[ "${lines[0]}" == "${MSGS[2]}: damaged state file: "* ]]
}

@test "failed recipients left by a runner that died before their bounce are deferred again" {
	state=$DIR/.$(basename "${MSGS[0]}")
	sed -i 's/^deferred  b@example.net$/failed    b@example.net/' "$state"
	grep -qx 'failed    b@example.net' "$state"
	check
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "${MSGS[0]%/*}/.$(basename "${MSGS[0]}"): 1 failed recipient(s) without their bounce (a runner died): deferred, to be tried again" ]
	[ "${lines[1]}" = "check: 3 messages, 1 finding, 1 repaired, 0 left" ]
	grep -qx 'deferred  b@example.net' "$state"
	check
	[ "$output" = "check: 3 messages, 0 findings, 0 repaired, 0 left" ]
}
