#!/bin/bash
# t/bench/limited.sh [R [N [RUNS]]] - mjq beside Postfix against a server
# that refuses every session beyond N (default 5) at once with 421
# (mj_testsmtpd --max-sessions N): POSTS (default 1) posts to R (default
# 20000) recipients of one destination, 50 per transaction, both systems
# at their defaults (window 5 growing to 20, feedback 1/concurrency,
# connection cache 2 s), backoff shortened to 2-4 s on both sides so that
# a run ends.  mjq runs under mj_queueserv with RUNNERS (default 5)
# runners.  Per run, for each: drain time, sessions, sessions refused
# with 421 and the most open at once (the server's --stats), recipient
# deferrals (the logs' status=deferred lines); then the mjq/Postfix
# ratios of refusals and deferrals over all RUNS (default 3) runs.  Exits
# 1 when either did not deliver every recipient.  Both log every feedback
# step (destination_concurrency_feedback_debug); FEEDBACK=1/concurrency
# sets both sides' feedback (Postfix's default is 1, mjq's 1/concurrency).
# Needs root (a private Postfix instance, t/postfix-instance.sh).  KEEP=1
# keeps the work directory (logs, the servers' --stats-log: the sessions
# open and refused over time).
set -eu
R=${1:-20000}
N=${2:-5}
RUNS=${3:-3}
POSTS=${POSTS:-1}
FEEDBACK=${FEEDBACK:-} # e.g. 1/concurrency: both sides' feedback
RUNNERS=${RUNNERS:-5}
TOP=$(cd "$(dirname "$0")/../.." && pwd)
ENQ=$TOP/enqueue/mj_enqueue
QS=$TOP/queueserv/mj_queueserv
SMTPD=$TOP/t/tools/mj_testsmtpd
DIR=$(mktemp -d /tmp/mjq-limited.XXXXXX)
chmod 755 "$DIR"
PF= QS_PID= SMTPD_PID=

. "$TOP/t/postfix-instance.sh"
. "$TOP/dev/mjq-workdir.sh"
. "$TOP/t/bench/sinks.bash"

cleanup() {
	[ -z "$PF" ] || pf_stop "$PF"
	[ -z "$QS_PID" ] || kill "$QS_PID" 2>/dev/null || true
	[ -z "$SMTPD_PID" ] || kill "$SMTPD_PID" 2>/dev/null || true
	wait 2>/dev/null || true
	[ -n "${KEEP:-}" ] || rm -rf "$DIR"
}
trap cleanup EXIT

if [ "$(id -u)" -ne 0 ]; then
	echo "limited.sh: needs root (a private Postfix instance)" >&2
	exit 77
fi

# smtpd_run NAME - a fresh limiting server with its files under
# $DIR/NAME; sets PORT
smtpd_run() {
	mkdir -p "$DIR/$1"
	"$SMTPD" --port-file "$DIR/$1/port" --stats "$DIR/$1/stats" \
		--stats-log "$DIR/$1/stats.log" --max-sessions "$N" \
		2>"$DIR/$1/stderr" &
	SMTPD_PID=$!
	until [ -s "$DIR/$1/port" ]; do sleep 0.02; done
	PORT=$(cat "$DIR/$1/port")
}

smtpd_end() {
	kill "$SMTPD_PID"
	wait "$SMTPD_PID" 2>/dev/null || true
	SMTPD_PID=
}

# stat NAME FIELD - a field of the server's --stats line
stat() {
	tr ' ' '\n' <"$DIR/$1/stats" | sed -n "s/^$2=//p"
}

seq -f 'u%g@d.test' 1 "$R" >"$DIR/subscribers"
msg() {
	printf 'From: poster@example.net\nTo: list@bench.example\n'
	printf 'Subject: limited %s\nMessage-Id: <limited.%s.%s@bench.example>\n\n' "$1" "$1" "$$"
	for i in $(seq 1 40); do
		echo "A line of body text, about seventy characters long, number $i."
	done
}

# mjq_run K - run K under mj_queueserv; prints its figures
mjq_run() {
	local w=$DIR/mjq$1 t0 t1 p
	smtpd_run "m$1"
	mjq_workdir "$w"
	mkdir -p "$w/lists/bench.example/list"
	cp "$DIR/subscribers" "$w/lists/bench.example/list/subscribers"
	printf '[list]\nposting = open\n' >"$w/lists/bench.example/list/config"
	cat >>"$w/mjq.conf" <<-EOF
		[dkim]
		sign = no
		[queueserv]
		max_runners = $RUNNERS
		min_runners = $RUNNERS
		queue_run_delay = 1s
		[delivery]
		delivery_threads = 100
		minimal_backoff_time = 2s
		maximal_backoff_time = 4s
		destination_concurrency_feedback_debug = yes
		${FEEDBACK:+destination_concurrency_positive_feedback = $FEEDBACK}
		${FEEDBACK:+destination_concurrency_negative_feedback = $FEEDBACK}
		[transport_map]
		d.test = smtp:[127.0.0.1]:$PORT
	EOF
	"$QS" -f -d -C "$w/mjq.conf" </dev/null >"$w/log" 2>&1 &
	QS_PID=$!
	until "$QS" -C "$w/mjq.conf" status >/dev/null 2>&1; do sleep 0.02; done
	t0=$(ms)
	for p in $(seq "$POSTS"); do
		msg "$1.$p" | "$ENQ" -C "$w/mjq.conf" -d bench.example -l list -r \
			-f poster@example.net
	done
	while [ -n "$(find "$w/spool/QUEUE" -type f ! -name '.*' | head -1)" ]; do
		sleep 0.02
	done
	t1=$(ms)
	"$QS" -C "$w/mjq.conf" stop >/dev/null || true
	wait "$QS_PID" 2>/dev/null || true
	QS_PID=
	smtpd_end
	echo "mjq $((t1 - t0)) $(stat "m$1" sessions) $(stat "m$1" refused)" \
		"$(stat "m$1" max_open) $(grep -c 'status=deferred' "$w/log" || true)" \
		"$(grep -c 'status=sent' "$w/log" || true)"
}

# pf_run K - the same through a private Postfix; prints its figures
pf_run() {
	local t0 t1 p
	smtpd_run "p$1"
	PF=$DIR/pf$1
	printf 'd.test smtp:[127.0.0.1]:%s\n' "$PORT" >"$DIR/transport$1"
	pf_create "$PF" "$(port_free)" \
		"relay_domains = d.test" \
		"transport_maps = hash:$DIR/transport$1" \
		"default_process_limit = 100" \
		"smtp_tls_security_level = none" \
		"smtp_dns_support_level = disabled" \
		"minimal_backoff_time = 2s" \
		"maximal_backoff_time = 4s" \
		"queue_run_delay = 1s" \
		"destination_concurrency_feedback_debug = yes" \
		${FEEDBACK:+"default_destination_concurrency_positive_feedback = $FEEDBACK"} \
		${FEEDBACK:+"default_destination_concurrency_negative_feedback = $FEEDBACK"} \
		>"$DIR/pf-create.log" 2>&1
	postmap -c "$PF/etc" "$DIR/transport$1"
	pf_start "$PF"
	t0=$(ms)
	for p in $(seq "$POSTS"); do
		msg "$1.$p" | xargs -a "$DIR/subscribers" -x -n "$R" -s 2000000 \
			/usr/sbin/sendmail -C "$PF/etc" -f poster@example.net --
	done
	until [ "$(find "$PF/queue/incoming" "$PF/queue/active" \
		"$PF/queue/deferred" "$PF/queue/maildrop" -type f | wc -l)" -eq 0 ]; do
		sleep 0.02
	done
	t1=$(ms)
	pf_stop "$PF"
	PF=
	smtpd_end
	echo "postfix $((t1 - t0)) $(stat "p$1" sessions) $(stat "p$1" refused)" \
		"$(stat "p$1" max_open) $(grep -c 'status=deferred' "$DIR/pf$1/maillog" || true)" \
		"$(grep -c 'status=sent' "$DIR/pf$1/maillog" || true)"
}

echo "limited R=$R N=$N POSTS=$POSTS RUNNERS=$RUNNERS RUNS=$RUNS"
echo "system   drain_ms sessions refused max_open deferrals sent"
for k in $(seq "$RUNS"); do
	mjq_run "$k"
	pf_run "$k"
done | tee "$DIR/figures" | column -t
# every recipient sent, by each
awk -v want=$((R * POSTS)) '$7 != want { print "limited.sh: " $1 " sent " $7 " of " want; bad = 1 }
	END { exit bad }' "$DIR/figures" >&2
awk '{ s[$1] += $4; d[$1] += $6 } END {
	printf "mjq/postfix over %d runs: refused %d/%d = %.2fx, deferrals %d/%d = %.2fx\n",
		NR / 2, s["mjq"], s["postfix"], s["mjq"] / (s["postfix"] ? s["postfix"] : 1),
		d["mjq"], d["postfix"], d["mjq"] / (d["postfix"] ? d["postfix"] : 1) }' "$DIR/figures"
