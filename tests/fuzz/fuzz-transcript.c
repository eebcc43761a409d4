/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz-transcript.c — loading a transcript from any bytes: it fails cleanly
 * or loads something that saves and reloads to the same bytes and exports. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rk-transcript.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static void
check (gboolean ok)
{
  if (!ok)
    abort ();
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autoptr(GBytes) bytes = g_bytes_new (data, size);
  g_autoptr(GError) error = NULL;
  g_autoptr(RkTranscript) t = rk_transcript_new_from_bytes (bytes, &error);
  g_autoptr(GBytes) saved = NULL;
  g_autoptr(GBytes) saved2 = NULL;
  g_autoptr(RkTranscript) back = NULL;
  g_autofree char *nb = NULL;
  g_autofree char *html = NULL;

  if (t == NULL)
    {
      check (error != NULL && error->domain == RK_TRANSCRIPT_ERROR && error->message[0] != '\0');
      return 0;
    }
  check (error == NULL);

  saved = rk_transcript_to_bytes (t);
  back = rk_transcript_new_from_bytes (saved, &error);
  check (back != NULL);
  saved2 = rk_transcript_to_bytes (back);
  check (g_bytes_equal (saved, saved2));

  nb = rk_transcript_to_notebook (t, NULL, NULL, NULL);
  html = rk_transcript_to_html (t, NULL, NULL, NULL, NULL);
  check (nb != NULL && html != NULL);
  rk_transcript_add_note (t, "fuzz", "x");
  return 0;
}
