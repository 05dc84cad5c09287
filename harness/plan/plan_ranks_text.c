/* The text side of rank planning: Open MPI 4's job map turned into
 * --report-bindings lines (so that bindreport's parser, which already
 * turns the [B./..] map into PU OS indexes and checks it against the
 * topology, reads both), and refusals cut down to what a user needs. */
#include "plan/plan_ranks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"

/* One job map line into b. Returns 1 when it was a rank line. */
static int map_line(const char *line, size_t len, bl_strbuf *b)
{
    static const char rank_key[] = "Process rank: ", bound_key[] = " Bound: ";
    char head[64];
    const char *r, *bound, *end = line + len, *map = NULL;
    long rank;
    char *after;

    if (!(r = strstr(line, "Process OMPI jobid: [")) || r >= end ||
        !(r = strstr(r, rank_key)) || r >= end)
        return 0;
    r += strlen(rank_key);
    rank = strtol(r, &after, 10);
    if (after == r || rank < 0 || strncmp(after, bound_key, strlen(bound_key)))
        return 0;
    bound = after + strlen(bound_key);
    snprintf(head, sizeof head, "[localhost:0] MCW rank %ld ", rank);
    bl_strbuf_puts(b, head);
    if (strncmp(bound, "N/A", 3) == 0 || strncmp(bound, "UNBOUND", 7) == 0) {
        bl_strbuf_puts(b, "is not bound (or bound to all available "
                          "processors)\n");
        return 1;
    }
    /* The map is the last ":[" of the line; the text before it names the
     * same PUs (and may itself be long). */
    for (const char *s = bound; s + 1 < end; s++)
        if (s[0] == ':' && s[1] == '[')
            map = s;
    bl_strbuf_puts(b, "bound to ");
    if (!map) {
        /* bindreport rejects it */
        bl_strbuf_add(b, bound, (size_t)(end - bound));
    } else {
        bl_strbuf_add(b, bound, (size_t)(map - bound));
        bl_strbuf_puts(b, ": ");
        bl_strbuf_add(b, map + 1, (size_t)(end - map - 1));
    }
    bl_strbuf_puts(b, "\n");
    return 1;
}

char *bl_plan_ranks_map_to_report(const char *text, int *nranks)
{
    bl_strbuf b = {0};
    *nranks = 0;
    for (const char *p = text; p && *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        *nranks += map_line(p, len, &b);
        p = nl ? nl + 1 : NULL;
    }
    return bl_strbuf_take(&b);
}

/* Lines that are Open MPI's wrapping, not its answer. --do-not-launch ends
 * every run with an "internal error" about the launch it skipped. */
static int noise(const char *line, size_t len)
{
    static const char *const noise_text[] = {
        "LAUNCH MSG RAW SIZE",
        "An internal error has occurred in ORTE",
        "FORCE-TERMINATE AT",
        "This is something that should be reported to the developers",
        "Data for JOB [",
        "JOB MAP",
        "Data for node:",
        "Process OMPI jobid:",
        NULL,
    };
    size_t dashes = 0, seen = 0;
    for (size_t i = 0; i < len; i++) {
        if (line[i] == '-' || line[i] == '=')
            dashes++;
        if (line[i] != ' ' && line[i] != '\t')
            seen++;
    }
    if (seen == 0 || (dashes >= 10 && dashes == seen))
        return 1;
    for (int i = 0; noise_text[i]; i++) {
        const char *hit = strstr(line, noise_text[i]);
        if (hit && hit < line + len)
            return 1;
    }
    return 0;
}

void bl_plan_ranks_trim_refusal(const char *text, char *buf, size_t len)
{
    size_t used = 0;
    if (!len)
        return;
    buf[0] = '\0';
    for (const char *p = text; p && *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        const char *line = p;
        p = nl ? nl + 1 : NULL;
        while (n && (line[n - 1] == ' ' || line[n - 1] == '\t' ||
                     line[n - 1] == '\r'))
            n--;
        if (noise(line, n))
            continue;
        /* Whole lines only: a cut line would read as a different message. */
        if (used + (used ? 1 : 0) + n + 1 > len)
            break;
        if (used)
            buf[used++] = '\n';
        memcpy(buf + used, line, n);
        used += n;
        buf[used] = '\0';
    }
}
