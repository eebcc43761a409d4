/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-zip-writer.h — a streaming ZIP writer (deflate, UTF-8 names, Zip64 when
 * sizes or offsets pass 4 GiB) for XLSX workbooks and "Save all" archives. */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

typedef struct _RkZipWriter RkZipWriter;

RkZipWriter *rk_zip_writer_new         (GOutputStream  *stream,
                                        GCancellable   *cancellable);
gboolean     rk_zip_writer_begin_entry (RkZipWriter    *self,
                                        const char     *name,
                                        gint64          mtime,
                                        GError        **error);
gboolean     rk_zip_writer_write       (RkZipWriter    *self,
                                        const void     *data,
                                        gsize           len,
                                        GError        **error);
gboolean     rk_zip_writer_finish      (RkZipWriter    *self,
                                        GError        **error);
void         rk_zip_writer_free        (RkZipWriter    *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RkZipWriter, rk_zip_writer_free)

G_END_DECLS
