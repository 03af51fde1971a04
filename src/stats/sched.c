/* The report schedule's decisions (see sched.h): cut or not, windows, rows, the last
 * interval. Only arithmetic on the times the caller read; it arms no timer itself. */
#include "stats/sched.h"

static double s_of(uint64_t ns)
{
    return (double)ns / 1e9;
}

uint64_t lp_sched_end_deadline(uint64_t start_ns, double duration_s, unsigned omit_s, bool by_amount)
{
    if (duration_s <= 0 || by_amount)
        return 0;
    return start_ns + (uint64_t)((duration_s + omit_s) * 1e9);
}

uint64_t lp_sched_omit_end(uint64_t start_ns, unsigned omit_s)
{
    return omit_s ? start_ns + (uint64_t)omit_s * 1000000000ull : 0;
}

void lp_sched_join(uint64_t meas_ns, uint64_t now_ns, double duration_s, uint64_t end_deadline_ns,
                   struct lp_sched_join *j)
{
    j->late = now_ns > meas_ns && now_ns - meas_ns > LP_SCHED_LATE_JOIN_NS;
    j->start_ns = j->late ? now_ns : 0;
    j->end_deadline_ns = end_deadline_ns;
    if (j->late && end_deadline_ns) {
        uint64_t own_end = now_ns + (uint64_t)(duration_s * 1e9);
        if (own_end > end_deadline_ns)
            j->end_deadline_ns = own_end;
    }
}

void lp_sched_tick(uint64_t origin_ns, uint64_t iv_ns, uint64_t due_k, uint64_t now_ns,
                   uint64_t end_deadline_ns, bool omitting, bool streams_ended, struct lp_sched_tick *t)
{
    uint64_t due = lp_sched_at(origin_ns, iv_ns, due_k);

    t->early = t->cut = false;
    t->end_k = 0;
    t->next_k = due_k;
    t->arm_ns = due;
    if (iv_ns == 0)
        return; /* no schedule: nothing to cut or arm */
    if (now_ns < due) {
        t->early = true;
        return;
    }
    t->end_k = lp_sched_index(origin_ns, iv_ns, now_ns);
    bool near_end = (end_deadline_ns && end_deadline_ns <= now_ns + iv_ns / 10 && !omitting) || streams_ended;
    t->cut = !near_end;
    /* The next deadline is on the schedule, whenever this one fired. */
    t->next_k = lp_sched_next(origin_ns, iv_ns, now_ns);
    t->arm_ns = lp_sched_at(origin_ns, iv_ns, t->next_k);
}

void lp_sched_window(const struct lp_sched_cut *c, struct lp_sched_window *w)
{
    bool on_boundary = c->to_k > c->from_k;

    w->start_s = s_of(c->from_ns - c->origin_ns);
    w->end_s = s_of(c->to_ns - c->origin_ns);
    w->nom_start_s = s_of(c->from_k * c->iv_ns);
    w->nom_end_s = on_boundary ? s_of(c->to_k * c->iv_ns) : w->end_s;
    w->nom_n = on_boundary ? (unsigned)(c->to_k - c->from_k) : 1;
    if (w->nom_end_s < w->nom_start_s)
        w->nom_end_s = w->nom_start_s;
}

/* Where a row that ended inside the window ends on the schedule: on the last boundary it
 * passed, if that is inside the window, else at its real end (never before its start). */
static void row_end_on_schedule(const struct lp_sched_cut *c, const struct lp_sched_window *w, uint64_t end_ns,
                                struct lp_sched_row *row)
{
    uint64_t k = c->iv_ns && end_ns > c->origin_ns ? lp_sched_index(c->origin_ns, c->iv_ns, end_ns) : 0;

    if (k > c->from_k && s_of(k * c->iv_ns) <= w->nom_end_s) {
        row->nom_end_s = s_of(k * c->iv_ns);
        row->nom_n = (unsigned)(k - c->from_k);
    } else if (row->end_s < w->nom_end_s) {
        row->nom_end_s = row->end_s > row->nom_start_s ? row->end_s : row->nom_start_s;
        row->nom_n = 1;
    }
}

void lp_sched_row(const struct lp_sched_cut *c, const struct lp_sched_window *w, uint64_t origin_ns,
                  uint64_t start_ns, uint64_t end_ns, struct lp_sched_row *row)
{
    uint64_t from = start_ns > c->from_ns && start_ns < c->to_ns ? start_ns : c->from_ns;
    uint64_t to = end_ns > from && end_ns < c->to_ns ? end_ns : c->to_ns;

    row->start_s = s_of(from - origin_ns);
    row->end_s = s_of(to - origin_ns);
    row->seconds = row->end_s - row->start_s;
    row->nom_start_s = w->nom_start_s;
    row->nom_end_s = w->nom_end_s;
    row->nom_n = w->nom_n;
    if (row->start_s > w->start_s && row->start_s > w->nom_start_s)
        row->nom_start_s = row->start_s < w->nom_end_s ? row->start_s : w->nom_end_s;
    if (row->end_s < w->end_s)
        row_end_on_schedule(c, w, end_ns, row);
    /* A row that starts inside a window over missed intervals is one row, not several. */
    if (row->nom_start_s != w->nom_start_s)
        row->nom_n = 1;
}

bool lp_sched_row_gone(const struct lp_sched_cut *c, uint64_t end_ns, bool moved)
{
    return end_ns && end_ns <= c->from_ns && !moved;
}

void lp_sched_last(uint64_t origin_ns, uint64_t iv_ns, uint64_t last_cut_ns, uint64_t now_ns,
                   uint64_t streams_end_ns, bool moved, struct lp_sched_last *l)
{
    uint64_t at = streams_end_ns;

    if (!at || at > now_ns || at < last_cut_ns)
        at = now_ns;
    l->at_ns = at;
    /* Keep a short last interval only if it carried data or is not a sliver. */
    l->cut = iv_ns && (moved || at - last_cut_ns >= iv_ns / 10);
    /* On the schedule it runs from the last boundary to the end; a boundary passed since
     * (folded in by lp_sched_tick, or not reached by the timer) ends it instead. */
    l->end_k = l->cut ? lp_sched_index(origin_ns, iv_ns, at) : 0;
}
