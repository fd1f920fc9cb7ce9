#!/usr/bin/env bats
# Real bounce reports (t/data/bounce-corpus/: 276 reports from 56 MTAs and
# providers, Sisimai's set-of-emails, BSD 2-clause) through the whole
# path: each report piped to mj_enqueue -o for the list's -owner address,
# as the README's Postfix alias does (local(8) prepends Return-Path,
# X-Original-To and Delivered-To and passes the envelope sender in
# $SENDER), then one runner pass.  Each failed address the runner finds
# and its class come from its log; t/data/bounce-score.awk weighs them
# against the corpus's expected.tsv and the action its README gives each
# reason.
# slow: 276 real reports, one runner pass each

load helpers
load request_helpers
load bounce_corpus
bats_require_minimum_version 1.5.0

setup() {
	request_setup
	# every recipient the corpus names is a subscriber, so each address
	# the runner finds is judged and logged with its class
	mjq_list example.org corpus $(awk -F '\t' '!/^#/ { print tolower($2) }' \
	    "$CORPUS/expected.tsv" | sort -u)
	# counts only: no subscriber disabled or probed halfway
	printf '[list]\nowners = boss@owner.test\nbounce_score_threshold = 0\n' \
		>>"$LISTS/example.org/corpus/config"
}

# postfix_pipe FILE - FILE to mj_enqueue as Postfix's local(8) pipes it
# for the alias corpus-owner: "|mj_enqueue -o -d example.org -l corpus"
postfix_pipe() {
	corpus_delivered "$1" corpus example.org |
		SENDER=$(corpus_sender "$1") \
		"$MJ_ENQUEUE" -C "$CONF" -o -d example.org -l corpus
}

# outcome FILE LOG - "FILE<TAB>address<TAB>class" for each address the
# runner's LOG names in a bounce's judgement
outcome() {
	sed -n 's/.*: bounce for <\([^>]*\)> on corpus@example\.org: \([a-z]*\),.*/\1\t\2/p' \
		"$2" | awk -v f="$1" '{ print f "\t" $0 }'
}

@test "the bounce corpus: every failed subscriber found and judged as a list manager should" {
	local f out=$BATS_TEST_TMPDIR/outcome.tsv log
	: >"$out"
	for f in "$CORPUS"/*.eml; do
		postfix_pipe "$f"
		log=$BATS_TEST_TMPDIR/run-${f##*/}.log
		RUNLOG=$log runq
		outcome "${f##*/}" "$log" >>"$out"
	done
	# nothing left behind: each report counted, or forwarded to the owners
	[ "$(queue_files)" = "" ]
	awk -F '\t' -f "$TOP/t/data/bounce-score.awk" \
		"$CORPUS/expected.tsv" "$out" >"$BATS_TEST_TMPDIR/score"
	sed 's/^/# /' "$BATS_TEST_TMPDIR/score" >&3
	fig() { awk -v k="$1" '$1 == k { print $2 }' "$BATS_TEST_TMPDIR/score"; }
	[ "$(fig rows)" -eq 289 ]
	awk -v v="$(fig found_pct)" 'BEGIN { exit !(v >= 98) }'
	[ "$(fig policy_counted)" -eq 0 ]
	awk -v v="$(fig unknown_counted_pct)" 'BEGIN { exit !(v >= 95) }'
	awk -v v="$(fig agree_pct)" 'BEGIN { exit !(v >= 95) }'
	[ "$(fig ignore_counted)" -eq 0 ]
	[ "$(fig innocent_counted)" -eq 0 ]
}
