/* The shell, base CSS and escaping of bindlab's HTML pages (html_page.h). */
#include "report/html_page.h"

const char bl_html_base_css[] =
    "body{font:14px/1.4 system-ui,sans-serif;margin:0 auto;max-width:1280px;"
    "padding:8px 16px;color:#222;background:#fff}"
    "h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.6em}"
    ".wrap{overflow-x:auto}table{border-collapse:collapse;font-size:13px}"
    "th,td{padding:2px 6px;border-bottom:1px solid #ddd;text-align:left;"
    "vertical-align:top}th{background:#f0f0f0}"
    "td.n{text-align:right;font-variant-numeric:tabular-nums}"
    "td.tie{color:#666}"
    "@media (max-width:640px){body{padding:4px 6px}table{font-size:11px}}";

void bl_html_escape(bl_strbuf *b, const char *s)
{
    const char *p = s ? s : "", *run = p;
    for (; *p; p++) {
        const char *e = *p == '&' ? "&amp;" : *p == '<' ? "&lt;"
                      : *p == '>' ? "&gt;" : *p == '"' ? "&quot;"
                      : *p == '\'' ? "&#39;" : NULL;
        if (!e)
            continue;
        bl_strbuf_add(b, run, (size_t)(p - run));
        bl_strbuf_puts(b, e);
        run = p + 1;
    }
    bl_strbuf_add(b, run, (size_t)(p - run));
}

void bl_html_page_open(bl_strbuf *b, const char *title,
                       const char *const *css)
{
    bl_strbuf_puts(b, "<!DOCTYPE html>\n<html lang=\"en\"><head>"
                      "<meta charset=\"utf-8\">\n<meta name=\"viewport\" "
                      "content=\"width=device-width,initial-scale=1\">\n"
                      "<title>");
    bl_html_escape(b, title);
    bl_strbuf_puts(b, "</title>\n<style>");
    bl_strbuf_puts(b, bl_html_base_css);
    for (; css && *css; css++)
        bl_strbuf_puts(b, *css);
    bl_strbuf_puts(b, "</style>\n</head><body>\n<h1>");
    bl_html_escape(b, title);
    bl_strbuf_puts(b, "</h1>\n");
}

void bl_html_page_close(bl_strbuf *b, const char *script)
{
    if (script)
        bl_strbuf_printf(b, "<script>%s</script>\n", script);
    bl_strbuf_puts(b, "</body></html>\n");
}
