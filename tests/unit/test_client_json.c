/*
 * test_client_json.c - the JSON writer behind satin-submit --json: string
 * escaping (quotes, backslash, every control character, DEL), UTF-8 passed
 * through and broken UTF-8 replaced, numbers (exact integers, doubles that
 * read back exactly, non-finite as null), and the commas and colons of
 * nested containers.
 */
#include "json.h"
#include "../tap.h"

#include <float.h>
#include <stdint.h>

/* The JSON text of one string value. */
static const char *jstr(const char *s, size_t n)
{
    static char out[512];
    satin_json j;
    satin_json_init(&j);
    satin_json_strn(&j, s, n);
    snprintf(out, sizeof out, "%s", satin_json_text(&j));
    satin_json_free(&j);
    return out;
}
#define JS(lit) jstr(lit, sizeof(lit) - 1)

static const char *jf64(double v)
{
    static char out[64];
    satin_json j;
    satin_json_init(&j);
    satin_json_f64(&j, v);
    snprintf(out, sizeof out, "%s", satin_json_text(&j));
    satin_json_free(&j);
    return out;
}

static void test_escaping(void)
{
    is_str(JS(""), "\"\"", "empty string");
    is_str(JS("plain"), "\"plain\"", "plain ASCII unchanged");
    is_str(JS("say \"hi\""), "\"say \\\"hi\\\"\"", "double quotes escaped");
    is_str(JS("a\\b"), "\"a\\\\b\"", "backslash escaped");
    is_str(JS("/"), "\"/\"", "solidus left alone");
    is_str(JS("\b\f\n\r\t"), "\"\\b\\f\\n\\r\\t\"", "short escapes for \\b \\f \\n \\r \\t");
    is_str(JS("\x01\x1f"), "\"\\u0001\\u001f\"", "other control characters as \\u00XX");
    is_str(jstr("a\0b", 3), "\"a\\u0000b\"", "NUL escaped when given a length");
    is_str(JS("\x7f"), "\"\\u007f\"", "DEL escaped");

    int all_ok = 1;
    for (int c = 0; c < 0x20; c++) {
        char in[1] = {(char)c};
        const char *got = jstr(in, 1);
        /* Every control character must be escaped, never emitted raw. */
        if (strlen(got) < 4 || got[1] != '\\')
            all_ok = 0;
    }
    ok(all_ok, "all 32 control characters escaped");
}

static void test_utf8(void)
{
    is_str(JS("caf\xc3\xa9"), "\"caf\xc3\xa9\"", "2-byte UTF-8 passes through");
    is_str(JS("\xe2\x82\xac 5"), "\"\xe2\x82\xac 5\"", "3-byte UTF-8 passes through");
    is_str(JS("\xf0\x9f\x98\x80"), "\"\xf0\x9f\x98\x80\"", "4-byte UTF-8 passes through");
    is_str(JS("a\xffz"), "\"a\xef\xbf\xbdz\"", "invalid byte becomes U+FFFD");
    is_str(JS("\xc3"), "\"\xef\xbf\xbd\"", "truncated sequence becomes U+FFFD");
    is_str(JS("\xc0\xaf"), "\"\xef\xbf\xbd\xef\xbf\xbd\"", "overlong form rejected bytewise");
    is_str(JS("\xed\xa0\x80"), "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"",
           "UTF-16 surrogate rejected");
}

static void test_numbers(void)
{
    satin_json j;
    satin_json_init(&j);
    satin_json_array_begin(&j);
    satin_json_i64(&j, 0);
    satin_json_i64(&j, -42);
    satin_json_i64(&j, INT64_MAX);
    satin_json_i64(&j, INT64_MIN);
    satin_json_u64(&j, UINT64_MAX);
    satin_json_array_end(&j);
    is_str(satin_json_text(&j),
           "[0,-42,9223372036854775807,-9223372036854775808,18446744073709551615]",
           "integers exact at the extremes");
    satin_json_free(&j);

    is_str(jf64(1.5), "1.5", "1.5");
    is_str(jf64(0.1), "0.1", "0.1 shortest form");
    is_str(jf64(-2.0), "-2", "-2.0");
    is_str(jf64(1.0 / 3.0), "0.3333333333333333", "1/3 in 16 digits");
    is_str(jf64(0.1 + 0.2), "0.30000000000000004", "0.1+0.2 needs 17 digits");
    is_str(jf64(1e22), "1e+22", "exponent form is a JSON number");
    is_str(jf64(NAN), "null", "NaN is null");
    is_str(jf64(INFINITY), "null", "+inf is null");
    is_str(jf64(-INFINITY), "null", "-inf is null");

    /* Every formatted double must read back as itself. */
    double samples[] = {DBL_MIN, DBL_MAX, -DBL_EPSILON, 5e-324, 123456789.123456789,
                        0.30000000000000004, 2.0 / 3.0, 1e21, -0.0};
    int exact = 1;
    for (size_t i = 0; i < sizeof samples / sizeof *samples; i++) {
        const char *t = jf64(samples[i]);
        double back = strtod(t, NULL);
        if (memcmp(&back, &samples[i], sizeof back) != 0) {
            exact = 0;
            diag("%.17g printed as %s", samples[i], t);
        }
    }
    ok(exact, "doubles round-trip bit for bit (including -0)");
}

static void test_structure(void)
{
    satin_json j;
    satin_json_init(&j);
    ok(!satin_json_done(&j), "not done before anything is written");
    satin_json_object_begin(&j);
    satin_json_key(&j, "job");
    satin_json_u64(&j, 7);
    satin_json_key(&j, "kind");
    satin_json_str(&j, "uts");
    satin_json_key(&j, "result");
    satin_json_object_begin(&j);
    satin_json_key(&j, "nodes");
    satin_json_i64(&j, 50045);
    satin_json_object_end(&j);
    satin_json_key(&j, "empty");
    satin_json_object_begin(&j);
    satin_json_object_end(&j);
    satin_json_key(&j, "list");
    satin_json_array_begin(&j);
    satin_json_bool(&j, 1);
    satin_json_bool(&j, 0);
    satin_json_null(&j);
    satin_json_array_begin(&j);
    satin_json_array_end(&j);
    satin_json_array_end(&j);
    satin_json_key(&j, "we\"ird\n");
    satin_json_str(&j, NULL);
    satin_json_object_end(&j);
    is_str(satin_json_text(&j),
           "{\"job\":7,\"kind\":\"uts\",\"result\":{\"nodes\":50045},\"empty\":{},"
           "\"list\":[true,false,null,[]],\"we\\\"ird\\n\":null}",
           "nested objects and arrays: commas, colons, escaped keys");
    ok(satin_json_done(&j), "done after the top-level value");
    satin_json_free(&j);

    /* Many elements: the comma logic must not depend on a small counter. */
    satin_json_init(&j);
    satin_json_array_begin(&j);
    for (int i = 0; i < 300; i++)
        satin_json_i64(&j, 1);
    satin_json_array_end(&j);
    size_t commas = 0;
    for (const char *p = satin_json_text(&j); *p; p++)
        commas += *p == ',';
    is_i64(commas, 299, "300 elements, 299 commas");
    satin_json_free(&j);

    char buf[40];
    is_str(satin_json_fmt_f64(buf, sizeof buf, 832040.0), "832040", "fmt_f64 for human output");
}

/* JOBS's parameter text back into an object: spaces and '%' escaped. */
static void test_params_text(void)
{
    satin_json j;
    satin_json_init(&j);
    satin_json_params_text(&j, "n=30 tree=T%203 expr=a=b%25 flag e=");
    is_str(satin_json_text(&j), "{\"n\":\"30\",\"tree\":\"T 3\",\"expr\":\"a=b%\",\"flag\":\"\",\"e\":\"\"}",
           "params text: pairs, escapes decoded, '=' in a value kept, a bare word, an empty value");
    satin_json_free(&j);
    satin_json_init(&j);
    satin_json_params_text(&j, "");
    is_str(satin_json_text(&j), "{}", "no parameters: {}");
    satin_json_free(&j);
    satin_json_init(&j);
    satin_json_params_text(&j, NULL);
    is_str(satin_json_text(&j), "null", "parameters not shown: null");
    satin_json_free(&j);
    satin_json_init(&j);
    satin_json_params_text(&j, "a=%4 b=%zz c=%");
    is_str(satin_json_text(&j), "{\"a\":\"%4\",\"b\":\"%zz\",\"c\":\"%\"}",
           "a percent sign without two hex digits stays as it is");
    satin_json_free(&j);
}

int main(void)
{
    test_params_text();
    test_escaping();
    test_utf8();
    test_numbers();
    test_structure();
    return done_testing();
}
