#include "xml_where.h"

#include <stdio.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/xmlerror.h>

/* libxml2's messages end in a newline; the first line is the reason. */
static void first_line(const char *msg, char *buf, size_t len)
{
    size_t n = strcspn(msg ? msg : "", "\n");
    snprintf(buf, len, "%.*s", (int)(n < 200 ? n : 200), msg ? msg : "");
}

/* quiet: the reason goes into the message, not onto stderr */
static void no_output(void *ctx, const char *msg, ...)
{
    (void)ctx;
    (void)msg;
}

int bl_xml_where(const char *path, char *buf, size_t len)
{
    const xmlError *e;
    char what[256];
    xmlDocPtr doc;
    int rc = 0;
    buf[0] = '\0';
    xmlSetGenericErrorFunc(NULL, no_output);
    xmlResetLastError();
    doc = xmlReadFile(path, NULL,
                      XML_PARSE_NONET | XML_PARSE_NOERROR |
                          XML_PARSE_NOWARNING);
    if (doc) {
        xmlFreeDoc(doc);
    } else if ((e = xmlGetLastError()) != NULL && e->line > 0) {
        first_line(e->message, what, sizeof what);
        snprintf(buf, len, "%s:%d:%d: not well-formed XML (%s)", path,
                 e->line, e->int2 > 0 ? e->int2 : 1, what);
        rc = 1;
    }
    xmlResetLastError();
    return rc;
}
