/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-search.c — the chat's search, without the search bar: one case-folded
 * comparison for the entries, the next and previous match, and the count. */
#define G_LOG_DOMAIN "rk-search"
#include "config.h"

#include "rk-search.h"

#include <string.h>

char *
rk_search_fold (const char *text)
{
  return text != NULL && *text != '\0' ? g_utf8_casefold (text, -1) : NULL;
}

static gboolean
holds (const char *text,
       const char *needle)
{
  g_autofree char *folded = rk_search_fold (text);

  return folded != NULL && strstr (folded, needle) != NULL;
}

gboolean
rk_search_entry_matches (RkTranscriptEntry *entry,
                         const char        *needle)
{
  g_return_val_if_fail (RK_IS_TRANSCRIPT_ENTRY (entry), FALSE);

  return needle != NULL &&
         (holds (rk_transcript_entry_get_text (entry), needle) ||
          holds (rk_transcript_entry_get_title (entry), needle) ||
          holds (rk_transcript_entry_get_name (entry), needle));
}

static gboolean
matches_at (GListModel *entries,
            guint       position,
            const char *needle)
{
  g_autoptr(RkTranscriptEntry) entry = g_list_model_get_item (entries, position);

  return entry != NULL && rk_search_entry_matches (entry, needle);
}

guint
rk_search_next (GListModel *entries,
                const char *needle,
                guint       from,
                int         step)
{
  guint n = entries != NULL ? g_list_model_get_n_items (entries) : 0;

  g_return_val_if_fail (step == 1 || step == -1, G_MAXUINT);

  for (guint k = 0; k < n && needle != NULL; k++)
    {
      guint i = (guint) (((gint64) from + (gint64) n + step * (gint64) k) % n);

      if (matches_at (entries, i, needle))
        return i;
    }
  return G_MAXUINT;
}

guint
rk_search_count (GListModel *entries,
                 const char *needle,
                 guint       current,
                 guint      *index)
{
  guint n = entries != NULL ? g_list_model_get_n_items (entries) : 0;
  guint total = 0;

  if (index != NULL)
    *index = 0;
  for (guint i = 0; i < n && needle != NULL; i++)
    if (matches_at (entries, i, needle))
      {
        total++;
        if (index != NULL && current != G_MAXUINT && i <= current)
          *index = total;
      }
  return total;
}

gboolean
rk_search_in_text (const char *text,
                   const char *needle,
                   int        *start,
                   int        *end)
{
  g_autofree char *folded = rk_search_fold (text);
  const char *at = folded != NULL && needle != NULL ? strstr (folded, needle) : NULL;

  if (at == NULL)
    return FALSE;
  /* Offsets in the folded text are the text's own while folding keeps the
   * number of characters ("ß" folds to "ss": then it does not). */
  if (g_utf8_strlen (folded, -1) == g_utf8_strlen (text, -1))
    {
      *start = (int) g_utf8_pointer_to_offset (folded, at);
      *end = *start + (int) g_utf8_strlen (needle, -1);
    }
  else
    {
      *start = 0;
      *end = -1;
    }
  return TRUE;
}
