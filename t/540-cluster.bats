#!/usr/bin/env bats
# t/540-cluster.bats - several mjq hosts sharing their limits through
# Redis ([cluster], cluster/): a private redis-server on a unix socket in
# the test's directory, three mj_queueserv nodes with their own spools,
# configurations and lists, one receiver (mj_testsmtpd) that answers 421
# beyond N sessions at once, counted by itself (--stats).
#
# With destination_concurrency_limit = N on every node the nodes take a
# lease per session from Redis, so the receiver never sees more than N
# sessions, refuses none, and every recipient arrives once.  A node
# killed with -9 stops renewing its leases: they expire within
# lease_time and the others take them; restarted, it finishes its own
# messages from its spool.  With Redis stopped the nodes go on under
# their local shares (limit / expected_nodes) and nothing is lost;
# Redis back, they share again.  The scripts themselves are checked
# with mj_clustertry (one lease, rate and dead step each).  Redis over
# TLS ([cluster] tls, cluster/cluster_tls.c): a redis-server on a TLS
# port with a certificate of a private CA; a CA that did not sign it, a
# name it does not hold, a server that never finishes the handshake are
# Redis unreachable (local shares), never an unverified connection.
# slow: three nodes and a private Redis, network splits

bats_require_minimum_version 1.5.0
load helpers
load smtp_helpers

MJ_CLUSTERTRY=$TOP/t/tools/mj_clustertry

setup() {
	command -v redis-server >/dev/null || skip "redis-server is not installed"
	REDIS=$BATS_TEST_TMPDIR/redis
	NODES=
}

teardown() {
	local i
	for i in $NODES; do
		node_stop "$i"
	done
	servers_stop
	redis_stop
}

# redis_start - a private redis-server on $REDIS/sock (no port, nothing
# saved); returns once it answers
redis_start() {
	mkdir -p "$REDIS"
	redis-server --port 0 --unixsocket "$REDIS/sock" --unixsocketperm 700 \
		--save '' --appendonly no --dir "$REDIS" \
		>>"$REDIS/log" 2>&1 3>&- &
	echo $! >"$REDIS/pid"
	wait_for 30 redis_ping
}

# redis_tls_start - the private Redis on a TLS port of 127.0.0.1 only
# ($REDIS_TLS_PORT), with a certificate for localhost signed by the test
# CA $C/ca.crt (another CA: $C/other.crt); returns once it answers
redis_tls_start() {
	C=$BATS_TEST_TMPDIR/certs
	mkdir -p "$REDIS" "$C"
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 \
		-nodes -subj "/CN=mjq test CA" -days 30 -keyout "$C/ca.key" \
		-out "$C/ca.crt" 2>/dev/null
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 \
		-nodes -subj "/CN=other CA" -days 30 -keyout "$C/other.key" \
		-out "$C/other.crt" 2>/dev/null
	openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
		-subj "/CN=localhost" -keyout "$C/redis.key" \
		-out "$C/redis.csr" 2>/dev/null
	printf 'subjectAltName=DNS:localhost\n' >"$C/redis.ext"
	openssl x509 -req -in "$C/redis.csr" -CA "$C/ca.crt" \
		-CAkey "$C/ca.key" -CAcreateserial -extfile "$C/redis.ext" \
		-out "$C/redis.crt" -days 30 2>/dev/null
	REDIS_TLS_PORT=$(free_port)
	redis-server --port 0 --bind 127.0.0.1 --tls-port "$REDIS_TLS_PORT" \
		--tls-cert-file "$C/redis.crt" --tls-key-file "$C/redis.key" \
		--tls-ca-cert-file "$C/ca.crt" --tls-auth-clients no \
		--save '' --appendonly no --dir "$REDIS" \
		>>"$REDIS/log" 2>&1 3>&- &
	echo $! >"$REDIS/pid"
	wait_for 30 eval '[ "$(redis_tls ping)" = PONG ]'
}

# redis_tls ARG... - redis-cli on the TLS Redis, verified by the test CA
redis_tls() {
	redis-cli --tls --cacert "$C/ca.crt" -h localhost -p "$REDIS_TLS_PORT" \
		"$@" 2>/dev/null
}

# redis_ping - the private Redis answers
redis_ping() {
	[ "$(redis-cli -s "$REDIS/sock" ping 2>/dev/null)" = PONG ]
}

# redis_stop - stop it (kill, wait until its socket is gone)
redis_stop() {
	[ -f "$REDIS/pid" ] || return 0
	stop_pid "$(cat "$REDIS/pid")"
	rm -f "$REDIS/pid" "$REDIS/sock"
}

# node_setup I RCPTS [INI...] - node I's spool, lists and config under
# $BATS_TEST_TMPDIR/nI: a list big@ex.org of RCPTS subscribers
# nI-K@d.test, d.test sent to the receiver at $PORT, [cluster] on the
# private Redis (at $REDIS_ADDR when set; none when NO_CLUSTER is set;
# lease_time $LEASE_TIME, else 3s; timeout_ms $REDIS_TIMEOUT_MS, else
# 2000, so that a command a loaded machine delays a moment does not
# count as Redis unreachable; queue_run_delay $QUEUE_RUN_DELAY, else
# 1s);
# extra INI lines appended (the first ones still in [cluster])
node_setup() {
	local i=$1 rcpts=$2 d=$BATS_TEST_TMPDIR/n$1
	shift 2
	mkdir -p "$d/spool/tmp" "$d/spool/QUEUE" "$d/lists/ex.org/big"
	seq -f "n$i-%g@d.test" 1 "$rcpts" >"$d/lists/ex.org/big/subscribers"
	printf '[list]\nposting = open\n' >"$d/lists/ex.org/big/config"
	{
		printf '[dkim]\nsign = no\n'
		printf '[spool]\ndir = %s\n[lists]\ndir = %s\n' "$d/spool" "$d/lists"
		printf '[enqueue]\nstart_server = no\n'
		cat <<-EOF2
			[queueserv]
			runner_program = $MJ_QUEUERUN
			max_runners = 2
			min_runners = 2
			queue_run_delay = ${QUEUE_RUN_DELAY:-1s}
			[delivery]
			destination_recipient_limit = 10
			minimal_backoff_time = 1s
			maximal_backoff_time = 2s
			[transport_map]
			d.test = smtp:[127.0.0.1]:$PORT
		EOF2
		[ -n "${NO_CLUSTER:-}" ] ||
			printf '[cluster]\nredis = %s\nnode_name = n%s\n%s\n%s\n%s\n' \
				"${REDIS_ADDR:-$REDIS/sock}" "$i" \
				"lease_time = ${LEASE_TIME:-3s}" \
				"timeout_ms = ${REDIS_TIMEOUT_MS:-2000}" \
				"expected_nodes = 3"
		printf '%s\n' "$@"
	} >"$d/mjq.conf"
}

# node_start I - node I's mj_queueserv in the background (log
# $BATS_TEST_TMPDIR/nI/log, pid in nI/pid); returns once it answers
node_start() {
	local d=$BATS_TEST_TMPDIR/n$1
	"$MJ_QUEUESERV" -f -d -C "$d/mjq.conf" </dev/null >>"$d/log" 2>&1 3>&- &
	echo $! >"$d/pid"
	NODES="$NODES $1"
	wait_for 30 "$MJ_QUEUESERV" -C "$d/mjq.conf" status >/dev/null 2>&1
}

# node_stop I - stop node I's server (SIGTERM, SIGKILL after 10 s)
node_stop() {
	local p
	p=$(cat "$BATS_TEST_TMPDIR/n$1/pid" 2>/dev/null) || return 0
	if alive "$p"; then
		kill -TERM "$p" 2>/dev/null
		wait_for 10 eval "! alive $p" || kill -KILL "$p" 2>/dev/null
	fi
	rm -f "$BATS_TEST_TMPDIR/n$1/pid"
}

# node_post I - a post to node I's list
node_post() {
	printf 'From: p@example.net\nSubject: from n%s\n\nhello\n' "$1" |
		"$MJ_ENQUEUE" -C "$BATS_TEST_TMPDIR/n$1/mjq.conf" -d ex.org -l big \
			-r -f p@example.net
}

# node_queue I - node I's outstanding messages
node_queue() {
	find "$BATS_TEST_TMPDIR/n$1/spool/QUEUE" -type f ! -name '.*' | wc -l
}

# received - recipients the receiver accepted
received() {
	wc -l <"$BATS_TEST_TMPDIR/s/log" | tr -d ' '
}

# drained TOTAL - the receiver has TOTAL recipients and every node's
# queue is empty
drained() {
	local i
	[ "$(received)" -ge "$1" ] || return 1
	for i in $NODES; do
		[ "$(node_queue "$i")" -eq 0 ] || return 1
	done
}

# stat NAME - a field of the receiver's --stats line
stat() {
	tr ' ' '\n' <"$BATS_TEST_TMPDIR/s/stats" | sed -n "s/^$1=//p"
}

# no_crash - no runner of any node died of a fault, nor was reported by a
# sanitizer (make SAN=1; under SAN=thread a race ends it with status 66)
no_crash() {
	run -1 grep -h 'signal 11\|signal 6\|signal 13\|Segmentation\|Aborted\|Sanitizer\|runtime error:\|exited with status 66' \
		"$BATS_TEST_TMPDIR"/n*/log
}

# once TOTAL - every recipient arrived, none twice
once() {
	local dup
	dup=$(sed 's/.* //' "$BATS_TEST_TMPDIR/s/log" | sort | uniq -d | head -3)
	echo "received $(received) of $1; twice: ${dup:-none}"
	[ -z "$dup" ]
	[ "$(received)" -eq "$1" ]
}

# three_nodes RCPTS [SMTPD-OPTION...] - the receiver (421 beyond 3
# sessions, --stats, the options), three nodes with the destination's
# limit 3 and RCPTS subscribers each, and a post to each at once
three_nodes() {
	local rcpts=$1
	shift
	smtpd_start s --max-sessions 3 --stats "$BATS_TEST_TMPDIR/s/stats" "$@"
	nodes_posting "$rcpts" "$rcpts" "$rcpts"
}

# nodes_start LIMIT R1 R2 R3 - three nodes with the destination's limit
# LIMIT and R1, R2, R3 subscribers (node_setup's variables passed on)
nodes_start() {
	local limit=$1 i n
	shift
	for i in 1 2 3; do
		n=${!i}
		node_setup "$i" "$n" "[transport:smtp]" \
			"destination_concurrency_limit = $limit"
		node_start "$i"
	done
}

# nodes_posting R1 R2 R3 - nodes_start with the limit 3, and a post to
# each at once
nodes_posting() {
	local i
	nodes_start 3 "$@"
	for i in 1 2 3; do
		node_post "$i"
	done
}

# try [ENV=V...] STEP... - mj_clustertry on the private Redis (at
# $REDIS_ADDR when set)
try() {
	local e=()
	while [[ "$1" == *=* ]]; do
		e+=("$1")
		shift
	done
	env "${e[@]}" "$MJ_CLUSTERTRY" "${REDIS_ADDR:-$REDIS/sock}" "$@"
}

@test "the scripts: leases up to the limit, expiry of a dead holder's, the shared window, the rate bucket, the dead time, the fallback" {
	redis_start
	# two leases of a limit of 2, then full until one is given back
	run try MJQ_CLUSTER_NODE=a take k 2 0 take k 2 0 take k 2 0 done k 0 take k 2 0
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = go ]
	[ "${lines[1]}" = go ]
	[[ "${lines[2]}" == "full "* ]]
	[ "${lines[3]}" = done ]
	[ "${lines[4]}" = go ]
	# a holder killed with -9 keeps its leases only until they expire
	MJQ_CLUSTER_NODE=b MJQ_CLUSTER_LEASE=2 "$MJ_CLUSTERTRY" "$REDIS/sock" \
		take k 2 0 take k 2 0 hold >"$BATS_TEST_TMPDIR/hold" 3>&- &
	local holder=$!
	wait_for 30 grep -qx held "$BATS_TEST_TMPDIR/hold"
	run try take k 2 0
	[[ "$output" == "full "* ]]
	kill -KILL "$holder"
	wait "$holder" || true
	run try take k 2 0
	[[ "$output" == "full "* ]]
	wait_for 4 eval '[ "$(try take k 2 0)" = go ]'
	# without a limit the shared window starts at 2 (mj_clustertry's
	# initial), and a refusal brings it down to the leases held less one
	run try take w 0 0 take w 0 0 take w 0 0 learn w 1 take w 0 0
	[ "${lines[0]}" = go ]
	[ "${lines[1]}" = go ]
	[[ "${lines[2]}" == "full "* ]]
	[ "${lines[3]}" = learnt ]
	[[ "${lines[4]}" == "full "* ]]
	[ "$(redis-cli -s "$REDIS/sock" hget 'mjq:{w}:cap' n)" -eq 1 ]
	# the rate bucket: 0.2 s apart over everyone
	run try take r 0 0.2 take r 0 0.2 sleep 0.2 take r 0 0.2
	[ "${lines[0]}" = go ]
	[[ "${lines[1]}" =~ ^rate\ 0\.(1[5-9]|20) ]]
	[ "${lines[3]}" = go ]
	# a dead time told by one node holds for the others, then ends
	run try dead d 1 take d 0 0 sleep 1 take d 0 0
	[[ "${lines[1]}" == "dead "* ]]
	[ "${lines[3]}" = go ]
	# Redis gone: local, said once; back: shared
	redis_stop
	run try take k 2 0 take k 2 0 state
	[ "${lines[1]}" = local ]
	[ "${lines[2]}" = local ]
	[ "${lines[3]}" = fallback ]
	[ "$(grep -c unreachable <<<"$output")" -eq 1 ]
}

@test "three nodes with the destination's limit N: the receiver never sees more than N sessions and refuses none" {
	redis_start
	three_nodes 400
	# the nodes share: their leases are in Redis while they deliver
	wait_for 30 eval '[ "$(redis-cli -s "$REDIS/sock" zcard "mjq:{smtp:[127.0.0.1]:$PORT}:lease")" -ge 1 ]'
	wait_for 120 drained 1200
	cat "$BATS_TEST_TMPDIR/s/stats"
	[ "$(stat refused)" -eq 0 ]
	[ "$(stat max_open)" -le 3 ]
	[ "$(stat max_open)" -ge 2 ]
	once 1200
	no_crash
	# the nodes shared: status says so
	run "$MJ_QUEUESERV" -C "$BATS_TEST_TMPDIR/n1/mjq.conf" status
	[[ "$output" == *"cluster: node n1, Redis $REDIS/sock: limits shared for "* ]]
}

@test "the same three nodes without [cluster]: each keeps only its own limit, and the receiver refuses sessions (what the leases prevent)" {
	NO_CLUSTER=1 three_nodes 400
	wait_for 120 drained 1200
	cat "$BATS_TEST_TMPDIR/s/stats"
	[ "$(stat refused)" -gt 0 ]
	once 1200
	run "$MJ_QUEUESERV" -C "$BATS_TEST_TMPDIR/n1/mjq.conf" status
	[[ "$output" != *"cluster:"* ]]
}

# node_kill I - kill -9 node I: its server and its runners at once
node_kill() {
	local p
	p=$(cat "$BATS_TEST_TMPDIR/n$1/pid")
	kill -KILL "$p" $(pgrep -P "$p") 2>/dev/null
	wait_for 30 eval "! alive $p"
	rm -f "$BATS_TEST_TMPDIR/n$1/pid"
}

# leases PATTERN - the live lease members of d.test's key matching
# PATTERN: those not yet expired by Redis's clock (an expired member
# counts for nothing; it stays in the set until the next script that
# counts drops it, or the key expires)
leases() {
	local now
	now=$(redis-cli -s "$REDIS/sock" time |
		{ read -r s && read -r us && echo $((s * 1000 + us / 1000)); })
	redis-cli -s "$REDIS/sock" zrangebyscore \
		"mjq:{smtp:[127.0.0.1]:$PORT}:lease" "($now" +inf | grep -c "$1"
}

@test "kill -9 of a node mid-post: its leases expire within lease_time, the others take them; restarted it finishes its own messages" {
	local t0 t1
	redis_start
	# nodes 2 and 3 have the most, so they still deliver when node 1's
	# leases expire (each delivers under its share meanwhile)
	smtpd_start s --max-sessions 3 --stats "$BATS_TEST_TMPDIR/s/stats" \
		--delay eod=20
	nodes_posting 1000 3000 3000
	# node 1 is delivering: it holds leases
	wait_for 30 eval '[ "$(grep -c "to=<n1-" "$BATS_TEST_TMPDIR/s/log")" -ge 100 ] && [ "$(leases "^n1:")" -ge 1 ]'
	node_kill 1
	t0=$(date +%s.%N)
	# its leases stay until they expire (3 s), then the others hold
	# them: the whole limit between them
	wait_for 10 eval '[ "$(leases "^n1:")" -eq 0 ]'
	t1=$(date +%s.%N)
	echo "n1's leases gone after $(echo "$t1 - $t0" | bc) s"
	[ "$(echo "$t1 - $t0 <= 4" | bc)" -eq 1 ]
	wait_for 60 eval '[ "$(leases "^n[23]:")" -ge 3 ]'
	NODES="2 3"
	wait_for 120 eval '[ "$(node_queue 2)" -eq 0 ] && [ "$(node_queue 3)" -eq 0 ]'
	# node 1's post is still in its spool; restarted, it finishes it
	[ "$(node_queue 1)" -eq 1 ]
	[ "$(grep -c "to=<n1-" "$BATS_TEST_TMPDIR/s/log")" -lt 1000 ]
	node_start 1
	wait_for 120 drained 7000
	cat "$BATS_TEST_TMPDIR/s/stats"
	[ "$(stat refused)" -eq 0 ]
	[ "$(stat max_open)" -le 3 ]
	# every recipient once, but for node 1's batches in flight at the
	# kill (delivered, not yet marked: a few of 10 recipients each)
	[ "$(sed 's/.* //' "$BATS_TEST_TMPDIR/s/log" | sort -u | wc -l)" -eq 7000 ]
	[ -z "$(sed 's/.* //' "$BATS_TEST_TMPDIR/s/log" | sort | uniq -d | grep -v 'to=<n1-')" ]
	[ "$(received)" -le $((7000 + 60)) ]
	no_crash
}

@test "Redis stopped mid-run: the nodes go on under their local shares, nothing lost; Redis back: shared again" {
	redis_start
	three_nodes 1500 --delay eod=20
	wait_for 30 eval '[ "$(received)" -ge 600 ]'
	redis_stop
	for i in 1 2 3; do
		wait_for 30 eval "'$MJ_QUEUESERV' -C '$BATS_TEST_TMPDIR/n$i/mjq.conf' status |
			grep -q 'unreachable, local shares'"
	done
	# delivery goes on without Redis
	local n=$(received)
	wait_for 30 eval '[ "$(received)" -ge $((n + 300)) ]'
	run "$MJ_QUEUESERV" -C "$BATS_TEST_TMPDIR/n1/mjq.conf" status -j
	python3 -c 'import json,sys; c = json.load(sys.stdin)["cluster"]
assert c["node"] == "n1" and c["state"] == "local" and c["expected_nodes"] == 3, c' <<<"$output"
	run "$MJ_QUEUESERV" -C "$BATS_TEST_TMPDIR/n1/mjq.conf" status -p
	[[ "$output" == *'mjq_cluster_shared{node="n1"} 0'* ]]
	redis_start
	for i in 1 2 3; do
		wait_for 30 eval "'$MJ_QUEUESERV' -C '$BATS_TEST_TMPDIR/n$i/mjq.conf' status |
			grep -q 'limits shared'"
	done
	run "$MJ_QUEUESERV" -C "$BATS_TEST_TMPDIR/n1/mjq.conf" status -p
	[[ "$output" == *'mjq_cluster_shared{node="n1"} 1'* ]]
	wait_for 120 drained 4500
	once 4500
	no_crash
	# each runner said it once, and said it was back
	for i in 1 2 3; do
		grep 'cluster' "$BATS_TEST_TMPDIR/n$i/log"
		[ "$(grep -c 'cluster: Redis at .* unreachable' "$BATS_TEST_TMPDIR/n$i/log")" -ge 1 ]
		[ "$(grep -c 'cluster: Redis at .* unreachable' "$BATS_TEST_TMPDIR/n$i/log")" -le 2 ]
		grep -q 'cluster: Redis at .* is back; limits are shared again' "$BATS_TEST_TMPDIR/n$i/log"
		cat "$BATS_TEST_TMPDIR/n$i/log" | grep cluster
	done
}

# cut I - node I's link to Redis cut: its own path to the socket gone
# (no reconnect) and its runners' connections (named mjq:nI:PID)
# killed
cut() {
	local id
	rm "$REDIS/n$1.sock"
	for id in $(redis-cli -s "$REDIS/sock" client list |
		sed -n "s/^id=\([0-9]*\) .* name=mjq:n$1:.*/\1/p"); do
		redis-cli -s "$REDIS/sock" client kill id "$id" >/dev/null
	done
}

# node_says I TEXT - node I's status line on [cluster] has TEXT
node_says() {
	"$MJ_QUEUESERV" -C "$BATS_TEST_TMPDIR/n$1/mjq.conf" status |
		grep "^cluster:" | grep -q "$2"
}

# A node done with its post gives its leases back as its sessions close,
# while the others wait for them (their TAKEs keep the want key set):
# not at the next renewal, a third of lease_time later, nor when they
# expire.  lease_time is a minute here, so neither can pass for it, and
# queue_run_delay too, so that no poke of the server wakes the idle
# runner for it.
@test "a node done with its post gives its leases back within seconds of its last delivery while the others wait, not at lease_time" {
	local t0 t1
	redis_start
	smtpd_start s --max-sessions 3 --stats "$BATS_TEST_TMPDIR/s/stats" \
		--delay eod=20
	LEASE_TIME=60s QUEUE_RUN_DELAY=60s nodes_posting 60 1500 1500
	# node 1 delivers under leases of its own
	wait_for 60 eval '[ "$(leases "^n1:")" -ge 1 ] || [ "$(node_queue 1)" -eq 0 ]'
	wait_for 120 eval '[ "$(node_queue 1)" -eq 0 ]'
	t0=$(date +%s.%N)
	# the others still deliver, and wait for leases
	[ "$(node_queue 2)" -eq 1 ]
	[ "$(node_queue 3)" -eq 1 ]
	wait_for 60 eval '[ "$(leases "^n1:")" -eq 0 ]'
	t1=$(date +%s.%N)
	echo "n1's leases back $(echo "$t1 - $t0" | bc) s after its post was done"
	[ "$(echo "$t1 - $t0 <= 5" | bc)" -eq 1 ]
	[ "$(grep -c 'to=<n1-' "$BATS_TEST_TMPDIR/s/log")" -eq 60 ]
	wait_for 300 drained 3060
	[ "$(stat refused)" -eq 0 ]
	[ "$(stat max_open)" -le 3 ]
	once 3060
	no_crash
}

# delivered NODE - recipients of node NODE the receiver accepted
delivered() {
	grep -c "to=<n$1-" "$BATS_TEST_TMPDIR/s/log"
}

# The leases are spread over the nodes that want the destination: node
# 1, alone at first, takes the whole limit (4); once nodes 2 and 3 wait,
# it gives back what it holds beyond its fair share (4 over 3 nodes,
# rounded up: 2) as its sessions end, and each of them delivers while
# node 1 still has most of its post to go.  The receiver takes any
# number of sessions and counts them: never more than 4 at once.  With
# the leases handed over only when a node is done, nodes 2 and 3 got
# none until node 1's 3000 recipients were all delivered.  The receiver
# takes 50 ms a message, so node 1 cannot finish in less than 3.75 s
# (300 deliveries over 4 sessions) however fast the machine.
@test "three nodes draining one destination share its limit: a node holding it all gives the others their share while it still has work, never more than the limit at once" {
	local n1
	redis_start
	smtpd_start s --stats "$BATS_TEST_TMPDIR/s/stats" --delay eod=50
	nodes_start 4 3000 300 300
	node_post 1
	wait_for 60 eval '[ "$(leases "^n1:")" -eq 4 ]'
	node_post 2
	node_post 3
	wait_for 120 eval '{ [ "$(delivered 2)" -ge 100 ] &&
		[ "$(delivered 3)" -ge 100 ]; } || [ "$(node_queue 1)" -eq 0 ]'
	n1=$(delivered 1)
	echo "node 1 had delivered $n1 of 3000 when nodes 2 and 3 had $(delivered 2) and $(delivered 3)"
	[ "$n1" -lt 2000 ]
	wait_for 300 drained 3600
	cat "$BATS_TEST_TMPDIR/s/stats"
	[ "$(stat max_open)" -le 4 ]
	once 3600
	no_crash
}

# A Redis that answers one byte every 200 ms never lets a read wait as
# long as timeout_ms (250 ms, the default), but a command with a reply
# of tens of bytes takes seconds: the whole command is bounded, so it
# counts as unreachable, as the README's failure table says.
@test "a Redis that trickles its replies, a byte per 200 ms: a command slower than timeout_ms counts as unreachable, the runner goes on under its shares" {
	redis_start
	"$TOP/t/tools/mj_trickle.py" "$REDIS/trickle" "$REDIS/sock" 200 \
		2>"$REDIS/trickle.err" 3>&- &
	echo $! >>"$BATS_TEST_TMPDIR/server.pids"
	wait_for 30 test -S "$REDIS/trickle"
	REDIS_ADDR=$REDIS/trickle
	run try take k 2 0 state
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"unreachable (no whole reply within 250 ms: timed out)"* ]]
	[ "${lines[-2]}" = local ]
	[ "${lines[-1]}" = fallback ]
	# a node on it delivers a post under its local share, the Redis
	# said unreachable once per runner
	smtpd_start s --stats "$BATS_TEST_TMPDIR/s/stats"
	REDIS_TIMEOUT_MS=250 node_setup 1 50 "[transport:smtp]" \
		"destination_concurrency_limit = 3"
	node_start 1
	node_post 1
	wait_for 120 drained 50
	grep -q 'cluster: Redis at .*/trickle unreachable (no whole reply within 250 ms: timed out)' \
		"$BATS_TEST_TMPDIR/n1/log"
	once 50
	no_crash
}

# A node cut off from Redis while the others keep it can no longer see
# their leases nor they its: it falls back to its share, limit /
# expected_nodes rounded up (here 1 of 3), keeps no session idle,
# and the others share the limit among themselves once its leases, no
# longer renewed, expire.  What the design guarantees: the receiver
# sees at most limit + share sessions during the split (the cut-off
# node's deliveries running at the cut end long before its leases
# expire, two thirds of lease_time after the last renewal at least),
# the limit before and after it.  Here the receiver takes any number
# and counts them; with the share ignored (the node cut off keeping
# the whole limit) max_open reaches 5 or 6 and this fails.
@test "a network split: a node cut off from Redis goes on under its share while the others share the limit; its link back, it shares again" {
	local n
	redis_start
	smtpd_start s --stats "$BATS_TEST_TMPDIR/s/stats" --delay eod=100
	for i in 1 2 3; do
		# node 1 has the most, so it still delivers when its leases
		# have expired and the others hold them
		n=1000
		[ "$i" -ne 1 ] || n=3000
		node_setup "$i" "$n" "[transport:smtp]" \
			"destination_concurrency_limit = 3"
		ln -s "$REDIS/sock" "$REDIS/n$i.sock"
		sed -i "s|^redis = .*|redis = $REDIS/n$i.sock|" \
			"$BATS_TEST_TMPDIR/n$i/mjq.conf"
		node_start "$i"
	done
	for i in 1 2 3; do
		node_post "$i"
	done
	wait_for 30 eval '[ "$(received)" -ge 300 ] && [ "$(leases "^n1:")" -ge 1 ]'
	[ "$(stat max_open)" -le 3 ]
	cut 1
	wait_for 30 node_says 1 'unreachable, local shares'
	# node 1 delivers under its share; 2 and 3 keep sharing, and take
	# node 1's leases once they expire
	n=$(grep -c 'to=<n1-' "$BATS_TEST_TMPDIR/s/log")
	wait_for 30 eval '[ "$(grep -c "to=<n1-" "$BATS_TEST_TMPDIR/s/log")" -ge $((n + 100)) ]'
	# (two waits: under load the others may hold one lease for a
	# moment, between sessions, when node 1's are already gone)
	wait_for 60 eval '[ "$(leases "^n1:")" -eq 0 ]'
	wait_for 60 eval '[ "$(leases "^n[23]:")" -ge 2 ]'
	node_says 2 'limits shared'
	node_says 3 'limits shared'
	# all three deliver at once: 1 at most, and 3 at most
	n=$(grep -c 'to=<n[23]-' "$BATS_TEST_TMPDIR/s/log")
	local n1=$(grep -c 'to=<n1-' "$BATS_TEST_TMPDIR/s/log")
	wait_for 30 eval '[ "$(grep -c "to=<n[23]-" "$BATS_TEST_TMPDIR/s/log")" -ge $((n + 200)) ] &&
		[ "$(grep -c "to=<n1-" "$BATS_TEST_TMPDIR/s/log")" -ge $((n1 + 100)) ]'
	[ "$(stat max_open)" -le 4 ]
	node_says 1 'unreachable, local shares'
	# the link back: node 1 shares again, its next post under leases
	ln -s "$REDIS/sock" "$REDIS/n1.sock"
	wait_for 30 node_says 1 'limits shared'
	d=$BATS_TEST_TMPDIR/n1/lists/ex.org/more
	mkdir -p "$d"
	seq -f "n1b-%g@d.test" 1 500 >"$d/subscribers"
	printf '[list]\nposting = open\n' >"$d/config"
	printf 'From: p@example.net\nSubject: more\n\nhello\n' |
		"$MJ_ENQUEUE" -C "$BATS_TEST_TMPDIR/n1/mjq.conf" -d ex.org \
			-l more -r -f p@example.net
	wait_for 30 eval '[ "$(leases "^n1:")" -ge 1 ]'
	wait_for 120 drained 5500
	cat "$BATS_TEST_TMPDIR/s/stats"
	once 5500
	no_crash
	# limit + node 1's share (3 + 1) at most, over the whole run
	[ "$(stat max_open)" -le 4 ]
	# node 1 said it once per runner, and that it was back; the others
	# never lost Redis
	grep cluster "$BATS_TEST_TMPDIR"/n?/log
	[ "$(grep -c 'cluster: Redis at .* unreachable' "$BATS_TEST_TMPDIR/n1/log")" -ge 1 ]
	[ "$(grep -c 'cluster: Redis at .* unreachable' "$BATS_TEST_TMPDIR/n1/log")" -le 2 ]
	grep -q 'cluster: Redis at .* is back; limits are shared again' "$BATS_TEST_TMPDIR/n1/log"
	run -1 grep -h 'cluster: Redis at .* unreachable' "$BATS_TEST_TMPDIR/n2/log" "$BATS_TEST_TMPDIR/n3/log"
}

@test "a rate limit of R per minute to one destination across three nodes holds: at most 5% over it, at least 90% of it" {
	local c0 c1 t0 t1 rate
	redis_start
	smtpd_start s
	for i in 1 2 3; do
		node_setup "$i" 300 "[transport:smtp]" "destination_recipient_limit = 1" \
			"destination_rate_limit = 600/1m"
		node_start "$i"
	done
	for i in 1 2 3; do
		node_post "$i"
	done
	wait_for 30 eval '[ "$(received)" -ge 10 ]'
	c0=$(received) t0=$(date +%s.%N)
	# the measurement is a window of time: 10 s, 100 deliveries at R
	sleep 10
	c1=$(received) t1=$(date +%s.%N)
	rate=$(echo "($c1 - $c0) * 60 / ($t1 - $t0)" | bc -l)
	echo "measured $rate per minute for 600"
	# the limit holds: never more than 5% over it
	[ "$(echo "$rate <= 630" | bc)" -eq 1 ]
	# and the nodes keep up with it; not to 5%: a loaded machine can make
	# a node late for its slots (569 of 600 in one full run on two busy
	# cores), which the limit allows, as it is a ceiling
	[ "$(echo "$rate >= 540" | bc)" -eq 1 ]
	# the three nodes each took part
	for i in 1 2 3; do
		grep -q "to=<n$i-" "$BATS_TEST_TMPDIR/s/log"
	done
}

# refusals NODES RCPTS - a fresh receiver (421 beyond 3 sessions) and
# NODES nodes without a configured limit, RCPTS recipients each; prints
# the sessions the receiver refused once all arrived
refusals() {
	local n=$1 rcpts=$2 i
	rm -rf "$BATS_TEST_TMPDIR/s" "$BATS_TEST_TMPDIR"/n?
	smtpd_start s --max-sessions 3 --stats "$BATS_TEST_TMPDIR/s/stats"
	NODES=
	for i in $(seq "$n"); do
		node_setup "$i" "$rcpts"
		node_start "$i"
	done
	for i in $(seq "$n"); do
		node_post "$i"
	done
	wait_for 120 drained $((n * rcpts)) >&2
	once $((n * rcpts)) >&2
	for i in $(seq "$n"); do
		node_stop "$i"
	done
	servers_stop
	stat refused
}

# The shared window (the cap, cluster_script.c) is what keeps this near
# one node's count: with a window per node (NO_CLUSTER) the three nodes
# drew 22 to 25 refusals here against one node's 1 or 2 (each node
# starts at the initial concurrency and learns the receiver's limit
# alone).  Shared, the first burst is one node's (the initial window
# is over all nodes), and two more causes are gone: a delivery refused
# gives its lease back with the refusal and waits for one taken anew
# under the lowered window, rather than retrying on its own
# (deliver_cache.c, cluster.c); and a node that waits for a lease makes
# the others close their idle sessions, so the run seldom outlasts the
# learn time and probes one session more.  Measured, 28 runs: three
# nodes 2 in 24, 3 in 2, 4 in 2, against one node's 2 (1 in 2 runs);
# before, 3 to 8.  One node's count is 1 or 2, where one probe more is
# already half of it: the bound is 1.5 times max(one node's, 3), 4.
@test "without a configured limit, three nodes draw no more 421s than one node alone (within 1.5x)" {
	local one three
	redis_start
	one=$(refusals 1 1200)
	three=$(refusals 3 400)
	echo "refused: one node $one, three nodes $three"
	[ "$three" -le $(((one > 3 ? one : 3) * 3 / 2)) ]
}

@test "a destination one node found dead is deferred by the others without a connection until its probe time" {
	redis_start
	# (no session cache: a 421 fails its delivery at once, negative
	# feedback, and a pseudo-cohort of them declares the destination
	# dead)
	smtpd_start s --reply greeting='421 4.3.2 go away' \
		--stats "$BATS_TEST_TMPDIR/s/stats"
	for i in 1 2; do
		node_setup "$i" 20 "[transport:smtp]" "minimal_backoff_time = 60s" \
			"maximal_backoff_time = 120s" "smtp_connection_cache_time = 0" \
			"destination_recipient_limit = 1"
		node_start "$i"
	done
	node_post 1
	# node 1's sessions meet 421: the destination is dead, for all
	wait_for 30 eval '[ -n "$(redis-cli -s "$REDIS/sock" get "mjq:{smtp:[127.0.0.1]:$PORT}:dead")" ]'
	wait_for 30 grep -q 'status=deferred' "$BATS_TEST_TMPDIR/n1/log"
	local sessions=$(stat sessions)
	[ "$sessions" -ge 1 ]
	node_post 2
	# node 2 defers its 20 recipients (wait for the last of them: the
	# first line can be logged while others are still being walked)
	wait_for 30 eval '[ "$(grep -c "to=<n2-.*status=deferred (delivery temporarily suspended" \
		"$BATS_TEST_TMPDIR/n2/log")" -eq 20 ]'
	# without opening a session
	[ "$(stat sessions)" -eq "$sessions" ]
	[ "$(grep -c 'to=<n2-.*status=deferred' "$BATS_TEST_TMPDIR/n2/log")" -eq 20 ]
	no_crash
}

@test "Redis over TLS: leases taken and given back through a verified connection; another CA, a name the certificate lacks, a stalled handshake: unreachable, nothing taken" {
	command -v openssl >/dev/null || skip "openssl is not installed"
	redis_tls_start
	REDIS_ADDR=localhost:$REDIS_TLS_PORT
	# the scripts work through TLS: a lease of a limit of 1, full, given
	# back, taken again
	run try MJQ_CLUSTER_TLS_CA="$C/ca.crt" take t 1 0 take t 1 0 done t 0 take t 1 0 state
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = go ]
	[[ "${lines[1]}" == "full "* ]]
	[ "${lines[2]}" = done ]
	[ "${lines[3]}" = go ]
	[ "${lines[4]}" = shared ]
	# given back at the end; one held is in Redis, named by its node
	[ "$(redis_tls zcard 'mjq:{t}:lease')" -eq 0 ]
	MJQ_CLUSTER_NODE=tlsnode MJQ_CLUSTER_TLS_CA="$C/ca.crt" \
		"$MJ_CLUSTERTRY" "$REDIS_ADDR" take t 2 0 hold \
		>"$BATS_TEST_TMPDIR/hold" 3>&- &
	local holder=$!
	wait_for 30 grep -qx held "$BATS_TEST_TMPDIR/hold"
	[ "$(redis_tls zcard 'mjq:{t}:lease')" -eq 1 ]
	[[ "$(redis_tls client list)" == *"name=mjq:tlsnode:"* ]]
	kill -KILL "$holder"
	wait "$holder" || true
	# a CA that did not sign the server's certificate: unreachable, said
	# once, nothing taken
	run try MJQ_CLUSTER_TLS_CA="$C/other.crt" take u 2 0 take u 2 0 state
	[ "${lines[0]}" != go ]
	[[ "$output" == *"unreachable (TLS handshake: server certificate not verified: "* ]]
	[ "$(grep -c unreachable <<<"$output")" -eq 1 ]
	[ "${lines[1]}" = local ]
	[ "${lines[2]}" = local ]
	[ "${lines[3]}" = fallback ]
	# the system store does not know the test CA either
	run try MJQ_CLUSTER_TLS_CA= take u 2 0 state
	[[ "$output" == *"server certificate not verified"* ]]
	[ "${lines[-1]}" = fallback ]
	# the right CA, but the certificate names localhost, not 127.0.0.1
	REDIS_ADDR=127.0.0.1:$REDIS_TLS_PORT
	run try MJQ_CLUSTER_TLS_CA="$C/ca.crt" take u 2 0 state
	[[ "$output" == *"not verified: IP address mismatch"* ]]
	[ "${lines[-1]}" = fallback ]
	[ "$(redis_tls zcard 'mjq:{u}:lease')" -eq 0 ]
	[ -z "$(redis_tls keys 'mjq:{u}:*')" ]
	# tls = yes on a socket path: refused, not sent in clear
	REDIS_ADDR=$REDIS/sock
	run try MJQ_CLUSTER_TLS_CA="$C/ca.crt" take u 2 0 state
	[[ "$output" == *"unreachable (tls = yes needs host:port)"* ]]
	# a server that accepts and never answers the handshake: given up
	# after timeout_ms (250), not waited on
	python3 -c 'import socket,sys,time
s=socket.socket(); s.bind(("127.0.0.1",0)); s.listen(5)
print(s.getsockname()[1]); sys.stdout.flush(); time.sleep(60)' \
		>"$BATS_TEST_TMPDIR/stall" 3>&- &
	echo $! >>"$BATS_TEST_TMPDIR/server.pids"
	wait_for 30 test -s "$BATS_TEST_TMPDIR/stall"
	REDIS_ADDR=localhost:$(cat "$BATS_TEST_TMPDIR/stall")
	local t0=$SECONDS
	run try MJQ_CLUSTER_TLS_CA="$C/ca.crt" take u 2 0 state
	[[ "$output" == *"unreachable (TLS handshake: timed out)"* ]]
	[ "${lines[-1]}" = fallback ]
	[ $((SECONDS - t0)) -le 2 ]
}

@test "one node delivers with its leases in a Redis over TLS: shared, at most the limit at once, every recipient once" {
	command -v openssl >/dev/null || skip "openssl is not installed"
	redis_tls_start
	REDIS_ADDR=localhost:$REDIS_TLS_PORT
	smtpd_start s --max-sessions 3 --stats "$BATS_TEST_TMPDIR/s/stats"
	node_setup 1 300 "tls = yes" "tls_ca_file = $C/ca.crt" \
		"[transport:smtp]" "destination_concurrency_limit = 2"
	node_start 1
	node_post 1
	wait_for 30 eval '[ "$(redis_tls zcard "mjq:{smtp:[127.0.0.1]:$PORT}:lease")" -ge 1 ]'
	wait_for 60 drained 300
	cat "$BATS_TEST_TMPDIR/s/stats"
	[ "$(stat refused)" -eq 0 ]
	[ "$(stat max_open)" -le 2 ]
	once 300
	no_crash
	run -1 grep unreachable "$BATS_TEST_TMPDIR/n1/log"
	run "$MJ_QUEUESERV" -C "$BATS_TEST_TMPDIR/n1/mjq.conf" status
	[[ "$output" == *"cluster: node n1, Redis $REDIS_ADDR: limits shared for "* ]]
}
