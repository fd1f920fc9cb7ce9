/*
 * cgi_req.h - what a web server hands a CGI program (RFC 3875): the
 * method and a bounded request body (cgi_req.c).
 */
#ifndef MJQ_CGI_REQ_H
#define MJQ_CGI_REQ_H

#include <stddef.h>

enum cgi_method { CGI_GET, CGI_HEAD, CGI_POST, CGI_OTHER };

/* cgi_method - REQUEST_METHOD */
enum cgi_method cgi_method(void);
/* cgi_body - the request body (CONTENT_LENGTH bytes) into buf, NUL
 * ended; 0 ok, 1 larger than size - 1, -1 unreadable or short */
int cgi_body(char *buf, size_t size, size_t *len);
/* cgi_same_origin - 0 when the browser says the request came from
 * another site (Origin or Sec-Fetch-Site), 1 otherwise */
int cgi_same_origin(void);

/* cgi_headers - a CGI response's status and headers for an HTML page
 * that must not run scripts, load anything remote, be framed, be cached
 * or send a Referer (its address may carry a token), to stdout */
void cgi_headers(int status, const char *reason);
/* cgi_page_open - an HTML5 page's start, up to its open <title>: the
 * caller writes the title (escaped), then its own style and body */
void cgi_page_open(void);
/* cgi_config - $MJQ_CONF when the program runs with its real user and
 * group (never when installed set-user-ID or set-group-ID), else dflt */
const char *cgi_config(const char *dflt);

#endif
