/*
 * satin_steal_flags.h - the flags of a steal request (STEAL, STEAL_REPLY;
 * PROTOCOL.md 14.3, 14.4).
 *
 * One definition for both sides of the wire: the policies decide with these
 * bits and the codec carries them unchanged, so two copies could drift
 * apart without any test noticing.  Here, under proto/, because the codec
 * must not include the daemon; the policies include it from here.
 */
#ifndef SATIN_STEAL_FLAGS_H
#define SATIN_STEAL_FLAGS_H

/* An enum, so that the constants are plain ints: the policies keep flags in
 * ints and the codec in a u32, and neither mixes signedness in a test. */
enum {
    SATIN_STEAL_SYNC = 0x1,        /* the thief waits for the reply (else asynchronous) */
    SATIN_STEAL_WAN = 0x2,         /* crosses a wide-area link */
    SATIN_STEAL_LIFELINE = 0x4,    /* a lifeline request: an empty reply means the victim
                                    * remembers the thief and will push it work */
    SATIN_STEAL_PREFETCH = 0x8,    /* CLS coordinator prefetch */
    SATIN_STEAL_FORWARDED = 0x10,  /* CHS: forwarded on behalf of `thief` */
    SATIN_STEAL_VICTIM_BUSY = 0x20,/* in an empty reply: the victim was running
                                    * work, so work exists: poll again soon */
};

#endif
