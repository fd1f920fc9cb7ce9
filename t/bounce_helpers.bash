# t/bounce_helpers.bash - bounces to mylist-owner@example.org, for the
# bounce tests (t/730-bounce.bats, t/732-bounce-evidence.bats).  Load after
# helpers.bash.

# owner_mail - a message on stdin to mylist-owner, from the null sender
owner_mail() {
	"$MJ_ENQUEUE" -C "$CONF" -d example.org -l mylist -o -f '' "$@"
}

# dsn_bounce ADDR STATUS DIAGNOSTIC - an RFC 3464 report for ADDR, no VERP
dsn_bounce() {
	owner_mail <<-EOF
	From: Mail Delivery System <MAILER-DAEMON@mx.users.test>
	Subject: Undelivered Mail Returned to Sender
	MIME-Version: 1.0
	Content-Type: multipart/report; report-type=delivery-status; boundary="B"

	--B
	Content-Type: message/delivery-status

	Reporting-MTA: dns; mx.users.test

	Final-Recipient: rfc822; $1
	Action: failed
	Status: $2
	Diagnostic-Code: smtp; $3
	--B--
	EOF
}
