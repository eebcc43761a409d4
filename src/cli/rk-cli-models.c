/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-cli-models.c — `reckon-cli models`: which models a model server offers. */
#define G_LOG_DOMAIN "reckon-cli"
#include "config.h"

#include <glib-unix.h>
#include <glib/gi18n-lib.h>
#include <stdio.h>

#include "rk-cli.h"
#include "rk-model-client.h"

static gboolean
interrupt_cb (gpointer data)
{
  g_cancellable_cancel (data);
  return G_SOURCE_CONTINUE;
}

int
rk_cli_models (int    argc,
               char **argv)
{
  g_autofree char *endpoint = NULL;
  g_autofree char *api = NULL;
  gboolean allow_remote = FALSE;
  gboolean json = FALSE;
  guint timeout = 0;
  GOptionEntry entries[] = {
    { "endpoint", 0, 0, G_OPTION_ARG_STRING, &endpoint,
      N_("Model server address (default: try 127.0.0.1:11434, :8080, :1234)"), N_("URL") },
    { "api", 0, 0, G_OPTION_ARG_STRING, &api, N_("Wire format: auto, openai or ollama (default auto)"), N_("API") },
    { "allow-remote", 0, 0, G_OPTION_ARG_NONE, &allow_remote, N_("Allow a server that is not on this computer"), NULL },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("Print a JSON array"), NULL },
    { "timeout", 0, 0, G_OPTION_ARG_INT, &timeout, N_("Seconds to wait for an answer (default 60)"), N_("SECONDS") },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new (NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(RkModelClient) client = NULL;
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GPtrArray) models = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  guint sigint;
  RkModelApi api_value = RK_MODEL_API_AUTO;

  g_option_context_set_summary (context, _("List the models a model server offers, and whether each supports tools. "
                                           "The API key, if the server needs one, is read from $RECKON_API_KEY."));
  rk_cli_set_exit_help (context, _("another failure"), RK_CLI_EXIT_USAGE, RK_CLI_EXIT_UNREACHABLE,
                        RK_CLI_EXIT_CANCELLED, RK_CLI_EXIT_MODEL_ERROR, -1);
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  if (!rk_cli_parse_options (context, "models", &argc, &argv))
    return RK_CLI_EXIT_USAGE;
  if (argc > 1)
    return rk_cli_fail (RK_CLI_EXIT_USAGE, "reckon-cli models: %s\n", _("unexpected argument"));
  if (!rk_cli_parse_api (api, &api_value, &error))
    return rk_cli_fail (RK_CLI_EXIT_USAGE, "reckon-cli models: %s\n", error->message);

  client = rk_cli_model_client_new (endpoint, api_value, allow_remote);
  if (timeout > 0)
    {
      rk_model_client_set_idle_timeout (client, timeout);
      rk_model_client_set_response_timeout (client, timeout);
    }

  sigint = g_unix_signal_add (SIGINT, interrupt_cb, cancellable);
  rk_model_client_list_models_async (client, TRUE, cancellable, rk_cli_keep_result_cb, &result);
  rk_cli_wait (&result);
  g_source_remove (sigint);
  models = rk_model_client_list_models_finish (client, result, &error);
  if (models == NULL)
    {
      g_autofree char *message = rk_cli_model_error_message (error, endpoint, api_value);

      rk_cli_print (stderr, "reckon-cli models: %s\n", message);
      return rk_cli_exit_for_model_error (error);
    }

  if (json)
    {
      g_autoptr(JsonBuilder) b = json_builder_new ();
      g_autoptr(JsonNode) root = NULL;
      g_autofree char *text = NULL;

      json_builder_begin_array (b);
      for (guint i = 0; i < models->len; i++)
        {
          RkModelInfo *info = g_ptr_array_index (models, i);
          json_builder_begin_object (b);
          json_builder_set_member_name (b, "name");
          json_builder_add_string_value (b, info->name);
          json_builder_set_member_name (b, "tools");
          if (info->tools_known)
            json_builder_add_boolean_value (b, info->tools);
          else
            json_builder_add_null_value (b);
          json_builder_end_object (b);
        }
      json_builder_end_array (b);
      root = json_builder_get_root (b);
      text = json_to_string (root, TRUE);
      rk_cli_print_json (text);
      return RK_CLI_EXIT_OK;
    }

  rk_cli_print (stderr, _("Models at %s (%s):\n"), rk_model_client_get_resolved_endpoint (client),
           rk_model_client_get_resolved_api (client) == RK_MODEL_API_OLLAMA ? "Ollama" : "OpenAI-compatible");
  for (guint i = 0; i < models->len; i++)
    {
      RkModelInfo *info = g_ptr_array_index (models, i);
      g_autofree char *name = rk_cli_name (info->name);   /* the server's words */

      if (info->tools_known)
        rk_cli_print (stdout, "%s\t%s\n", name, info->tools ? "tools" : "no-tools");
      else
        rk_cli_print (stdout, "%s\n", name);
    }
  if (models->len == 0)
    rk_cli_print (stderr, "%s\n", _("No models are installed there."));
  return RK_CLI_EXIT_OK;
}
