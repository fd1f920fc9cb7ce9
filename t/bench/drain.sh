#!/bin/bash
# t/bench/drain.sh [--tls] R D - drain one post to R subscribers spread
# over D domains, each domain its own smtp-sink on loopback: mjq (mj_enqueue,
# then mj_queuerun -1) against a private Postfix instance whose
# transport_maps send the same domains to the same sinks, in the same run.
#
# Timed from the moment the message is queued (mj_enqueue's exit; the
# end of Postfix's sendmail, or of its SMTP submission for lists over
# 100,000) to the moment the queue is empty (the runner
# removes the message after its last recipient is accepted; Postfix's
# qmgr likewise).  Prints both rates, the ratio, CPU seconds per 1000
# recipients and peak RSS.  Needs root (Postfix, smtp-sink -u).
#
# Delivery settings are the two systems' defaults, which match: 20
# sessions per destination (starting at 5), 50 recipients per
# transaction, connection reuse; mjq gets 100 delivery threads as Postfix
# has default_process_limit = 100.
#
# --tls: the sinks are mj_testsmtpd offering STARTTLS (one self-signed
# certificate made here by openssl), both sides at smtp_tls_security_level
# = may, Postfix with its TLS session cache (tlsmgr); also printed: the
# full and resumed handshakes each side made, counted by the sinks.
# VERP=1: every recipient its own envelope sender on both sides (mjq's
# list with verp = yes, which a one-click list and verp_rate's share of
# posts get too; Postfix's sendmail -XV, or XVERP over SMTP): what one
# transaction per recipient costs, against the same run without it.
# Always printed: the sinks' CPU during each run.  QR=path runs another
# mj_queuerun (an older build, to compare plain-text speed before and
# after a change in the same session).
set -eu
TLS=0
VERP=${VERP:-0}
if [ "${1:-}" = --tls ]; then
	TLS=1
	shift
fi
R=${1:-100000}
D=${2:-100}
TOP=$(cd "$(dirname "$0")/../.." && pwd)
ENQ=$TOP/enqueue/mj_enqueue
QR=${QR:-$TOP/queuerun/mj_queuerun}
DIR=$(mktemp -d /tmp/mjq-drain.XXXXXX)
chmod 755 "$DIR"
PF=

. "$TOP/t/postfix-instance.sh"
. "$TOP/dev/mjq-workdir.sh"
. "$TOP/t/bench/sinks.bash"

cleanup() {
	[ -z "$PF" ] || pf_stop "$PF"
	sinks_stop
	rm -rf "$DIR"
}
trap cleanup EXIT

if [ "$(id -u)" -ne 0 ]; then
	echo "drain.sh: needs root (a private Postfix instance)" >&2
	exit 77
fi

# the sinks: one per domain
if [ "$TLS" -eq 1 ]; then
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 \
		-nodes -subj /CN=sink.test -days 2 -keyout "$DIR/sink.key" \
		-out "$DIR/sink.crt" 2>/dev/null
	SINK_TLS_CERT=$DIR/sink.crt SINK_TLS_KEY=$DIR/sink.key
fi
sinks_start "$D"

# the subscribers and the message
subscribers_make "$R" "$D"
msg() {
	printf 'From: poster@example.net\nTo: list@bench.example\n'
	printf 'Subject: drain benchmark\nMessage-Id: <drain.%s@bench.example>\n\n' "$$"
	for i in $(seq 1 40); do
		echo "A line of body text, about seventy characters long, number $i."
	done
}

# --- mjq -----------------------------------------------------------------
sinks_list "$DIR/mjq" "$([ "$VERP" -eq 1 ] && echo 'verp = yes')"
# unsigned, as Postfix sends it here (t/bench/dkim.sh measures signing)
printf '[dkim]\nsign = no\n' >>"$DIR/mjq/mjq.conf"
msg | "$ENQ" -C "$DIR/mjq/mjq.conf" -d bench.example -l list -r -f poster@example.net
s0=$(sink_cpu)
t0=$(ms)
/usr/bin/time -f '%U %S %M' -o "$DIR/mjq.time" \
	"$QR" -C "$DIR/mjq/mjq.conf" -1 2>"$DIR/mjq.log"
t1=$(ms)
mjq_ms=$((t1 - t0))
s1=$(sink_cpu)
read -r mjq_full mjq_resumed < <(sink_handshakes)
mjq_sent=$(grep -c 'status=sent' "$DIR/mjq.log" || true)
read -r mu ms_ mrss <"$DIR/mjq.time"
if [ -n "$(find "$DIR/mjq/spool/QUEUE" -type f)" ] || [ "$mjq_sent" -ne "$R" ]; then
	echo "drain.sh: mjq delivered $mjq_sent of $R" >&2
	grep -v status=sent "$DIR/mjq.log" | head >&2
	exit 1
fi

# --- Postfix -------------------------------------------------------------
PF=$DIR/pf
PF_PORT=$(port_free)
cp "$DIR/map" "$DIR/transport"
pf_create "$PF" "$PF_PORT" \
	"smtpd_recipient_limit = $((R + 1))" \
	"transport_maps = hash:$DIR/transport" \
	"default_process_limit = 100" \
	"smtp_tls_security_level = $([ "$TLS" -eq 1 ] && echo may || echo none)" \
	"smtp_tls_session_cache_database = btree:\$data_directory/smtp_scache" \
	"smtp_dns_support_level = disabled" \
	"message_size_limit = 0"
postmap -c "$PF/etc" "$DIR/transport"
pf_start "$PF"
master=$(cat "$PF/queue/pid/master.pid" | tr -d ' ')

# pf_cpu - CPU ticks of the instance: the master and every descendant,
# with what exited children left in their parents' counters
pf_cpu() {
	local pids p t=0
	pids=$(ps -e -o pid=,ppid= | awk -v m="$master" '
		{ parent[$1] = $2 }
		END { for (p in parent) { q = p; while (q != "" && q != 1 && q != m) q = parent[q]; if (q == m) print p } }')
	for p in $pids; do
		[ -r "/proc/$p/stat" ] || continue
		t=$((t + $(awk '{ print $14 + $15 + $16 + $17 }' "/proc/$p/stat" 2>/dev/null || echo 0)))
	done
	echo "$t"
}
# pf_rss - the sum of the peak RSS (kB) of the instance's processes
pf_rss() {
	local p r=0
	for p in $(ps -e -o pid=,ppid=,comm= | awk -v m="$master" '$2 == m || $1 == m { print $1 }'); do
		r=$((r + $(awk '/^VmHWM/ { print $2 }' "/proc/$p/status" 2>/dev/null || echo 0)))
	done
	echo "$r"
}

pf_queued() {
	find "$PF/queue/incoming" "$PF/queue/active" "$PF/queue/deferred" \
		"$PF/queue/maildrop" -type f 2>/dev/null | wc -l
}

# pf_smtp_submit - one message with every subscriber as a recipient in
# one SMTP transaction to the instance's smtpd (a command line cannot
# hold a million addresses); returns once the message is queued
pf_smtp_submit() {
	local reader
	exec 3<>"/dev/tcp/127.0.0.1/$PF_PORT"
	cat <&3 >"$DIR/pf.smtp" &
	reader=$!
	{
		printf 'EHLO bench.example\r\nMAIL FROM:<poster@example.net>%s\r\n' \
			"$([ "$VERP" -eq 1 ] && echo ' XVERP')"
		sed 's/.*/RCPT TO:<&>\r/' "$DIR/subscribers"
		printf 'DATA\r\n'
	} >&3
	until grep -q '^354' "$DIR/pf.smtp"; do
		grep -q '^[45]' "$DIR/pf.smtp" && break
		sleep 0.05
	done
	{ msg | sed 's/$/\r/'; printf '.\r\nQUIT\r\n'; } >&3
	wait "$reader"
	exec 3>&-
	grep -q '^250 2.0.0 Ok: queued' "$DIR/pf.smtp"
}

c0=$(pf_cpu)
s2=$(sink_cpu)
# one message, R recipients (as one submission): on sendmail's command
# line up to 100,000 of them, over SMTP beyond
if [ "$R" -le 100000 ]; then
	msg | xargs -a "$DIR/subscribers" -x -n "$R" -s 2000000 \
		/usr/sbin/sendmail -C "$PF/etc" -f poster@example.net \
		$([ "$VERP" -eq 1 ] && echo -XV) -- 2>"$DIR/pf.sendmail"
else
	pf_smtp_submit 2>"$DIR/pf.sendmail"
fi || {
	echo "drain.sh: submitting to Postfix failed:" >&2
	cat "$DIR/pf.sendmail" >&2
	grep -v '^250' "$DIR/pf.smtp" 2>/dev/null | head >&2
	exit 1
}
t0=$(ms)
while [ "$(pf_queued)" -ne 0 ]; do
	sleep 0.02
done
t1=$(ms)
pf_ms=$((t1 - t0))
rss=$(pf_rss)
c1=$(pf_cpu)
s3=$(sink_cpu)
read -r all_full all_resumed < <(sink_handshakes)
hz=$(getconf CLK_TCK)
pf_sent=$(grep -c 'status=sent' "$PF/maillog" 2>/dev/null || true)

awk -v r="$R" -v d="$D" -v mt="$mjq_ms" -v pt="$pf_ms" \
	-v mu="$mu" -v ms="$ms_" -v mrss="$mrss" \
	-v pc=$((c1 - c0)) -v hz="$hz" -v prss="$rss" -v psent="$pf_sent" \
	-v verp="$VERP" 'BEGIN {
	mr = r / (mt / 1000); pr = r / (pt / 1000)
	printf "drain R=%d D=%d%s\n", r, d, verp ? " VERP" : ""
	printf "mjq:     %7.2f s  %9.0f rcpt/s  cpu %.4f s/1000 rcpt  peak rss %d kB\n", mt / 1000, mr, (mu + ms) / r * 1000, mrss
	printf "postfix: %7.2f s  %9.0f rcpt/s  cpu %.4f s/1000 rcpt  peak rss %d kB (sum over processes; %d sent in maillog)\n", pt / 1000, pr, pc / hz / r * 1000, prss, psent
	printf "ratio mjq/postfix: %.2fx\n", mr / pr
}'
awk -v sm=$((s1 - s0)) -v sp=$((s3 - s2)) \
	-v mt="$mjq_ms" -v pt="$pf_ms" 'BEGIN { sm /= 1e6; sp /= 1e6
	printf "sink CPU: during mjq %.2f s (%.0f%% of one core), during postfix %.2f s (%.0f%%)\n",
		sm, sm / (mt / 1000) * 100, sp, sp / (pt / 1000) * 100 }'
if [ "$TLS" -eq 1 ]; then
	echo "TLS handshakes seen by the sinks: mjq full=$mjq_full resumed=$mjq_resumed;" \
		"postfix full=$((all_full - mjq_full)) resumed=$((all_resumed - mjq_resumed))"
	grep 'TLS handshakes' "$DIR/mjq.log" | sed 's/^/mjq runner: /'
fi
