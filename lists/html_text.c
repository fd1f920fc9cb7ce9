/*
 * html_text.c - the text of an HTML part, read by libxml2's HTML parser
 * (never by matching tags): script, style, head and title left out, a
 * line break after each block, a link's http(s) address after its
 * words, a blockquote's text after "> ".  The archive shows it; a list
 * with convert_html sends it (content_filter.c).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <libxml/HTMLparser.h>
#include <libxml/tree.h>

#include "html_text.h"

/* html_text_node - the text of node and its children */
static void
html_text_node(FILE *fp, xmlNode *node)
{
	xmlNode *c;
	const char *name;
	xmlChar *href;

	for (c = node; c != NULL; c = c->next) {
		if (c->type == XML_TEXT_NODE ||
		    c->type == XML_CDATA_SECTION_NODE) {
			if (c->content != NULL)
				fputs((const char *)c->content, fp);
			continue;
		}
		if (c->type != XML_ELEMENT_NODE)
			continue;
		name = (const char *)c->name;
		if (strcmp(name, "script") == 0 || strcmp(name, "style") == 0 ||
		    strcmp(name, "head") == 0 || strcmp(name, "title") == 0)
			continue;
		if (strcmp(name, "br") == 0)
			fputc('\n', fp);
		if (strcmp(name, "blockquote") == 0)
			fputs("\n> ", fp);
		html_text_node(fp, c->children);
		if (strcmp(name, "a") == 0 &&
		    (href = xmlGetProp(c, (const xmlChar *)"href")) != NULL) {
			if (strncmp((const char *)href, "http", 4) == 0)
				fprintf(fp, " <%s>", (const char *)href);
			xmlFree(href);
		}
		if (strchr("pdhlt", name[0]) != NULL &&
		    (strcmp(name, "p") == 0 || strcmp(name, "div") == 0 ||
			strcmp(name, "li") == 0 || strcmp(name, "tr") == 0 ||
			strcmp(name, "pre") == 0 ||
			(name[0] == 'h' && name[1] >= '1' && name[1] <= '6')))
			fputc('\n', fp);
	}
}

/* html_text - UTF-8 HTML to its text, malloc'd in *out */
int
html_text(const char *html, size_t len, char **out, size_t *outlen)
{
	htmlDocPtr doc;
	FILE *fp;

	if ((fp = open_memstream(out, outlen)) == NULL)
		return -1;
	if (len > 0 && len < (size_t)INT32_MAX &&
	    (doc = htmlReadMemory(html, (int)len, NULL, "UTF-8",
		 HTML_PARSE_RECOVER | HTML_PARSE_NOERROR |
		     HTML_PARSE_NOWARNING | HTML_PARSE_NONET)) != NULL) {
		html_text_node(fp, xmlDocGetRootElement(doc));
		xmlFreeDoc(doc);
	}
	return fclose(fp) == 0 ? 0 : -1;
}
