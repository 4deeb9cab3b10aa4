/* strbuf.h - a growing text buffer for the control socket's replies. */
#ifndef WANEM_STRBUF_H
#define WANEM_STRBUF_H

#include <stddef.h>

typedef struct strbuf {
    char *p;
    size_t len, cap;
    int failed;                        /* out of memory: the text is cut short */
} strbuf;

void sb_printf(strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Drops the first n characters (those already sent). */
void sb_drop(strbuf *b, size_t n);
void sb_free(strbuf *b);

#endif
