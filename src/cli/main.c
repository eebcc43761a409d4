/* SPDX-License-Identifier: GPL-3.0-or-later */
/* main.c — reckon-cli: dispatches to one subcommand. */
#define G_LOG_DOMAIN "reckon-cli"
#include "config.h"

#include <glib/gi18n.h>
#include <locale.h>
#include <stdio.h>
#include <string.h>

#include "rk-cli.h"
#include "rk-sandbox-launcher.h"

typedef struct
{
  const char *name;
  int       (*run) (int argc, char **argv);
  const char *summary;
} RkCliCommand;

static const RkCliCommand commands[] = {
  { "chart", rk_cli_chart, N_("Draw a chart spec to PNG, SVG or PDF") },
  { "profile", rk_cli_profile, N_("Describe spreadsheets, PDFs and text files (read in the sandbox)") },
  { "exec", rk_cli_exec, N_("Run a Python file as one cell in the sandboxed kernel") },
  { "models", rk_cli_models, N_("List the models a model server offers") },
  { "table", rk_cli_table, N_("Show a table the kernel wrote, or save it as CSV or XLSX") },
  { "ask", rk_cli_ask, N_("Ask a local model about your data; it writes Python that runs in the sandbox") },
  { "export", rk_cli_export, N_("Export a saved conversation as a Jupyter notebook or an HTML report") },
  { NULL, NULL, NULL }
};

static void
print_usage (FILE *out)
{
  rk_cli_print (out, "%s\n\n", _("Usage: reckon-cli COMMAND [OPTION…]"));
  rk_cli_print (out, "%s\n", _("Commands:"));
  for (const RkCliCommand *c = commands; c->name != NULL; c++)
    rk_cli_print (out, "  %-10s %s\n", c->name, _(c->summary));
  rk_cli_print (out, "\n%s\n", _("Run “reckon-cli COMMAND --help” for a command's options."));
  if (out == stdout)
    {
      g_autofree char *table = rk_cli_exit_table ();

      rk_cli_print (out, "\n%s", table);
    }
}

int
main (int argc, char **argv)
{
  setlocale (LC_ALL, "");
  bindtextdomain (GETTEXT_PACKAGE, LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);

  if (argc < 2 || strcmp (argv[1], "--help") == 0 || strcmp (argv[1], "-h") == 0)
    {
      print_usage (argc < 2 ? stderr : stdout);
      return argc < 2 ? RK_CLI_EXIT_USAGE : RK_CLI_EXIT_OK;
    }
  if (strcmp (argv[1], "--version") == 0)
    {
      const char *why = rk_sandbox_launcher_get_unavailable_reason ();

      rk_cli_print (stdout, "reckon-cli %s\n", PACKAGE_VERSION);
      /* Which sandbox runs code here (docs/sandbox.md, "Backends"). */
      rk_cli_print (stdout, _("Sandbox: %s\n"), rk_sandbox_launcher_get_backend_name ());
      if (why != NULL)
        rk_cli_print (stdout, "%s\n", why);
      return RK_CLI_EXIT_OK;
    }

  for (const RkCliCommand *c = commands; c->name != NULL; c++)
    if (strcmp (argv[1], c->name) == 0)
      {
        /* Usage lines then read "reckon-cli ask [OPTION…]". */
        g_autofree char *name = g_strdup_printf ("reckon-cli %s", c->name);

        argv[1] = name;
        return c->run (argc - 1, argv + 1);
      }

  rk_cli_print (stderr, _("reckon-cli: unknown command “%s”.\n"), argv[1]);
  print_usage (stderr);
  return RK_CLI_EXIT_USAGE;
}
