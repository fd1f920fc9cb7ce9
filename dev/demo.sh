#!/bin/sh
# dev/demo.sh - make demo: a spool and a demo list under demo/ in the
# checkout, mj_queueserv in the foreground, and mail arriving in maildirs
# (maildir transport: nothing else needed):
#
#   1. a subscriber posts: every subscriber and the archive get the post,
#      DKIM-signed by the list's domain;
#   2. a stranger posts: the post is held, the moderator's notice lands in
#      the owner's maildir, the demo replies to it as a moderator would
#      (through mj_enqueue, to the address the notice comes from), and the
#      post then arrives like the first.
#
# Each step waits for its mail to appear (bounded: 30 s), and the demo
# fails with the server's log if it does not.
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$TOP/dev/mjq-workdir.sh"
DIR=$TOP/demo
ENQ=$TOP/enqueue/mj_enqueue
QS=$TOP/queueserv/mj_queueserv
QR=$TOP/queuerun/mj_queuerun
LIST=$DIR/lists/demo.example/announce
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

# wait_for WHAT COMMAND... - poll until COMMAND succeeds; after 30 s the
# demo fails, saying what did not come
wait_for() {
	what=$1
	shift
	i=0
	until "$@"; do
		i=$((i + 1))
		if [ $i -gt 600 ]; then
			echo "demo: $what did not come within 30s; the server's log:" >&2
			cat "$DIR/queueserv.log" >&2
			exit 1
		fi
		sleep 0.05
	done
}

# copies N - every subscriber's maildir and the archive hold N messages
copies() {
	for box in $(sed 's/@.*//' "$LIST/subscribers") archive; do
		[ "$(find "$DIR/mail/$box/new" -type f 2>/dev/null | wc -l)" -eq "$1" ] ||
			return 1
	done
}

# spool_holds N - nothing in QUEUE/ (every message delivered and
# removed), N posts in HOLD/
spool_holds() {
	[ -z "$(find "$DIR/spool/QUEUE" -type f)" ] &&
		[ "$(find "$DIR/spool/HOLD" -type f ! -name '.*' 2>/dev/null | wc -l)" -eq "$1" ]
}

# owner_got SUBJECT - the owner's maildir holds a message with SUBJECT
owner_got() {
	grep -lqs "^Subject: $1" "$DIR"/mail/owner/new/*
}

# newest BOX - the newest message in the maildir BOX
newest() {
	ls -t "$DIR"/mail/"$1"/new/* | head -1
}

# boxes - how many messages each maildir holds
boxes() {
	for d in "$DIR"/mail/*/; do
		printf '  %-8s %s\n' "$(basename "$d")" "$(find "$d/new" -type f | wc -l)"
	done
}

rm -rf "$DIR"
mjq_workdir "$DIR"
mkdir -p "$LIST" "$DIR/mail"
cat >>"$DIR/mjq.conf" <<EOF
[queueserv]
max_runners = 2
[transport_map]
# every subscriber of the demo gets a maildir of its own
people.demo = maildir:$DIR/mail/\${user}
# mail to the list's own domain (the owner) lands in one maildir
demo.example = maildir:$DIR/mail/owner
[archive]
# the list's web archive (mj_archive): its index and its pages
dir = $DIR/archive
public_dir = $DIR/www
EOF
cat >"$LIST/config" <<EOF
[list]
owners = owner@demo.example
subject_prefix = [\$LIST]
reply_to = list
archive = $DIR/mail/archive
dmarc_mitigation = munge
archive_web = yes
archive_url = file://$DIR/www/demo.example/announce/
archived_at_url = file://$DIR/www/demo.example/announce/msg/\$MSGID/
EOF
printf '%s\n' alice@people.demo bob@people.demo carol@people.demo \
	dave@people.demo erin@people.demo >"$LIST/subscribers"

say "a DKIM key for demo.example (mjq-dkimkey; the runner signs with it)"
"$TOP/scripts/mjq-dkimkey" -C "$DIR/mjq.conf" demo.example mjq

say "the configuration ($DIR/mjq.conf)"
cat "$DIR/mjq.conf"
say "the list announce@demo.example: $(wc -l <"$LIST/subscribers") subscribers, owner owner@demo.example"
cat "$LIST/subscribers"

say "starting mj_queueserv"
"$QS" -f -C "$DIR/mjq.conf" 2>"$DIR/queueserv.log" &
QS_PID=$!
wait_for "the server's socket" test -S "$DIR/spool/queueserv.sock"

say "1. alice, a subscriber, posts to announce@demo.example with mj_enqueue"
"$ENQ" -C "$DIR/mjq.conf" -d demo.example -l announce -r -f alice@people.demo <<'EOF'
From: Alice <alice@people.demo>
To: announce@demo.example
Subject: Hello from the mjq demo
Message-ID: <hello.1@people.demo>

This post went through mj_enqueue, the spool, mj_queueserv and a runner,
and was delivered by the maildir transport.
EOF
echo "mj_enqueue exit status: $?"
wait_for "alice's post" copies 1
echo "delivered: every subscriber and the archive have a copy"
boxes

say "what bob got: signed by demo.example (the DKIM-Signature on top), From munged (dmarc_mitigation = munge)"
cat "$(newest bob)"
if /usr/bin/python3 -c 'import dkim' 2>/dev/null; then
	say "its DKIM signature, checked by python3-dkim against the key's TXT record"
	/usr/bin/python3 "$TOP/t/tools/mj_dkimverify.py" "$(newest bob)" \
		"$DIR/lists/demo.example/.dkim" || true
fi

say "2. a stranger, not a subscriber, posts: posting = subscribers (the default) holds it"
"$ENQ" -C "$DIR/mjq.conf" -d demo.example -l announce -r -f stranger@elsewhere.demo <<'EOF'
From: Stranger <stranger@elsewhere.demo>
To: announce@demo.example
Subject: May I join in?
Message-ID: <join.1@elsewhere.demo>

A post from outside the list waits for a moderator.
EOF
wait_for "the moderator's notice" owner_got 'approve '
wait_for "the held post" spool_holds 1
notice=$(grep -ls '^Subject: approve ' "$DIR"/mail/owner/new/*)
echo "held (mj_queuerun -l):"
"$QR" -C "$DIR/mjq.conf" -l

say "the notice in the owner's maildir (its headers after the signature)"
sed -n '/^From:/,$p' "$notice"

# The moderator replies: to the notice's Reply-To, else its From; the
# MTA's alias for <list>-request runs mj_enqueue -q for the list.
to=$(sed -n '/^$/q; s/^Reply-To: *//p' "$notice" | tr -d '<>')
[ -n "$to" ] || to=$(sed -n '/^$/q; s/^From: *//p' "$notice" | tr -d '<>')
subject=$(sed -n '/^$/q; s/^Subject: *//p' "$notice")
msgid=$(sed -n '/^$/q; s/^Message-Id: *//p' "$notice")
case ${to%@*} in
*-request) ;;
*)
	echo "demo: the notice is from $to, not a -request address" >&2
	exit 1
	;;
esac
rlist=${to%@*}
rlist=${rlist%-request}
rdomain=${to#*@}
say "the owner replies to $to: mj_enqueue -q -d $rdomain -l $rlist"
# a mail client's reply: Re: on the notice's Subject, its text quoted
# (the -request address skips quoted lines; the Subject approves)
{
	printf 'From: Owner <owner@demo.example>\nTo: %s\n' "$to"
	printf 'Subject: Re: %s\nIn-Reply-To: %s\n\n' "$subject" "$msgid"
	sed '1,/^$/d; s/^/> /' "$notice"
} >"$DIR/reply"
sed -n '1,/^$/p' "$DIR/reply"
echo "> (the notice's text, quoted)"
"$ENQ" -C "$DIR/mjq.conf" -d "$rdomain" -l "$rlist" -q -f owner@demo.example \
	<"$DIR/reply"
wait_for "the approved post" copies 2
wait_for "the owner's confirmation" owner_got 'Re: '
echo "delivered: every subscriber and the archive have a second copy"
boxes
say "what bob got the second time (headers and text)"
sed -n '/^From:/p; /^Subject:/p; /^$/,$p' "$(newest bob)"
say "the owner's confirmation"
sed -n '/^$/,$p' "$(newest owner)" | sed 1d

say "the web archive (mj_archive): each post on its page, where its Archived-At points"
at=$(sed -n 's|^Archived-At: <file://\(.*\)>$|\1|p' "$(newest bob)")
wait_for "the post's archive page" test -s "${at}index.html"
echo "Archived-At of bob's copy: file://${at}"
echo "the archive's pages: file://$DIR/www/demo.example/announce/index.html"
grep -o '<h1>[^<]*</h1>' "${at}index.html"

say "the runner's log (one line per recipient, the approval)"
grep 'to=<\|approved by' "$DIR/queueserv.log" || cat "$DIR/queueserv.log"

say "the spool listing (mj_queuerun -l): empty when all is delivered"
wait_for "an empty spool" spool_holds 0
"$QR" -C "$DIR/mjq.conf" -l

say "mj_queueserv status"
"$QS" -C "$DIR/mjq.conf" status

say "everything is under $DIR; stopping the server"
