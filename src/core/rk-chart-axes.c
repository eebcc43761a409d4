/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-chart-axes.c — ticks (numbers at 1-2-5 steps, calendar times), their
 * labels, text measurement, and the layout of the plot, legend and axes. */
#define G_LOG_DOMAIN "rk-chart"
#include "config.h"

#include "rk-chart.h"
#include "rk-chart-private.h"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <pango/pangocairo.h>
#include <string.h>

/* ------------------------------------------------------------ axis helpers */

guint
_rk_chart_nice_ticks (double  lo,
                      double  hi,
                      guint   target,
                      double *out,
                      guint   max_out,
                      double *step)
{
  double raw, mag, f, nice, st, first;
  gint64 i0, i1;
  guint count = 0;

  if (!isfinite (lo) || !isfinite (hi))
    return 0;
  if (hi < lo)
    {
      double t = lo;
      lo = hi;
      hi = t;
    }
  if (hi - lo < fabs (hi) * 1e-12 || hi == lo)
    {
      double pad = lo == 0 ? 1 : fabs (lo) * 0.1;
      lo -= pad;
      hi += pad;
    }
  target = CLAMP (target, 1, 50);
  raw = (hi - lo) / target;
  if (!isfinite (raw) || raw <= 0)
    return 0;
  mag = pow (10, floor (log10 (raw)));
  f = raw / mag;
  nice = f <= 1.0 + 1e-9 ? 1 : f <= 2.0 + 1e-9 ? 2 : f <= 5.0 + 1e-9 ? 5 : 10;
  st = nice * mag;
  /* rounding the step up can leave too few ticks (one, for [0.001, 0.0095]):
   * then take the next smaller 1-2-5 step, whichever lands nearer the target */
  {
    double smaller = nice == 1 ? 0.5 * mag : nice == 2 ? mag : nice == 5 ? 2 * mag : 5 * mag;
    double n_st = floor (hi / st + 1e-9) - ceil (lo / st - 1e-9) + 1;
    double n_sm = floor (hi / smaller + 1e-9) - ceil (lo / smaller - 1e-9) + 1;

    if (n_st < 2 || (n_st < target && fabs (n_sm - target) < fabs (n_st - target) && n_sm <= 2.0 * target))
      st = smaller;
  }
  i0 = (gint64) ceil (lo / st - 1e-9);
  i1 = (gint64) floor (hi / st + 1e-9);
  if (step)
    *step = st;
  for (gint64 i = i0; i <= i1 && count < 200; i++)
    {
      first = (double) i * st;
      if (fabs (first) < st * 1e-9)
        first = 0;
      if (count < max_out)
        out[count] = first;
      count++;
    }
  return MIN (count, max_out);
}

static const struct
{
  RkTimeUnit unit;
  int        mult;
  double     ms;
} time_steps[] = {
  { _RK_TIME_SECOND, 1, 1e3 }, { _RK_TIME_SECOND, 2, 2e3 }, { _RK_TIME_SECOND, 5, 5e3 },
  { _RK_TIME_SECOND, 10, 10e3 }, { _RK_TIME_SECOND, 15, 15e3 }, { _RK_TIME_SECOND, 30, 30e3 },
  { _RK_TIME_MINUTE, 1, 60e3 }, { _RK_TIME_MINUTE, 2, 120e3 }, { _RK_TIME_MINUTE, 5, 300e3 },
  { _RK_TIME_MINUTE, 10, 600e3 }, { _RK_TIME_MINUTE, 15, 900e3 }, { _RK_TIME_MINUTE, 30, 1800e3 },
  { _RK_TIME_HOUR, 1, 3600e3 }, { _RK_TIME_HOUR, 2, 7200e3 }, { _RK_TIME_HOUR, 3, 10800e3 },
  { _RK_TIME_HOUR, 6, 21600e3 }, { _RK_TIME_HOUR, 12, 43200e3 },
  { _RK_TIME_DAY, 1, 86400e3 }, { _RK_TIME_DAY, 2, 172800e3 }, { _RK_TIME_DAY, 7, 604800e3 },
  { _RK_TIME_DAY, 14, 1209600e3 },
  { _RK_TIME_MONTH, 1, 2629746e3 }, { _RK_TIME_MONTH, 3, 7889238e3 }, { _RK_TIME_MONTH, 6, 15778476e3 },
};

#define MS_PER_YEAR 31556952e3
/* GDateTime covers years 1 to 9999. */
#define MIN_TIME_MS (-62135596800e3)
#define MAX_TIME_MS (253402300799e3)

guint
_rk_chart_time_ticks (double      lo,
                      double      hi,
                      guint       target,
                      double     *out,
                      guint       max_out,
                      RkTimeUnit *unit)
{
  double span = hi - lo;
  guint count = 0;
  guint i;

  if (!isfinite (lo) || !isfinite (hi) || hi <= lo || lo < MIN_TIME_MS || hi > MAX_TIME_MS)
    return 0;
  target = CLAMP (target, 1, 50);

  if (span / target < 1e3)
    {
      double step;
      *unit = _RK_TIME_MS;
      return _rk_chart_nice_ticks (lo, hi, target, out, max_out, &step);
    }

  for (i = 0; i < G_N_ELEMENTS (time_steps); i++)
    if (span / time_steps[i].ms <= target)
      break;

  if (i < G_N_ELEMENTS (time_steps) && time_steps[i].unit <= _RK_TIME_DAY)
    {
      double st = time_steps[i].ms;
      /* weeks start on Mondays: 1970-01-05 was one (the epoch a Thursday) */
      double origin = st >= 604800e3 ? 4 * 86400e3 : 0;
      double v = ceil ((lo - origin) / st) * st + origin;

      *unit = time_steps[i].unit;
      for (; v <= hi && count < max_out; v += st)
        out[count++] = v;
      return count;
    }

  {
    g_autoptr(GDateTime) start = g_date_time_new_from_unix_utc ((gint64) floor (lo / 1e3));
    int year, month, mult;

    if (start == NULL)
      return 0;
    year = g_date_time_get_year (start);
    month = g_date_time_get_month (start);  /* 1..12 */

    if (i < G_N_ELEMENTS (time_steps))
      {
        mult = time_steps[i].mult;
        *unit = _RK_TIME_MONTH;
        /* first month boundary at or after lo, aligned to the step */
        month = ((month - 1 + mult - 1) / mult) * mult + 1;
      }
    else
      {
        double years = span / MS_PER_YEAR / target, step;
        double mag = pow (10, floor (log10 (MAX (years, 1))));
        double f = years / mag;

        step = (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
        mult = (int) MIN (step, 5000);
        *unit = _RK_TIME_YEAR;
        month = 1;
        year = (int) (ceil ((double) year / mult) * mult);
      }

    while (count < max_out)
      {
        g_autoptr(GDateTime) t = NULL;
        double ms;

        while (month > 12)
          {
            month -= 12;
            year++;
          }
        if (year > 9999)
          break;
        t = g_date_time_new_utc (MAX (year, 1), month, 1, 0, 0, 0);
        if (t == NULL)
          break;
        ms = (double) g_date_time_to_unix (t) * 1e3;
        if (ms > hi)
          break;
        if (ms >= lo)
          out[count++] = ms;
        if (*unit == _RK_TIME_YEAR)
          year += mult;
        else
          month += mult;
      }
  }
  return count;
}

static char *
format_number_ascii (double value,
                     double step,
                     double magnitude);

/* Tick labels use a real minus sign (U+2212), as typography wants. */
char *
_rk_chart_format_number (double value,
                         double step)
{
  return _rk_chart_format_tick (value, step, fabs (value));
}

/* The largest |tick| of an axis: every label of the axis takes its suffix
 * (k, M, ...) from it, so "5k" stands next to "10k", not "5,000". */
double
_rk_chart_axis_magnitude (const double *ticks,
                          guint         n)
{
  double m = 0;

  for (guint i = 0; i < n; i++)
    m = MAX (m, fabs (ticks[i]));
  return m;
}

char *
_rk_chart_format_tick (double value,
                       double step,
                       double magnitude)
{
  char *s = format_number_ascii (value, step, magnitude);

  if (s[0] == '-')
    {
      char *t = g_strconcat ("\u2212", s + 1, NULL);
      g_free (s);
      return t;
    }
  return s;
}

static char *
format_number_ascii (double value,
                     double step,
                     double magnitude)
{
  static const struct { double scale; const char *suffix; } si[] = {
    { 1e12, "T" }, { 1e9, "B" }, { 1e6, "M" }, { 1e3, "k" },
  };
  double a = fabs (value);
  int decimals;
  char buf[64];

  if (!isfinite (value))
    return g_strdup ("");
  if (step <= 0 || !isfinite (step))
    step = a > 0 ? a : 1;
  if (a < step * 1e-9)
    return g_strdup ("0");
  if (a >= 1e15 || (a < 1e-4 && step < 1e-4))
    return g_strdup_printf ("%.3g", value);

  for (guint i = 0; i < G_N_ELEMENTS (si); i++)
    if (MAX (a, magnitude) >= si[i].scale * (si[i].scale == 1e3 ? 10 : 1) && step >= si[i].scale / 10)
      {
        double v = value / si[i].scale, st = step / si[i].scale;
        decimals = st >= 1 ? 0 : (int) ceil (-log10 (st) - 1e-9);
        g_snprintf (buf, sizeof buf, "%.*f%s", CLAMP (decimals, 0, 6), v, si[i].suffix);
        return g_strdup (buf);
      }

  decimals = step >= 1 ? 0 : (int) ceil (-log10 (step) - 1e-9);
  g_snprintf (buf, sizeof buf, "%.*f", CLAMP (decimals, 0, 10), value);
  if (decimals == 0 && a >= 1e3)
    {
      /* digit grouping for whole numbers below 10 000 000 */
      GString *s = g_string_new (NULL);
      const char *digits = buf[0] == '-' ? buf + 1 : buf;
      gsize len = strlen (digits);

      if (buf[0] == '-')
        g_string_append_c (s, '-');
      for (gsize i = 0; i < len; i++)
        {
          if (i > 0 && (len - i) % 3 == 0)
            g_string_append_c (s, ',');
          g_string_append_c (s, digits[i]);
        }
      return g_string_free (s, FALSE);
    }
  return g_strdup (buf);
}

char *
_rk_chart_format_time (double     ms,
                       RkTimeUnit unit,
                       gboolean   first)
{
  g_autoptr(GDateTime) t = NULL;
  double secs = floor (ms / 1e3);

  if (!isfinite (ms) || ms < MIN_TIME_MS || ms > MAX_TIME_MS)
    return g_strdup ("");
  t = g_date_time_new_from_unix_utc ((gint64) secs);
  if (t == NULL)
    return g_strdup ("");

  switch (unit)
    {
    case _RK_TIME_YEAR:
      return g_date_time_format (t, "%Y");
    case _RK_TIME_MONTH:
      return g_date_time_format (t, (first || g_date_time_get_month (t) == 1) ? "%b %Y" : "%b");
    case _RK_TIME_DAY:
      return g_date_time_format (t, first ? "%b %-d, %Y" : "%b %-d");
    case _RK_TIME_HOUR:
      if (first || (g_date_time_get_hour (t) == 0))
        return g_date_time_format (t, "%b %-d %H:%M");
      return g_date_time_format (t, "%H:%M");
    case _RK_TIME_MINUTE:
      return g_date_time_format (t, first ? "%b %-d %H:%M" : "%H:%M");
    case _RK_TIME_SECOND:
      return g_date_time_format (t, "%H:%M:%S");
    case _RK_TIME_MS:
    default:
      {
        g_autofree char *hms = g_date_time_format (t, "%H:%M:%S");
        return g_strdup_printf ("%s.%03d", hms, (int) (ms - secs * 1e3 + 0.5) % 1000);
      }
    }
}

char *
_rk_chart_format_exact (double value)
{
  char buf[64];

  if (!isfinite (value))
    return g_strdup ("—");
  for (int prec = 1; prec <= 17; prec++)
    {
      g_snprintf (buf, sizeof buf, "%.*g", prec, value);
      if (g_ascii_strtod (buf, NULL) == value)
        {
          /* %g writes 10 as "1e+01": plain digits read better in the
           * range people count in */
          if (strchr (buf, 'e') != NULL && fabs (value) >= 1e-4 && fabs (value) < 1e15)
            {
              int decimals = MAX (0, prec - 1 - (int) floor (log10 (fabs (value))));
              char plain[64];

              g_snprintf (plain, sizeof plain, "%.*f", decimals, value);
              if (g_ascii_strtod (plain, NULL) == value)
                return g_strdup (plain);
            }
          break;
        }
    }
  return g_strdup (buf);
}

char *
_rk_chart_format_exact_time (double ms)
{
  g_autoptr(GDateTime) t = NULL;
  double secs = floor (ms / 1e3);
  int frac;

  if (!isfinite (ms) || ms < MIN_TIME_MS || ms > MAX_TIME_MS)
    return _rk_chart_format_exact (ms);
  t = g_date_time_new_from_unix_utc ((gint64) secs);
  if (t == NULL)
    return _rk_chart_format_exact (ms);
  frac = (int) (ms - secs * 1e3 + 0.5);
  if (frac > 0)
    {
      g_autofree char *s = g_date_time_format (t, "%Y-%m-%d %H:%M:%S");
      return g_strdup_printf ("%s.%03d", s, MIN (frac, 999));
    }
  if (g_date_time_get_hour (t) == 0 && g_date_time_get_minute (t) == 0 &&
      g_date_time_get_second (t) == 0)
    return g_date_time_format (t, "%Y-%m-%d");
  return g_date_time_format (t, "%Y-%m-%d %H:%M:%S");
}

static PangoLayout *
text_layout (cairo_t    *cr,
             const char *text,
             double      px,
             gboolean    bold)
{
  PangoLayout *layout = pango_cairo_create_layout (cr);
  g_autoptr(PangoFontDescription) desc = pango_font_description_from_string ("Sans");

  pango_font_description_set_absolute_size (desc, px * PANGO_SCALE);
  if (bold)
    pango_font_description_set_weight (desc, PANGO_WEIGHT_BOLD);
  pango_layout_set_font_description (layout, desc);
  pango_layout_set_text (layout, text, -1);
  return layout;
}

void
_rk_chart_text_size (cairo_t    *cr,
                     const char *text,
                     double      px,
                     gboolean    bold,
                     double     *w,
                     double     *h)
{
  g_autoptr(PangoLayout) layout = text_layout (cr, text, px, bold);
  int iw, ih;

  pango_layout_get_pixel_size (layout, &iw, &ih);
  if (w)
    *w = iw;
  if (h)
    *h = ih;
}

/* Draws @text with its anchor at (x, y): ax/ay 0 = left/top, 0.5 = centre, 1 = right/bottom. */
void
_rk_chart_draw_text (cairo_t    *cr,
                     const char *text,
                     double      px,
                     gboolean    bold,
                     double      x,
                     double      y,
                     double      ax,
                     double      ay,
                     double      max_width)
{
  g_autoptr(PangoLayout) layout = text_layout (cr, text, px, bold);
  int iw, ih;

  if (max_width > 0)
    {
      pango_layout_set_width (layout, (int) (max_width * PANGO_SCALE));
      pango_layout_set_ellipsize (layout, PANGO_ELLIPSIZE_END);
    }
  pango_layout_get_pixel_size (layout, &iw, &ih);
  cairo_move_to (cr, x - ax * iw, y - ay * ih);
  pango_cairo_show_layout (cr, layout);
}

char *
_rk_chart_x_tick_label (RkChart      *self,
                        const Layout *L,
                        guint         i)
{
  if (L->time_ticks)
    return _rk_chart_format_time (L->xt[i], L->time_unit, i == 0);
  return _rk_chart_format_tick (L->xt[i], L->xstep, _rk_chart_axis_magnitude (L->xt, L->n_xt));
}

static void
compute_x_ticks (RkChart *self,
                 Layout  *L,
                 guint    target)
{
  L->time_ticks = FALSE;
  if (self->x_type == RK_CHART_AXIS_TIME)
    {
      L->n_xt = _rk_chart_time_ticks (L->x0, L->x1, target, L->xt, MAX_TICKS, &L->time_unit);
      if (L->n_xt > 0)
        {
          L->time_ticks = TRUE;
          return;
        }
    }
  L->n_xt = _rk_chart_nice_ticks (L->x0, L->x1, target, L->xt, MAX_TICKS, &L->xstep);
  /* nice ticks may fall a hair outside an exact range */
  while (L->n_xt > 0 && L->xt[0] < L->x0 - (L->x1 - L->x0) * 1e-9)
    {
      memmove (L->xt, L->xt + 1, (L->n_xt - 1) * sizeof (double));
      L->n_xt--;
    }
  while (L->n_xt > 0 && L->xt[L->n_xt - 1] > L->x1 + (L->x1 - L->x0) * 1e-9)
    L->n_xt--;
}

void
_rk_chart_compute_layout (RkChart *self,
                          cairo_t *cr,
                          double   w,
                          double   h,
                          Layout  *L)
{
  double th = 0, lh = 0, tick_h = 0, max_w = 0;
  gboolean include_zero;
  double lo, hi, plot_w;

  memset (L, 0, sizeof *L);
  L->w = w;
  L->h = h;
  L->t = PAD;
  _rk_chart_text_size (cr, "0", FONT_PX, FALSE, NULL, &tick_h);

  if (self->title != NULL && *self->title != '\0')
    {
      _rk_chart_text_size (cr, self->title, FONT_PX * 1.25, TRUE, NULL, &th);
      L->title_y = L->t;
      L->t += th + 8;
    }

  /* legend: one row of entries, wrapped as needed, for several series */
  if (self->n_series > 1 && self->kind != RK_CHART_KIND_BOX)
    {
      double row_w = 0, avail = w - 2 * PAD;

      L->legend_rows = 1;
      for (guint k = 0; k < self->n_series; k++)
        {
          double tw;
          _rk_chart_text_size (cr, self->series[k].name, FONT_PX, FALSE, &tw, &lh);
          tw = MIN (tw, 200) + 12 + 6 + 18;
          if (row_w > 0 && row_w + tw > avail)
            {
              L->legend_rows++;
              row_w = 0;
            }
          row_w += tw;
        }
      L->legend_rows = MIN (L->legend_rows, 4);
      L->legend_row_h = lh + 4;
      L->legend_y = L->t;
      L->t += L->legend_rows * L->legend_row_h + 6;
    }

  L->b = h - PAD - tick_h - 6;
  if (self->x_label != NULL && *self->x_label != '\0')
    L->b -= tick_h + 6;
  L->l = PAD;
  if (self->y_label != NULL && *self->y_label != '\0')
    L->l += tick_h + 8;
  L->r = w - PAD - 8;

  /* y range */
  lo = self->ymin;
  hi = self->ymax;
  if (isnan (lo))
    {
      lo = 0;
      hi = 1;
    }
  include_zero = self->kind == RK_CHART_KIND_BAR || self->kind == RK_CHART_KIND_AREA ||
                 self->kind == RK_CHART_KIND_HISTOGRAM;
  if (include_zero)
    {
      lo = MIN (lo, 0);
      hi = MAX (hi, 0);
    }
  if (hi == lo)
    {
      double pad = lo == 0 ? 1 : fabs (lo) * 0.1;
      lo -= include_zero && lo == 0 ? 0 : pad;
      hi += pad;
    }
  if (!include_zero)
    {
      double pad = (hi - lo) * (self->kind == RK_CHART_KIND_LINE ? 0.03 : 0.05);
      lo -= pad;
      hi += pad;
    }
  if (self->has_ymin)
    lo = self->fixed_ymin;
  if (self->has_ymax)
    hi = self->fixed_ymax;
  if (!(hi > lo))
    hi = lo + 1;

  /* y ticks, then widen the range to whole steps so the top has a label */
  {
    double target = MAX (3, (L->b - L->t) / 42);
    L->n_yt = _rk_chart_nice_ticks (lo, hi, (guint) target, L->yt, MAX_TICKS, &L->ystep);
    /* bars and areas get a labelled top; lines and points keep their
     * data range (with a margin) so no band of the plot stays empty */
    if (L->ystep > 0 && !self->has_ymin && !self->has_ymax && include_zero)
      {
        double nlo = floor (lo / L->ystep + 1e-9) * L->ystep;
        double nhi = ceil (hi / L->ystep - 1e-9) * L->ystep;
        if (include_zero && self->ymin >= 0 && lo >= 0)
          nlo = MAX (nlo, 0);
        lo = nlo;
        hi = nhi;
        /* same step, now from end to end */
        L->n_yt = 0;
        for (double v = nlo; v <= nhi + L->ystep * 1e-6 && L->n_yt < MAX_TICKS; v += L->ystep)
          L->yt[L->n_yt++] = fabs (v) < L->ystep * 1e-9 ? 0 : round (v / L->ystep) * L->ystep;
      }
  }
  L->y0 = lo;
  L->y1 = hi;
  for (guint i = 0; i < L->n_yt; i++)
    {
      g_autofree char *s = _rk_chart_format_tick (L->yt[i], L->ystep, _rk_chart_axis_magnitude (L->yt, L->n_yt));
      double tw;
      _rk_chart_text_size (cr, s, FONT_PX, FALSE, &tw, NULL);
      max_w = MAX (max_w, tw);
    }
  L->l += max_w + 8;

  /* x range */
  L->x0 = self->xmin;
  L->x1 = self->xmax;
  if (isnan (L->x0))
    {
      L->x0 = 0;
      L->x1 = 1;
    }
  if (L->x1 == L->x0)
    {
      double pad = self->x_type == RK_CHART_AXIS_TIME ? 43200e3 : (L->x0 == 0 ? 1 : fabs (L->x0) * 0.1);
      L->x0 -= pad;
      L->x1 += pad;
    }
  else if (self->kind == RK_CHART_KIND_SCATTER)
    {
      double pad = (L->x1 - L->x0) * 0.04;
      L->x0 -= pad;
      L->x1 += pad;
    }

  if (L->r - L->l < 20)
    L->r = L->l + 20;
  if (L->b - L->t < 20)
    L->b = L->t + 20;
  plot_w = L->r - L->l;

  if (self->x_type == RK_CHART_AXIS_CATEGORY)
    {
      guint n = self->categories->len;
      double slot = plot_w / MAX (n, 1);

      /* measuring 10 000 labels on every hover would be slow: past 100,
       * measure an even sample (the longest by bytes among them) */
      for (guint i = 0; i < n; i += MAX (1, n / 100))
        {
          const char *label = g_ptr_array_index (self->categories, i);
          double tw;

          for (guint j = i + 1; n > 100 && j < MIN (n, i + n / 100); j++)
            if (strlen (g_ptr_array_index (self->categories, j)) > strlen (label))
              label = g_ptr_array_index (self->categories, j);
          _rk_chart_text_size (cr, label, FONT_PX, FALSE, &tw, NULL);
          L->cat_label_w = MAX (L->cat_label_w, tw);
        }
      /* labels longer than 2.5 slots are ellipsized; thin out the rest */
      L->cat_stride = 1;
      while (L->cat_stride < n &&
             MIN (L->cat_label_w, 2.5 * slot * L->cat_stride - 8) + 8 > slot * L->cat_stride)
        L->cat_stride++;

      /* when they would be thinned, run them at 45° instead: more fit */
      if (L->cat_stride > 1)
        {
          double rot_w = MIN (L->cat_label_w, MIN (160, 0.22 * h * G_SQRT2));
          double extent = (rot_w + tick_h) / G_SQRT2;
          double first_w;

          if (L->b - extent + tick_h - L->t >= 60)
            {
              L->cat_rotate = TRUE;
              L->cat_rot_w = rot_w;
              L->b -= extent - tick_h;
              L->cat_stride = MAX (1, (guint) ceil (tick_h * 1.5 / slot));
              /* the first label runs down-left from its bar: keep it inside */
              _rk_chart_text_size (cr, g_ptr_array_index (self->categories, 0), FONT_PX, FALSE, &first_w, NULL);
              first_w = MIN (first_w, rot_w);
              if (L->l + slot / 2 - (first_w + tick_h / 2) / G_SQRT2 < 2)
                L->l = MIN ((first_w + tick_h / 2) / G_SQRT2 + 2 - slot / 2, L->r - 40);
            }
        }
    }
  else
    {
      guint target = (guint) MAX (2, plot_w / (L->time_ticks || self->x_type == RK_CHART_AXIS_TIME ? 110 : 80));

      for (int attempt = 0; attempt < 6; attempt++)
        {
          double widest = 0;

          compute_x_ticks (self, L, target);
          for (guint i = 0; i < L->n_xt; i++)
            {
              g_autofree char *s = _rk_chart_x_tick_label (self, L, i);
              double tw;
              _rk_chart_text_size (cr, s, FONT_PX, FALSE, &tw, NULL);
              widest = MAX (widest, tw);
            }
          if (L->n_xt < 2 || (widest + 16) * L->n_xt <= plot_w || target <= 2)
            break;
          target = MAX (2, (guint) (plot_w / (widest + 16)));
          if (attempt == 4)
            target = 2;
        }
    }
}
