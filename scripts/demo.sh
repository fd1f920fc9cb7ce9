#!/bin/sh
# scripts/demo.sh - make demo: a spool and a demo list under demo/ in the
# checkout, mj_queueserv in the foreground, one post to the list, and the
# mail arriving in maildirs (maildir transport: nothing else needed).
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$TOP/scripts/mjq-workdir.sh"
DIR=$TOP/demo
ENQ=$TOP/enqueue/mj_enqueue
QS=$TOP/queueserv/mj_queueserv
QR=$TOP/queuerun/mj_queuerun
QS_PID=

stop() {
	if [ -n "$QS_PID" ]; then
		"$QS" -C "$DIR/mjq.conf" stop >/dev/null 2>&1 || kill "$QS_PID" 2>/dev/null || true
		wait "$QS_PID" 2>/dev/null || true
	fi
}
trap stop EXIT INT TERM

say() {
	printf '\n== %s\n' "$*"
}

rm -rf "$DIR"
mjq_workdir "$DIR"
mkdir -p "$DIR/lists/demo.example/announce" "$DIR/mail"
cat >>"$DIR/mjq.conf" <<EOF
[queueserv]
max_runners = 2
[transport_map]
# every subscriber of the demo gets a maildir of its own
people.demo = maildir:$DIR/mail/\${user}
# mail to the list's own domain (the owner) lands in one maildir
demo.example = maildir:$DIR/mail/owner
EOF
cat >"$DIR/lists/demo.example/announce/config" <<EOF
[list]
owners = owner@demo.example
subject_prefix = [\$LIST]
reply_to = list
archive = $DIR/mail/archive
dmarc_mitigation = munge
EOF
printf '%s\n' alice@people.demo bob@people.demo carol@people.demo \
	dave@people.demo erin@people.demo >"$DIR/lists/demo.example/announce/subscribers"

say "a DKIM key for demo.example (mjq-dkimkey; the runner signs with it)"
"$TOP/scripts/mjq-dkimkey" -C "$DIR/mjq.conf" demo.example mjq

say "the configuration ($DIR/mjq.conf)"
cat "$DIR/mjq.conf"
say "the list: $(wc -l <"$DIR/lists/demo.example/announce/subscribers") subscribers"
cat "$DIR/lists/demo.example/announce/subscribers"

say "starting mj_queueserv"
"$QS" -f -C "$DIR/mjq.conf" 2>"$DIR/queueserv.log" &
QS_PID=$!
i=0
while [ ! -S "$DIR/spool/queueserv.sock" ] && [ $i -lt 100 ]; do
	sleep 0.05
	i=$((i + 1))
done

say "posting to announce@demo.example with mj_enqueue"
"$ENQ" -C "$DIR/mjq.conf" -d demo.example -l announce -r -f sender@elsewhere.demo <<'EOF'
From: Sender <sender@elsewhere.demo>
To: announce@demo.example
Subject: Hello from the mjq demo

This post went through mj_enqueue, the spool, mj_queueserv and a runner,
and was delivered by the maildir transport.
EOF
echo "mj_enqueue exit status: $?"

# the mail is there when every subscriber and the archive have a file
i=0
while [ "$(find "$DIR/mail" -path '*/new/*' -type f | wc -l)" -lt 6 ] && [ $i -lt 200 ]; do
	sleep 0.05
	i=$((i + 1))
done

say "the mail arrived"
(cd "$DIR" && find mail -path '*/new/*' -type f | sort)
say "what alice got: signed by demo.example, From munged (dmarc_mitigation = munge)"
cat "$(find "$DIR/mail/alice/new" -type f | head -1)"
if /usr/bin/python3 -c 'import dkim' 2>/dev/null; then
	say "its DKIM signature, checked by python3-dkim against the key's TXT record"
	/usr/bin/python3 "$TOP/t/tools/mj_dkimverify.py" \
		"$(find "$DIR/mail/alice/new" -type f | head -1)" \
		"$DIR/lists/demo.example/.dkim" || true
fi

say "the runner's log (one line per recipient)"
grep 'to=<' "$DIR/queueserv.log" || cat "$DIR/queueserv.log"

say "the spool listing (mj_queuerun -l): empty when all is delivered"
"$QR" -C "$DIR/mjq.conf" -l
(cd "$DIR/spool" && find QUEUE -type f)

say "mj_queueserv status"
"$QS" -C "$DIR/mjq.conf" status

say "everything is under $DIR; stopping the server"
