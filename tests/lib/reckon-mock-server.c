/* SPDX-License-Identifier: GPL-3.0-or-later */
/* reckon-mock-server — the scripted model server as a program, for CLI tests:
 *   reckon-mock-server SCRIPT.json [--record FILE]
 * prints its port on the first line of stdout and serves until SIGTERM/SIGINT. */
#define G_LOG_DOMAIN "reckon-mock-server"
#include "config.h"

#include <glib-unix.h>
#include <stdio.h>

#include "rk-mock-server.h"

static gboolean
quit_cb (gpointer data)
{
  g_main_loop_quit (data);
  return G_SOURCE_REMOVE;
}

int
main (int argc, char **argv)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(RkMockServer) server = NULL;
  g_autoptr(GMainLoop) loop = NULL;
  g_autofree char *record = NULL;
  g_autoptr(GOptionContext) context = NULL;
  GOptionEntry entries[] = {
    { "record", 0, 0, G_OPTION_ARG_FILENAME, &record, "Append each request as a JSON line to FILE", "FILE" },
    { NULL }
  };

  context = g_option_context_new ("SCRIPT — a scripted model server (see tests/lib/mock-server.md)");
  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error) || argc != 2)
    {
      fprintf (stderr, "reckon-mock-server: %s\n", error ? error->message : "give one script file");
      return 2;
    }
  server = rk_mock_server_new_from_file (argv[1], &error);
  if (server == NULL)
    {
      fprintf (stderr, "reckon-mock-server: %s\n", error->message);
      return 1;
    }
  if (record != NULL)
    rk_mock_server_set_record_file (server, record);
  printf ("%u\n", rk_mock_server_get_port (server));
  fflush (stdout);

  loop = g_main_loop_new (NULL, FALSE);
  g_unix_signal_add (SIGTERM, quit_cb, loop);
  g_unix_signal_add (SIGINT, quit_cb, loop);
  g_main_loop_run (loop);
  return 0;
}
