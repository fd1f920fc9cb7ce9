#!/usr/bin/env bats
# t/840-bench.bats - every benchmark under t/bench/ still runs to the end
# and prints its figures, at a size that takes seconds.  The benchmarks
# are not run by CI otherwise, and a new default breaks them silently:
# after moderation landed, the delivery benchmarks' posts were held
# (posting = subscribers) and the DKIM default (sign = yes) left
# queueserv.sh waiting forever for a busy runner.  The figures
# themselves are not checked (that is what the full-size runs are
# for); each script exits non-zero when its mail was not all delivered.
# slow: runs every benchmark at a small size

load helpers

setup() {
	[ "$(id -u)" -eq 0 ] || skip "needs root (smtp-sink -u, Postfix)"
}

# bench NAME ARGS... - run t/bench/NAME with ARGS under a time limit
bench() {
	run timeout 300 bash "$TOP/t/bench/$@"
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "drain.sh: mjq and Postfix each deliver every recipient" {
	bench drain.sh 400 4
	[[ "$output" == *"ratio mjq/postfix: "* ]]
}

@test "drain.sh with VERP=1: one envelope per recipient on both sides, every recipient delivered" {
	VERP=1 bench drain.sh 400 4
	[[ "$output" == *"drain R=400 D=4 VERP"* ]]
	[[ "$output" == *"ratio mjq/postfix: "* ]]
}

@test "bounces.sh: the bounce corpus through mjq and Mailman 3's scanner, side by side" {
	bench bounces.sh 1
	[[ "$output" == *"reports/s"* ]]
	[[ "$output" =~ Mailman\ 3\ flufl\.bounce\ +[0-9.]+% ]]
	[[ "$output" =~ mjq\ +[0-9.]+% ]]
}

@test "dkim.sh: unsigned and signed drains deliver every recipient" {
	bench dkim.sh 200 4
	[[ "$output" == *"signing path / bare RSA: "* ]]
}

@test "oneclick.sh: the per-copy drain, before and after, delivers every recipient" {
	QR_OLD=$TOP/queuerun/mj_queuerun SPEED_SECONDS=1 ROUNDS=1 \
		bench oneclick.sh 200 4
	[[ "$output" == *"median of 1, new runner:"* ]]
	[[ "$output" == *"median of 1, old runner:"* ]]
	[[ "$output" == *"(the issue's goal: 0.70)"* ]]
}

@test "limited.sh: mjq and Postfix each deliver every recipient past a 421 limiter, with the ratios" {
	bench limited.sh 500 3 1
	[[ "$output" =~ mjq/postfix\ over\ 1\ runs:\ refused ]]
}

@test "queueserv.sh: poke to walk with an idle and a busy pool" {
	POKES=500 PROBES=5 bench queueserv.sh
	[[ "$output" == *"busy pool, from mj_enqueue's exit: median"* ]]
	[[ "$output" == *"500 answered"* ]]
}

@test "posting.sh: each kind of post held or not as its policy says, with its figures" {
	QR_OLD=$TOP/queuerun/mj_queuerun bench posting.sh 2000 1
	[[ "$output" =~ nonmember\ +[0-9.]+\ +[0-9]+\ +[0-9.]+\ +[0-9]+ ]]
	[[ "$output" =~ open\ +[0-9.]+\ +[0-9]+ ]]
}

@test "walk_rss.sh, enqueue.sh, sched.sh: their figures" {
	bench walk_rss.sh 200
	[[ "$output" =~ 200\ +[0-9]+ ]]
	bench enqueue.sh 5
	[[ "$output" == *"mj_enqueue peak RSS: "* ]]
	bench sched.sh
	[[ "$output" == *"bytes per in-core recipient, batched 50 per entry: "* ]]
}

@test "members.sh: mjq-members, and Mailman 3 and mlmmj where installed, add every address" {
	bench members.sh 20000 50
	[[ "$output" =~ mjq-members\ +20000\ addresses ]]
	if command -v mailman >/dev/null; then
		[[ "$output" == *"ratio mailman/mjq: time per address "* ]]
	fi
	if [ -x /usr/bin/mlmmj-sub ]; then
		[[ "$output" == *"ratio mlmmj/mjq: time per address "* ]]
	fi
}

@test "cluster.sh: one node drains with [cluster] off and on, with the ratio" {
	command -v redis-server >/dev/null || skip "redis-server is not installed"
	# the three-node drain once each, small: that it runs and the shared
	# runs keep to the limit (its figures are docs/benchmarks.md's)
	RUNS3=1 N3=200 bench cluster.sh 400 4
	[[ "$output" =~ best:\ off\ [0-9]+\ rcpt/s,\ on\ [0-9]+\ rcpt/s,\ on/off\ [0-9.]+ ]]
	[[ "$output" =~ uncapped:\ three\ nodes,\ 200\ recipients\ each,\ limit\ 4:.*shared\ max_open\ [1-4]$'\n' ]]
	[[ "$output" =~ capped:\ medians\ of\ the\ 1\ runs ]]
}

@test "archive.sh: mj_archive import and MHonArc on the same mbox, one post added, a search, with the ratio" {
	command -v mhonarc >/dev/null || skip "mhonarc is not installed (dev/deps.sh bench)"
	bench archive.sh 300
	[[ "$output" =~ mjq\ +[0-9.]+\ +[0-9.]+\ +[0-9]+\ +[0-9]+ ]]
	[[ "$output" == *"import: mjq is "*"x faster than MHonArc"* ]]
	[[ "$output" == *"one post added to 300: "* ]]
}

@test "archive_hyperkitty.sh: mj_archive import beside hyperkitty_import and its Whoosh index on the same mbox, with the ratios" {
	run timeout 300 bash "$TOP/t/bench/archive_hyperkitty.sh" 200
	[ "$status" -ne 77 ] || skip "HyperKitty is not installed (dev/deps.sh bench)"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" =~ mjq\ +[0-9.]+\ +[0-9.]+\ +[0-9]+\ +[0-9]+ ]]
	[[ "$output" =~ hk_total\ +[0-9.]+\ +[0-9.]+\ +[0-9]+\ +[0-9]+ ]]
	[[ "$output" == *"import, CPU: mjq uses "*"x less than hyperkitty_import, "*"x less than import + index"* ]]
	[[ "$output" != *"HyperKitty stored"* ]]
}

@test "archive_search.sh: an index-only import, then each query through mj_archsearch, timed" {
	bench archive_search.sh 3000 3
	[[ "$output" == *"index-only import: 3000 posts, "* ]]
	[[ "$output" =~ search\ word\ +median\ +[0-9.]+\ ms.*\ 50\ shown\ \(latest\) ]]
	[[ "$output" =~ search\ none\ +median\ +[0-9.]+\ ms.*\ 0\ shown ]]
}
