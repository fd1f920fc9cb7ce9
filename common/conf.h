/*
 * conf.h - table-driven INI configuration on inih.
 *
 * A key table describes the keys of one kind of section: name, type,
 * default (as text, parsed by the same code as the file), range, and where
 * the value lives (an offset into a settings struct).  A section callback
 * maps each section name of the file to a table and a struct, or to a
 * free-form pair callback (for maps such as [transport_map]), or rejects
 * it.  Every error names file, line, section and key.
 */
#ifndef MJQ_CONF_H
#define MJQ_CONF_H

#include <stddef.h>
#include <stdio.h>

enum conf_type {
	CONF_STR,      /* char[N] (max = N) */
	CONF_INT,      /* long long, integer in [min, max] */
	CONF_BOOL,     /* int: yes/no, true/false, on/off, 1/0 */
	CONF_SIZE,     /* long long bytes: 10M, 512k, 10MB, plain bytes */
	CONF_DURATION, /* long long seconds: 300, 300s, 5m, 2h, 5d */
	CONF_MODE,     /* int: octal file mode */
	CONF_FUNC,     /* parsed by the key's own function */
};

/* conf_parse_fn - parse text into *var; on failure write why to err */
typedef int conf_parse_fn(
    const char *text, void *var, char *err, size_t errlen);

struct conf_key {
	const char *name;
	enum conf_type type;
	const char *def; /* default as text; NULL = empty string / zero */
	long long min, max;
	size_t off; /* offsetof the value in the settings struct */
	conf_parse_fn *parse;
};

/* A string key of struct type: its field, a char array, is its maximum. */
#define CONF_STRKEY(type, n, d, f)                                             \
	{                                                                      \
		n, CONF_STR, d, 0, sizeof(((type *)0)->f), offsetof(type, f),  \
		    NULL                                                       \
	}

/* conf_pair_fn - take one key = value of a free-form section */
typedef int conf_pair_fn(void *arg, const char *section, const char *key,
    const char *value, char *err, size_t errlen);

struct conf_section {
	const struct conf_key *keys; /* NULL: free-form, see pair */
	size_t nkeys;
	void *base;
	/* Called for keys not in the table (or every key when keys is NULL);
	 * NULL means such keys are errors. Returns 0 ok, -1 bad value, -2
	 * unknown key. */
	conf_pair_fn *pair;
	void *pair_arg;
};

/* conf_section_fn - map a section name; -1 with err for an unknown one */
typedef int conf_section_fn(void *arg, const char *section,
    struct conf_section *out, char *err, size_t errlen);

int conf_defaults(const struct conf_key *keys, size_t nkeys, void *base);
int conf_set(const struct conf_key *keys, size_t nkeys, void *base,
    const char *name, const char *value, char *err, size_t errlen);
int conf_load(const char *path, int missing_ok, conf_section_fn *fn, void *arg,
    char *err, size_t errlen);
int conf_load_file(FILE *fp, const char *label, conf_section_fn *fn, void *arg,
    char *err, size_t errlen);

#endif
