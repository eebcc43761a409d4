/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz-sandbox-replies.c — what reckon-sandbox tells the host: its status
 * line, the tail of its stderr, and its answers on a capped workspace's
 * --sync-fd, each read from the same bytes. */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "rk-sandbox-launcher.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autofree char *text = g_strndup ((const char *) data, size);
  RkSandboxLimit limit;
  g_autofree char *why = NULL;
  g_autofree char *reason = NULL;
  g_autoptr(GError) error = NULL;
  gint64 exit_code, sig;
  gboolean ok = TRUE;
  guint64 id = 0;

  limit = rk_sandbox_launcher_find_limit ((const char *) data, size, text, &exit_code, &sig);
  g_assert_true (limit <= RK_SANDBOX_LIMIT_UNKNOWN);
  g_assert_true (limit == RK_SANDBOX_LIMIT_NONE || rk_sandbox_limit_from_name (rk_sandbox_limit_to_name (limit)) == limit);
  why = rk_sandbox_launcher_setup_reason (text);
  if (why != NULL)
    g_assert_true (g_utf8_validate (why, -1, NULL));

  if (rk_sandbox_launcher_parse_answer ((const char *) data, size, size % 2 ? "loaded" : "saved",
                                        &id, &ok, &reason, &error))
    {
      g_assert_no_error (error);
      g_assert_true (reason == NULL || (g_utf8_validate (reason, -1, NULL) && strlen (reason) <= 512));
    }
  else
    {
      g_assert_nonnull (error);
      g_assert_false (ok);
      g_assert_null (reason);
    }
  return 0;
}
