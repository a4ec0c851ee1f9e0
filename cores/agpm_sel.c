/* persim core: AGPM path selector and periods (see agpm_sel.h). */
#include "agpm_sel.h"
#include <string.h>

struct agpm_sel {
    agpm_sel_cfg   cfg;
    agpm_sel_stats stats;
    uint32_t thr;
    uint64_t logs;                  /* log updates in the current period */
    uint64_t cur_num, cur_den;      /* CWPPR sums of the current period */
    uint64_t prev_num, prev_den;    /* ... of the previous period */
    int      has_prev;
    uint32_t lo;                    /* lower clamp in force (thr_min, or a smaller small-kernel threshold) */
    uint8_t  path, prev_path, reason;
};

agpm_sel_cfg agpm_sel_default_cfg(void)
{
    agpm_sel_cfg c;
    c.ratio_num = 1;
    c.ratio_den = 4;
    c.min_log = 100;
    c.thr_init = 10000;
    c.thr_min = 100;
    c.thr_max = 1000000000u;
    c.step_pct = 10;
    c.initial_path = AGPM_PATH_NT;
    c.coded_path = AGPM_PATH_T;
    c.small_periods = 4;
    return c;
}

static int cfg_ok(const agpm_sel_cfg *c)
{
    if (!c) return 0;
    if (c->ratio_den < 1 || c->ratio_num > c->ratio_den) return 0;
    if (c->thr_min < 1 || c->thr_min > c->thr_max) return 0;
    if (c->thr_init < c->thr_min || c->thr_init > c->thr_max) return 0;
    if (c->step_pct > 100) return 0;
    if (c->initial_path != AGPM_PATH_T && c->initial_path != AGPM_PATH_NT) return 0;
    if (c->coded_path != AGPM_PATH_T && c->coded_path != AGPM_PATH_NT) return 0;
    return 1;
}

size_t agpm_sel_bytes(void) { return sizeof(agpm_sel); }

int agpm_sel_init(void *mem, const agpm_sel_cfg *cfg)
{
    if (!mem || !cfg_ok(cfg)) return -1;
    agpm_sel *s = (agpm_sel *)mem;
    memset(s, 0, sizeof *s);
    s->cfg = *cfg;
    s->thr = cfg->thr_init;
    s->lo = cfg->thr_min;
    s->path = s->prev_path = (uint8_t)cfg->initial_path;
    s->reason = AGPM_R_NONE;
    return 0;
}

const agpm_sel_cfg *agpm_sel_config(const agpm_sel *s) { return &s->cfg; }

/* ---- 64x64 -> 128-bit products, compared exactly ---- */
static void mul128(uint64_t a, uint64_t b, uint64_t *hi, uint64_t *lo)
{
    uint64_t al = a & 0xffffffffu, ah = a >> 32, bl = b & 0xffffffffu, bh = b >> 32;
    uint64_t ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
    uint64_t mid = (ll >> 32) + (lh & 0xffffffffu) + (hl & 0xffffffffu);
    *lo = (ll & 0xffffffffu) | (mid << 32);
    *hi = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
}

/* sign of a*b - c*d */
static int cmp_prod(uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
    uint64_t h1, l1, h2, l2;
    mul128(a, b, &h1, &l1);
    mul128(c, d, &h2, &l2);
    if (h1 != h2) return h1 < h2 ? -1 : 1;
    if (l1 != l2) return l1 < l2 ? -1 : 1;
    return 0;
}

/* log/all >= num/den, with all == 0 meaning the quotient 0 */
static int ratio_ge(uint64_t log, uint64_t all, uint32_t num, uint32_t den)
{
    if (all == 0) return num == 0;
    return cmp_prod(log, den, all, num) >= 0;
}

agpm_reason agpm_sel_classify(const agpm_sel_cfg *cfg, const agpm_sel_in *in)
{
    const agpm_vars *l1 = &in->l1d, *l2 = &in->l2;
    if (in->shm_used) return AGPM_R_H;
    if (in->log < cfg->min_log) return AGPM_R_E;
    int l1_zero = !l1->t_all && !l1->t_log && !l1->s_all && !l1->s_log;
    int l2_zero = !l2->t_all && !l2->t_log && !l2->s_all && !l2->s_log;
    if (l1_zero && l2_zero) return AGPM_R_F;
    if (l1_zero) return AGPM_R_C;
    if (!l1->t_all && !l1->t_log && !l2->t_all && !l2->t_log) return AGPM_R_G;
    if (!l1->t_log && !l1->s_log) return AGPM_R_A;
    if (ratio_ge(l1->t_log, l1->t_all, cfg->ratio_num, cfg->ratio_den) ||
        ratio_ge(l1->s_log, l1->s_all, cfg->ratio_num, cfg->ratio_den))
        return AGPM_R_B;
    return AGPM_R_D;
}

agpm_path agpm_sel_path_for(agpm_reason r)
{
    switch (r) {
    case AGPM_R_A: case AGPM_R_C: case AGPM_R_D: case AGPM_R_G: return AGPM_PATH_T;
    case AGPM_R_B: case AGPM_R_E: case AGPM_R_F: case AGPM_R_H: return AGPM_PATH_NT;
    default: return AGPM_PATH_NONE;
    }
}

char agpm_reason_letter(agpm_reason r)
{
    return r >= AGPM_R_A && r <= AGPM_R_H ? (char)('a' + (r - AGPM_R_A)) : '-';
}

int agpm_sel_log_update(agpm_sel *s)
{
    s->stats.log_updates++;
    s->logs++;
    return s->logs >= s->thr;
}

void agpm_sel_pm_done(agpm_sel *s, uint64_t cycles)
{
    s->stats.pm_requests++;
    s->cur_num += cycles;
    s->cur_den++;
}

/* IV-A: CWPPR(cur) > CWPPR(prev) -> +step %, otherwise -step %; none on the first period. */
static void adapt(agpm_sel *s)
{
    if (s->has_prev) {
        uint64_t cn = s->cur_den ? s->cur_num : 0, cd = s->cur_den ? s->cur_den : 1;
        uint64_t pn = s->prev_den ? s->prev_num : 0, pd = s->prev_den ? s->prev_den : 1;
        uint64_t step = (uint64_t)s->thr * s->cfg.step_pct / 100;
        uint64_t t;
        if (cmp_prod(cn, pd, pn, cd) > 0) { t = s->thr + step; s->stats.thr_up++; }
        else { t = s->thr - step; s->stats.thr_down++; }
        if (t < s->lo) t = s->lo;
        if (t > s->cfg.thr_max) t = s->cfg.thr_max;
        s->thr = (uint32_t)t;
    }
    s->prev_num = s->cur_num;
    s->prev_den = s->cur_den;
    s->has_prev = 1;
    s->cur_num = s->cur_den = 0;
}

agpm_path agpm_sel_end_period(agpm_sel *s, const agpm_sel_in *in)
{
    agpm_reason r = agpm_sel_classify(&s->cfg, in);
    s->reason = (uint8_t)r;
    s->stats.reasons[r]++;
    s->stats.periods++;
    s->prev_path = s->path;
    s->path = (uint8_t)agpm_sel_path_for(r);
    if (s->path != s->prev_path) s->stats.path_changes++;
    adapt(s);
    s->logs = 0;
    return (agpm_path)s->path;
}

uint32_t agpm_sel_kernel_threshold(const agpm_sel_cfg *cfg, uint64_t sm_logs)
{
    if (cfg->small_periods == 0 || sm_logs >= cfg->thr_init) return cfg->thr_init;
    uint64_t t = (sm_logs + cfg->small_periods - 1) / cfg->small_periods;
    if (t < cfg->min_log) t = cfg->min_log;
    if (t < 1) t = 1;
    if (t > cfg->thr_max) t = cfg->thr_max;
    return (uint32_t)t;
}

uint32_t agpm_sel_kernel_start(agpm_sel *s, uint64_t sm_logs)
{
    s->stats.kernels++;
    s->thr = agpm_sel_kernel_threshold(&s->cfg, sm_logs);
    if (s->cfg.small_periods && sm_logs < s->cfg.thr_init) s->stats.small_kernels++;
    s->lo = s->thr < s->cfg.thr_min ? s->thr : s->cfg.thr_min;
    s->logs = 0;
    s->cur_num = s->cur_den = 0;
    s->prev_num = s->prev_den = 0;
    s->has_prev = 0;
    return s->thr;
}

agpm_path   agpm_sel_path(const agpm_sel *s) { return (agpm_path)s->path; }
agpm_path   agpm_sel_prev_path(const agpm_sel *s) { return (agpm_path)s->prev_path; }
agpm_reason agpm_sel_reason(const agpm_sel *s) { return (agpm_reason)s->reason; }
uint32_t    agpm_sel_threshold(const agpm_sel *s) { return s->thr; }
uint64_t    agpm_sel_period_logs(const agpm_sel *s) { return s->logs; }

void agpm_sel_cwppr(const agpm_sel *s, int previous, uint64_t *num, uint64_t *den)
{
    if (previous) {
        *num = s->has_prev ? s->prev_num : 0;
        *den = s->has_prev ? s->prev_den : 0;
    } else {
        *num = s->cur_num;
        *den = s->cur_den;
    }
}

const agpm_sel_stats *agpm_sel_get_stats(const agpm_sel *s) { return &s->stats; }
