#!/usr/bin/env bats
# The subscribers file under concurrent change (lists/subs_edit.c,
# common/lockedit.c): runners and an administrator who takes the same
# lock never lose an update, and the layout of the file is kept.

load helpers

SUBSEDIT=$TOP/t/tools/mj_subsedit

setup() {
	mjq_setup </dev/null
	mjq_list example.org mylist
	SUBS=$LISTS/example.org/mylist/subscribers
}

@test "add and remove keep comments, order and other lines byte for byte" {
	printf '# the team\nann@example.net\n\n  Bob@Example.NET  # bob\ncy@example.net' >"$SUBS"
	run "$SUBSEDIT" -C "$CONF" example.org mylist add dee@example.net
	[ "$status" -eq 0 ]
	run "$SUBSEDIT" -C "$CONF" example.org mylist add ann@EXAMPLE.net
	[ "$status" -eq 1 ]
	run "$SUBSEDIT" -C "$CONF" example.org mylist remove bob@example.net
	[ "$status" -eq 0 ]
	run "$SUBSEDIT" -C "$CONF" example.org mylist remove nobody@example.net
	[ "$status" -eq 1 ]
	[ "$(cat "$SUBS")" = $'# the team\nann@example.net\n\ncy@example.net\ndee@example.net' ]
	[ ! -e "$SUBS.tmp" ]
}

@test "40 concurrent adds and an administrator's locked edit: no update lost" {
	printf 'admin-before@example.net\n' >"$SUBS"
	pids=()
	for i in $(seq 1 40); do
		"$SUBSEDIT" -C "$CONF" example.org mylist add "u$i@example.net" &
		pids+=($!)
		if [ "$i" -eq 20 ]; then
			flock "$SUBS.lock" sh -c "sleep 0.2; echo admin@example.net >>'$SUBS'" &
			pids+=($!)
		fi
	done
	for p in "${pids[@]}"; do
		wait "$p"
	done
	[ "$(grep -c . "$SUBS")" -eq 42 ]
	for i in $(seq 1 40); do
		grep -qx "u$i@example.net" "$SUBS"
	done
	grep -qx admin@example.net "$SUBS"
	grep -qx admin-before@example.net "$SUBS"
}

@test "an edit waits while the administrator holds the lock" {
	printf 'ann@example.net\n' >"$SUBS"
	held=$BATS_TEST_TMPDIR/held
	flock "$SUBS.lock" sh -c "touch '$held'; sleep 0.5; echo cy@example.net >>'$SUBS'" &
	holder=$!
	wait_for 5 test -e "$held"
	run "$SUBSEDIT" -C "$CONF" example.org mylist add bob@example.net
	wait "$holder"
	[ "$status" -eq 0 ]
	# bob after cy: the edit read the file only once the lock was free.
	[ "$(cat "$SUBS")" = $'ann@example.net\ncy@example.net\nbob@example.net' ]
}

@test "modes: a word after the address, set and cleared in place; removal and add see the address whatever its mode; an unknown word reads as each" {
	printf '# the team\nann@example.net\n  Bob@Example.NET  # bob\ncy@example.net digest\n' >"$SUBS"
	run "$SUBSEDIT" -C "$CONF" example.org mylist set bob@example.net nomail
	[ "$status" -eq 0 ]
	run "$SUBSEDIT" -C "$CONF" example.org mylist set bob@example.net nomail
	[ "$status" -eq 1 ]
	run "$SUBSEDIT" -C "$CONF" example.org mylist set cy@example.net each
	[ "$status" -eq 0 ]
	run "$SUBSEDIT" -C "$CONF" example.org mylist set ann@example.net digest-plain
	[ "$status" -eq 0 ]
	run "$SUBSEDIT" -C "$CONF" example.org mylist set nobody@example.net digest
	[ "$status" -eq 3 ]
	[ "$(cat "$SUBS")" = $'# the team\nann@example.net digest-plain\n  Bob@Example.NET nomail # bob\ncy@example.net' ]
	run "$SUBSEDIT" -C "$CONF" example.org mylist add ann@example.net
	[ "$status" -eq 1 ]
	run "$SUBSEDIT" -C "$CONF" example.org mylist remove bob@example.net
	[ "$status" -eq 0 ]
	[ "$(cat "$SUBS")" = $'# the team\nann@example.net digest-plain\ncy@example.net' ]
	# a typo in a hand edit: the subscriber still gets every post
	printf 'dee@example.net weekly\n' >>"$SUBS"
	printf 'From: ann@example.net\nSubject: x\n\nx\n' |
		"$MJ_ENQUEUE" -C "$CONF" -d example.org -l mylist -r -f ann@example.net
	printf '[list]\nposting = open\n' >"$LISTS/example.org/mylist/config"
	printf '[transport_map]\n* = discard:\n' >>"$CONF"
	runq
	grep -q 'subscribers:4: unknown mode "weekly": each' "$BATS_TEST_TMPDIR/run.log"
	grep -q 'nrcpt=2' "$BATS_TEST_TMPDIR/run.log"
}
