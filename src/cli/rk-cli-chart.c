/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-cli-chart.c — `reckon-cli chart SPEC.json --out FILE`: renders a chart
 * spec to PNG, SVG or PDF with the same code the app draws with. */
#define G_LOG_DOMAIN "reckon-cli"
#include "config.h"

#include <glib/gi18n-lib.h>
#include <stdio.h>

#include "rk-chart.h"
#include "rk-cli.h"

int
rk_cli_chart (int    argc,
              char **argv)
{
  g_autofree char *out = NULL;
  g_auto(GStrv) specs = NULL;
  int width = 800, height = 600;
  gboolean dark = FALSE, describe = FALSE;
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(RkChart) chart = NULL;
  const GOptionEntry entries[] = {
    { "out", 'o', 0, G_OPTION_ARG_FILENAME, &out, N_("Write the chart to FILE (.png, .svg or .pdf)"), N_("FILE") },
    { "width", 'W', 0, G_OPTION_ARG_INT, &width, N_("Width in pixels (default 800)"), N_("W") },
    { "height", 'H', 0, G_OPTION_ARG_INT, &height, N_("Height in pixels (default 600)"), N_("H") },
    { "dark", 0, 0, G_OPTION_ARG_NONE, &dark, N_("Use the dark palette"), NULL },
    { "describe", 0, 0, G_OPTION_ARG_NONE, &describe, N_("Print the chart's kind, title and series"), NULL },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &specs, NULL, NULL },
    { NULL }
  };

  context = g_option_context_new (_("SPEC.json — draw a chart spec to an image"));
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  rk_cli_set_exit_help (context, _("the spec could not be read, or the picture not written"), RK_CLI_EXIT_USAGE, -1);
  if (!rk_cli_parse_options (context, "chart", &argc, &argv))
    return RK_CLI_EXIT_USAGE;
  if (specs == NULL || specs[0] == NULL || specs[1] != NULL || (out == NULL && !describe))
    return rk_cli_fail (RK_CLI_EXIT_USAGE, "%s\n", _("Usage: reckon-cli chart SPEC.json --out FILE.{png,svg,pdf} [--width W --height H --dark]"));

  chart = rk_chart_new_from_file (specs[0], &error);
  if (chart == NULL)
    return rk_cli_fail (RK_CLI_EXIT_FAILURE, "reckon-cli chart: %s: %s\n", specs[0], error->message);

  if (describe)
    {
      guint n = rk_chart_get_n_series (chart);
      g_autofree char *title = rk_cli_name (rk_chart_get_title (chart) ? rk_chart_get_title (chart) : "");

      /* A spec may come from the sandbox: names are printed clean. */
      rk_cli_print (stdout, "kind: %s\n", rk_chart_kind_to_string (rk_chart_get_kind (chart)));
      rk_cli_print (stdout, "title: %s\n", title);
      for (guint i = 0; i < n; i++)
        {
          g_autofree char *series = rk_cli_name (rk_chart_get_series_name (chart, i));

          rk_cli_print (stdout, "series %u: %s (%" G_GSIZE_FORMAT ")\n", i + 1, series, rk_chart_get_n_points (chart, i));
        }
    }

  if (out != NULL &&
      !rk_chart_export (chart, out, -1, width, height,
                        dark ? RK_CHART_STYLE_DARK : RK_CHART_STYLE_LIGHT, &error))
    return rk_cli_fail (RK_CLI_EXIT_FAILURE, "reckon-cli chart: %s\n", error->message);
  return RK_CLI_EXIT_OK;
}
