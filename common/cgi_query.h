/*
 * cgi_query.h - a CGI query string's fields, decoded (cgi_query.c).
 */
#ifndef MJQ_CGI_QUERY_H
#define MJQ_CGI_QUERY_H

#include <stddef.h>

int cgi_query_field(
    const char *query, const char *key, char *out, size_t outlen);

#endif
