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
