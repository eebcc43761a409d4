/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-cli-export.c — `reckon-cli export --notebook|--html TRANSCRIPT`: a saved
 * conversation as a Jupyter notebook or a self-contained HTML report, with
 * tables, figures and charts read from its workspace (-w, or the results
 * `reckon-cli ask --transcript` kept beside it). */
#define G_LOG_DOMAIN "reckon-cli"
#include "config.h"

#include <glib/gi18n-lib.h>
#include <stdio.h>

#include "rk-cli.h"
#include "rk-transcript.h"

int
rk_cli_export (int    argc,
               char **argv)
{
  g_autofree char *out = NULL;
  g_autofree char *workspace = NULL;
  g_autoptr(RkWorkspace) folder = NULL;
  g_autofree char *title = NULL;
  g_autofree char *text = NULL;
  g_auto(GStrv) files = NULL;
  gboolean notebook = FALSE, html = FALSE;
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(RkTranscript) transcript = NULL;
  g_autoptr(GPtrArray) not_embedded = g_ptr_array_new_with_free_func (g_free);
  const GOptionEntry entries[] = {
    { "notebook", 0, 0, G_OPTION_ARG_NONE, &notebook, N_("Write a Jupyter notebook (.ipynb, nbformat 4)"), NULL },
    { "html", 0, 0, G_OPTION_ARG_NONE, &html, N_("Write a self-contained HTML report"), NULL },
    { "workspace", 'w', 0, G_OPTION_ARG_FILENAME, &workspace,
      N_("The session's folder, to embed its tables, figures and charts (default: TRANSCRIPT.results, if there)"), N_("DIR") },
    { "out", 'o', 0, G_OPTION_ARG_FILENAME, &out, N_("Write to FILE instead of standard output"), N_("FILE") },
    { "title", 't', 0, G_OPTION_ARG_STRING, &title, N_("The report's title (HTML)"), N_("TITLE") },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &files, NULL, NULL },
    { NULL }
  };

  context = g_option_context_new (_("TRANSCRIPT — export a saved conversation"));
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  rk_cli_set_exit_help (context, _("the transcript could not be read, or the export not written"),
                        RK_CLI_EXIT_USAGE, -1);
  if (!rk_cli_parse_options (context, "export", &argc, &argv))
    return RK_CLI_EXIT_USAGE;
  if (files == NULL || files[0] == NULL || files[1] != NULL || notebook == html)
    return rk_cli_fail (RK_CLI_EXIT_USAGE, "%s\n", _("Usage: reckon-cli export --notebook|--html TRANSCRIPT [--workspace DIR] [--out FILE]"));
  if (workspace != NULL && (folder = rk_workspace_open (workspace, NULL)) == NULL)
    return rk_cli_fail (RK_CLI_EXIT_USAGE, "reckon-cli export: %s\n", _("The workspace given is not a folder."));

  transcript = rk_transcript_load (files[0], &error);
  if (transcript == NULL)
    return rk_cli_fail (RK_CLI_EXIT_FAILURE, "reckon-cli export: %s: %s\n", files[0], error->message);
  if (folder == NULL)
    {
      g_autofree char *results = rk_transcript_results_folder (files[0]);

      if (g_file_test (results, G_FILE_TEST_IS_DIR))
        folder = rk_workspace_open (results, NULL);
    }
  text = notebook ? rk_transcript_to_notebook (transcript, folder, not_embedded, &error)
                  : rk_transcript_to_html (transcript, folder, title, not_embedded, &error);
  if (text == NULL)
    return rk_cli_fail (RK_CLI_EXIT_FAILURE, "reckon-cli export: %s\n", error->message);
  for (guint i = 0; i < not_embedded->len; i++)
    {
      g_autofree char *name = rk_cli_name (not_embedded->pdata[i]);

      rk_cli_print (stderr, workspace != NULL ? _("reckon: not embedded, its file could not be read: %s\n")
                                              : _("reckon: not embedded, no workspace given (-w DIR): %s\n"),
                    name);
    }
  if (out == NULL)
    {
      fputs (text, stdout);
      return fflush (stdout) == 0 ? RK_CLI_EXIT_OK : RK_CLI_EXIT_FAILURE;
    }
  if (!g_file_set_contents (out, text, -1, &error))
    return rk_cli_fail (RK_CLI_EXIT_FAILURE, "reckon-cli export: %s\n", error->message);
  return RK_CLI_EXIT_OK;
}
