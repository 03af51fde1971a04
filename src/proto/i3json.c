/* iperf3 parameter and results JSON (see i3json.h), with cJSON. Typed lookups everywhere:
 * iperf3 <= 3.17 crashed on a number where a string was expected (CVE-2024-53580). */
#include "proto/i3json.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linkperf/engine.h"
#include "core/udp_echo.h"
#include "wire/iperf2_bb.h"
#include "wire/iperf3.h"

/* ---- parameters ---- */

static void add_num(cJSON *o, const char *k, double v)
{
    cJSON_AddItemToObject(o, k, cJSON_CreateNumber(v));
}

char *lp_i3_params_encode(const struct lp_spec *spec, const char *authtoken,
                          const char *client_version)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    cJSON_AddItemToObject(o, spec->proto == LP_PROTO_UDP ? "udp" : "tcp", cJSON_CreateTrue());
    add_num(o, "omit", spec->omit_s);
    add_num(o, "time", spec->bytes || spec->blocks ? 0 : spec->duration_s);
    add_num(o, "num", (double)spec->bytes);
    add_num(o, "blockcount", (double)spec->blocks);
    if (spec->mss > 0)
        add_num(o, "MSS", spec->mss);
    if (spec->nodelay)
        cJSON_AddItemToObject(o, "nodelay", cJSON_CreateTrue());
    add_num(o, "parallel", spec->streams);
    if (spec->dir == LP_DIR_REVERSE)
        cJSON_AddItemToObject(o, "reverse", cJSON_CreateTrue());
    if (spec->dir == LP_DIR_BIDIR)
        cJSON_AddItemToObject(o, "bidirectional", cJSON_CreateTrue());
    if (spec->window_bytes > 0)
        add_num(o, "window", spec->window_bytes);
    add_num(o, "len", lp_spec_blksize(spec));
    if (spec->rate_bps)
        add_num(o, "bandwidth", (double)spec->rate_bps);
    if (spec->fq_rate_bps)
        add_num(o, "fqrate", (double)spec->fq_rate_bps);
    add_num(o, "pacing_timer", spec->pacing_timer_us);
    if (spec->burst)
        add_num(o, "burst", spec->burst);
    if (spec->tos >= 0)
        add_num(o, "TOS", spec->tos);
    if (spec->title[0])
        cJSON_AddStringToObject(o, "title", spec->title);
    if (spec->extra_data[0])
        cJSON_AddStringToObject(o, "extra_data", spec->extra_data);
    if (spec->congestion[0])
        cJSON_AddStringToObject(o, "congestion", spec->congestion);
    if (spec->report.get_server_output)
        add_num(o, "get_server_output", 1);
    if (spec->udp_counters_64bit)
        add_num(o, "udp_counters_64bit", 1);
    if (spec->repeating_payload)
        add_num(o, "repeating_payload", 1);
    if (spec->zerocopy)
        add_num(o, "zerocopy", 1);
    if (spec->dont_fragment)
        add_num(o, "dont_fragment", 1);
    if (spec->skip_rx_copy) /* iperf3 3.19's key; older servers ignore it */
        add_num(o, "skip_rx_copy", 1);
    /* linkperf's timed echo (--bounceback --dialect iperf3): a linkperf server echoes each
     * message as iperf2's bounceback server does; a stock one ignores the keys and only
     * reads, so no round trip comes back. */
    if (spec->iperf2.bb.on) {
        add_num(o, "bounceback", 1);
        if (spec->iperf2.bb.hold_us)
            add_num(o, "bounceback_hold_us", spec->iperf2.bb.hold_us);
        if (spec->iperf2.bb.no_quickack)
            add_num(o, "bounceback_no_quickack", 1);
    }
    if (authtoken) /* where 3.12 puts it: just before client_version */
        cJSON_AddStringToObject(o, "authtoken", authtoken);
    cJSON_AddStringToObject(o, "client_version", client_version);
    char *s = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    return s;
}

/* A number member within [lo, hi]; absent leaves *v alone. Returns false (with err) if it
 * is present with the wrong type or out of range. */
static bool get_num(const cJSON *o, const char *key, double lo, double hi, double *v, char *err, size_t errlen)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!it)
        return true;
    if (!cJSON_IsNumber(it) || !isfinite(it->valuedouble) || it->valuedouble < lo || it->valuedouble > hi) {
        snprintf(err, errlen, "parameter '%s' is not a number in %.0f..%.0f", key, lo, hi);
        return false;
    }
    *v = it->valuedouble;
    return true;
}

static bool get_flag(const cJSON *o, const char *key)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, key);
    /* iperf3 sends booleans as true and switch-like options as the number 1. */
    return it && (cJSON_IsTrue(it) || (cJSON_IsNumber(it) && it->valuedouble != 0));
}

static bool get_str(const cJSON *o, const char *key, char *dst, size_t dstlen, char *err, size_t errlen)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!it)
        return true;
    if (!cJSON_IsString(it) || !it->valuestring || strlen(it->valuestring) >= dstlen) {
        snprintf(err, errlen, "parameter '%s' is not a string shorter than %zu bytes", key, dstlen);
        return false;
    }
    strcpy(dst, it->valuestring);
    return true;
}

/* The decoding proper: 0, or the iperf3 error number for what was refused (> 0). */
static int params_decode(const char *json, size_t len, struct lp_spec *out, char *token, size_t tokenlen,
                         char *err, size_t errlen)
{
    cJSON *o = cJSON_ParseWithLength(json, len);
    int code = LP_I3E_RECVPARAMS;
    if (!o || !cJSON_IsObject(o)) {
        snprintf(err, errlen, "parameters are not a JSON object");
        goto fail;
    }
    if (get_flag(o, "udp"))
        out->proto = LP_PROTO_UDP;
    else if (get_flag(o, "tcp"))
        out->proto = LP_PROTO_TCP;
    else {
        snprintf(err, errlen, "parameters name no supported protocol (tcp or udp)");
        goto fail;
    }
    double v;
    v = 0;
    if (!get_num(o, "omit", 0, 600, &v, err, errlen))
        goto fail;
    out->omit_s = (unsigned)v;
    v = 0;
    if (!get_num(o, "time", 0, LP_MAX_DURATION_S, &v, err, errlen)) {
        code = LP_I3E_DURATION;
        goto fail;
    }
    out->duration_s = v;
    v = 0;
    if (!get_num(o, "num", 0, 9.0e18, &v, err, errlen))
        goto fail;
    out->bytes = (uint64_t)v;
    v = 0;
    if (!get_num(o, "blockcount", 0, 9.0e18, &v, err, errlen))
        goto fail;
    out->blocks = (uint64_t)v;
    v = 0;
    if (!get_num(o, "MSS", 0, 65535, &v, err, errlen))
        goto fail;
    out->mss = (int)v;
    out->nodelay = get_flag(o, "nodelay");
    v = 1;
    if (!get_num(o, "parallel", 1, LP_MAX_STREAMS, &v, err, errlen)) {
        code = LP_I3E_NUMSTREAMS;
        goto fail;
    }
    out->streams = (unsigned)v;
    out->dir = get_flag(o, "bidirectional") ? LP_DIR_BIDIR : get_flag(o, "reverse") ? LP_DIR_REVERSE : LP_DIR_FORWARD;
    v = 0;
    if (!get_num(o, "window", 0, LP_MAX_WINDOW, &v, err, errlen))
        goto fail;
    out->window_bytes = (int)v;
    v = 0;
    double maxlen = out->proto == LP_PROTO_UDP ? LP_MAX_UDP_BLKSIZE : LP_MAX_BLKSIZE;
    double minlen = out->proto == LP_PROTO_UDP ? LP_MIN_UDP_BLKSIZE : 1;
    if (!get_num(o, "len", minlen, maxlen, &v, err, errlen)) {
        code = LP_I3E_BLOCKSIZE;
        goto fail;
    }
    out->blksize = (uint32_t)v;
    v = 0;
    if (!get_num(o, "bandwidth", 0, 1.8e19, &v, err, errlen))
        goto fail;
    out->rate_bps = (uint64_t)v;
    v = 0;
    if (!get_num(o, "fqrate", 0, 1.8e19, &v, err, errlen))
        goto fail;
    out->fq_rate_bps = (uint64_t)v;
    v = LP_DEFAULT_PACING_TIMER_US;
    if (!get_num(o, "pacing_timer", 0, 1e7, &v, err, errlen))
        goto fail;
    out->pacing_timer_us = (uint32_t)v;
    v = 0;
    if (!get_num(o, "burst", 0, 1000, &v, err, errlen))
        goto fail;
    out->burst = (unsigned)v;
    v = -1;
    if (!get_num(o, "TOS", 0, 255, &v, err, errlen))
        goto fail;
    out->tos = (int)v;
    if (!get_str(o, "title", out->title, sizeof(out->title), err, errlen) ||
        !get_str(o, "extra_data", out->extra_data, sizeof(out->extra_data), err, errlen) ||
        !get_str(o, "congestion", out->congestion, sizeof(out->congestion), err, errlen))
        goto fail;
    for (const char *p = out->congestion; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_' || *p == '-')) {
            snprintf(err, errlen, "parameter 'congestion' has an invalid name");
            goto fail;
        }
    out->report.get_server_output = get_flag(o, "get_server_output");
    out->udp_counters_64bit = get_flag(o, "udp_counters_64bit");
    out->repeating_payload = get_flag(o, "repeating_payload");
    out->zerocopy = get_flag(o, "zerocopy");
    out->dont_fragment = get_flag(o, "dont_fragment");
    if (get_flag(o, "bounceback")) {
        /* An echo's message starts with iperf2's 64-byte bounceback header; a UDP probe with
         * linkperf's (core/udp_echo.h). Both go one way out and back, so forward only. */
        bool udp = out->proto == LP_PROTO_UDP;
        uint32_t lo = udp ? LP_UE_MIN : LP_I2_BB_MIN, hi = udp ? LP_UE_MAX : LP_I2_BB_MAX;
        if ((out->proto != LP_PROTO_TCP && !udp) || lp_spec_blksize(out) < lo || lp_spec_blksize(out) > hi ||
            out->dir != LP_DIR_FORWARD) {
            snprintf(err, errlen, "parameter 'bounceback' needs a forward %s test of %u..%u-byte %s",
                     udp ? "UDP" : "TCP", lo, hi, udp ? "probes" : "messages");
            goto fail;
        }
        v = 0;
        if (!get_num(o, "bounceback_hold_us", 0, udp ? LP_UE_HOLD_MAX_US : LP_I2_BB_HOLD_MAX_US, &v, err, errlen))
            goto fail;
        out->iperf2.bb = (struct lp_bounceback_spec){.on = true, .hold_us = (uint32_t)v,
                                                      .no_quickack = get_flag(o, "bounceback_no_quickack")};
        out->nodelay = true;
    }
    /* The server's own --skip-rx-copy stays on; a client may ask for it too. */
    out->skip_rx_copy |= get_flag(o, "skip_rx_copy");
    /* A server without authentication ignores a token, as iperf3's does. */
    if (token && tokenlen) {
        token[0] = '\0';
        if (!get_str(o, "authtoken", token, tokenlen, err, errlen))
            goto fail;
    }
    /* time, num and blockcount all 0 is iperf3's "-t 0": run until the client ends it. */
    cJSON_Delete(o);
    return 0;
fail:
    cJSON_Delete(o);
    return code;
}

int lp_i3_params_decode(const char *json, size_t len, struct lp_spec *out, char *token,
                        size_t tokenlen, int *i3_code, char *err, size_t errlen)
{
    int code = params_decode(json, len, out, token, tokenlen, err, errlen);
    if (i3_code)
        *i3_code = code;
    return code ? LP_EPEER : 0;
}

unsigned lp_i3_params_client_version(const char *json, size_t len)
{
    cJSON *o = cJSON_ParseWithLength(json, len);
    const cJSON *v = o ? cJSON_GetObjectItemCaseSensitive(o, "client_version") : NULL;
    unsigned version = cJSON_IsString(v) ? lp_i3_version_parse(v->valuestring) : 0;
    cJSON_Delete(o);
    return version;
}

/* ---- results ---- */

char *lp_i3_results_encode(const struct lp_peer_results *r)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    add_num(o, "cpu_util_total", r->cpu_total);
    add_num(o, "cpu_util_user", r->cpu_user);
    add_num(o, "cpu_util_system", r->cpu_system);
    add_num(o, "sender_has_retransmits", r->sender_has_retransmits);
    if (r->congestion[0])
        cJSON_AddStringToObject(o, "congestion_used", r->congestion);
    cJSON *arr = cJSON_AddArrayToObject(o, "streams");
    for (unsigned i = 0; arr && i < r->nstreams; i++) {
        const struct lp_peer_stream *s = &r->streams[i];
        cJSON *so = cJSON_CreateObject();
        add_num(so, "id", s->id);
        add_num(so, "bytes", (double)s->bytes);
        add_num(so, "retransmits", (double)s->retransmits);
        add_num(so, "jitter", s->jitter_s);
        /* 3.14+ sends the -O part of errors and packets too, and a 3.21 client without
         * them takes every packet of the peer as omitted (UDP -R: sum_sent.packets 0). Ours
         * count from the end of -O already: nothing of them is omitted. */
        add_num(so, "errors", (double)s->errors);
        add_num(so, "omitted_errors", 0);
        add_num(so, "packets", (double)s->packets);
        add_num(so, "omitted_packets", 0);
        add_num(so, "start_time", s->start_time);
        add_num(so, "end_time", s->end_time);
        cJSON_AddItemToArray(arr, so);
    }
    if (r->server_output_text)
        cJSON_AddStringToObject(o, "server_output_text", r->server_output_text);
    if (r->server_output_json) {
        cJSON *doc = cJSON_Parse(r->server_output_json);
        if (doc)
            cJSON_AddItemToObject(o, "server_output_json", doc);
    }
    char *s = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    return s;
}

/* iperf3 3.12/3.13 print -1 as 18446744073709551615; any value >= 2^63 means -1 here. */
static int64_t to_i64(double d)
{
    if (d >= 9.2233720368547758e18)
        return -1;
    if (d <= -9.2233720368547758e18)
        return INT64_MIN;
    return (int64_t)d;
}

static bool num_field(const cJSON *o, const char *key, bool required, double *v, char *err, size_t errlen)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!it) {
        if (required)
            snprintf(err, errlen, "results lack '%s'", key);
        return !required;
    }
    if (!cJSON_IsNumber(it) || !isfinite(it->valuedouble)) {
        snprintf(err, errlen, "results field '%s' is not a number", key);
        return false;
    }
    *v = it->valuedouble;
    return true;
}

int lp_i3_results_decode(const char *json, size_t len, struct lp_peer_results *r, char *err, size_t errlen)
{
    if (errlen)
        err[0] = '\0';
    cJSON *o = cJSON_ParseWithLength(json, len);
    double v = 0;
    if (!o || !cJSON_IsObject(o)) {
        snprintf(err, errlen, "results are not a JSON object");
        goto fail;
    }
    if (!num_field(o, "cpu_util_total", true, &r->cpu_total, err, errlen) ||
        !num_field(o, "cpu_util_user", true, &r->cpu_user, err, errlen) ||
        !num_field(o, "cpu_util_system", true, &r->cpu_system, err, errlen) ||
        !num_field(o, "sender_has_retransmits", true, &v, err, errlen))
        goto fail;
    /* 1, 0 or -1 on iperf3's wire (-1 may come as 2^64 - 1): anything else is clamped. */
    r->sender_has_retransmits = v >= 1 && v < 9.2233720368547758e18 ? 1 : v == 0 ? 0 : -1;
    const cJSON *cc = cJSON_GetObjectItemCaseSensitive(o, "congestion_used");
    if (cJSON_IsString(cc) && cc->valuestring && strlen(cc->valuestring) < sizeof(r->congestion))
        strcpy(r->congestion, cc->valuestring);
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(o, "streams");
    if (!cJSON_IsArray(arr)) {
        snprintf(err, errlen, "results lack a 'streams' array");
        goto fail;
    }
    int n = cJSON_GetArraySize(arr);
    if (n < 0 || n > LP_PEER_MAX_STREAMS) {
        snprintf(err, errlen, "results list %d streams (at most %d)", n, LP_PEER_MAX_STREAMS);
        goto fail;
    }
    r->nstreams = 0;
    const cJSON *so;
    cJSON_ArrayForEach(so, arr)
    {
        struct lp_peer_stream *s = &r->streams[r->nstreams];
        double id = 0, bytes = 0, retr = 0, jit = 0, errs = 0, pk = 0, st = 0, et = 0;
        if (!cJSON_IsObject(so) || !num_field(so, "id", true, &id, err, errlen) ||
            !num_field(so, "bytes", true, &bytes, err, errlen) ||
            !num_field(so, "retransmits", true, &retr, err, errlen) ||
            !num_field(so, "jitter", true, &jit, err, errlen) ||
            !num_field(so, "errors", true, &errs, err, errlen) ||
            !num_field(so, "packets", true, &pk, err, errlen) ||
            !num_field(so, "start_time", false, &st, err, errlen) ||
            !num_field(so, "end_time", false, &et, err, errlen)) {
            if (!err[0])
                snprintf(err, errlen, "a results stream is not an object");
            goto fail;
        }
        /* Converting a double past 2^64 to uint64_t is undefined: such counts are refused. */
        if (bytes < 0 || bytes >= 0x1p64 || pk < 0 || pk >= 0x1p64 || et < 0 || et > 1e7 ||
            id < 0 || id > 1e6) {
            snprintf(err, errlen, "a results stream has out-of-range numbers");
            goto fail;
        }
        s->id = (int)id;
        s->bytes = (uint64_t)bytes;
        s->retransmits = to_i64(retr);
        s->jitter_s = jit;
        s->errors = to_i64(errs);
        s->packets = (uint64_t)pk;
        s->start_time = st;
        s->end_time = et;
        r->nstreams++;
    }
    const cJSON *sot = cJSON_GetObjectItemCaseSensitive(o, "server_output_text");
    if (cJSON_IsString(sot) && sot->valuestring)
        r->server_output_text = strdup(sot->valuestring);
    const cJSON *soj = cJSON_GetObjectItemCaseSensitive(o, "server_output_json");
    if (cJSON_IsObject(soj))
        r->server_output_json = cJSON_Print(soj);
    cJSON_Delete(o);
    return 0;
fail:
    cJSON_Delete(o);
    return LP_EPEER;
}
