# t/bounce_corpus.bash - the bounce corpus (t/data/bounce-corpus/) as a
# list's -owner address receives it, for t/734-bounce-corpus.bats and
# t/bench/bounces.sh.

CORPUS=${CORPUS:-$TOP/t/data/bounce-corpus}

# corpus_sender FILE - the envelope sender the report came with: its
# first Return-Path, empty for the null sender (sendmail writes it as
# MAILER-DAEMON)
corpus_sender() {
	local sender
	sender=$(awk 'tolower($0) ~ /^return-path:/ {
			sub(/^[^:]*:[ \t]*/, ""); gsub(/[<> \t\r]/, ""); print; exit }
		/^\r?$/ { exit }' "$1")
	[ "$sender" != MAILER-DAEMON ] || sender=
	printf '%s' "$sender"
}

# corpus_delivered FILE LIST DOMAIN - FILE as Postfix's local(8) pipes it
# to the alias LIST-owner: Return-Path, X-Original-To and Delivered-To
# prepended
corpus_delivered() {
	printf 'Return-Path: <%s>\n' "$(corpus_sender "$1")"
	printf 'X-Original-To: %s-owner@%s\n' "$2" "$3"
	printf 'Delivered-To: %s-owner@%s\n' "$2" "$3"
	cat "$1"
}
