/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz-notebook-prelude.c — any bytes as a file's profile (its "reading"
 * comes from the sandbox): the notebook's prelude stays valid UTF-8, and its
 * readings block holds only data: string literals, numbers, dict(...),
 * True/False/None, `str` and csv.QUOTE_NONE. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rk-notebook-prelude.h"
#include "rk-transcript.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static void
check (gboolean ok)
{
  if (!ok)
    abort ();
}

static const char * const words[] = {
  "dict", "True", "False", "None", "str", "csv", "QUOTE_NONE",
  "encoding", "sep", "delim_whitespace", "header", "names", "skiprows", "decimal", "thousands",
  "quotechar", "quoting", "skipinitialspace", "comment", "compression", "parse_dates", "dtype",
  "low_memory", "lines", "records", NULL
};

/* Scans the block between "_reckon_readings = {" and its closing line as
 * Python would: a string literal ends only at its own unescaped quote on the
 * same line; outside literals only these words, digits and punctuation. */
static void
check_data_only (const char *prelude)
{
  const char *p = strstr (prelude, "    _reckon_readings = {\n");
  const char *end;

  check (p != NULL);
  p += strlen ("    _reckon_readings = {");
  end = strstr (p, "\n    }\n");
  check (end != NULL);
  while (p < end)
    {
      if (*p == '\'' || *p == '"')
        {
          char q = *p++;

          while (p < end && *p != q)
            {
              check (*p != '\n' && *p != '\r');
              p += (*p == '\\') ? 2 : 1;
            }
          check (p < end);
          p++;
        }
      else if (g_ascii_isalpha (*p) || *p == '_')
        {
          const char *w = p;
          g_autofree char *word = NULL;

          while (g_ascii_isalnum (*p) || *p == '_')
            p++;
          word = g_strndup (w, p - w);
          check (g_strv_contains (words, word));
        }
      else if (*p == '#')
        {
          check (g_str_has_prefix (p, "# spaces around values removed\n"));
          p = strchr (p, '\n');
        }
      else
        {
          check (strchr (" \n{}[](),:=.-0123456789", *p) != NULL);
          p++;
        }
    }
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autoptr(RkTranscript) t = rk_transcript_new ();
  g_autofree char *detail = NULL;
  g_autofree char *prelude = NULL;
  guint id;

  if (size > (1u << 20))
    return 0;
  detail = g_strndup ((const char *) data, size);
  if (strlen (detail) != size || !g_utf8_validate (detail, -1, NULL))
    return 0;
  id = rk_transcript_add_attachment (t, "data 'x'.csv", "data 'x'.csv");
  check (id > 0);
  if (!rk_transcript_set_attachment_profile (t, id, detail))
    return 0;
  prelude = rk_notebook_prelude (G_LIST_MODEL (t), NULL);
  check (prelude != NULL && g_utf8_validate (prelude, -1, NULL));
  check (g_str_has_prefix (prelude, "# Reckon ran this analysis"));
  check_data_only (prelude);
  return 0;
}
