/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-zip-writer.c — what rk-zip-writer writes is read back by two readers
 * that share no code with it: libarchive (streaming, local headers and data
 * descriptors) and Python's zipfile (the central directory, CRCs, Zip64). */
#include "config.h"

#include <archive.h>
#include <archive_entry.h>
#include <glib/gstdio.h>
#include <locale.h>
#include <string.h>

#include "rk-zip-writer.h"

typedef struct
{
  const char *name;
  GBytes     *data;
} Item;

static char *
write_zip (const Item *items,
           guint       n_items)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(GFileOutputStream) out = NULL;
  g_autoptr(RkZipWriter) zip = NULL;
  int fd = g_file_open_tmp ("rk-zip-XXXXXX.zip", &path, &error);

  g_assert_no_error (error);
  close (fd);
  file = g_file_new_for_path (path);
  out = g_file_replace (file, NULL, FALSE, G_FILE_CREATE_NONE, NULL, &error);
  g_assert_no_error (error);
  zip = rk_zip_writer_new (G_OUTPUT_STREAM (out), NULL);
  for (guint i = 0; i < n_items; i++)
    {
      gsize len;
      const guint8 *p = g_bytes_get_data (items[i].data, &len);

      g_assert_true (rk_zip_writer_begin_entry (zip, items[i].name, 1700000000, &error));
      g_assert_no_error (error);
      /* In uneven pieces, as the exporters write. */
      for (gsize off = 0; off < len;)
        {
          gsize n = MIN (len - off, 1 + (off % 70001));

          g_assert_true (rk_zip_writer_write (zip, p + off, n, &error));
          g_assert_no_error (error);
          off += n;
        }
    }
  g_assert_true (rk_zip_writer_finish (zip, &error));
  g_assert_no_error (error);
  g_assert_true (g_output_stream_close (G_OUTPUT_STREAM (out), NULL, &error));
  g_assert_no_error (error);
  return g_steal_pointer (&path);
}

static void
check_with_libarchive (const char *path,
                       const Item *items,
                       guint       n_items)
{
  struct archive *ar = archive_read_new ();
  struct archive_entry *entry;
  guint i = 0;
  int r;

  archive_read_support_format_zip (ar);
  g_assert_cmpint (archive_read_open_filename (ar, path, 16384), ==, ARCHIVE_OK);
  /* ARCHIVE_WARN: a UTF-8 name that the C locale cannot spell. */
  while ((r = archive_read_next_header (ar, &entry)) == ARCHIVE_OK || r == ARCHIVE_WARN)
    {
      g_autoptr(GByteArray) got = g_byte_array_new ();
      guint8 buf[65536];
      la_ssize_t n;

      g_assert_cmpuint (i, <, n_items);
      g_assert_cmpstr (archive_entry_pathname_utf8 (entry), ==, items[i].name);
      while ((n = archive_read_data (ar, buf, sizeof buf)) > 0)
        g_byte_array_append (got, buf, n);
      g_assert_cmpint (n, ==, 0);
      g_assert_cmpmem (got->data, got->len,
                       g_bytes_get_data (items[i].data, NULL), g_bytes_get_size (items[i].data));
      i++;
    }
  if (r != ARCHIVE_EOF)
    g_error ("libarchive stopped at entry %u: %s", i, archive_error_string (ar));
  g_assert_cmpuint (i, ==, n_items);
  archive_read_free (ar);
}

/* Python's zipfile reads the central directory (and Zip64 records) and
 * checks every CRC; it prints the names and sizes it found. */
static char *
python_listing (const char *path)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  int status = 0;
  const char *argv[] = {
    "/usr/bin/python3", "-c",
    "import sys, zipfile\n"
    "z = zipfile.ZipFile(sys.argv[1])\n"
    "bad = z.testzip()\n"
    "assert bad is None, bad\n"
    "infos = z.infolist()\n"
    "print(len(infos))\n"
    "for i in infos[:3] + infos[-1:]:\n"
    "    print(i.filename, i.file_size, oct(i.external_attr >> 16), i.date_time[0])\n",
    path, NULL
  };

  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status, &error);
  g_assert_no_error (error);
  if (!g_spawn_check_wait_status (status, NULL))
    g_error ("zipfile refused %s: %s", path, err);
  return g_steal_pointer (&out);
}

static void
test_entries (void)
{
  g_autofree guint8 *noise = g_malloc (3 * 1024 * 1024);
  g_autofree char *path = NULL;
  g_autofree char *listing = NULL;
  GRand *rand = g_rand_new_with_seed (7);
  Item items[4];

  /* Incompressible bytes (deflate output larger than its input), repetitive
   * text, an empty file, and a name that is not ASCII. */
  for (gsize i = 0; i < 3 * 1024 * 1024; i++)
    noise[i] = (guint8) g_rand_int (rand);
  g_rand_free (rand);
  items[0] = (Item) { "noise.bin", g_bytes_new (noise, 3 * 1024 * 1024) };
  items[1] = (Item) { "data/summary.csv", g_bytes_new_take (g_strnfill (500000, 'a'), 500000) };
  items[2] = (Item) { "empty.txt", g_bytes_new_static ("", 0) };
  items[3] = (Item) { "Übersicht – café.csv", g_bytes_new_static ("x,y\n1,2\n", 8) };

  path = write_zip (items, G_N_ELEMENTS (items));
  check_with_libarchive (path, items, G_N_ELEMENTS (items));
  listing = python_listing (path);
  g_assert_cmpstr (listing, ==,
                   "4\n"
                   "noise.bin 3145728 0o100644 2023\n"
                   "data/summary.csv 500000 0o100644 2023\n"
                   "empty.txt 0 0o100644 2023\n"
                   "Übersicht – café.csv 8 0o100644 2023\n");
  for (guint i = 0; i < G_N_ELEMENTS (items); i++)
    g_bytes_unref (items[i].data);
  g_unlink (path);
}

/* More than 65,535 entries: the count only fits the Zip64 end record. */
static void
test_zip64_count (void)
{
  enum { N = 65600 };
  g_autofree Item *items = g_new (Item, N);
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GBytes) one = g_bytes_new_static ("1\n", 2);
  g_autofree char *path = NULL;
  g_autofree char *listing = NULL;

  for (guint i = 0; i < N; i++)
    {
      char *name = g_strdup_printf ("f%05u.txt", i);

      g_ptr_array_add (names, name);
      items[i] = (Item) { name, one };
    }
  path = write_zip (items, N);
  listing = python_listing (path);
  g_assert_cmpstr (listing, ==,
                   "65600\n"
                   "f00000.txt 2 0o100644 2023\n"
                   "f00001.txt 2 0o100644 2023\n"
                   "f00002.txt 2 0o100644 2023\n"
                   "f65599.txt 2 0o100644 2023\n");
  check_with_libarchive (path, items, N);
  g_unlink (path);
}

static void
test_bad_name (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GOutputStream) out = g_memory_output_stream_new_resizable ();
  g_autoptr(RkZipWriter) zip = rk_zip_writer_new (out, NULL);
  g_autofree char *long_name = g_strnfill (70000, 'n');

  g_assert_false (rk_zip_writer_begin_entry (zip, "bad\xff.csv", 0, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_FILENAME);
  g_clear_error (&error);
  g_assert_false (rk_zip_writer_begin_entry (zip, long_name, 0, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_FILENAME);
  g_clear_error (&error);
  /* The writer goes on after a refused name. */
  g_assert_true (rk_zip_writer_begin_entry (zip, "ok.csv", 0, &error));
  g_assert_true (rk_zip_writer_write (zip, "a\n", 2, &error));
  g_assert_true (rk_zip_writer_finish (zip, &error));
  g_assert_no_error (error);
}

int
main (int   argc,
      char *argv[])
{
  /* libarchive spells UTF-8 names only in a UTF-8 locale. */
  setlocale (LC_ALL, "C.UTF-8");
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/rk/zip-writer/entries", test_entries);
  g_test_add_func ("/rk/zip-writer/zip64-count", test_zip64_count);
  g_test_add_func ("/rk/zip-writer/bad-name", test_bad_name);
  return g_test_run ();
}
