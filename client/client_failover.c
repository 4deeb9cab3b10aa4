/*
 * client_failover.c - a client with several endpoints (satin_client_new_multi):
 * when the node in use dies, every job it was running is submitted again,
 * from scratch, to the next endpoint that answers.
 *
 * Re-running is safe because a job is a pure function of its argument
 * bytes: the record we keep (the SUBMIT as first built) gives the same
 * result wherever it runs.  Exactly one result reaches the caller because
 * each node gets a connection of its own (context, DEALER, monitor) and
 * the one of a node given up is closed before its jobs move: whatever that
 * node still sends has nowhere to arrive.  On the new connection every job
 * has a new request id, and only a job's current one is matched
 * (satin_client.c drops replies nobody waits for).
 *
 * The guarantee as the caller sees it is spelled out in satin_client.h.
 */
#include "client_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The text satind ends running jobs with when it stops (PROTOCOL.md 6.7). */
#define SHUTDOWN_CANCEL "cancelled: satind is shutting down"

static char *dup_text(const char *s)
{
    char *d = strdup(s);
    if (!d)
        abort();
    return d;
}

int failover_node_gone(int rc, int lost, int proto_code, const char *job_error, char *why,
                       size_t len)
{
    const char *cause = NULL;
    if (rc == SATIN_CLIENT_UNREACHABLE)
        cause = lost ? "connection lost" : "no answer in time";
    else if (rc == SATIN_CLIENT_REJECTED && proto_code == SATIN_CLIENT_E_SHUTTING_DOWN)
        cause = "shutting down";
    else if (rc == SATIN_CLIENT_JOB_FAILED && job_error &&
             strncmp(job_error, SHUTDOWN_CANCEL, strlen(SHUTDOWN_CANCEL)) == 0)
        cause = "shutting down";
    if (cause)
        snprintf(why, len, "%s", cause);
    return cause != NULL;
}

/* Connects to the current endpoint, or to the first after it that answers;
 * each one that does not is marked failed with its reason. */
static int connect_current(satin_client *c, satin_client_error *err)
{
    char summary[sizeof err->text];
    for (const char *ep; (ep = satin_endpoint_list_current(c->eps));) {
        satin_client_error e;
        if (c->server_keys)
            memcpy(c->server_key, c->server_keys[satin_endpoint_list_position(c->eps)],
                   sizeof c->server_key);
        if (client_connect(c, ep, &e) == SATIN_CLIENT_OK) {
            c->last_heard = client_now_ms();
            return SATIN_CLIENT_OK;
        }
        satin_endpoint_list_fail(c->eps, "unreachable", e.text);
    }
    c->lost = 1;
    satin_endpoint_list_summary(c->eps, summary, sizeof summary);
    return client_fail(err, SATIN_CLIENT_UNREACHABLE, 0, "%s", summary);
}

/* The list of endpoints (and, with `keys`, each one's server key, "" for
 * none) into a new client; NULL with err on a bad endpoint or key. */
static satin_client *multi_new(const char *const *endpoints, const char *const *keys,
                               satin_client_error *err)
{
    char text[256];
    satin_client *c = client_alloc();
    client_clear_error(err);
    c->eps = satin_endpoint_list_new();
    size_t n = 0;
    for (const char *const *e = endpoints; e && *e; e++)
        n++;
    if (keys) {
        c->server_keys = calloc(n ? n : 1, sizeof *c->server_keys);
        if (!c->server_keys)
            abort();
    }
    for (size_t i = 0; i < n; i++) {
        int added = satin_endpoint_list_add(c->eps, endpoints[i], text, sizeof text);
        if (added < 0) {
            client_fail(err, SATIN_CLIENT_INVALID, 0, "%s", text);
            satin_client_destroy(&c);
            return NULL;
        }
        if (added != 0 || !keys || !keys[i] || !keys[i][0])
            continue;   /* a duplicate, dropped; or no CURVE for this one */
        const char *ep = satin_endpoint_list_at(c->eps, satin_endpoint_list_count(c->eps) - 1);
        if (strncmp(ep, "tcp://", 6) != 0) {
            client_fail(err, SATIN_CLIENT_INVALID, 0,
                        "a server key for %s: CURVE keys are for tcp:// endpoints", ep);
            satin_client_destroy(&c);
            return NULL;
        }
        char pub[41];
        if (client_read_key(keys[i], 0, pub, NULL, err) != SATIN_CLIENT_OK) {
            satin_client_destroy(&c);
            return NULL;
        }
        memcpy(c->server_keys[satin_endpoint_list_count(c->eps) - 1], pub, sizeof pub);
    }
    return c;
}

/* Connects a client multi_new made, or destroys it. */
static satin_client *multi_connect(satin_client *c, satin_client_error *err)
{
    if (satin_endpoint_list_count(c->eps) == 0) {
        client_fail(err, SATIN_CLIENT_INVALID, 0, "no endpoint given");
        satin_client_destroy(&c);
        return NULL;
    }
    if (connect_current(c, err) != SATIN_CLIENT_OK)
        satin_client_destroy(&c);
    return c;
}

satin_client *satin_client_new_multi(const char *const *endpoints, satin_client_error *err)
{
    satin_client *c = multi_new(endpoints, NULL, err);
    return c ? multi_connect(c, err) : NULL;
}

satin_client *satin_client_new_multi_curve(const char *const *endpoints,
                                           const char *const *server_keys,
                                           const char *key_file, satin_client_error *err)
{
    satin_client_error e2;
    if (!err)
        err = &e2;
    if (!key_file || !*key_file || !server_keys) {
        client_fail(err, SATIN_CLIENT_INVALID, 0,
                    "CURVE needs this client's key file and the nodes' public keys");
        return NULL;
    }
    satin_client *c = multi_new(endpoints, server_keys, err);
    if (!c)
        return NULL;
    if (client_read_key(key_file, 1, c->public_key, c->secret_key, err) != SATIN_CLIENT_OK) {
        satin_client_destroy(&c);
        return NULL;
    }
    return multi_connect(c, err);
}

void satin_client_set_failover_fn(satin_client *self, satin_failover_fn *fn, void *arg)
{
    self->on_failover = fn;
    self->failover_arg = arg;
}

/* Tells the caller that job `id` leaves endpoint `node` for the one in use. */
static void notify(satin_client *c, uint64_t id, uint64_t node_job_id, size_t node)
{
    if (!c->on_failover)
        return;
    const char *from = satin_endpoint_list_at(c->eps, node);
    const char *cause = satin_endpoint_list_cause(c->eps, node);
    satin_client_failover ev = {id, node_job_id, from ? from : "", cause ? cause : "failed",
                                c->endpoint};
    c->on_failover(&ev, c->failover_arg);
}

/* Sends a job's record to the node in use and waits for ACCEPTED. */
static int send_record(satin_client *c, satin_msg *record, uint64_t *rid, uint64_t *job_id,
                       satin_client_error *err)
{
    satin_msg *reply;
    int rc = client_request(c, record, &reply, err);
    if (rc != SATIN_CLIENT_OK)
        return rc;
    if (reply->type != SATIN_MSG_ACCEPTED || reply->job_id == 0)
        return client_unexpected(&reply, "SUBMIT", err);
    *rid = reply->request_id;
    *job_id = reply->job_id;
    satin_msg_destroy(&reply);
    return SATIN_CLIENT_OK;
}

/* Submits every live job again to the node just connected.  OK, or that
 * node is gone too (why filled).  A job the node refuses for another
 * reason cannot go on: it ends with that reason, for its wait to report. */
static int resubmit_all(satin_client *c, char *why, size_t len)
{
    for (size_t i = 0; i < c->nconv; i++) {
        conv *cv = &c->convs[i];
        if (cv->outcome)
            continue;
        if (cv->cancelled || !cv->record) {
            cv->outcome = dup_text("cancelled: by request (its node was lost)");
            continue;
        }
        notify(c, cv->id, cv->job_id, cv->node);
        satin_client_error e;
        uint64_t rid, job_id;
        int rc = send_record(c, cv->record, &rid, &job_id, &e);
        if (rc == SATIN_CLIENT_OK) {
            cv->rid = rid;
            cv->job_id = job_id;
            cv->node = satin_endpoint_list_position(c->eps);
            continue;
        }
        if (failover_node_gone(rc, c->lost, e.proto_code, NULL, why, len))
            return rc;
        char text[sizeof e.text + CLIENT_ENDPOINT_MAX + 32];
        snprintf(text, sizeof text, "re-submitted to %s: %s", c->endpoint, e.text);
        cv->outcome = dup_text(text);
    }
    return SATIN_CLIENT_OK;
}

int failover_move(satin_client *c, const char *why, satin_client_error *err)
{
    char cause[128], phrase[CLIENT_ENDPOINT_MAX + 192];
    snprintf(cause, sizeof cause, "%s", why);
    client_disconnect(c);
    c->lost = 1;
    for (;;) {
        if (!satin_endpoint_list_current(c->eps))
            return connect_current(c, err);   /* nothing left: the summary */
        snprintf(phrase, sizeof phrase, "satind at %s stopped answering (%s)", c->endpoint,
                 cause);
        satin_endpoint_list_fail(c->eps, cause, phrase);
        int rc = connect_current(c, err);
        if (rc != SATIN_CLIENT_OK)
            return rc;
        if (resubmit_all(c, cause, sizeof cause) == SATIN_CLIENT_OK)
            return SATIN_CLIENT_OK;
        client_disconnect(c);   /* that one died too: on to the next */
        c->lost = 1;
    }
}

/* A failover client whose node was found gone since the last call moves
 * its jobs before doing anything else. */
static int ready(satin_client *c, satin_client_error *err)
{
    return c->lost ? failover_move(c, "connection lost", err) : SATIN_CLIENT_OK;
}

int failover_submit(satin_client *c, satin_msg *record, uint64_t *job_id,
                    satin_client_error *err)
{
    satin_client_error local;
    if (!err)
        err = &local;
    /* PROGRESS about once a second is how a live node shows it is alive. */
    record->flags |= SATIN_FLAG_PROGRESS;
    uint64_t id = ++c->next_job;
    int rc = ready(c, err);
    while (rc == SATIN_CLIENT_OK) {
        uint64_t rid, node_job_id;
        char why[128];
        size_t node = satin_endpoint_list_position(c->eps);
        rc = send_record(c, record, &rid, &node_job_id, err);
        if (rc == SATIN_CLIENT_OK) {
            node = satin_endpoint_list_position(c->eps);
            client_conv_add(c, &(conv){.rid = rid, .id = id, .job_id = node_job_id,
                                       .record = record, .node = node});
            *job_id = id;
            return SATIN_CLIENT_OK;
        }
        if (!failover_node_gone(rc, c->lost, err->proto_code, NULL, why, sizeof why))
            break;
        rc = failover_move(c, why, err);
        if (rc == SATIN_CLIENT_OK)
            notify(c, id, 0, node);
    }
    satin_msg_destroy(&record);
    return rc;
}

int failover_cancel(satin_client *c, uint64_t id, int *state, satin_client_error *err)
{
    satin_client_error local;
    if (!err)
        err = &local;
    conv *cv = client_conv_by_id(c, id);
    if (!cv)
        return client_fail(err, SATIN_CLIENT_REJECTED, SATIN_CLIENT_E_UNKNOWN_JOB,
                           "job %llu is not a job of this client that is still running",
                           (unsigned long long)id);
    if (cv->outcome) {
        *state = SATIN_CLIENT_CANCEL_FINISHED;
        return SATIN_CLIENT_OK;   /* already over: a finished job is not changed */
    }
    cv->cancelled = 1;            /* from now on it is never sent again */
    *state = SATIN_CLIENT_CANCEL_STOPPING;
    if (c->lost)
        return SATIN_CLIENT_OK;   /* its node is gone, and the job with it */
    satin_msg *m = satin_msg_new(SATIN_MSG_CANCEL), *reply;
    uint64_t node_job_id = cv->job_id;
    m->job_id = node_job_id;
    int rc = client_request(c, m, &reply, err);
    satin_msg_destroy(&m);
    char why[128];
    if (rc == SATIN_CLIENT_OK) {
        if (reply->type != SATIN_MSG_OK || reply->job_id != node_job_id)
            return client_unexpected(&reply, "CANCEL", err);
        *state = reply->status;
        satin_msg_destroy(&reply);
        return SATIN_CLIENT_OK;
    }
    if (!failover_node_gone(rc, c->lost, err->proto_code, NULL, why, sizeof why))
        return rc;
    /* The node went with the job; the others move on (their waits report
     * it if none is left). */
    client_clear_error(err);
    failover_move(c, why, NULL);
    return SATIN_CLIENT_OK;
}

int failover_request(satin_client *c, satin_msg *m, satin_msg **reply, satin_client_error *err)
{
    satin_client_error local;
    if (!err)
        err = &local;
    *reply = NULL;
    int rc = ready(c, err);
    while (rc == SATIN_CLIENT_OK) {
        char why[128];
        rc = client_request(c, m, reply, err);
        if (!failover_node_gone(rc, c->lost, err->proto_code, NULL, why, sizeof why))
            break;
        rc = failover_move(c, why, err);
    }
    return rc;
}
