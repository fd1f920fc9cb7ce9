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
 *     mjq:{KEY}:wait    sorted set: the nodes a TAKE found every lease
 *                       held for (member the node's name), scored by
 *                       when that stops counting (CLUSTER_WANT_MS on,
 *                       unless it asks again); a node leaves it when it
 *                       is given a lease.  While another node waits,
 *                       the others close their idle sessions when done
 *                       and give back what they hold beyond one more
 *                       than the waiting node that holds fewest as
 *                       their sessions end (SHARE, cluster.c)
 * Every time is the Redis server's (TIME), so the nodes' clocks may
 * disagree without harm: a node sends durations, never dates.  Each
 * script is one round trip and runs atomically on the server.
 *
 * TAKE  KEYS lease rate dead cap wait; ARGV member ("": the caller holds
 *       a lease already, only the rate and dead state are asked), lease
 *       ms, limit (0: none), interval ms (0: none), initial cap, node
 *       (its name, for wait).  The limit is the cap's when that is
 *       lower.  Answers {code, ms}:
 *       GO, or FULL with the ms until the oldest lease expires, RATE
 *       with the ms until the bucket has room, DEAD with the ms until
 *       the probe.  Expired leases are dropped first: a dead node's
 *       slots come back by themselves.  The rate is a generic cell rate
 *       algorithm without burst (as sched_rate_take: starts at least
 *       interval apart over all nodes).
 * RENEW KEYS lease; ARGV lease ms, members...: each member's expiry set
 *       to now + lease ms (added back when Redis lost it).
 * DEAD  KEYS dead; ARGV ms: dead for ms more, or (0) alive again.
 * SHARE KEYS lease wait; ARGV node, leases the caller gives back
 *       already: the limit is spread over the nodes that want it by
 *       filling from the bottom.  While another node waits, this node
 *       holds a surplus of what it holds beyond one more than the
 *       waiting node that holds fewest; TAKE refuses a node a lease
 *       while a waiting node holds fewer.  So a limit of 4 over three
 *       nodes settles at 2, 1 and 1, and no lease moves between nodes
 *       one apart.  Answers {surplus, nodes waiting (this one
 *       included)}.
 * WANT  KEYS wanted (CLUSTER_WANTED_KEY); ARGV node: node was refused a
 *       lease, of any destination, for CLUSTER_WANT_MS.
 * WANTED KEYS wanted; ARGV node: {nodes other than node in it, all}.
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

/* fair(lease, wait, node, now): the fewest leases a node other than
 * node that waits holds (-1: no other node waits), the leases node
 * holds, the nodes waiting.  A member's node is all before its last two
 * colons ("node:pid:n"). */
#define CLUSTER_LUA_FAIR                                                       \
	"local function fair(lkey, wkey, node, now)\n"                         \
	"  redis.call('ZREMRANGEBYSCORE', wkey, '-inf', now)\n"                \
	"  local waiters = redis.call('ZRANGE', wkey, 0, -1)\n"                \
	"  local count, others, mine, least = {}, 0, 0, -1\n"                  \
	"  for _, w in ipairs(waiters) do\n"                                   \
	"    if w ~= node then\n"                                              \
	"      count[w] = 0\n"                                                 \
	"      others = others + 1\n"                                          \
	"    end\n"                                                            \
	"  end\n"                                                              \
	"  if others == 0 then return -1, 0, #waiters end\n"                   \
	"  for _, m in ipairs(redis.call('ZRANGE', lkey, 0, -1)) do\n"         \
	"    local nd = string.match(m, '^(.*):[^:]*:[^:]*$')\n"               \
	"    if nd == node then\n"                                             \
	"      mine = mine + 1\n"                                              \
	"    elseif nd ~= nil and count[nd] ~= nil then\n"                     \
	"      count[nd] = count[nd] + 1\n"                                    \
	"    end\n"                                                            \
	"  end\n"                                                              \
	"  for _, c in pairs(count) do\n"                                      \
	"    if least < 0 or c < least then least = c end\n"                   \
	"  end\n"                                                              \
	"  return least, mine, #waiters\n"                                     \
	"end\n"

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
	"    redis.call('ZADD', KEYS[5], now + " CLUSTER_WANT_MS ", ARGV[6])\n"
	"    redis.call('PEXPIRE', KEYS[5], " CLUSTER_WANT_MS ")\n"
	"    local first = redis.call('ZRANGE', KEYS[1], 0, 0, "
	"'WITHSCORES')\n"
	"    return {1, tonumber(first[2]) - now}\n"
	"  end\n" CLUSTER_LUA_FAIR
	"  local least, mine = fair(KEYS[1], KEYS[5], ARGV[6], now)\n"
	"  if least >= 0 and mine > least then return {1, 0} end\n"
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
	"  redis.call('ZREM', KEYS[5], ARGV[6])\n"
	"end\n"
	"return {0, 0}\n",
    [CLUSTER_SCRIPT_SHARE] =
	"local t = redis.call('TIME')\n"
	"local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / "
	"1000)\n"
	"redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', "
	"now)\n" CLUSTER_LUA_FAIR
	"local least, mine, waiting = fair(KEYS[1], KEYS[2], ARGV[1], now)\n"
	"local surplus = 0\n"
	"if least >= 0 then\n"
	"  surplus = mine - tonumber(ARGV[2]) - (least + 1)\n"
	"end\n"
	"if surplus < 0 then surplus = 0 end\n"
	"return {surplus, waiting}\n",
    [CLUSTER_SCRIPT_WANT] =
	"local t = redis.call('TIME')\n"
	"local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / "
	"1000)\n"
	"redis.call('ZADD', KEYS[1], now + " CLUSTER_WANT_MS ", ARGV[1])\n"
	"redis.call('PEXPIRE', KEYS[1], " CLUSTER_WANT_MS ")\n"
	"return 1\n",
    [CLUSTER_SCRIPT_WANTED] =
	"local t = redis.call('TIME')\n"
	"local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / "
	"1000)\n"
	"redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)\n"
	"local n = redis.call('ZCARD', KEYS[1])\n"
	"local mine = 0\n"
	"if redis.call('ZSCORE', KEYS[1], ARGV[1]) then mine = 1 end\n"
	"return {n - mine, n}\n",
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
	    (size_t)snprintf(k->wait, len, "mjq:{%s}:wait", key) >= len)
		return -1;
	return 0;
}
