/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz-profile-output.c — the profiler's stdout (partial profile lines,
 * then the final document) through the line reader, fed in pieces. */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "rk-profile-private.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

#define N_FILES 2
#define CAP     (64 * 1024)

typedef struct
{
  guint n;
  guint seen[N_FILES];
} Count;

static void
partial_cb (guint          index,
            RkFileProfile *profile,
            gpointer       user_data)
{
  Count *c = user_data;

  g_assert_cmpuint (index, <, N_FILES);
  g_assert_cmpuint (c->seen[index], ==, 0);
  g_assert_null (profile->error);
  g_assert_nonnull (profile->tables);
  c->seen[index]++;
  c->n++;
  rk_file_profile_free (profile);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autoptr(GByteArray) whole = g_byte_array_new ();
  g_autoptr(GByteArray) pieces = g_byte_array_new ();
  RkProfileOutputReader r;
  Count a = { 0 }, b = { 0 };
  gboolean fa, fb = TRUE;
  gsize step;

  /* The stream at once, and in pieces whose size comes from the input:
   * the same partials and the same final document, never over the cap. */
  _rk_profile_output_reader_init (&r, N_FILES, whole, CAP, partial_cb, &a);
  fa = _rk_profile_output_reader_feed (&r, data, size);
  if (fa)
    _rk_profile_output_reader_finish (&r);
  _rk_profile_output_reader_clear (&r);

  step = size > 0 ? 1 + data[0] % 17 : 1;
  _rk_profile_output_reader_init (&r, N_FILES, pieces, CAP, partial_cb, &b);
  for (gsize off = 0; off < size && fb; off += step)
    fb = _rk_profile_output_reader_feed (&r, data + off, MIN (step, size - off));
  if (fb)
    _rk_profile_output_reader_finish (&r);
  _rk_profile_output_reader_clear (&r);

  g_assert_cmpint (fa, ==, fb);
  g_assert_cmpuint (whole->len, <=, CAP);
  if (fa)
    {
      g_assert_cmpuint (a.n, ==, b.n);
      g_assert_cmpmem (whole->data, whole->len, pieces->data, pieces->len);
    }
  return 0;
}
