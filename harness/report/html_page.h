/* What every HTML page of bindlab shares (`report --html`, `compare
 * --html`, the heatmaps of `matrix` inlined in them): text escaped for
 * HTML and SVG, the page's shell and its base CSS. A leaf: it uses
 * nothing of the harness, so that every page and chart can use it. */
#ifndef BL_HTML_PAGE_H
#define BL_HTML_PAGE_H

#include "strbuf.h"

/* Appends s (NULL: nothing) with &, <, >, " and ' escaped: safe in text
 * and in attribute values, of HTML and of SVG. */
void bl_html_escape(bl_strbuf *b, const char *s);

/* The look every page starts with: body, headings, scrolling wrappers,
 * tables (numbers right-aligned in td.n, ties greyed in td.tie), and a
 * narrower layout on a phone. */
extern const char bl_html_base_css[];

/* Opens a self-contained page titled `title` (escaped; also its <h1>):
 * the head with its charset and viewport, a <style> of bl_html_base_css
 * followed by each string of css (NULL-terminated; css may be NULL), and
 * the body up to and including the <h1>. */
void bl_html_page_open(bl_strbuf *b, const char *title,
                       const char *const *css);

/* Closes the page: script (may be NULL) as an inline <script>, then the
 * end of the body and of the document. */
void bl_html_page_close(bl_strbuf *b, const char *script);

#endif
