#!/bin/bash
# t/bench/dkim.sh R D - what DKIM signing costs: the same post to R
# subscribers over D domains (each its own smtp-sink on loopback)
# drained by mj_queuerun -1 unsigned ([dkim] sign = no) and signed
# (rsa-sha256 2048 + ed25519-sha256), in one run; then the rate of one
# message signed per recipient (mj_dkimsign -n, rsa-sha256 2048, as a
# per-recipient signature would cost) against `openssl speed rsa2048`'s
# private-key operations on the same machine, best of three each.  Needs
# root (smtp-sink -u).
set -eu
R=${1:-100000}
D=${2:-100}
N=${N:-2000} # signatures timed
TOP=$(cd "$(dirname "$0")/../.." && pwd)
ENQ=$TOP/enqueue/mj_enqueue
QR=$TOP/queuerun/mj_queuerun
SIGN=$TOP/t/tools/mj_dkimsign
DIR=$(mktemp -d /tmp/mjq-dkim.XXXXXX)
chmod 755 "$DIR"

. "$TOP/dev/mjq-workdir.sh"
. "$TOP/t/bench/sinks.bash"

sinks_setup
# msg - the post
msg() {
	sinks_msg dkim
}

# drain NAME SIGN - one drain of the post; sets NAME_ms, NAME_cpu
drain() {
	local w=$DIR/$1
	sinks_list "$w" 'dmarc_mitigation = none'
	printf '[dkim]\nsign = %s\nselectors = b1\ned25519_selector = b2\n' "$2" \
		>>"$w/mjq.conf"
	if [ "$2" = yes ]; then
		"$TOP/scripts/mjq-dkimkey" -C "$w/mjq.conf" bench.example b1 >/dev/null
		"$TOP/scripts/mjq-dkimkey" -C "$w/mjq.conf" -t ed25519 bench.example b2 >/dev/null
	fi
	sinks_drain "$1" "$w"
}

drain unsigned no
drain signed yes

# one signature per message, as per-recipient text would need
msg >"$DIR/one"
printf '[dkim]\nselectors = b1\ned25519_selector =\n' >>"$DIR/signed/mjq.conf"
# best of three each, alternating, as the machine may be shared
rate=0 ossl=0
for i in 1 2 3; do
	r=$("$SIGN" -C "$DIR/signed/mjq.conf" -n "$N" bench.example "$DIR/one" | sed 's/.*: \([0-9]*\)\/s/\1/')
	[ "$r" -gt "$rate" ] && rate=$r
	o=$(openssl speed -seconds 2 rsa2048 2>/dev/null | awk '/^rsa 2048 bits/ { printf "%d", $6 }')
	[ "$o" -gt "$ossl" ] && ossl=$o
done

awk -v r="$R" -v d="$D" -v ut="$unsigned_ms" -v st="$signed_ms" \
	-v uc="$unsigned_cpu" -v sc="$signed_cpu" -v rate="$rate" -v ossl="$ossl" 'BEGIN {
	printf "dkim R=%d D=%d\n", r, d
	printf "unsigned: %7.2f s  %9.0f rcpt/s  cpu %.2f s\n", ut / 1000, r / (ut / 1000), uc
	printf "signed:   %7.2f s  %9.0f rcpt/s  cpu %.2f s  (rsa-sha256 + ed25519-sha256, once per text)\n", st / 1000, r / (st / 1000), sc
	printf "signed/unsigned time: %.3f\n", st / ut
	printf "one rsa-sha256 signature per message: %d/s (mj_dkimsign)\n", rate
	printf "openssl speed rsa2048 sign:            %.0f/s\n", ossl
	printf "signing path / bare RSA: %.2f\n", rate / ossl
}'
