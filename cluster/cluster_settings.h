/*
 * cluster_settings.h - the [cluster] section of mjq.conf
 * (cluster_settings.c): the Redis that several hosts share their limits
 * through, and how this node takes part (docs/cluster.md).
 *
 * Every program that reads mjq.conf passes cluster_settings_part to
 * settings_load, so that each accepts [cluster] and refuses an unknown
 * key in it.  cluster_settings.c holds only the table, no call into the
 * rest of libcluster and nothing of hiredis: mj_enqueue, mj_queueserv
 * and mj_unsubscribe link its object alone.
 */
#ifndef MJQ_CLUSTER_SETTINGS_H
#define MJQ_CLUSTER_SETTINGS_H

#include <limits.h>

#include "settings.h"

struct cluster_settings {
	char cluster_redis[PATH_MAX]; /* host:port or a socket path; "": off */
	char cluster_password[128];
	int cluster_tls;		    /* TLS to host:port */
	char cluster_tls_ca_file[PATH_MAX]; /* "": the system store */
	char cluster_node[64];		    /* "": the host name */
	long long cluster_lease_time;
	long long cluster_expected_nodes;
	long long cluster_timeout_ms;
};

struct settings_part cluster_settings_part(struct cluster_settings *cs);

#endif
