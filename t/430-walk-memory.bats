#!/usr/bin/env bats
# t/430-walk-memory.bats - a runner's memory follows its active limit,
# not the queue (issue 20, section 3): the walk keeps at most
# 10 x active_limit candidates, and spool_walk reads a directory of
# messages as readdir gives it.  t/bench/walk_rss.sh measures the same
# at 10,000 to 200,000 queued messages.
# slow: fills the queue with 2,000, then 20,000 posts

bats_require_minimum_version 1.5.0
load helpers

setup() {
	mjq_setup </dev/null
	mkdir -p "$LISTS/ex.org"
}

# peak_rss N - fill the queue with N posts to a list whose directory is
# missing (each claim ends at once, deferred), run mj_queuerun -1 until
# nothing is due; its peak RSS in kB is $PEAK
peak_rss() {
	rm -rf "$SPOOL/QUEUE"
	mkdir -p "$SPOOL/QUEUE"
	"$TOP/t/tools/mj_fillqueue" "$SPOOL" ex.org l "$1"
	ASAN_OPTIONS=$SAN_RSS_OPTIONS /usr/bin/time -f '%M' \
		-o "$BATS_TEST_TMPDIR/time" \
		"$MJ_QUEUERUN" -C "$CONF" -1 2>"$BATS_TEST_TMPDIR/run.log"
	# every message was claimed and put off, none left due
	[ "$(grep -c 'cannot be read now' "$BATS_TEST_TMPDIR/run.log")" -eq "$1" ]
	PEAK=$(tail -1 "$BATS_TEST_TMPDIR/time")
}

@test "peak RSS of a runner is the same with 2,000 and 20,000 queued messages (within 2 MB); the order stays random within a tier" {
	local small big
	# the first run makes state/destinations, whose pages then count
	peak_rss 10
	peak_rss 2000
	small=$PEAK
	peak_rss 20000
	big=$PEAK
	echo "# peak RSS: $small kB at 2,000 queued, $big kB at 20,000" >&3
	[ $((big - small)) -lt $((2048 + SAN_KB)) ]
	# random order: the first 1000 claims of the last run are not the
	# first 1000 names in directory order, nor in name order
	grep -o 'AAA-[0-9]*-l' "$BATS_TEST_TMPDIR/run.log" | head -1000 |
		sed 's/AAA-//; s/-l//' >"$BATS_TEST_TMPDIR/order"
	run ! cmp -s "$BATS_TEST_TMPDIR/order" <(sort -n "$BATS_TEST_TMPDIR/order")
	[ "$(sort -n "$BATS_TEST_TMPDIR/order" | tail -1)" -gt 2000 ]
}
