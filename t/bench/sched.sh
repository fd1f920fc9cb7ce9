#!/bin/sh
# t/bench/sched.sh - speed and memory of the pure scheduler, through
# mj_schedsim -b (instant deliveries, one recipient per entry).
#
# One million entries from 1000 jobs (1 to 1999 recipients each) over
# 10,000 shared destinations, and the same shape at one tenth of the size:
# nanoseconds per selection should not grow with jobs and destinations
# beyond a logarithm, so the ratio of the two should stay near 1.  Bytes per
# in-core recipient are measured with every recipient in core (pools raised
# to 2,000,000), and peak memory with the default recipient pools.
set -eu
cd "$(dirname "$0")/../.."
SIM=schedsim/mj_schedsim
[ -x "$SIM" ] || make schedsim/mj_schedsim >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# scenario JOBS DESTS POOL - write a scenario to stdout
scenario() {
	awk -v jobs="$1" -v dests="$2" -v pool="$3" 'BEGIN {
		print "[scheduler]"
		print "destination_recipient_limit = 1"
		if (pool != "") {
			print "recipient_limit = " pool
			print "message_recipient_limit = " pool
		}
		for (j = 0; j < jobs; j++) {
			printf "[job j%d]\nrecipients = %d\n", j, 1 + (j * 7919) % 1999
			printf "queued = %d\ndestinations = %d\n", j, dests
		}
	}'
}

# run JOBS DESTS POOL - one bench line, prefixed with the shape
run() {
	scenario "$1" "$2" "$3" >"$tmp/s.ini"
	printf 'jobs=%s destinations=%s pool=%s ' "$1" "$2" "${3:-default}"
	"$SIM" -b <"$tmp/s.ini"
}

small=$(run 100 1000 "")
large=$(run 1000 10000 "")
full=$(run 1000 10000 2000000)
echo "$small"
echo "$large"
echo "$full"
ns() { echo "$1" | sed 's/.*ns_per_selection=\([^ ]*\).*/\1/'; }
awk -v a="$(ns "$small")" -v b="$(ns "$large")" 'BEGIN {
	printf "ns per selection, 10x jobs and destinations: ratio %.2f (log2 of 10x = 3.32)\n", b / a
}'
echo "$full" | sed 's/.*bytes_per_rcpt=\([^ ]*\).*/bytes per in-core recipient, one per entry (all in core): \1/'

# A typical list: one message, 1,000,000 recipients over 10,000 domains,
# batched 50 per entry (the default destination_recipient_limit).
printf '[scheduler]\nrecipient_limit = 2000000\nmessage_recipient_limit = 2000000\n[job list]\nrecipients = 1000000\ndestinations = 10000\n' >"$tmp/l.ini"
list=$("$SIM" -b <"$tmp/l.ini")
echo "list: $list"
echo "$list" | sed 's/.*bytes_per_rcpt=\([^ ]*\).*/bytes per in-core recipient, batched 50 per entry: \1/'
