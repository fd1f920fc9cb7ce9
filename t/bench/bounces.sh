#!/bin/bash
# t/bench/bounces.sh - the bounce corpus (t/data/bounce-corpus/, 276 real
# reports from 56 MTAs and providers) through GNU Mailman 3's bounce
# scanner (Debian's python3-flufl.bounce: all_failures, which returns the
# temporary and the permanent failures it finds) and through mjq's reader
# (lists/bounce_parse.c, in one process: t/tools/mj_bounceparse), side by
# side: the failed address found, policy refusals counted as hard
# bounces, unknown users counted, agreement with the corpus's table
# (t/data/bounce-score.awk), and reports per second of the parsing alone.
#
# Each report is given as the list's -owner address receives it
# (t/bounce_corpus.bash: Postfix's Return-Path and Delivered-To on top).
# Mailman has no classes: what it calls permanent is counted as a
# recipient failure, what it calls temporary as transient.
#   t/bench/bounces.sh [ROUNDS]     ROUNDS (default 20) timing passes
set -eu
ROUNDS=${1:-20}
TOP=$(cd "$(dirname "$0")/../.." && pwd)
DIR=$(mktemp -d /tmp/mjq-bounces.XXXXXX)
trap 'rm -rf "$DIR"' EXIT
. "$TOP/t/bounce_corpus.bash"

if ! /usr/bin/python3 -c 'import flufl.bounce' 2>/dev/null; then
	echo "bounces.sh: needs python3-flufl.bounce (sh dev/deps.sh bench)" >&2
	exit 77
fi

mkdir "$DIR/in"
for f in "$CORPUS"/*.eml; do
	corpus_delivered "$f" corpus example.org >"$DIR/in/${f##*/}"
done

# --- mjq -----------------------------------------------------------------
"$TOP/t/tools/mj_bounceparse" -n "$ROUNDS" "$DIR"/in/*.eml \
	>"$DIR/mjq.tsv" 2>"$DIR/mjq.rate"

# --- Mailman 3 (flufl.bounce) --------------------------------------------
/usr/bin/python3 - "$ROUNDS" "$DIR"/in/*.eml >"$DIR/mm.tsv" 2>"$DIR/mm.rate" <<'PY'
import email, os, sys, time
from email import policy
from flufl.bounce import all_failures

rounds = int(sys.argv[1])
msgs = []
for path in sys.argv[2:]:
    with open(path, 'rb') as f:
        msgs.append((os.path.basename(path),
                     email.message_from_binary_file(f, policy=policy.compat32)))

def scan(msg):
    try:
        return all_failures(msg)
    except Exception:
        return set(), set()

for name, msg in msgs:
    temp, perm = scan(msg)
    for a in perm:
        print('%s\t%s\trecipient' % (name, a.decode('utf-8', 'replace') if isinstance(a, bytes) else a))
    for a in temp - perm:
        print('%s\t%s\ttransient' % (name, a.decode('utf-8', 'replace') if isinstance(a, bytes) else a))
t0 = time.monotonic()
for r in range(rounds):
    for name, msg in msgs:
        scan(msg)
t = time.monotonic() - t0
print('%.0f reports/s' % (len(msgs) * rounds / t if t > 0 else 0), file=sys.stderr)
PY

score() {
	awk -F '\t' -f "$TOP/t/data/bounce-score.awk" "$CORPUS/expected.tsv" "$1" |
		awk '/^[a-z_]+ [0-9.]+$/ { v[$1] = $2 }
		END { printf "%6.1f%% %6d %8.1f%% %8.1f%%", v["found_pct"],
			v["policy_counted"], v["unknown_counted_pct"], v["agree_pct"] }'
}
n=$(ls "$DIR/in" | wc -l)
echo "bounce corpus: $n reports, $(grep -vc '^#' "$CORPUS/expected.tsv") failed recipients, $ROUNDS timing rounds"
printf '%-22s %7s %6s %9s %9s %12s\n' "" found policy unknown agree reports/s
printf '%-22s %s %12s\n' "mjq" "$(score "$DIR/mjq.tsv")" "$(awk '{ print $1 }' "$DIR/mjq.rate")"
printf '%-22s %s %12s\n' "Mailman 3 flufl.bounce" "$(score "$DIR/mm.tsv")" "$(awk '{ print $1 }' "$DIR/mm.rate")"
echo "(policy: policy refusals counted against the subscriber; unknown: unknown users counted)"
