#!/bin/bash
# t/bench/oneclick.sh R D - what one-click unsubscribe costs: the same
# post to R subscribers over D domains (each its own smtp-sink on
# loopback) drained by mj_queuerun -1 twice in one run, DKIM-signed
# (rsa-sha256 2048, one selector) both times:
#   signed once:  no unsubscribe_url; the text is signed once and goes
#                 out in batches of up to 50 recipients per transaction;
#   per copy:     unsubscribe_url set; each recipient's copy has its own
#                 List-Unsubscribe / List-Unsubscribe-Post and its own
#                 signature, one transaction per recipient.
# Each drain: wall time (from the message queued to the queue empty),
# the runner's CPU (user + sys), recipients/s and CPU s per 1000
# recipients.  Then the per-copy rate against the machine's RSA-2048
# signing limit, from `openssl speed -seconds 3 rsa2048`:
#   wall:  per-copy recipients/s over the one-process sign/s times
#          nproc (the issue's limit; its goal is 0.70).  openssl speed
#          alone counts CPU time (best of two, either side of the
#          drains), the drain wall time: on a shared machine the runner
#          competes with the other load and this ratio falls with it.
#          So also over `openssl speed -multi nproc`'s summed sign/s,
#          which counts wall time (its children run elapsed-timed)
#          under the same load: the mean of a run just before and just
#          after the per-copy drain.
#   cpu:   per-copy recipients per runner CPU second over the
#          one-process sign/s (per CPU second): the share of the
#          runner's CPU that goes into the RSA operation, the figure
#          least sensitive to load.
#   sinks: the smtp-sinks' CPU during the per-copy drain, and the rate
#          the runner and the sinks would make with the cores to
#          themselves (cores over their CPU per recipient): an
#          estimate of the idle machine's wall figure, not a measure.
# The per-copy drain runs ROUNDS times (default 3), each bracketed by
# its own -multi runs, and the wall and cpu ratios are printed per round
# and as the median of the rounds.  QR_OLD=path (another build's
# mj_queuerun) adds, in each round, a per-copy drain by that runner just
# before ours, so a change is measured before and after under the same
# load.  SPEED_SECONDS (default 3) is openssl speed's time per figure.
# WRAP, when set, goes before the per-copy drain's runner (a profiler:
# WRAP='perf record -g -o /tmp/oneclick.perf --').  Needs root
# (smtp-sink -u).
#
# t/bench/oneclick.sh pages [N] [C] - the web side instead: mj_unsubscribe's
# and mj_listweb's pages under lighttpd, side by side with a static file
# (t/bench/pages.bash).
set -eu
if [ "${1:-}" = pages ]; then
	TOP=$(cd "$(dirname "$0")/../.." && pwd)
	DIR=$(mktemp -d /tmp/mjq-pages.XXXXXX)
	CORES=$(nproc)
	. "$TOP/t/bench/sinks.bash"
	. "$TOP/t/bench/pages.bash"
	pages_bench "${2:-20000}" "${3:-4}"
	rm -rf "$DIR"
	exit 0
fi
R=${1:-100000}
D=${2:-100}
TOP=$(cd "$(dirname "$0")/../.." && pwd)
ENQ=$TOP/enqueue/mj_enqueue
QR=${QR:-$TOP/queuerun/mj_queuerun} # another build's runner to compare
DIR=$(mktemp -d /tmp/mjq-oneclick.XXXXXX)
chmod 755 "$DIR"
CORES=$(nproc)

. "$TOP/dev/mjq-workdir.sh"
. "$TOP/t/bench/sinks.bash"

sinks_setup
# msg - the post
msg() {
	sinks_msg oneclick
}

# drain NAME URL [WRAP...] - one drain of the post (URL: the list's
# unsubscribe_url, empty for none; WRAP before the runner); sets
# NAME_ms, NAME_cpu
drain() {
	local name=$1 w=$DIR/$1 url=$2
	shift 2
	sinks_list "$w" "$(printf 'dmarc_mitigation = none\nunsubscribe_url = %s' "$url")"
	{
		printf '[dkim]\nsign = yes\nselectors = b1\ned25519_selector =\n'
		printf '[unsubscribe]\nsecret_file = %s\n' "$w/unsubscribe.secret"
	} >>"$w/mjq.conf"
	"$TOP/scripts/mjq-dkimkey" -C "$w/mjq.conf" bench.example b1 >/dev/null
	"$TOP/scripts/mjq-unsubsecret" "$w/unsubscribe.secret"
	sinks_drain "$name" "$w" "$@"
}

# speed ARGS... - openssl speed's rsa2048 sign/s (with -multi: summed)
speed() {
	openssl speed -seconds "${SPEED_SECONDS:-3}" "$@" rsa2048 2>/dev/null |
		awk '/^rsa 2048 bits/ { printf "%d", $6 }'
}

# The one-process figure counts CPU time: best of two, one on each
# side of the drains.  -multi counts wall time, as loaded as the
# per-copy drain it brackets: the mean of the two sides.
one=$(speed)
drain once ""
ROUNDS=${ROUNDS:-3}
NEW=$QR
: >"$DIR/rounds"
for round in $(seq 1 "$ROUNDS"); do
	for who in ${QR_OLD:+old} new; do
		if [ "$who" = old ]; then QR=$QR_OLD; else QR=$NEW; fi
		m1=$(speed -multi "$CORES")
		s0=$(sink_cpu)
		# shellcheck disable=SC2086 # WRAP is words
		drain "pc_$who$round" "https://bench.example/unsubscribe" ${WRAP:-}
		s1=$(sink_cpu)
		m2=$(speed -multi "$CORES")
		eval "ms=\$pc_$who${round}_ms cpu=\$pc_$who${round}_cpu"
		rm -rf "$DIR/pc_$who$round"
		# who round ms cpu multi sinks
		echo "$who $round $ms $cpu $(((m1 + m2) / 2)) $(awk -v a="$s0" -v b="$s1" 'BEGIN { print (b - a) / 1e6 }')" >>"$DIR/rounds"
	done
done
o=$(speed)
[ "$o" -gt "$one" ] && one=$o

awk -v r="$R" -v d="$D" -v ot="$once_ms" -v oc="$once_cpu" -v one="$one" \
	-v cores="$CORES" -v load="$(cut -d' ' -f1-3 /proc/loadavg)" '
function median(a, n,   i, j, t) {
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
BEGIN {
	ow = r / (ot / 1000)
	printf "oneclick R=%d D=%d cores=%d load %s\n", r, d, cores, load
	printf "signed once:   %7.2f s  %7.0f rcpt/s  cpu %7.2f s  %.3f cpu s/1000 rcpt  %7.0f rcpt/cpu s\n", ot / 1000, ow, oc, oc / r * 1000, r / oc
	printf "openssl speed rsa2048 sign/s: one process %d per cpu s (best of two; x %d cores: %d)\n", one, cores, one * cores
}
{
	who = $1; pt = $3; pc = $4; multi = $5; sc = $6
	pw = r / (pt / 1000)
	printf "per copy %s #%d: %6.2f s  %5.0f rcpt/s  cpu %.3f s/1000 rcpt  sinks %.3f s/1000  wall/limit %.2f  wall/-multi %.2f (%d)  cpu %.2f  alone %.2f\n", who, $2, pt / 1000, pw, pc / r * 1000, sc / r * 1000, pw / (one * cores), pw / multi, multi, (r / pc) / one, cores * r / (pc + sc) / (one * cores)
	n[who]++
	wl[who, n[who]] = pw / (one * cores); wm[who, n[who]] = pw / multi
	cu[who, n[who]] = (r / pc) / one; al[who, n[who]] = cores * r / (pc + sc) / (one * cores)
	rate[who, n[who]] = pw; cpk[who, n[who]] = pc / r * 1000; spk[who, n[who]] = sc / r * 1000
}
END {
	for (who in n) {
		k = n[who]
		for (i = 1; i <= k; i++) { a1[i] = rate[who, i]; a2[i] = cpk[who, i]; a3[i] = spk[who, i]; a4[i] = wl[who, i]; a5[i] = wm[who, i]; a6[i] = cu[who, i]; a7[i] = al[who, i] }
		printf "median of %d, %s runner:\n", k, who
		printf "  per copy: %.0f rcpt/s, runner %.3f cpu s/1000 rcpt, sinks %.3f cpu s/1000 rcpt; signed once %.3f\n", median(a1, k), median(a2, k), median(a3, k), oc / r * 1000
		printf "  wall: per copy rcpt/s / (one process x %d cores):  %.2f  (the issue'"'"'s goal: 0.70)\n", cores, median(a4, k)
		printf "  wall: per copy rcpt/s / -multi %d, same load:       %.2f\n", cores, median(a5, k)
		printf "  cpu:  per copy rcpt per runner cpu s / one process: %.2f\n", median(a6, k)
		printf "  runner and sinks alone on %d cores (estimate):      %.2f\n", cores, median(a7, k)
	}
}' "$DIR/rounds"
