// partitions.cpp - a kind written in C++: the number of partitions of n,
// p(n), by the recurrence q(n, k) = q(n, k - 1) + q(n - k, k) over the
// largest part k, each step's two terms spawned, and below `threshold` a
// constexpr function of plain C++.  p(60) = 966467, p(80) = 15796476.
#include <satin/satin.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <type_traits>

namespace {

struct part_args {
    int32_t n, k;         // partitions of n into parts of at most k
    int32_t threshold;    // below it, no spawns
};
static_assert(std::is_trivially_copyable_v<part_args>, "an argument travels as its bytes");

constexpr int32_t max_n = 200;   // p(200) < 2^63

constexpr int64_t sequential(int32_t n, int32_t k)
{
    if (n == 0)
        return 1;
    if (k == 0)
        return 0;
    k = std::min(k, n);
    return sequential(n, k - 1) + sequential(n - k, k);
}
static_assert(sequential(10, 10) == 42, "p(10) is 42");

int part_check(const part_args *a, satin_err *err)
{
    if (a->n < 0 || a->n > max_n || a->k < 0 || a->k > max_n || a->threshold < 0)
        return satin_err_set(err, "partitions: n %d, k %d, threshold %d out of range",
                             (int)a->n, (int)a->k, (int)a->threshold);
    // The sequential part recurses in plain C++: keep it within its stack.
    if (a->threshold > 60)
        return satin_err_set(err, "partitions: threshold %d is above 60", (int)a->threshold);
    return 0;
}

} // namespace

SATIN_TASK(int64_t, partitions, part_args, part_check);

static int64_t partitions(SATIN_FRAME, part_args a)
{
    int32_t k = std::min(a.k, a.n);
    if (a.n < a.threshold || a.n == 0 || k == 0)
        return sequential(a.n, k);
    int64_t without, with;
    satin_spawn(partitions, &without, part_args{a.n, k - 1, a.threshold});
    satin_spawn(partitions, &with, part_args{a.n - k, k, a.threshold});
    satin_sync();
    return without + with;
}

static const satin_param_def part_params[] = {
    {"n", nullptr, 1, "the number to partition, 0..200"},
    {"threshold", "10", 0, "below this n, no spawns (0..60)"},
    {nullptr, nullptr, 0, nullptr},
};

static int part_parse(const satin_params *p, satin_bytes *arg, satin_err *err)
{
    int64_t n, threshold;
    if (satin_param_i64(p, "n", 0, max_n, &n, err) < 0 ||
        satin_param_i64(p, "threshold", 0, 60, &threshold, err) < 0)
        return -1;
    part_args a{static_cast<int32_t>(n), static_cast<int32_t>(n), static_cast<int32_t>(threshold)};
    return satin_bytes_put(arg, &a, sizeof a, err);
}

static void part_format(const void *res, size_t len, double wall_s, satin_result *result,
                        satin_result *stats)
{
    (void)wall_s;
    (void)stats;
    int64_t v = 0;
    if (len == sizeof v)
        memcpy(&v, res, sizeof v);
    satin_result_i64(result, "partitions", v);
}

SATIN_KIND(partitions, .summary = "the partitions of n (a kind written in C++)",
           .params = part_params, .parse = part_parse, .root = SATIN_TASK_OF(partitions),
           .format = part_format);
SATIN_MODULE("cxx-kinds", "1.0");
