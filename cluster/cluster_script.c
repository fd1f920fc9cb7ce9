/*
 * cluster_script.c - the Lua scripts Redis runs for the shared limits.
 *
 * Keys of one destination (cluster_script_keys), all in one hash slot:
 *     mjq:{KEY}:lease   sorted set: member "node:pid:n", score its
 *                       expiry (ms, the server's clock)
 *     mjq:{KEY}:rate    string: the bucket's theoretical arrival time
 *                       (ms), expiring when it is in the past anyway
 *     mjq:{KEY}:dead    string: when the destination may be probed
 *                       again (ms), expiring then
 *     mjq:{KEY}:cap     hash: n, until (ms): the sessions all nodes
 *                       may hold now, below the configured limit: the
 *                       shared window.  It starts at the initial
 *                       concurrency, grows by one when the leases fill
 *                       it (at most every CLUSTER_CAP_GROW ms), falls
 *                       to what the receiver took when it refuses a
 *                       session (LEARN) and stays there for the learn
 *                       time; forgotten after CLUSTER_CAP_IDLE unused
 *     mjq:{KEY}:want    string, for CLUSTER_WANT ms after a TAKE found
 *                       every lease held: a node waits, so the others
 *                       close their idle sessions and give their leases
 *                       back (cluster.c) rather than keep them cached
 * Every time is the Redis server's (TIME), so the nodes' clocks may
 * disagree without harm: a node sends durations, never dates.  Each
 * script is one round trip and runs atomically on the server.
 *
 * TAKE  KEYS lease rate dead cap want; ARGV member ("": the caller holds a
 *       lease already, only the rate and dead state are asked), lease
 *       ms, limit (0: none), interval ms (0: none), initial cap.  The
 *       limit is the cap's when that is lower.  Answers {code, ms}:
 *       GO, or FULL with the ms until the oldest lease expires, RATE
 *       with the ms until the bucket has room, DEAD with the ms until
 *       the probe.  Expired leases are dropped first: a dead node's
 *       slots come back by themselves.  The rate is a generic cell rate
 *       algorithm without burst (as sched_rate_take: starts at least
 *       interval apart over all nodes).
 * RENEW KEYS lease; ARGV lease ms, members...: each member's expiry set
 *       to now + lease ms (added back when Redis lost it).
 * DEAD  KEYS dead; ARGV ms: dead for ms more, or (0) alive again.
 * LEARN KEYS lease cap; ARGV learn ms, refused: the receiver refused
 *       sessions while the leases held were the sessions open; the cap
 *       is that count less the refused, for learn ms.  So all nodes
 *       together learn a receiver's session limit as one node does
 *       (deliver_cache.c): no more than it took until the learn time
 *       ends, then one session more at a time.
 */
#include <stdio.h>

#include "cluster_script.h"

/* How long the cap stays unused before a destination starts afresh,
 * and how soon after a step it may grow by one more (ms, as text). */
#define CLUSTER_CAP_IDLE "600000"
#define CLUSTER_CAP_GROW "500"
/* How long a node that found every lease held is said to wait (ms). */
#define CLUSTER_WANT "1000"

static const char *const cluster_scripts[CLUSTER_SCRIPT_N] = {
    [CLUSTER_SCRIPT_TAKE] =
	"local t = redis.call('TIME')\n"
	"local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / "
	"1000)\n"
	"local dead = tonumber(redis.call('GET', KEYS[3]) or '0')\n"
	"if dead > now then return {3, dead - now} end\n"
	"local lease = tonumber(ARGV[2])\n"
	"local limit = tonumber(ARGV[3])\n"
	"if ARGV[1] ~= '' then\n"
	"  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)\n"
	"  local held = redis.call('ZCARD', KEYS[1])\n"
	"  local cap = redis.call('HMGET', KEYS[4], 'n', 'until')\n"
	"  local n = tonumber(cap[1] or ARGV[5])\n"
	"  local u = tonumber(cap[2] or (now + " CLUSTER_CAP_GROW "))\n"
	"  if held >= n and now >= u and (limit == 0 or n < limit) then\n"
	"    n = n + 1\n"
	"    u = now + " CLUSTER_CAP_GROW "\n"
	"  end\n"
	"  redis.call('HSET', KEYS[4], 'n', n, 'until', u)\n"
	"  redis.call('PEXPIRE', KEYS[4], " CLUSTER_CAP_IDLE ")\n"
	"  if limit == 0 or n < limit then limit = n end\n"
	"  if held >= limit then\n"
	"    redis.call('SET', KEYS[5], 1, 'PX', " CLUSTER_WANT ")\n"
	"    local first = redis.call('ZRANGE', KEYS[1], 0, 0, "
	"'WITHSCORES')\n"
	"    return {1, tonumber(first[2]) - now}\n"
	"  end\n"
	"end\n"
	"local iv = tonumber(ARGV[4])\n"
	"if iv > 0 then\n"
	"  local tat = tonumber(redis.call('GET', KEYS[2]) or '0')\n"
	"  if tat > now then return {2, tat - now} end\n"
	"  redis.call('SET', KEYS[2], now + iv, 'PX', iv + 1000)\n"
	"end\n"
	"if ARGV[1] ~= '' then\n"
	"  redis.call('ZADD', KEYS[1], now + lease, ARGV[1])\n"
	"  redis.call('PEXPIRE', KEYS[1], lease + 1000)\n"
	"end\n"
	"return {0, 0}\n",
    [CLUSTER_SCRIPT_RENEW] =
	"local t = redis.call('TIME')\n"
	"local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / "
	"1000)\n"
	"local lease = tonumber(ARGV[1])\n"
	"for i = 2, #ARGV do\n"
	"  redis.call('ZADD', KEYS[1], now + lease, ARGV[i])\n"
	"end\n"
	"redis.call('PEXPIRE', KEYS[1], lease + 1000)\n"
	"return #ARGV - 1\n",
    [CLUSTER_SCRIPT_DEAD] =
	"local ms = tonumber(ARGV[1])\n"
	"if ms <= 0 then return redis.call('DEL', KEYS[1]) end\n"
	"local t = redis.call('TIME')\n"
	"local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / "
	"1000)\n"
	"redis.call('SET', KEYS[1], now + ms, 'PX', ms)\n"
	"return 1\n",
    [CLUSTER_SCRIPT_LEARN] =
	"local t = redis.call('TIME')\n"
	"local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / "
	"1000)\n"
	"redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)\n"
	"local n = redis.call('ZCARD', KEYS[1]) - tonumber(ARGV[2])\n"
	"local old = tonumber(redis.call('HGET', KEYS[2], 'n') or '0')\n"
	"if old > 0 and old < n then n = old end\n"
	"if n < 1 then n = 1 end\n"
	"redis.call('HSET', KEYS[2], 'n', n, 'until', now + "
	"tonumber(ARGV[1]))\n"
	"redis.call('PEXPIRE', KEYS[2], " CLUSTER_CAP_IDLE ")\n"
	"return n\n",
};

/* cluster_script_source - the Lua text of a script */
const char *
cluster_script_source(enum cluster_script s)
{
	return cluster_scripts[s];
}

/* cluster_script_keys - the Redis keys of a destination key */
int
cluster_script_keys(const char *key, struct cluster_rkeys *k)
{
	size_t len = sizeof(k->lease);

	if ((size_t)snprintf(k->lease, len, "mjq:{%s}:lease", key) >= len ||
	    (size_t)snprintf(k->rate, len, "mjq:{%s}:rate", key) >= len ||
	    (size_t)snprintf(k->dead, len, "mjq:{%s}:dead", key) >= len ||
	    (size_t)snprintf(k->cap, len, "mjq:{%s}:cap", key) >= len ||
	    (size_t)snprintf(k->want, len, "mjq:{%s}:want", key) >= len)
		return -1;
	return 0;
}
