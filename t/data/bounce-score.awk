# t/data/bounce-score.awk - the outcome of a bounce reader on the corpus
# (t/data/bounce-corpus/), shared by t/734-bounce-corpus.bats and
# t/bench/bounces.sh.
#
#   awk -F '\t' -f t/data/bounce-score.awk expected.tsv outcome.tsv
#
# expected.tsv: file, recipient, reason (Sisimai's), status, reply code,
# engine; one line per failed recipient (the corpus's own file).
# outcome.tsv: file, address, class: one line per address the reader
# found in the report, its class one of recipient, mailbox, policy,
# transient, unknown (a reader that only finds addresses writes
# "recipient": it counts every address it finds).
#
# What the reader should do with each reason is the corpus README's table:
#   count      userunknown hostunknown hasmoved notaccept: recipient
#   suspend    recipient or mailbox
#   soft       mailboxfull: mailbox
#   notdead    exceedlimit: anything but recipient
#   policy     blocked spamdetected ...: policy, never counted
#   path       expired systemerror ...: not counted (transient, unknown
#              or policy)
#   ignore     delivered vacation: nothing counted (not found is right)
#   either     filtered: any class
# A row agrees when its recipient was found with a class its action
# allows (for ignore rows, also when it was not found).  Counted means a
# class with a weight by default: recipient or mailbox.
#
# Prints the table (file, recipient, reason, class found or "-", ok or
# NO) and then the figures, one "name value" a line:
#   rows, found_pct, policy_counted, unknown_counted_pct, agree_pct,
#   agree_found_pct (among the rows found), ignore_counted, innocent_counted (an address counted that the report
#   is not about).
BEGIN {
	split("userunknown hostunknown hasmoved notaccept", a, " ")
	for (i in a) act[a[i]] = "count"
	act["suspend"] = "suspend"
	act["mailboxfull"] = "soft"
	act["exceedlimit"] = "notdead"
	split("blocked spamdetected policyviolation securityerror rejected " \
	    "virusdetected toomanyconn speeding authfailure norelaying " \
	    "requireptr badreputation notcompliantrfc contenterror", a, " ")
	for (i in a) act[a[i]] = "policy"
	split("expired systemerror networkerror systemfull mesgtoobig " \
	    "mailererror syntaxerror", a, " ")
	for (i in a) act[a[i]] = "path"
	act["delivered"] = "ignore"
	act["vacation"] = "ignore"
	act["filtered"] = "either"
}
function counted(c) { return c == "recipient" || c == "mailbox" }
function agrees(x, c) {
	if (c == "")
		return x == "ignore"
	if (x == "count") return c == "recipient"
	if (x == "suspend") return counted(c)
	if (x == "soft") return c == "mailbox"
	if (x == "notdead") return c != "recipient"
	if (x == "policy") return c == "policy"
	if (x == "path" || x == "ignore") return !counted(c)
	return 1
}
FNR == NR {
	if ($1 ~ /^#/ || NF < 3)
		next
	n++
	file[n] = $1
	rcpt[n] = tolower($2)
	reason[n] = $3
	about[$1, tolower($2)] = 1
	next
}
{
	k = $1 SUBSEP tolower($2)
	if (!(k in cls) || counted($3))
		cls[k] = $3
	if (counted($3) && !((k) in about))
		innocent++
}
END {
	for (i = 1; i <= n; i++) {
		x = act[reason[i]]
		if (x == "")
			x = "either"
		k = file[i] SUBSEP rcpt[i]
		c = (k in cls) ? cls[k] : ""
		ok = agrees(x, c)
		printf "%-34s %-44s %-16s %-10s %s\n", file[i], rcpt[i],
		    reason[i], c == "" ? "-" : c, ok ? "ok" : "NO"
		if (x != "ignore") {
			rows++
			if (c != "") found++
		}
		if (x == "policy" && counted(c)) pol++
		if (reason[i] == "userunknown") {
			uu++
			if (counted(c)) uuc++
		}
		if (x == "ignore" && counted(c)) ign++
		agree += ok
		if (c != "") agree_found += ok
	}
	printf "rows %d\n", n
	printf "found_pct %.1f\n", rows ? 100 * found / rows : 0
	printf "policy_counted %d\n", pol
	printf "unknown_counted_pct %.1f\n", uu ? 100 * uuc / uu : 0
	printf "agree_pct %.1f\n", n ? 100 * agree / n : 0
	printf "agree_found_pct %.1f\n", found ? 100 * agree_found / found : 0
	printf "ignore_counted %d\n", ign
	printf "innocent_counted %d\n", innocent + 0
}
