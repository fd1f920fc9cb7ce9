/*
 * settings.h - the schema of mjq.conf: every key of the sections that the
 * programs share, with its default and range (see the README's table).
 *
 * The delivery sections ([delivery], [transport:NAME], [transport_map],
 * [tls_policy]) belong to the runner; a program passes a section function
 * for them, or NULL to accept them unchecked (mj_enqueue, which never
 * uses them).
 */
#ifndef MJQ_SETTINGS_H
#define MJQ_SETTINGS_H

#include <limits.h>

#include "conf.h"

/* SYSCONFDIR/mjq/mjq.conf, compiled in (settings_path.c) */
extern const char settings_default_file[];
#define SETTINGS_DEFAULT_FILE settings_default_file

struct settings {
	/* [spool] */
	char spool_dir[PATH_MAX];
	/* [lists] */
	char lists_dir[PATH_MAX];
	/* [enqueue] */
	long long enqueue_max_message_size;
	int enqueue_start_server;
	long long enqueue_poke_timeout_ms;
	/* [queueserv] */
	char queueserv_user[64];
	char queueserv_socket_group[64];
	int queueserv_socket_mode;
	long long queueserv_min_runners;
	long long queueserv_max_runners;
	long long queueserv_queue_run_delay;
	long long queueserv_runner_idle_timeout;
	long long queueserv_runner_max_messages;
	long long queueserv_runner_hang_timeout;
	long long queueserv_handshake_timeout_ms;
	long long queueserv_shutdown_timeout;
	long long queueserv_tmp_max_age;
	char queueserv_runner_program[PATH_MAX];
	long long queueserv_runner_kill_timeout;
	long long queueserv_client_timeout_ms;
	long long queueserv_max_clients;
	/* [queuerun] */
	long long queuerun_starvation_age;
	long long queuerun_active_limit;
	long long queuerun_max_crashes;
	/* [request] */
	long long request_token_lifetime;
	long long request_reply_rate_limit;
	long long request_reply_rate_period;
	/* [dkim] (lists/dkim_conf.c; a domain may override in its key dir) */
	int dkim_sign;
	char dkim_key_dir[PATH_MAX];
	char dkim_selectors[128];
	char dkim_ed25519_selector[64];
	/* [arc] (lists/arc_*.c, listfn/expand_dmarc.c) */
	int arc_seal;
	char arc_trusted_authserv_ids[512];
	/* [dmarc] (lists/dmarc.c) */
	long long dmarc_cache_ttl_max;
	long long dmarc_negative_ttl;
	/* [unsubscribe] */
	char unsubscribe_secret_file[PATH_MAX];
	long long unsubscribe_token_lifetime;
	long long unsubscribe_address_per_hour; /* one-click POSTs, 0 none */
	long long unsubscribe_per_minute;	/* all of them, 0 none */
	/* [cluster] (cluster/: limits shared with other hosts in Redis) */
	char cluster_redis[PATH_MAX]; /* host:port or a socket path; "": off */
	char cluster_password[128];
	char cluster_node[64]; /* "": the host name */
	long long cluster_lease_time;
	long long cluster_expected_nodes;
	long long cluster_timeout_ms;
};

int settings_load(struct settings *s, const char *path, int missing_ok,
    conf_section_fn *other, void *other_arg, char *err, size_t errlen);
int settings_load_file(struct settings *s, FILE *fp, const char *label,
    conf_section_fn *other, void *other_arg, char *err, size_t errlen);
conf_section_fn settings_skip_section;

#endif
