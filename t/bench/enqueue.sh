#!/bin/sh
# t/bench/enqueue.sh - mj_enqueue against Postfix's sendmail, in one run.
#
# Both queue the same 3 KB message, durably, RUNS times (default 50):
# mj_enqueue into a fresh spool, Postfix's sendmail into a private Postfix
# instance on loopback (t/postfix-instance.sh).  Both are timed by
# t/tools/mj_measure (fork to reap, median and 90th percentile) and their
# peak RSS reported.  mj_enqueue runs with no mj_queueserv listening, so
# its poke is one failed connect(); sendmail's postdrop likewise only
# writes the maildrop file and signals pickup.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
runs=${1:-50}
work=$(mktemp -d /tmp/mjq-bench-enqueue.XXXXXX)
chmod 755 "$work" # Postfix daemons run as postfix and must reach their queue
. "$top/t/postfix-instance.sh"
. "$top/dev/mjq-workdir.sh"
trap 'pf_stop "$work/pf"; rm -rf "$work"' EXIT
measure=$top/t/tools/mj_measure
[ -x "$measure" ] || make -C "$top" -s t/tools/mj_measure

# A 3 KB message.
{
	printf 'From: Alice <alice@example.net>\nTo: list@example.org\n'
	printf 'Subject: benchmark message\nMessage-ID: <bench@example.net>\n\n'
	i=0
	while [ $i -lt 46 ]; do
		printf 'Line %02d of a list post of about three kilobytes of text.......\n' $i
		i=$((i + 1))
	done
} >"$work/msg"

mjq_workdir "$work"
mkdir -p "$work/lists/example.org/list"

pf_create "$work/pf" 0 "default_transport = discard" "local_transport = discard" >/dev/null
sed -i '/^127.0.0.1:0 inet/d' "$work/pf/etc/master.cf"
pf_start "$work/pf"

mj=$("$measure" -n "$runs" -i "$work/msg" -- "$top/enqueue/mj_enqueue" \
	-C "$work/mjq.conf" -d example.org -l list -r -f alice@example.net)
pf=$("$measure" -n "$runs" -i "$work/msg" -- /usr/sbin/sendmail \
	-C "$work/pf/etc" -f alice@example.net list@example.org)
queued=$(find "$work/spool/QUEUE" -type f | wc -l)

get() { echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }
mj_med=$(get "$mj" median_us) pf_med=$(get "$pf" median_us)
echo "message: $(wc -c <"$work/msg") bytes, runs: $runs, queued by mj_enqueue: $queued"
echo "mj_enqueue: $mj"
echo "sendmail:   $pf"
awk -v a="$mj_med" -v b="$pf_med" -v r="$(get "$mj" max_rss_kb)" 'BEGIN {
	printf "median wall time: mj_enqueue %.2f ms, sendmail %.2f ms, ratio %.1fx faster\n",
	    a / 1000, b / 1000, b / a
	printf "mj_enqueue peak RSS: %.2f MB\n", r / 1024
}'
