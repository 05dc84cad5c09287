/* KMP_AFFINITY into a bl_kmp_affinity (plan_kmp.h). */
#include "plan/plan_kmp.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define ACCEPTED_KMP                                                          \
    "a type (compact, scatter, balanced, explicit, none, disabled, logical, " \
    "physical) with optional ',PERMUTE[,OFFSET]', and modifiers verbose, "    \
    "warnings, respect, dups (each with a 'no' form), granularity=fine|"      \
    "thread|core|tile|die|socket|package, proclist=[LIST]"

typedef struct word {
    const char *name;
    int value;
} word;

static const word types[] = {
    {"none", BL_KMP_NONE},         {"disabled", BL_KMP_DISABLED},
    {"compact", BL_KMP_COMPACT},   {"scatter", BL_KMP_SCATTER},
    {"balanced", BL_KMP_BALANCED}, {"explicit", BL_KMP_EXPLICIT},
    {"logical", BL_KMP_LOGICAL},   {"physical", BL_KMP_PHYSICAL}};

static const word grans[] = {
    {"fine", BL_KMP_GRAN_THREAD}, {"thread", BL_KMP_GRAN_THREAD},
    {"core", BL_KMP_GRAN_CORE},   {"tile", BL_KMP_GRAN_TILE},
    {"die", BL_KMP_GRAN_DIE},     {"socket", BL_KMP_GRAN_SOCKET},
    {"package", BL_KMP_GRAN_SOCKET}};

#define NWORDS(a) (sizeof(a) / sizeof(a)[0])

static int find(const word *w, size_t n, const char *s, size_t len)
{
    for (size_t i = 0; i < n; i++)
        if (strlen(w[i].name) == len && strncasecmp(w[i].name, s, len) == 0)
            return w[i].value;
    return -1;
}

/* On/off modifiers: the field they set, or NULL. */
static int *flag_of(bl_kmp_affinity *a, const char *s, size_t len, int *on)
{
    static const char *const names[] = {"verbose", "warnings", "respect",
                                        "dups", "duplicates"};
    *on = !(len > 2 && strncasecmp(s, "no", 2) == 0);
    if (!*on) {
        s += 2;
        len -= 2;
    }
    for (size_t i = 0; i < NWORDS(names); i++) {
        if (strlen(names[i]) != len || strncasecmp(names[i], s, len))
            continue;
        return i == 0 ? &a->verbose : i == 1 ? &a->warnings
               : i == 2 ? &a->respect : &a->dups;
    }
    return NULL;
}

static int bad(bl_err *err, const char *text, const char *what, size_t len,
               const char *tok)
{
    return bl_err_set(err, "KMP_AFFINITY '%s': %s '%.*s'; accepted: %s", text,
                      what, (int)len, tok, ACCEPTED_KMP);
}

/* One token at *pp (ended by ',' outside brackets); advances *pp. */
static int token(const char *p, size_t *len, size_t *adv, const char *text,
                 bl_err *err)
{
    const char *br = NULL;
    size_t n = 0;
    while (p[n] && (p[n] != ',' || br)) {
        if (p[n] == '[')
            br = p + n;
        else if (p[n] == ']')
            br = NULL;
        n++;
    }
    if (br)
        return bl_err_set(err, "KMP_AFFINITY '%s': '[' without ']'", text);
    *adv = n;
    while (n > 0 && isspace((unsigned char)p[n - 1]))
        n--;
    *len = n;
    return 0;
}

static int set_key(bl_kmp_affinity *a, const char *tok, size_t len,
                   const char *text, bl_err *err)
{
    const char *eq = memchr(tok, '=', len);
    size_t klen = (size_t)(eq - tok), vlen = len - klen - 1;
    const char *v = eq + 1;
    if (klen == 11 && strncasecmp(tok, "granularity", 11) == 0) {
        int g = find(grans, NWORDS(grans), v, vlen);
        if (g < 0)
            return bad(err, text, "unknown granularity", vlen, v);
        a->gran = (bl_kmp_gran)g;
        return 0;
    }
    if (klen == 8 && strncasecmp(tok, "proclist", 8) == 0) {
        if (vlen < 2 || v[0] != '[' || v[vlen - 1] != ']' ||
            vlen - 2 >= sizeof a->proclist)
            return bad(err, text, "proclist wants [LIST], got", vlen, v);
        memcpy(a->proclist, v + 1, vlen - 2);
        a->proclist[vlen - 2] = '\0';
        return 0;
    }
    return bad(err, text, "unknown modifier", klen, tok);
}

/* A number after the type: permute, then offset. */
static int number(bl_kmp_affinity *a, int *nums, const char *tok, size_t len,
                  const char *text, bl_err *err)
{
    char *end;
    long v = strtol(tok, &end, 10);
    int takes = a->type == BL_KMP_COMPACT || a->type == BL_KMP_SCATTER ||
                a->type == BL_KMP_LOGICAL || a->type == BL_KMP_PHYSICAL ||
                a->type == BL_KMP_BALANCED;
    if ((size_t)(end - tok) != len || v < 0 || v > 1 << 20)
        return bad(err, text, "not a number", len, tok);
    if (!takes || *nums >= 2)
        return bad(err, text, "unexpected number", len, tok);
    if ((*nums)++ == 0)
        a->permute = (int)v;
    else
        a->offset = (int)v;
    return 0;
}

static int one(bl_kmp_affinity *a, int *nums, int *last_type,
               const char *tok, size_t len, const char *text, bl_err *err)
{
    int t, on, *flag;
    if (len == 0)
        return bad(err, text, "empty item", len, tok);
    if (isdigit((unsigned char)tok[0]))
        return *last_type ? number(a, nums, tok, len, text, err)
                          : bad(err, text, "number not after a type", len, tok);
    *last_type = 0;
    if (memchr(tok, '=', len))
        return set_key(a, tok, len, text, err);
    if ((flag = flag_of(a, tok, len, &on))) {
        *flag = on;
        return 0;
    }
    if ((t = find(types, NWORDS(types), tok, len)) < 0)
        return bad(err, text, "unknown word", len, tok);
    if (a->type != BL_KMP_UNSET)
        return bad(err, text, "a second type", len, tok);
    a->type = (bl_kmp_type)t;
    *last_type = 1;
    return 0;
}

int bl_kmp_affinity_parse(const char *text, bl_kmp_affinity *out, bl_err *err)
{
    bl_kmp_affinity a = {.warnings = 1, .respect = 1, .dups = 1};
    const char *p = text ? text : "";
    int nums = 0, last_type = 0;
    while (isspace((unsigned char)*p))
        p++;
    while (*p) {
        size_t len = 0, adv = 0;
        if (token(p, &len, &adv, text, err) < 0 ||
            one(&a, &nums, &last_type, p, len, text, err) < 0)
            return -1;
        p += adv;
        if (*p == ',') {
            p++;
            if (!*p)
                return bl_err_set(err, "KMP_AFFINITY '%s': ends with ','",
                                  text);
        }
        while (isspace((unsigned char)*p))
            p++;
    }
    if (a.type == BL_KMP_EXPLICIT && !a.proclist[0])
        return bl_err_set(err, "KMP_AFFINITY '%s': explicit needs "
                          "proclist=[LIST]", text);
    *out = a;
    return 0;
}

const char *bl_kmp_type_name(bl_kmp_type t)
{
    static const char *const names[] = {"unset", "none", "disabled",
                                        "compact", "scatter", "balanced",
                                        "explicit", "logical", "physical"};
    return (unsigned)t < NWORDS(names) ? names[t] : "?";
}

const char *bl_kmp_gran_name(bl_kmp_gran g)
{
    static const char *const names[] = {"default", "fine", "core",
                                        "tile", "die", "socket"};
    return (unsigned)g < NWORDS(names) ? names[g] : "?";
}
