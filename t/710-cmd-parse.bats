#!/usr/bin/env bats
# The request command parser (lists/cmd_parse.c, cmd_mime.c) through
# t/tools/mj_cmdparse: which lines of which part become which commands.

load helpers

PARSE=$TOP/t/tools/mj_cmdparse

@test "subject and body; quoted text skipped; a signature ends the commands" {
	run "$PARSE" <<-'EOF'
	From: Ann <ann@example.net>
	Subject: Re: subscribe mylist

	subscribe other x@example.org
	> who mylist
	  help
	-- 
	who mylist
	EOF
	[ "$status" -eq 0 ]
	[ "$output" = $'subscribe list=mylist\nsubscribe list=other addr=x@example.org\nhelp' ]
}

@test "end, exit and quit end the commands; a bare -- too" {
	for stop in end EXIT quit --; do
		run "$PARSE" <<<$'Subject: x\n\nlists\n'"$stop"$'\nhelp\n'
		[ "$output" = "lists" ]
	done
}

@test "a subject that is not a command is ignored, not an error" {
	run "$PARSE" <<<$'Subject: hello there\n\nlists\n'
	[ "$output" = "lists" ]
}

@test "every command and its arguments; names and tokens folded to lower case" {
	run "$PARSE" <<-'EOF'
	Subject: commands

	help
	lists
	info MyList
	subscribe mylist <Bob@Example.org>
	unsubscribe mylist
	signoff mylist bob@example.org
	which
	which bob@example.org
	who mylist
	confirm 0123ABCdef
	EOF
	[ "$output" = "help
lists
info list=mylist
subscribe list=mylist addr=Bob@Example.org
unsubscribe list=mylist
unsubscribe list=mylist addr=bob@example.org
which
which addr=bob@example.org
who list=mylist
confirm token=0123abcdef" ]
}

@test "mail to <list>-request implies the list; majordomo@ needs it" {
	body=$'Subject: x\n\nsubscribe\nunsubscribe x@example.org\nwho\n'
	run "$PARSE" -l mylist <<<"$body"
	[ "$output" = $'subscribe list=mylist\nunsubscribe list=mylist addr=x@example.org\nwho list=mylist' ]
	run "$PARSE" <<<"$body"
	[ "$output" = $'error: which list? (give its name): subscribe\nerror: which list? (give its name): unsubscribe x@example.org\nerror: which list? (give its name): who' ]
}

@test "malformed arguments are errors naming the line" {
	run "$PARSE" <<-'EOF'
	Subject: x

	confirm
	confirm abc-def
	subscribe mylist not-an-address@
	subscribe ../etc
	help me please
	EOF
	[ "$output" = "error: which token? (confirm TOKEN): confirm
error: malformed token: confirm abc-def
error: malformed address (empty domain): subscribe mylist not-an-address@
error: malformed list name: subscribe ../etc
error: too many arguments: help me please" ]
}

@test "the command of a -c name is the whole request: the text is not read" {
	run "$PARSE" -l mylist -s subscribe <<<$'Subject: unsubscribe mylist\n\nunsubscribe mylist\n'
	[ "$output" = "subscribe list=mylist" ]
	run "$PARSE" -l mylist -s unsubscribe </dev/null
	[ "$output" = "unsubscribe list=mylist" ]
}

@test "multipart/alternative: the text/plain part is read, the HTML part never" {
	run "$PARSE" <<-'EOF'
	Subject: x
	MIME-Version: 1.0
	Content-Type: multipart/alternative; boundary="b1"

	preamble is not read
	--b1
	Content-Type: text/html; charset=utf-8

	<p>unsubscribe mylist</p>
	unsubscribe mylist
	--b1
	Content-Type: text/plain; charset=utf-8

	subscribe mylist
	--b1--
	epilogue who mylist
	EOF
	[ "$output" = "subscribe list=mylist" ]
}

@test "an HTML-only message gives no commands from its body" {
	run "$PARSE" <<<$'Subject: lists\nContent-Type: text/html\n\n<p>help</p>\nhelp\n'
	[ "$output" = "lists" ]
}

@test "nested multipart with a base64 text/plain part" {
	enc=$(printf 'help\r\nwho mylist\r\nend\r\nlists\r\n' | base64)
	run "$PARSE" <<-EOF
	Subject: x
	Content-Type: multipart/mixed; boundary=outer

	--outer
	Content-Type: multipart/alternative; boundary="inner"

	--inner
	Content-Type: text/plain
	Content-Transfer-Encoding: base64

	$enc
	--inner--
	--outer--
	EOF
	[ "$output" = $'help\nwho list=mylist' ]
}

@test "quoted-printable: soft line breaks and escapes decoded" {
	run "$PARSE" <<-'EOF'
	Subject: x
	Content-Type: text/plain; charset=utf-8
	Content-Transfer-Encoding: quoted-printable

	subscri=
	be mylist
	info=20mylist
	EOF
	[ "$output" = $'subscribe list=mylist\ninfo list=mylist' ]
}

@test "CRLF line endings" {
	run "$PARSE" < <(printf 'Subject: x\r\n\r\nlists\r\nend\r\nhelp\r\n')
	[ "$output" = "lists" ]
}

@test "repeated commands count once: a confirm in the subject and the body" {
	run "$PARSE" <<<$'Subject: Re: confirm abc123\n\nconfirm abc123\n> confirm abc123\nconfirm ABC123\n'
	[ "$output" = "confirm token=abc123" ]
}

@test "prose stops the parse after five unknown lines" {
	run "$PARSE" <<<$'Subject: x\n\nhelp\na\nb\nc\nd\ne\nf\nlists\n'
	[ "$output" = "help
error: unknown command: a
error: unknown command: b
error: unknown command: c
error: unknown command: d
error: unknown command: e
truncated" ]
}

@test "at most 50 commands; an over-long line is an error, not a command" {
	body=$(for i in $(seq 1 60); do echo "info list$i"; done)
	run "$PARSE" <<<$'Subject: x\n\n'"$body"
	[ "${#lines[@]}" -eq 51 ]
	[ "${lines[49]}" = "info list=list50" ]
	[ "${lines[50]}" = "truncated" ]
	long="subscribe mylist $(printf 'x%.0s' $(seq 1 300))@example.org"
	run "$PARSE" <<<$'Subject: x\n\n'"$long"
	[ "${output:0:37}" = "error: line too long: subscribe mylis" ]
	[ "${output: -3}" = "..." ]
}

# subject_gives SUBJECT COMMANDS - a message with that Subject (and
# "lists" in its body) gives those commands
subject_gives() {
	run "$PARSE" <<<"Subject: $1"$'\n\nlists\n'
	[ "$output" = "$2"$'\nlists' ]
}

@test "an RFC 2047 encoded subject is decoded: Q and B words, blanks between words dropped" {
	subject_gives '=?UTF-8?Q?subscribe_mylist?=' 'subscribe list=mylist'
	# two words with folding between them make one text
	subject_gives $'Re: =?utf-8?q?unsub?=\n =?ISO-8859-1?Q?scribe_mylist?=' \
		'unsubscribe list=mylist'
	subject_gives '=?UTF-8?B?d2hvIG15bGlzdA==?=' 'who list=mylist'
	# not encoded-words: left as they are (and not a command)
	run "$PARSE" <<<$'Subject: =?UTF-8?X?help?= =?broken\n\nlists\n'
	[ "$output" = "lists" ]
}

@test "a Subject's encoded-words are read in their charsets: a command in UTF-16 words parses, an unknown charset's ASCII stays" {
	subject_gives "=?UTF-16BE?B?$(printf '\0w\0h\0o\0 \0m\0y\0l\0i\0s\0t' | base64 -w0)?=" 'who list=mylist'
	subject_gives "Re: =?utf-16le?b?$(printf 'h\0e\0' | base64 -w0)?= =?x-mjq-nothing?q?lp?=" 'help'
}

@test "a moderation command in the Subject is skipped when the body gives one; kept when the body gives none or the same" {
	run "$PARSE" <<<$'Subject: Re: approve AAAA\n\ndiscard bbbb\n'
	[ "$status" -eq 0 ]
	[ "$output" = $'skipped: Not run: the body of the message gives a moderation command, and that counts instead of the Subject\'s: approve AAAA\ndiscard token=bbbb' ]
	run "$PARSE" <<<$'Subject: Re: approve aaaa\n\nreject cccc spam\nhelp\n'
	[ "${lines[0]}" = "skipped: Not run: the body of the message gives a moderation command, and that counts instead of the Subject's: approve aaaa" ]
	[ "${lines[1]}" = "reject token=cccc" ]
	[ "${lines[2]}" = "help" ]
	# no moderation command in the body: the Subject's runs first
	run "$PARSE" <<<$'Subject: Re: approve aaaa\n\nfine by me\nhelp\n'
	[ "${lines[0]}" = "approve token=aaaa" ]
	# the body says the same: once, not skipped
	run "$PARSE" <<<$'Subject: Re: approve aaaa\n\napprove aaaa\n'
	[ "$output" = "approve token=aaaa" ]
	# a Subject that is not a moderation command is kept before them
	run "$PARSE" <<<$'Subject: help\n\ndiscard bbbb\n'
	[ "$output" = $'help\ndiscard token=bbbb' ]
}

@test "enable takes its list, then a probe's token (folded to lower case); a third word is an error" {
	run "$PARSE" -l mylist <<-'EOF'
	Subject: x

	enable
	enable mylist
	enable MyList 0123ABCDEF456789
	enable mylist 0123abcdef456789 more
	enable mylist bad-token
	EOF
	# the first two say the same: one command
	[ "$output" = "enable list=mylist
enable list=mylist token=0123abcdef456789
error: malformed token: enable mylist 0123abcdef456789 more
error: malformed token: enable mylist bad-token" ]
}

@test "set: list, mode and address; the list may be left out for <list>-request; unknown modes are errors" {
	run "$PARSE" <<-'EOF'
	Subject: modes

	set mylist digest
	set mylist Digest-Plain bob@example.org
	set mylist nomail
	set mylist each
	set other weekly
	set mylist
	EOF
	[ "$status" -eq 0 ]
	[ "$output" = "set list=mylist mode=digest
set list=mylist addr=bob@example.org mode=digest-plain
set list=mylist mode=nomail
set list=mylist mode=each
error: unknown mode (digest, digest-plain, each, nomail, notmetoo): set other weekly
error: which mode? (set LIST digest|digest-plain|each|nomail|notmetoo): set mylist" ]
	run "$PARSE" -l mylist <<<$'Subject: x\n\nset digest\nset nomail al@example.org\n'
	[ "$output" = $'set list=mylist mode=digest\nset list=mylist addr=al@example.org mode=nomail' ]
	run "$PARSE" <<<$'Subject: x\n\nset digest\n'
	[ "$output" = "error: which list? (give its name): set digest" ]
}
