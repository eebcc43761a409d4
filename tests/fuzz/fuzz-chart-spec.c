/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz-chart-spec.c — RkChart's spec parser on arbitrary bytes; what parses is
 * also drawn, hit-tested and described, then shown as every kind it can be
 * with a series hidden, so the drawing code sees odd charts too. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>

#include "rk-chart.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

/* fontconfig keeps process-wide caches that LeakSanitizer counts as leaks
 * once the first label is measured; they are not ours and do not grow. */
const char *__lsan_default_suppressions (void);
const char *
__lsan_default_suppressions (void)
{
  return "leak:libfontconfig.so\nleak:libpangoft2\nleak:libpango-1.0.so\nleak:libharfbuzz.so\n";
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autoptr(GBytes) bytes = g_bytes_new (data, size);
  g_autoptr(GError) error = NULL;
  g_autoptr(RkChart) chart = NULL;
  cairo_surface_t *surface;
  cairo_t *cr;

  /* no folder: a spec that names a sidecar must be refused, never opened */
  chart = rk_chart_new_from_bytes (bytes, NULL, &error);
  if (chart == NULL)
    {
      if (error == NULL || error->message == NULL)
        abort ();
      return 0;
    }

  for (int round = 0; round < 3; round++)
    {
      g_autofree char *description = NULL;

      if (round == 1 && rk_chart_get_n_series (chart) > 0)
        rk_chart_set_series_visible (chart, 0, FALSE);
      if (round == 2)
        rk_chart_set_kind (chart, (RkChartKind) (size % (RK_CHART_KIND_BOX + 1)));

      surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 240, 160);
      cr = cairo_create (surface);
      rk_chart_draw (chart, cr, 240, 160, size % 2 ? RK_CHART_STYLE_DARK : RK_CHART_STYLE_LIGHT);
      cairo_destroy (cr);
      cairo_surface_destroy (surface);

      for (int i = 0; i < 4; i++)
        {
          RkChartHit hit;
          if (rk_chart_hit_test (chart, 240, 160, 30 + i * 60, 40 + i * 25, &hit))
            {
              g_autofree char *text = rk_chart_describe_hit (chart, &hit);
              if (text == NULL)
                abort ();
            }
          if (rk_chart_legend_hit_test (chart, 240, 160, 30 + i * 60, 10 + i * 5) >= (int) rk_chart_get_n_series (chart))
            abort ();
        }
      description = rk_chart_describe (chart);
      if (description == NULL || !g_utf8_validate (description, -1, NULL))
        abort ();
    }
  return 0;
}
