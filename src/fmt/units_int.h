/* What the iperf3 (units.c) and iperf2 (text2_units.c) number columns share: the unit
 * labels and the scaling to a unit. Internal to src/fmt. */
#ifndef LP_FMT_UNITS_INT_H
#define LP_FMT_UNITS_INT_H

#define LP_UNITS_COUNT 5 /* none, K, M, G, T */

/* "Bytes" .. "TBytes" and "bits" .. "Tbits", indexed by the power of the base. */
extern const char *const lp_units_byte_labels[LP_UNITS_COUNT];
extern const char *const lp_units_bit_labels[LP_UNITS_COUNT];

/* Divides *v by base want times (a pinned unit), or, want < 0 (adaptive), while it reaches
 * the base (at most to T). Returns the power reached: the label's index. */
int lp_units_scale(double *v, double base, int want);

#endif
