/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-zip-writer.c — a streaming ZIP writer: each entry deflated with zlib
 * and followed by a data descriptor, so nothing is buffered whole; Zip64
 * records only where a size, an offset or the entry count needs them. */
#define G_LOG_DOMAIN "rk-zip"
#include "config.h"
#include "rk-zip-writer.h"

#include <glib/gi18n-lib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#define LOCAL_HEADER_SIG   0x04034b50u
#define DESCRIPTOR_SIG     0x08074b50u
#define CENTRAL_HEADER_SIG 0x02014b50u
#define ZIP64_END_SIG      0x06064b50u
#define ZIP64_LOCATOR_SIG  0x07064b50u
#define END_SIG            0x06054b50u

#define FLAG_DESCRIPTOR 0x0008u   /* sizes and CRC follow the data */
#define FLAG_UTF8       0x0800u   /* names are UTF-8 */
#define METHOD_DEFLATE  8u
#define VERSION_BASIC   20u       /* deflate */
#define VERSION_ZIP64   45u
#define MADE_BY_UNIX    (3u << 8)

#define MAX16 0xffffu
#define MAX32 0xffffffffu
#define OUT_CHUNK (64 * 1024)

typedef struct
{
  char    *name;
  guint32  crc;
  guint64  csize;
  guint64  usize;
  guint64  offset;
  guint16  dos_time;
  guint16  dos_date;
} Entry;

struct _RkZipWriter
{
  GOutputStream *stream;
  GCancellable  *cancellable;
  guint64        offset;      /* bytes written so far */
  GArray        *entries;     /* Entry, finished ones */
  Entry          current;
  gboolean       in_entry;
  z_stream       z;
  guchar        *out;
};

static void
entry_clear (gpointer data)
{
  g_free (((Entry *) data)->name);
}

static void
put16 (GByteArray *b, guint32 v)
{
  guint8 x[2] = { v & 0xff, (v >> 8) & 0xff };

  g_byte_array_append (b, x, 2);
}

static void
put32 (GByteArray *b, guint32 v)
{
  guint8 x[4] = { v & 0xff, (v >> 8) & 0xff, (v >> 16) & 0xff, (v >> 24) & 0xff };

  g_byte_array_append (b, x, 4);
}

static void
put64 (GByteArray *b, guint64 v)
{
  put32 (b, v & MAX32);
  put32 (b, v >> 32);
}

static guint32
clamp32 (guint64 v)
{
  return v >= MAX32 ? MAX32 : (guint32) v;
}

static gboolean
emit (RkZipWriter  *self,
      const void   *data,
      gsize         len,
      GError      **error)
{
  if (!g_output_stream_write_all (self->stream, data, len, NULL, self->cancellable, error))
    return FALSE;
  self->offset += len;
  return TRUE;
}

static gboolean
emit_bytes (RkZipWriter  *self,
            GByteArray   *b,
            GError      **error)
{
  return emit (self, b->data, b->len, error);
}

/* MS-DOS time in local time, as unzip and file managers show it; the
 * format cannot say anything before 1980. */
static void
dos_time (gint64   mtime,
          guint16 *time_out,
          guint16 *date_out)
{
  time_t t = (time_t) mtime;
  struct tm tm;

  if (localtime_r (&t, &tm) == NULL || tm.tm_year < 80)
    {
      *time_out = 0;
      *date_out = (1 << 5) | 1;   /* 1980-01-01 */
      return;
    }
  *time_out = (guint16) ((tm.tm_hour << 11) | (tm.tm_min << 5) | (tm.tm_sec / 2));
  *date_out = (guint16) (((tm.tm_year - 80) << 9) | ((tm.tm_mon + 1) << 5) | tm.tm_mday);
}

RkZipWriter *
rk_zip_writer_new (GOutputStream *stream,
                   GCancellable  *cancellable)
{
  RkZipWriter *self = g_new0 (RkZipWriter, 1);

  self->stream = g_object_ref (stream);
  self->cancellable = cancellable ? g_object_ref (cancellable) : NULL;
  self->entries = g_array_new (FALSE, TRUE, sizeof (Entry));
  g_array_set_clear_func (self->entries, entry_clear);
  self->out = g_malloc (OUT_CHUNK);
  return self;
}

void
rk_zip_writer_free (RkZipWriter *self)
{
  if (self == NULL)
    return;
  if (self->in_entry)
    {
      deflateEnd (&self->z);
      entry_clear (&self->current);
    }
  g_array_unref (self->entries);
  g_free (self->out);
  g_clear_object (&self->cancellable);
  g_object_unref (self->stream);
  g_free (self);
}

/* Runs deflate over what is in z's input with @flush, writing all output. */
static gboolean
pump (RkZipWriter  *self,
      int           flush,
      GError      **error)
{
  int r;

  do
    {
      gsize have;

      self->z.next_out = self->out;
      self->z.avail_out = OUT_CHUNK;
      r = deflate (&self->z, flush);
      if (r == Z_STREAM_ERROR)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                       _("Could not compress “%s”."), self->current.name);
          return FALSE;
        }
      have = OUT_CHUNK - self->z.avail_out;
      if (have > 0 && !emit (self, self->out, have, error))
        return FALSE;
      self->current.csize += have;
    }
  while (self->z.avail_out == 0 || (flush == Z_FINISH && r != Z_STREAM_END));
  return TRUE;
}

static gboolean
end_entry (RkZipWriter  *self,
           GError      **error)
{
  g_autoptr(GByteArray) d = g_byte_array_new ();
  Entry *e = &self->current;
  gboolean ok;

  self->z.next_in = NULL;
  self->z.avail_in = 0;
  ok = pump (self, Z_FINISH, error);
  deflateEnd (&self->z);
  self->in_entry = FALSE;
  if (!ok)
    {
      entry_clear (e);
      return FALSE;
    }

  put32 (d, DESCRIPTOR_SIG);
  put32 (d, e->crc);
  if (e->csize >= MAX32 || e->usize >= MAX32)
    {
      put64 (d, e->csize);
      put64 (d, e->usize);
    }
  else
    {
      put32 (d, (guint32) e->csize);
      put32 (d, (guint32) e->usize);
    }
  g_array_append_val (self->entries, *e);   /* the array owns the name now */
  memset (e, 0, sizeof *e);
  return emit_bytes (self, d, error);
}

gboolean
rk_zip_writer_begin_entry (RkZipWriter  *self,
                           const char   *name,
                           gint64        mtime,
                           GError      **error)
{
  g_autoptr(GByteArray) h = g_byte_array_new ();
  gsize name_len;

  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (name != NULL && *name != '\0', FALSE);

  if (self->in_entry && !end_entry (self, error))
    return FALSE;

  name_len = strlen (name);
  if (name_len >= MAX16 || !g_utf8_validate (name, name_len, NULL))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_FILENAME,
                   _("A file name is too long or not valid text for a zip file."));
      return FALSE;
    }

  memset (&self->z, 0, sizeof self->z);
  /* Raw deflate (negative window bits): ZIP frames it, not zlib. */
  if (deflateInit2 (&self->z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -MAX_WBITS, 8,
                    Z_DEFAULT_STRATEGY) != Z_OK)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                   _("Could not compress “%s”."), name);
      return FALSE;
    }
  self->in_entry = TRUE;
  self->current.name = g_strdup (name);
  self->current.crc = crc32 (0, Z_NULL, 0);
  self->current.offset = self->offset;
  dos_time (mtime, &self->current.dos_time, &self->current.dos_date);

  put32 (h, LOCAL_HEADER_SIG);
  put16 (h, VERSION_BASIC);
  put16 (h, FLAG_DESCRIPTOR | FLAG_UTF8);
  put16 (h, METHOD_DEFLATE);
  put16 (h, self->current.dos_time);
  put16 (h, self->current.dos_date);
  put32 (h, 0);   /* CRC and sizes: in the descriptor */
  put32 (h, 0);
  put32 (h, 0);
  put16 (h, (guint32) name_len);
  put16 (h, 0);
  g_byte_array_append (h, (const guint8 *) name, name_len);
  return emit_bytes (self, h, error);
}

gboolean
rk_zip_writer_write (RkZipWriter  *self,
                     const void   *data,
                     gsize         len,
                     GError      **error)
{
  const guchar *p = data;

  g_return_val_if_fail (self != NULL && self->in_entry, FALSE);

  while (len > 0)
    {
      uInt n = (uInt) MIN (len, (gsize) G_MAXUINT32 / 2);

      self->current.crc = crc32 (self->current.crc, p, n);
      self->current.usize += n;
      self->z.next_in = (Bytef *) p;
      self->z.avail_in = n;
      if (!pump (self, Z_NO_FLUSH, error))
        return FALSE;
      p += n;
      len -= n;
    }
  return TRUE;
}

static void
central_header (GByteArray  *b,
                const Entry *e)
{
  g_autoptr(GByteArray) extra = g_byte_array_new ();
  gsize name_len = strlen (e->name);

  /* Zip64 extended information: only the fields whose 32-bit slot overflows,
   * in this order. */
  if (e->usize >= MAX32 || e->csize >= MAX32 || e->offset >= MAX32)
    {
      guint16 len = (e->usize >= MAX32 ? 8 : 0) + (e->csize >= MAX32 ? 8 : 0) +
                    (e->offset >= MAX32 ? 8 : 0);

      put16 (extra, 0x0001);
      put16 (extra, len);
      if (e->usize >= MAX32)
        put64 (extra, e->usize);
      if (e->csize >= MAX32)
        put64 (extra, e->csize);
      if (e->offset >= MAX32)
        put64 (extra, e->offset);
    }

  put32 (b, CENTRAL_HEADER_SIG);
  put16 (b, MADE_BY_UNIX | VERSION_ZIP64);
  put16 (b, extra->len > 0 ? VERSION_ZIP64 : VERSION_BASIC);
  put16 (b, FLAG_DESCRIPTOR | FLAG_UTF8);
  put16 (b, METHOD_DEFLATE);
  put16 (b, e->dos_time);
  put16 (b, e->dos_date);
  put32 (b, e->crc);
  put32 (b, clamp32 (e->csize));
  put32 (b, clamp32 (e->usize));
  put16 (b, (guint32) name_len);
  put16 (b, extra->len);
  put16 (b, 0);                       /* comment */
  put16 (b, 0);                       /* disk */
  put16 (b, 0);                       /* internal attributes */
  put32 (b, (0100644u) << 16);        /* a plain file, rw-r--r-- */
  put32 (b, clamp32 (e->offset));
  g_byte_array_append (b, (const guint8 *) e->name, name_len);
  g_byte_array_append (b, extra->data, extra->len);
}

gboolean
rk_zip_writer_finish (RkZipWriter  *self,
                      GError      **error)
{
  g_autoptr(GByteArray) b = g_byte_array_new ();
  guint64 cd_offset, cd_size, n;

  g_return_val_if_fail (self != NULL, FALSE);

  if (self->in_entry && !end_entry (self, error))
    return FALSE;

  cd_offset = self->offset;
  for (guint i = 0; i < self->entries->len; i++)
    {
      central_header (b, &g_array_index (self->entries, Entry, i));
      if (b->len >= OUT_CHUNK)
        {
          if (!emit_bytes (self, b, error))
            return FALSE;
          g_byte_array_set_size (b, 0);
        }
    }
  if (!emit_bytes (self, b, error))
    return FALSE;
  g_byte_array_set_size (b, 0);
  cd_size = self->offset - cd_offset;
  n = self->entries->len;

  if (n >= MAX16 || cd_offset >= MAX32 || cd_size >= MAX32)
    {
      guint64 zip64_end = self->offset;

      put32 (b, ZIP64_END_SIG);
      put64 (b, 44);                  /* the size of what follows */
      put16 (b, MADE_BY_UNIX | VERSION_ZIP64);
      put16 (b, VERSION_ZIP64);
      put32 (b, 0);                   /* this disk */
      put32 (b, 0);                   /* the disk with the directory */
      put64 (b, n);
      put64 (b, n);
      put64 (b, cd_size);
      put64 (b, cd_offset);
      put32 (b, ZIP64_LOCATOR_SIG);
      put32 (b, 0);
      put64 (b, zip64_end);
      put32 (b, 1);                   /* disks in all */
    }
  put32 (b, END_SIG);
  put16 (b, 0);
  put16 (b, 0);
  put16 (b, n >= MAX16 ? MAX16 : (guint32) n);
  put16 (b, n >= MAX16 ? MAX16 : (guint32) n);
  put32 (b, clamp32 (cd_size));
  put32 (b, clamp32 (cd_offset));
  put16 (b, 0);                       /* comment */
  return emit_bytes (self, b, error) &&
         g_output_stream_flush (self->stream, self->cancellable, error);
}
