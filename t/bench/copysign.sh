#!/bin/bash
# t/bench/copysign.sh [N] - what a one-click copy costs the runner beside
# the RSA operation: N copies' own header fields (the unsubscribe link
# and a DKIM signature, rsa-sha256 2048) made on one thread by
# t/tools/mj_copysign, as the delivery threads make them
# (lists/rcpt_head.c).
#   instructions: counted by valgrind's callgrind over rcpt_head_make
#                 only, once whole and once with RSA_private_encrypt left
#                 out: per copy, all and beside the RSA operation, and
#                 that share.  Repeatable on a busy machine.
#   time:         CPU microseconds per copy (best of three) against
#                 `openssl speed -seconds 3 rsa2048`'s per signature
#                 (best of two): noisy on a shared machine.
# BIN, when set, is another build's mj_copysign to measure; ARC=1 puts
# a post's ARC set on the text (see below).  LINK=1 gives the post a
# footer with each copy's own link ($UNSUBSCRIBE_URL): each copy is made
# whole, its body hashed and signed per copy (mj_copysign -l), and with
# ARC=1 sealed per copy (-l -s) instead of carrying the text's set;
# without LINK the post has the same footer with the list's mailto, one
# text for all.  Needs
# valgrind.
set -eu
N=${1:-300}
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${BIN:-$TOP/t/tools/mj_copysign}
DIR=$(mktemp -d /tmp/mjq-copysign.XXXXXX)
trap 'rm -rf "$DIR"' EXIT

. "$TOP/dev/mjq-workdir.sh"
. "$TOP/t/bench/sinks.bash"

mjq_workdir "$DIR"
printf '[dkim]\nsign = yes\nselectors = b1\ned25519_selector =\n[unsubscribe]\nsecret_file = %s\n' \
	"$DIR/unsubscribe.secret" >>"$DIR/mjq.conf"
"$TOP/scripts/mjq-dkimkey" -C "$DIR/mjq.conf" bench.example b1 >/dev/null
"$TOP/scripts/mjq-unsubsecret" "$DIR/unsubscribe.secret"
# the post as the runner delivers it: the list's fields on top
{
	printf 'List-Id: <list.bench.example>\nList-Post: <mailto:list@bench.example>\n'
	printf 'List-Help: <mailto:majordomo@bench.example?body=help>\nPrecedence: list\n'
	sinks_msg copysign
	printf -- '-- \nleave list: %s\n' "$(if [ "${LINK:-}" = 1 ]; then
		printf '\037mjq-unsubscribe-url\037'
	else
		printf 'mailto:majordomo@bench.example?body=unsubscribe%%20list'
	fi)"
} >"$DIR/msg"
OPT=()
[ "${LINK:-}" != 1 ] || OPT=(-l)
[ "${LINK:-}" != 1 ] || [ "${ARC:-}" != 1 ] || OPT=(-l -s)
# ARC=1: the text as the runner now makes a one-click post's, its ARC
# set on top (mj_dkimsign -a, without its DKIM-Signature: each copy has
# its own), so the copies' parse meets the seal's three fields
if [ "${ARC:-}" = 1 ] && [ "${LINK:-}" != 1 ]; then
	"$TOP/t/tools/mj_dkimsign" -a -C "$DIR/mjq.conf" bench.example "$DIR/msg" |
		awk 'hdr == 0 && /^$/ { hdr = 1 }
			hdr == 0 && /^[^ \t]/ { skip = /^DKIM-Signature:/ }
			hdr == 0 && skip { next } { print }' >"$DIR/msg.arc"
	mv "$DIR/msg.arc" "$DIR/msg"
fi

# instructions [TOGGLE...] - callgrind's count of the copies' instructions
instructions() {
	local t args=()
	for t in rcpt_head_make "$@"; do args+=("--toggle-collect=$t"); done
	valgrind --tool=callgrind --callgrind-out-file="$DIR/cg.out" "${args[@]}" \
		"$BIN" -C "$DIR/mjq.conf" "${OPT[@]}" -n "$N" bench.example list "$DIR/msg" 2>&1 >/dev/null |
		awk '/Collected :/ { print $NF }'
}

# cpu_us - CPU microseconds per copy, best of three
cpu_us() {
	local i
	for i in 1 2 3; do
		"$BIN" -C "$DIR/mjq.conf" "${OPT[@]}" -n 3000 bench.example list "$DIR/msg"
	done | awk '{ us = $(NF - 2); if (best == "" || us < best) best = us } END { print best }'
}

# rsa_us - openssl speed's microseconds per rsa2048 signature, best of two
rsa_us() {
	local i
	for i in 1 2; do
		openssl speed -seconds 3 rsa2048 2>/dev/null
	done | awk '/^rsa 2048 bits/ { if (best == "" || $6 > best) best = $6 } END { print 1e6 / best }'
}

all=$(instructions)
beside=$(instructions RSA_private_encrypt)
us=$(cpu_us)
rsa=$(rsa_us)
awk -v n="$N" -v all="$all" -v beside="$beside" -v us="$us" -v rsa="$rsa" 'BEGIN {
	printf "copysign N=%d (%s%s%s)\n", n, ENVIRON["BIN"] != "" ? ENVIRON["BIN"] : "this build", ENVIRON["ARC"] == "1" ? ", ARC-sealed" : "", ENVIRON["LINK"] == "1" ? ", own footer link" : ", shared footer"
	printf "instructions per copy: %.0f, beside RSA_private_encrypt %.0f (%.2f%%)\n", all / n, beside / n, 100 * beside / all
	printf "cpu per copy: %.1f us; openssl speed rsa2048: %.1f us per signature; beside it %.1f us (%.1f%%)\n", us, rsa, us - rsa, 100 * (us - rsa) / us
}'
