/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-cli-profile.c — `reckon-cli profile FILE...`: import files into a
 * throw-away workspace, profile them in the sandbox, print the profiles. */
#define G_LOG_DOMAIN "reckon-cli"
#include "config.h"

#include <glib/gi18n.h>
#include <json-glib/json-glib.h>
#include <stdio.h>

#include "rk-cli.h"
#include "rk-profile.h"
#include "rk-session.h"

int
rk_cli_profile (int    argc,
                char **argv)
{
  gboolean json = FALSE;
  g_auto(GStrv) files = NULL;
  g_autofree char *header = NULL;
  g_autofree char *delimiter = NULL;
  g_autofree char *sheet = NULL;
  int skip = -1;
  RkProfileOptions options = RK_PROFILE_OPTIONS_INIT;
  GOptionEntry entries[] = {
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("Print the raw JSON profile"), NULL },
    { "header", 0, 0, G_OPTION_ARG_STRING, &header,
      N_("Whether the first row names the columns: yes, no or auto (the default)"), N_("yes|no|auto") },
    { "delimiter", 0, 0, G_OPTION_ARG_STRING, &delimiter,
      N_("The column separator: comma, semicolon, tab, pipe, space or one character"), N_("SEP") },
    { "sheet", 0, 0, G_OPTION_ARG_STRING, &sheet, N_("The one sheet of a workbook that reckon.load returns"),
      N_("NAME") },
    { "skip", 0, 0, G_OPTION_ARG_INT, &skip, N_("Lines before the table (comments, titles) to skip"), N_("N") },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &files, NULL, NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new (_("FILE… — describe spreadsheets, PDFs and text files"));
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) names = NULL;
  g_autoptr(GPtrArray) good = g_ptr_array_new ();     /* borrowed from profiles */
  g_autoptr(GPtrArray) profiles = NULL;
  g_autoptr(GPtrArray) failed = g_ptr_array_new_with_free_func ((GDestroyNotify) rk_file_profile_free);
  g_autoptr(RkSession) session = NULL;
  int status = RK_CLI_EXIT_OK;

  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  g_option_context_set_summary (context,
                                _("Each file is copied into a temporary workspace and read inside the sandbox."));
  rk_cli_set_exit_help (context, _("a file could not be copied or profiled (each is named on standard error)"),
                        RK_CLI_EXIT_USAGE, RK_CLI_EXIT_SANDBOX, -1);
  if (!rk_cli_parse_options (context, "profile", &argc, &argv))
    return RK_CLI_EXIT_USAGE;
  if (files == NULL || files[0] == NULL)
    return rk_cli_fail (RK_CLI_EXIT_USAGE, "%s\n", _("reckon-cli profile: name at least one file."));
  /* The user's choices over the profiler's guess (the reading reckon.load
   * replays follows them too). */
  if (header != NULL && g_strcmp0 (header, "yes") != 0 && g_strcmp0 (header, "no") != 0 &&
      g_strcmp0 (header, "auto") != 0)
    return rk_cli_fail (RK_CLI_EXIT_USAGE, "reckon-cli profile: %s\n", _("--header takes yes, no or auto."));
  options.header = g_strcmp0 (header, "yes") == 0 ? RK_PROFILE_HEADER_YES
                 : g_strcmp0 (header, "no") == 0 ? RK_PROFILE_HEADER_NO : RK_PROFILE_HEADER_AUTO;
  options.delimiter = delimiter;
  options.sheet = sheet;
  options.skip_lines = skip < 0 ? -1 : skip;

  session = rk_cli_session_new (NULL, &error);
  if (session == NULL)
    return rk_cli_fail (RK_CLI_EXIT_SANDBOX, "reckon-cli profile: %s\n", error->message);

  for (guint i = 0; files[i] != NULL; i++)
    {
      g_autoptr(GError) import_error = NULL;
      g_autofree char *name = rk_cli_session_add_file (session, files[i], &import_error);

      if (name == NULL)
        {
          g_autofree char *display = g_filename_display_basename (files[i]);

          g_ptr_array_add (failed, rk_file_profile_new_error (display, import_error->message));
        }
    }

  names = rk_session_dup_file_names (session);
  profiles = rk_profile_files (rk_session_get_workspace (session), (const char * const *) names,
                               &options, NULL, &error);
  rk_session_expire (session);
  if (profiles == NULL)
    {
      rk_cli_print (stderr, "reckon-cli profile: %s\n", error->message);
      return g_error_matches (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT) ? RK_CLI_EXIT_USAGE
                                                                              : RK_CLI_EXIT_SANDBOX;
    }
  /* Files that could not even be imported are reported too, in the same form. */
  for (guint i = 0; i < failed->len; i++)
    g_ptr_array_add (profiles, rk_file_profile_copy (g_ptr_array_index (failed, i)));

  /* Each file that could not be profiled says why on stderr; stdout holds
   * the profiles (and, with --json, the errors as data too). */
  for (guint i = 0; i < profiles->len; i++)
    {
      RkFileProfile *p = g_ptr_array_index (profiles, i);

      if (p->error != NULL)
        {
          g_autofree char *name = rk_cli_name (p->name);
          g_autofree char *why = rk_cli_name (p->error);

          rk_cli_print (stderr, "reckon-cli profile: %s: %s\n", name, why);
          status = RK_CLI_EXIT_FAILURE;
        }
      else
        g_ptr_array_add (good, p);
    }

  if (json)
    {
      g_autoptr(GString) s = g_string_new ("{\"version\": 1, \"files\": [");

      for (guint i = 0; i < profiles->len; i++)
        {
          RkFileProfile *p = g_ptr_array_index (profiles, i);

          if (i > 0)
            g_string_append (s, ", ");
          if (p->raw_json != NULL)
            g_string_append (s, p->raw_json);
          else
            {
              g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);
              g_autoptr(JsonObject) obj = json_object_new ();
              g_autofree char *one = NULL;

              json_object_set_string_member (obj, "name", p->name);
              json_object_set_string_member (obj, "error", p->error ? p->error : "");
              json_node_set_object (node, obj);
              one = json_to_string (node, FALSE);
              g_string_append (s, one);
            }
        }
      g_string_append (s, "]}");
      rk_cli_print_json (s->str);
    }
  else if (good->len > 0)
    {
      g_autofree char *text = rk_profiles_to_prompt (good, 1024 * 1024, RK_PROMPT_SAMPLES_DEFAULT);

      rk_cli_print_untrusted (stdout, text);
    }
  return status;
}
