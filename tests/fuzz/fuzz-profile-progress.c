/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz-profile-progress.c — the profiler's stderr (its "reckon-progress"
 * lines among anything else) through the line reader, fed in pieces. */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "rk-profile-progress.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

#define N_FILES 3
#define CAP     4096

typedef struct
{
  guint n;
} Count;

static void
progress_cb (guint    index,
             guint64  done,
             guint64  total,
             gpointer user_data)
{
  Count *c = user_data;

  g_assert_cmpuint (index, <, N_FILES);
  g_assert_cmpuint (total, >, 0);
  g_assert_cmpuint (total, <=, RK_PROFILE_PROGRESS_MAX_BYTES);
  g_assert_cmpuint (done, <=, total);
  c->n++;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autoptr(GByteArray) whole = g_byte_array_new ();
  g_autoptr(GByteArray) pieces = g_byte_array_new ();
  RkProfileProgressReader r;
  Count a = { 0 }, b = { 0 };
  guint index;
  guint64 done, total;
  gsize step;

  /* One line as the parser sees it. */
  if (rk_profile_progress_parse ((const char *) data, size, N_FILES, &index, &done, &total))
    {
      g_assert_cmpuint (size, <=, RK_PROFILE_PROGRESS_MAX_LINE);
      g_assert_cmpuint (index, <, N_FILES);
      g_assert_cmpuint (done, <=, total);
      g_assert_true (memchr (data, '\n', size) == NULL && memchr (data, '\0', size) == NULL);
    }

  /* The stream at once, and in pieces whose size comes from the input:
   * the same lines and the same bytes kept, never more than the cap. */
  rk_profile_progress_reader_init (&r, N_FILES, whole, CAP, progress_cb, &a);
  rk_profile_progress_reader_feed (&r, data, size);
  rk_profile_progress_reader_finish (&r);

  step = size > 0 ? 1 + data[0] % 17 : 1;
  rk_profile_progress_reader_init (&r, N_FILES, pieces, CAP, progress_cb, &b);
  for (gsize off = 0; off < size; off += step)
    rk_profile_progress_reader_feed (&r, data + off, MIN (step, size - off));
  rk_profile_progress_reader_finish (&r);

  g_assert_cmpuint (a.n, ==, b.n);
  g_assert_cmpuint (whole->len, <=, CAP);
  g_assert_cmpmem (whole->data, whole->len, pieces->data, pieces->len);
  return 0;
}
