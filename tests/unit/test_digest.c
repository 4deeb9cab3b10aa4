/*
 * test_digest.c - record identities (proto/satin_digest.h): places and
 * digests against values computed by hand from the algorithm as the
 * protocol states it (PROTOCOL.md 14.12b), so that a change of algorithm
 * or byte order shows; and the properties orphan saving relies on.
 */
#include "../tap.h"
#include "satin_digest.h"

#include <string.h>

int main(void)
{
    int64_t n = 20;
    unsigned char le20[8] = {20, 0, 0, 0, 0, 0, 0, 0};
    unsigned char thirteen[13];
    for (int i = 0; i < 13; i++)
        thirteen[i] = (unsigned char)i;
    /* Golden values (a separate implementation of the stated algorithm). */
    ok(satin_digest("fib", le20, 8) == 0xe5f9cd028df8a7e4ULL, "digest of fib(20), little-endian");
    ok(satin_digest("uts", NULL, 0) == 0x1746b4fe629706d4ULL, "digest of an empty argument");
    ok(satin_digest("nqueens", thirteen, 13) == 0xa471fe44481d884fULL,
       "digest of 13 bytes (a partial word)");
    ok(satin_place_child(0, 1) == 0x6e789e6aa1b965f4ULL &&
           satin_place_child(0x1234, 2) == 0x8a85ffdaea35a5a6ULL,
       "children's places");
    ok(satin_place_root(3, 0xabc, 7) == 0x4af61b3104600f67ULL, "a root's place");
    ok(memcmp(&n, le20, 8) != 0 || satin_digest("fib", &n, 8) == 0xe5f9cd028df8a7e4ULL,
       "this machine's int64 digests as the little-endian bytes");

    /* Every byte, the kind and the length count. */
    unsigned char buf[18] = {0};
    int differ = 1;
    for (size_t len = 0; len < sizeof buf; len++) {
        uint64_t d = satin_digest("k", buf, len);
        differ &= d != satin_digest("k", buf, len + 1);   /* a zero byte more */
        differ &= d != satin_digest("j", buf, len);
        for (size_t i = 0; i < len; i++) {
            buf[i] ^= 1;
            differ &= d != satin_digest("k", buf, len);
            buf[i] ^= 1;
        }
    }
    ok(differ, "lengths 0..17: one flipped bit, a zero byte more or another kind all differ");
    ok(satin_digest("ab", "c", 1) != satin_digest("a", "bc", 2), "kind and argument do not run together");

    /* Places: distinct children, distinct parents, deterministic. */
    int distinct = 1;
    for (uint32_t i = 1; i < 1000; i++) {
        distinct &= satin_place_child(42, i) != satin_place_child(42, i + 1);
        distinct &= satin_place_child(42, i) != satin_place_child(43, i);
        distinct &= satin_place_child(42, i) == satin_place_child(42, i);
    }
    ok(distinct, "places differ by index and by parent, and are the same twice");
    ok(satin_place_root(1, 5, 9) != satin_place_root(2, 5, 9) &&
           satin_place_root(1, 5, 9) != satin_place_root(1, 6, 9) &&
           satin_place_root(1, 5, 9) != satin_place_root(1, 5, 10),
       "roots differ by node, run and job");

    /* Ancestry: what was added may be held; an empty one holds nothing. */
    satin_ancestry a = {{0, 0}};
    ok(!satin_ancestry_may_hold(&a, 0x1234567), "an empty ancestry holds nothing");
    int held = 1, strangers = 0;
    for (uint64_t p = 1; p <= 8; p++)
        satin_ancestry_add(&a, satin_place_child(7, (uint32_t)p));
    for (uint64_t p = 1; p <= 8; p++)
        held &= satin_ancestry_may_hold(&a, satin_place_child(7, (uint32_t)p));
    for (uint32_t p = 100; p < 1100; p++)
        strangers += satin_ancestry_may_hold(&a, satin_place_child(7, p));
    ok(held, "every place added is held");
    ok(strangers < 100, "8 places: %d of 1000 others look held (false positives)", strangers);
    return done_testing();
}
