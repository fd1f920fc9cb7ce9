/*
 * settings.h - mjq.conf, read once: the table machinery, and the keys of
 * the sections that every program shares ([spool], [lists], [enqueue],
 * [queueserv], [queuerun]), with their defaults and ranges (see
 * mjq.conf(5)).
 *
 * The other sections belong to the parts that use them, and each part
 * keeps its table beside its code: the list sections ([request], [dkim],
 * [arc], [dmarc], [unsubscribe]) in lists/lists_settings.c, [cluster] in
 * cluster/cluster_settings.c, the delivery sections ([delivery],
 * [transport:NAME], [transport_map], [tls_policy]) in
 * deliver/delivery_conf.c.  A program hands settings_load the parts it
 * reads as struct settings_part; every program passes the list part and
 * the cluster part, so that each accepts the whole file and refuses an
 * unknown key anywhere.
 * The delivery sections, when no part claims them, are accepted unchecked
 * (mj_enqueue and the others that never use them; mj_queueserv's runners
 * check them); so is [archive] (archive/archive_settings.c, checked by
 * mj_archive).
 */
#ifndef MJQ_SETTINGS_H
#define MJQ_SETTINGS_H

#include <limits.h>

#include "conf.h"

/* SYSCONFDIR/mjq/mjq.conf, compiled in (settings_path.c) */
extern const char settings_default_file[];
#define SETTINGS_DEFAULT_FILE settings_default_file

struct settings {
	char config_file[PATH_MAX]; /* the file read ("" for a stream) */
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
};

/* One fixed section: its keys, whose offsets point into a struct. */
struct settings_table {
	const char *section;
	const struct conf_key *keys;
	size_t nkeys;
};

/* A part's sections: fixed ones (tables, their values in the part's own
 * struct at base, size bytes, set to the defaults before the file is
 * read), free-form ones (section: -1 for a section not the part's), or
 * both. */
struct settings_part {
	const struct settings_table *tables;
	size_t ntables;
	void *base;
	size_t size;
	conf_section_fn *section;
	void *section_arg;
};

/* SETTINGS_TABLE - a section's row: its name and its array of keys */
#define SETTINGS_TABLE(name, keys)                                             \
	{                                                                      \
		name, keys, sizeof(keys) / sizeof(keys[0])                     \
	}

int settings_load(struct settings *s, const struct settings_part *parts,
    size_t nparts, const char *path, int missing_ok, char *err, size_t errlen);
int settings_load_file(struct settings *s, const struct settings_part *parts,
    size_t nparts, FILE *fp, const char *label, char *err, size_t errlen);

#endif
