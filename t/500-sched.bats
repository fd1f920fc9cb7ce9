#!/usr/bin/env bats
# The pure scheduler (sched/sched_*.c) through mj_schedsim: the cases of
# SCHEDULER_README, blockers, nested preemption, dead destinations and
# revival, the safety rule, the rate limit, recipient slot pools, transports
# and parameter errors.  Scenarios and golden outputs are in t/data/sched/.

bats_require_minimum_version 1.5.0

SIM="$BATS_TEST_DIRNAME/../schedsim/mj_schedsim"
DATA="$BATS_TEST_DIRNAME/data/sched"

# sim MODE SCENARIO - run the simulator on a scenario file
sim() {
	run "$SIM" "$1" <"$DATA/$2"
}

# sim_text MODE TEXT - run the simulator on an inline scenario
sim_text() {
	run "$SIM" "$1" <<<"$2"
}

# golden MODE NAME - NAME.ini gives exactly NAME.out
golden() {
	sim "$1" "$2.ini"
	[ "$status" -eq 0 ]
	[ "$output" = "$(cat "$DATA/$2.out")" ]
}

# rejects TEXT MESSAGE - the scenario is refused: exit 65 and MESSAGE
rejects() {
	sim_text -s "$1"
	[ "$status" -eq 65 ]
	[ "$output" = "mj_schedsim: $2" ]
}

# field NAME - the value of NAME=... in $output
field() {
	sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$output"
}

# within A B TOL - |A - B| <= TOL
within() {
	awk -v a="$1" -v b="$2" -v t="$3" \
	    'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= t) }'
}

@test "document: 10+2+2 recipients, slot cost 2, no discount: 11112211113311" {
	sim -s preempt-nodiscount.ini
	[ "$status" -eq 0 ]
	[ "$output" = "11112211113311" ]
}

@test "document: the same with 50% discount: 11221111331111" {
	sim -s preempt-discount.ini
	[ "$status" -eq 0 ]
	[ "$output" = "11221111331111" ]
}

# limiter FILE THEORY_PCT LINE - the active-limiter table, one row
limiter() {
	sim -c "$1"
	[ "$status" -eq 0 ]
	[ "$output" = "$3" ]
	within "$(field deferred_pct)" "$2" 2
	within "$(field avg_concurrency)" 5.5 0.5
}

@test "active limiter, 1/concurrency: deferred near 1/6, concurrency near 5" {
	limiter limiter-concurrency.ini 16.67 \
	    "destination=limited.example deliveries=1000 deferred_pct=16.5 avg_concurrency=5.33 stddev=0.47"
}

@test "active limiter, 1/sqrt_concurrency: deferred near 1/4" {
	limiter limiter-sqrt_concurrency.ini 25 \
	    "destination=limited.example deliveries=1000 deferred_pct=24.8 avg_concurrency=5.50 stddev=0.50"
}

@test "active limiter, constant 1 (old +/-1 scheduler): deferred near 1/2" {
	limiter limiter-one.ini 50 \
	    "destination=limited.example deliveries=1000 deferred_pct=49.7 avg_concurrency=6.00 stddev=0.07"
}

@test "active limiter, constant a/b feedback 1/4: deferred near 1/(1+4)" {
	run "$SIM" -c < <(sed 's|= 1/concurrency|= 1/4|' \
	    "$DATA/limiter-concurrency.ini")
	[ "$status" -eq 0 ]
	within "$(field deferred_pct)" 20 2
	[ "$(field deferred_pct)" != "16.5" ]
}

@test "nested preemption: 1 by 2 after 40 slots, then 2 by 3" {
	golden -s nested
	[[ "$output" == "$(printf '1%.0s' {1..40})22222222333322222222222211"* ]]
}

@test "a stack parent never preempts the job that preempted it" {
	sim_text -s $'[scheduler]\ndelivery_slot_cost = 2\ndelivery_slot_loan = 2\ndelivery_slot_discount = 0\n[job 1]\nrecipients = 16\n[job 2]\nrecipients = 8'
	[ "$status" -eq 0 ]
	[ "$output" = "111111111111222222221111" ]
}

@test "a blocker job is skipped while its destination is full" {
	golden -t blocker
	# B goes at t=2, while A's first delivery is still in flight.
	[ "${lines[1]}" = "2 select B fast.example window=5 busy=0" ]
}

@test "dead destination: entries deferred, new ones deferred, probe revives" {
	golden -t dead
	[ "${lines[6]}" = "40 defer B down.example window=0 busy=0 dead" ]
	[ "${lines[8]}" = "101 ok C down.example window=2 busy=0" ]
}

@test "a failed probe suspends the dead destination again" {
	run "$SIM" -t < <(sed 's/^down_until = 30/down_until = 150/' "$DATA/dead.ini")
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 11 ]
	[ "${lines[7]}" = "100 select C down.example window=0 busy=0" ]
	[ "${lines[8]}" = "100 refused C down.example window=0 busy=0 dead" ]
	[ "${lines[10]}" = "100 defer C down.example window=0 busy=0 dead" ]
}

@test "failed_cohort_limit 0 never declares a destination dead" {
	run "$SIM" -t < <(sed 's/^minimal_backoff_time.*/&\ndestination_concurrency_failed_cohort_limit = 0/' \
	    "$DATA/dead.ini")
	[ "$status" -eq 0 ]
	[[ "$output" != *dead* ]]
	[[ "$output" == *"0 refused A down.example window=1 busy=0"* ]]
}

@test "safety rule stops positive feedback when few deliveries are in flight" {
	run --separate-stderr "$SIM" -t <"$DATA/safety.ini"
	[ "$status" -eq 0 ]
	[ "$output" = "$(cat "$DATA/safety.out")" ]
	[ "$stderr" = "$(cat "$DATA/safety.err")" ]
	[ "${lines[11]}" = "4 ok A x.example window=4 busy=0" ]
}

@test "rate limit 2/10s: at most two starts in any ten seconds, window 5" {
	golden -t rate
	starts=$(awk '$2 == "select" { printf "%s ", $1 }' <<<"$output")
	[ "$starts" = "0 5 10 15 20 25 " ]
	# the promise itself: no three starts within ten seconds
	awk '$2 == "select" { t[++n] = $1 } END {
		for (i = 1; i + 2 <= n; i++) if (t[i + 2] - t[i] < 10) exit 1 }' <<<"$output"
}

@test "round-robin over transports; [transport:NAME] overrides; long names" {
	sim -s transports.ini
	[ "$status" -eq 0 ]
	[ "$output" = "big relayed big relayed big relayed big small" ]
}

@test "recipient slot pools: a 1000-recipient list in batches, bounded" {
	golden -s memory
	[ "${#output}" -eq 1002 ]
	sim -b memory.ini
	[ "$status" -eq 0 ]
	# max(minimum * messages + recipient_limit + extra, message limit)
	[ "$(field peak_rcpts)" -le 40 ]
	[[ "$output" == "selections=1002 "* ]]
}

@test "every selection of a fully read scenario is delivered exactly once" {
	sim_text -s $'[scheduler]\ndestination_recipient_limit = 1\n[job a]\nrecipients = 7\n[job b]\nrecipients = 3\ndestination = one.example'
	[ "$status" -eq 0 ]
	[ "$(tr -cd a <<<"$output" | wc -c)" -eq 7 ]
	[ "$(tr -cd b <<<"$output" | wc -c)" -eq 3 ]
}

@test "bad feedback values are rejected naming line and key" {
	for v in 2 3/2 1/N abc -1 1/0 ''; do
		sim_text -s $'[scheduler]\ndestination_concurrency_positive_feedback = '"$v"$'\n[job a]\nrecipients = 1'
		[ "$status" -eq 65 ]
		[ "$output" = "mj_schedsim: line 2: destination_concurrency_positive_feedback: must be 1/concurrency, 1/sqrt_concurrency, x or a/b with a value in [0,1]" ]
	done
}

@test "good values of every kind are accepted" {
	sim_text -s $'[scheduler]\ndestination_concurrency_negative_feedback = 1/sqrt_concurrency\ndestination_concurrency_positive_feedback = 0.25\ndestination_rate_limit = 600/1m\nminimal_backoff_time = 5m\nrecipient_refill_delay = 2s\ndestination_concurrency_feedback_debug = no\ndestination_rate_limit =\n[job a]\nrecipients = 2'
	[ "$status" -eq 0 ]
	[ "$output" = "aa" ]
}

@test "other bad parameters: range, rate, duration, unknown key" {
	rejects $'[scheduler]\n\ndelivery_slot_discount = 101' \
	    "line 3: delivery_slot_discount: must be an integer in [0,100]"
	rejects $'[scheduler]\ndestination_rate_limit = 600/fortnight' \
	    "line 2: destination_rate_limit: must be empty or N/period, e.g. 600/1m"
	rejects $'[scheduler]\nminimal_backoff_time = 5 minutes' \
	    "line 2: minimal_backoff_time: must be a duration in [1,2592000] seconds (suffix s, m, h or d)"
	rejects $'[scheduler]\ndefault_destination_concurrency_limit = 20' \
	    "line 2: default_destination_concurrency_limit: not a scheduler parameter"
	rejects $'[transport:relay]\ndelivery_slot_cost = x' \
	    "line 2: delivery_slot_cost: must be an integer in [0,1000]"
}

@test "scenario errors: section, job key, missing recipients, usage" {
	rejects $'[jobs a]\nrecipients = 1' \
	    "line 2: [jobs a]: unknown section"
	rejects $'[job a]\nrecipient = 1' \
	    "line 2: recipient: unknown job key"
	rejects $'[job a]\nqueued = 1' \
	    "[job a]: recipients: missing"
	rejects $'[scheduler]' \
	    "no [job NAME] section"
	run "$SIM" -x </dev/null
	[ "$status" -eq 64 ]
	run "$SIM" </dev/null
	[ "$status" -eq 64 ]
}
