/* How large a POSIX extended regex grows inside glibc's regcomp. A bound
 * is written out ("a{100}" is 100 copies, "a+" is "aa*"), so stacked
 * repeats multiply; and regcomp's epsilon closures cost the square of the
 * parts that may be skipped: "(a?){2000}" takes 320 MB, "((a?){150}){150}"
 * overflows its stack, 22 '+' after one character take a gigabyte. A
 * sweep file's rate regex is measured with this before it is compiled. */
#ifndef BL_ERE_SIZE_H
#define BL_ERE_SIZE_H

/* The limits of a rate regex: at most about 25 MB and 0.05 s inside
 * regcomp, far beyond what a line with a number needs. */
#define BL_ERE_MAX_PARTS 100000.0
#define BL_ERE_MAX_OPTIONAL 500.0
#define BL_ERE_MAX_DEPTH 64 /* groups inside groups */

typedef struct {
    double parts;    /* characters, brackets, anchors, groups */
    double optional; /* '?', '*', '+', '|' and the copies {m,n} may skip */
} bl_ere_size;

/* The pattern once every repeat is written out (both counts saturate far
 * above the limits): 0, or -1 when groups nest deeper than
 * BL_ERE_MAX_DEPTH. A malformed pattern is measured too: regcomp reports
 * what is wrong with it. */
int bl_ere_measure(const char *pattern, bl_ere_size *size);

#endif
