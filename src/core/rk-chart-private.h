/* rk-chart-private.h — axis helpers of RkChart, exposed for its unit tests. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Ticks at 1-2-5 × 10^k steps covering [@lo, @hi], about @target of them.
 * Returns the number of ticks (0 if the range is not finite); writes at most
 * @max_out values to @out and the step to @step. */
guint   _rk_chart_nice_ticks    (double  lo,
                                 double  hi,
                                 guint   target,
                                 double *out,
                                 guint   max_out,
                                 double *step);

typedef enum
{
  _RK_TIME_MS,
  _RK_TIME_SECOND,
  _RK_TIME_MINUTE,
  _RK_TIME_HOUR,
  _RK_TIME_DAY,
  _RK_TIME_MONTH,
  _RK_TIME_YEAR,
} RkTimeUnit;

/* Ticks for epoch milliseconds (UTC) at calendar boundaries: whole seconds,
 * minutes, hours, days, months (1, 3, 6) or years (1-2-5 steps). */
guint   _rk_chart_time_ticks    (double      lo_ms,
                                 double      hi_ms,
                                 guint       target,
                                 double     *out,
                                 guint       max_out,
                                 RkTimeUnit *unit);

/* A tick label for @value on an axis whose ticks are @step apart. */
char   *_rk_chart_format_number (double  value,
                                 double  step);
/* The same on an axis whose largest |tick| is @magnitude (one suffix for all). */
char   *_rk_chart_format_tick   (double  value,
                                 double  step,
                                 double  magnitude);
char   *_rk_chart_format_time   (double      ms,
                                 RkTimeUnit  unit,
                                 gboolean    first);
/* The shortest decimal text that reads back as exactly @value. */
char   *_rk_chart_format_exact  (double  value);

G_END_DECLS
