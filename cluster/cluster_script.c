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
 * Every time is the Redis server's (TIME), so the nodes' clocks may
 * disagree without harm: a node sends durations, never dates.  Each
 * script is one round trip and runs atomically on the server.
 *
 * TAKE  KEYS lease rate dead; ARGV member ("": the caller holds a lease
 *       already, only the rate and dead state are asked), lease ms,
 *       limit (0: none), interval ms (0: none).  Answers {code, ms}:
 *       GO, or FULL with the ms until the oldest lease expires, RATE
 *       with the ms until the bucket has room, DEAD with the ms until
 *       the probe.  Expired leases are dropped first: a dead node's
 *       slots come back by themselves.  The rate is a generic cell rate
 *       algorithm without burst (as sched_rate_take: starts at least
 *       interval apart over all nodes).
 * RENEW KEYS lease; ARGV lease ms, members...: each member's expiry set
 *       to now + lease ms (added back when Redis lost it).
 * DEAD  KEYS dead; ARGV ms: dead for ms more, or (0) alive again.
 */
#include <stdio.h>

#include "cluster_script.h"

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
	"  if limit > 0 and redis.call('ZCARD', KEYS[1]) >= limit then\n"
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
};

/* cluster_script_source - the Lua text of a script */
const char *
cluster_script_source(enum cluster_script s)
{
	return cluster_scripts[s];
}

/* cluster_script_keys - the three Redis keys of a destination key */
int
cluster_script_keys(
    const char *key, char *lease, char *rate, char *dead, size_t len)
{
	if ((size_t)snprintf(lease, len, "mjq:{%s}:lease", key) >= len ||
	    (size_t)snprintf(rate, len, "mjq:{%s}:rate", key) >= len ||
	    (size_t)snprintf(dead, len, "mjq:{%s}:dead", key) >= len)
		return -1;
	return 0;
}
