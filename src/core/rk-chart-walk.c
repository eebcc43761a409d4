/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-chart-walk.c — moving from point to point of a chart with the keyboard. */
#define G_LOG_DOMAIN "rk-chart-walk"
#include "config.h"

#include "rk-chart-walk.h"

gboolean
rk_chart_walk (RkChart    *self,
               double      width,
               double      height,
               guint       series,
               gint64      index,
               int         step,
               int         series_step,
               RkChartHit *hit)
{
  guint n_series;

  g_return_val_if_fail (RK_IS_CHART (self), FALSE);
  g_return_val_if_fail (hit != NULL, FALSE);

  n_series = rk_chart_get_n_series (self);
  if (n_series == 0)
    return FALSE;
  series = MIN (series, n_series - 1);
  if (series_step != 0)
    {
      for (guint tries = 0; tries < n_series; tries++)
        {
          series = (series + n_series + series_step) % n_series;
          if (rk_chart_get_series_visible (self, series))
            break;
        }
      /* the same point of the other series, or the nearest one that exists */
      for (gint64 i = MAX (index, 0); i >= 0; i--)
        if (rk_chart_locate (self, width, height, series, (gsize) i, hit))
          return TRUE;
      return FALSE;
    }
  if (step == 0 || !rk_chart_get_series_visible (self, series))
    return FALSE;
  for (gint64 i = index + step; i >= 0 && i < (gint64) rk_chart_get_n_points (self, series); i += step)
    if (rk_chart_locate (self, width, height, series, (gsize) i, hit))
      return TRUE;
  return FALSE;
}
