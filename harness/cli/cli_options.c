/* The one option parser of cli_options.h. */
#include "cli/cli_options.h"

#include <stdio.h>
#include <string.h>

#include "cli/cli_util.h"
#include "strbuf.h"

static const bl_cli_opt *find(const bl_cli_spec *spec, const char *name,
                              size_t len)
{
    for (size_t k = 0; k < spec->nopts; k++)
        if (bl_list_has(spec->opts[k].names, ", ", name, len))
            return &spec->opts[k];
    return NULL;
}

/* A hook's answer as this function's: -1 to go on, else the exit status. */
static int hook_status(const bl_cli_spec *spec, int rc, const bl_err *err)
{
    if (rc == 0)
        return -1;
    if (rc == BL_EXIT_FAILED) {
        fprintf(stderr, "bindlab %s: %s\n", spec->verb, err->msg);
        return BL_EXIT_FAILED;
    }
    return bl_cli_usage_error(spec->verb, "%s", err->msg);
}

/* Runs the hook, then stores the value(s) in the slot. */
static int take(const bl_cli_spec *spec, const bl_cli_opt *o, void *opts,
                const char *v0, const char *v1)
{
    bl_err err = {""};
    int rc = o->set ? hook_status(spec, o->set(opts, v0, &err), &err) : -1;
    char *slot = (char *)opts + o->slot;
    if (rc >= 0 || o->slot == BL_OPT_NO_SLOT)
        return rc;
    if (o->kind == BL_OPT_FLAG)
        *(int *)(void *)slot = 1;
    else if (o->kind == BL_OPT_PAIR) {
        ((const char **)(void *)slot)[0] = v0;
        ((const char **)(void *)slot)[1] = v1;
    } else
        *(const char **)(void *)slot = v0;
    return -1;
}

/* A usage error in the words of a verb's table or spec: fmt is a string
 * literal there, with one %s for word. */
static int usage_in(const bl_cli_spec *spec, const char *fmt,
                    const char *word)
{
    char msg[512];
    snprintf(msg, sizeof msg, fmt, word);
    return bl_cli_usage_error(spec->verb, "%s", msg);
}

static int missing_value(const bl_cli_spec *spec, const bl_cli_opt *o,
                         const char *name)
{
    return usage_in(spec, o->missing ? o->missing : "%s needs a value", name);
}

/* The verb's message for a word it does not know. */
static int unknown(const bl_cli_spec *spec, const char *word)
{
    return usage_in(spec, spec->unknown ? spec->unknown
                                        : "unknown option '%.200s'", word);
}

/* The verb's one word, or the refusal of a second. */
static int one_word(const bl_cli_spec *spec, const char *word, void *opts)
{
    const char **slot =
        (const char **)(void *)((char *)opts + spec->word_slot);
    if (*slot)
        return usage_in(spec, spec->one_word, word);
    *slot = word;
    return -1;
}

/* argv[*i] is an option word: reads it (and the value words it takes,
 * moving *i past them). Returns -1 to go on, or an exit status. */
static int option(const bl_cli_spec *spec, int argc, char **argv, int *i,
                  void *opts)
{
    const char *word = argv[*i], *eq = strchr(word, '=');
    size_t len = eq ? (size_t)(eq - word) : strlen(word);
    const bl_cli_opt *o = find(spec, word, len);
    const char *v0 = eq ? eq + 1 : NULL, *v1 = NULL;
    char name[256];

    snprintf(name, sizeof name, "%.*s", (int)(len < 200 ? len : 200), word);
    if (!o)
        return unknown(spec, word);
    if (o->kind == BL_OPT_FLAG && eq)
        return bl_cli_usage_error(spec->verb, "%s takes no value (got "
                                  "'%.200s')", name, word);
    if (o->kind == BL_OPT_VALUE && !eq && *i + 1 < argc)
        v0 = argv[++*i];
    if (o->kind == BL_OPT_PAIR) {
        if (!eq && *i + 1 < argc)
            v0 = argv[++*i];
        if (v0 && *i + 1 < argc)
            v1 = argv[++*i];
        if (!v0 || !*v0 || !v1 || !*v1)
            return missing_value(spec, o, name);
    }
    if ((o->kind == BL_OPT_VALUE || (o->kind == BL_OPT_OPTIONAL && eq)) &&
        (!v0 || !*v0))
        return missing_value(spec, o, name);
    return take(spec, o, opts, v0, v1);
}

int bl_cli_parse(const bl_cli_spec *spec, int argc, char **argv, void *opts)
{
    int words_only = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int rc;
        if (!words_only && (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0)) {
            for (const char *const *part = spec->help; *part; part++)
                fputs(*part, stdout);
            return BL_EXIT_OK;
        }
        if (!words_only && strcmp(a, "--list-options") == 0) {
            bl_cli_list_options(spec, stdout);
            return BL_EXIT_OK;
        }
        if (!words_only && strcmp(a, "--") == 0) {
            words_only = 1;
            continue;
        }
        if (!words_only && a[0] == '-' && a[1] != '\0')
            rc = option(spec, argc, argv, &i, opts);
        else if (spec->positional) {
            bl_err err = {""};
            rc = hook_status(spec, spec->positional(opts, a, &err), &err);
        } else if (spec->one_word) {
            rc = one_word(spec, a, opts);
        } else if (spec->unknown) {
            rc = unknown(spec, a);
        } else {
            rc = bl_cli_usage_error(spec->verb, "unexpected argument "
                                    "'%.200s'", a);
        }
        if (rc >= 0)
            return rc;
    }
    return -1;
}

void bl_cli_list_options(const bl_cli_spec *spec, FILE *f)
{
    static const char *const kinds[] = {"flag", "value", "optional", "pair"};
    for (size_t k = 0; k < spec->nopts; k++) {
        const bl_cli_opt *o = &spec->opts[k];
        for (const char *p = o->names; *p;) {
            size_t n = strcspn(p, ",");
            fprintf(f, "%s%.*s", p == o->names ? "" : " ", (int)n, p);
            p += n;
            p += strspn(p, ", ");
        }
        fprintf(f, "\t%s\t%s\t%s\n", kinds[o->kind], o->arg ? o->arg : "",
                o->help);
    }
}
