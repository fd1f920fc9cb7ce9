/*
 * sweep.c - the minute's sweeps: the periodic jobs of the list
 * functions, one stage of the step loop (queuerun.c), run before a walk
 * and MODERATE_EXPIRE_EVERY seconds apart:
 *
 *   held posts     moderate_expire: posts held past their list's
 *                  moderation_lifetime are dropped, their posters told
 *   digests        digest_sweep: an issue that is due, or that a crash
 *                  left half sent, goes out
 *   archive        archive_post_sweep: an archive inbox left with posts
 *                  is drained
 *   TLS-RPT        tlsrpt_sweep: a finished day's reports go out
 *
 * Mail a sweep queues is due at once: the walk that follows must not
 * see it as younger than its clock, so the clock is read again.
 */
#include "clock.h"
#include "listfn.h"
#include "sweep.h"

/* sweep_run - every sweep, when a minute has passed since the last */
double
sweep_run(struct sweep *sw, struct listfn_env *env, double now)
{
	if ((time_t)now < sw->next)
		return now;
	sw->next = (time_t)now + MODERATE_EXPIRE_EVERY;
	if (moderate_expire(env, (time_t)now) > 0)
		now = clock_now();
	if (digest_sweep(env) > 0)
		now = clock_now();
	(void)archive_post_sweep(env);
	if (tlsrpt_sweep(env) > 0)
		now = clock_now();
	return now;
}
