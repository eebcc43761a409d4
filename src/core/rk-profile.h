/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-profile.h — profiles of workspace files, computed inside reckon-sandbox
 * (sandbox/kernel/reckon_profile.py) and parsed here defensively. */
#pragma once

#include <gio/gio.h>

#include "rk-workspace.h"

G_BEGIN_DECLS

/* Largest JSON document accepted from the profiler. */
#define RK_PROFILE_MAX_JSON (4 * 1024 * 1024)

typedef enum
{
  RK_FILE_KIND_UNKNOWN,
  RK_FILE_KIND_CSV,
  RK_FILE_KIND_TSV,
  RK_FILE_KIND_XLSX,
  RK_FILE_KIND_XLS,
  RK_FILE_KIND_ODS,
  RK_FILE_KIND_PDF,
  RK_FILE_KIND_TEXT,
  RK_FILE_KIND_JSON,
} RkFileKind;

typedef enum
{
  RK_COLUMN_EMPTY,
  RK_COLUMN_INTEGER,
  RK_COLUMN_FLOAT,
  RK_COLUMN_BOOLEAN,
  RK_COLUMN_DATE,
  RK_COLUMN_DATETIME,
  RK_COLUMN_TEXT,
  RK_COLUMN_MIXED,
} RkColumnType;

typedef struct
{
  char         *name;
  RkColumnType  type;
  guint64       missing;
  gboolean      has_stats;     /* min, max, mean (and std when has_std) */
  gboolean      has_std;
  double        min, max, mean, std;
  char         *min_text;      /* dates: first and last */
  char         *max_text;
  gint64        unique;        /* -1 when unknown */
  GStrv         values;        /* a few distinct values of a text column, or NULL */
  gboolean      category;      /* reckon.load reads it as a pandas category */
} RkColumnProfile;

typedef struct
{
  char      *name;             /* sheet name, "page N" for PDF tables, or NULL */
  guint64    rows;
  guint      n_columns;
  gboolean   header;
  gboolean   rows_approximate;
  guint64    rows_sampled;     /* statistics from this many rows; 0 = all */
  guint      page;             /* PDF tables: their page; else 0 */
  GPtrArray *columns;          /* RkColumnProfile */
  GPtrArray *head;             /* GStrv per row, NULL cells as "" */
} RkTableProfile;

/* How the profiler read a delimited text file or a workbook (its
 * "reading"); reckon.load in the kernel replays exactly this. */
typedef struct
{
  guint     column;            /* 0-based */
  char     *format;            /* strptime format, e.g. "%d-%b-%y" */
  char     *label;             /* for people: "day-month name-year (31-Jan-12)" */
  gboolean  ambiguous;         /* day and month could not be told apart */
} RkDateColumn;

typedef struct
{
  guint  line;                 /* 1-based line of the file */
  char  *text;                 /* what it said (capped) */
  char  *why;                  /* "comment", "metadata or title", ... */
} RkSkippedLine;

typedef struct
{
  char  *what;                 /* "header", "metadata" or "date" */
  char  *note;                 /* one plain sentence naming the alternative */
} RkReadingDoubt;

typedef struct
{
  char      *format;           /* "csv", "xlsx", "xls", "ods", "json", "pdf" */
  char      *compression;      /* "gzip", "bz2", "xz", "zip" or NULL */
  char      *member;           /* the file inside a ZIP archive */
  char      *encoding;         /* Python codec name */
  char      *delimiter;        /* CSV: one character; " " with whitespace */
  gboolean   whitespace;       /* columns separated by runs of blanks */
  gboolean   header;
  guint      skip_lines;       /* lines before the header (or the data) */
  guint      comment_lines;    /* of which comments */
  char      *comment;          /* comment character further down, or NULL */
  char      *decimal;
  char      *quotechar;        /* NULL: the usual '"' */
  gboolean   quotes_are_text;  /* quote marks do not enclose fields */
  char      *sheet;            /* workbooks: the one sheet reckon.load returns */
  GPtrArray *dates;            /* RkDateColumn */
  GPtrArray *skipped;          /* RkSkippedLine */
  GPtrArray *doubts;           /* RkReadingDoubt */
} RkFileReading;

/* What reckon.load returns for a table: a pandas DataFrame, or, when its
 * estimated size in memory is past a third of the sandbox's memory limit,
 * a lazy Dask DataFrame read in parts. */
typedef enum
{
  RK_ENGINE_PANDAS,
  RK_ENGINE_DASK,
} RkEngine;

typedef struct
{
  char       *name;            /* file name inside the workspace */
  RkFileKind  kind;
  guint64     size;
  char       *error;           /* one sentence, or NULL */
  char       *encoding;
  char       *delimiter;
  char       *decimal;
  char       *read_hint;       /* how to load it in pandas */
  guint       sheets;
  guint       pages;
  gboolean    text_layer;
  GStrv       page_text;       /* the first pages' text */
  guint64     lines;           /* text files */
  GStrv       first_lines;
  GStrv       notes;
  GPtrArray  *tables;          /* RkTableProfile */
  char       *raw_json;        /* this file's object, as the profiler sent it */
  RkFileReading *reading;      /* how it was read, or NULL (text, errors) */
  RkEngine    engine;
  gboolean    large;           /* read in parts (the profile's "large") */
  guint64     memory_estimate; /* bytes its table takes in memory; 0 = unknown */
  guint64     memory_limit;    /* the limit the profiler saw; 0 = unknown */
} RkFileProfile;

/* Choices a user makes over the profiler's guess, from the file card or
 * `reckon-cli profile`: the profile and reckon.load both follow them. */
typedef enum
{
  RK_PROFILE_HEADER_AUTO,
  RK_PROFILE_HEADER_YES,
  RK_PROFILE_HEADER_NO,
} RkProfileHeader;

typedef struct
{
  RkProfileHeader  header;
  const char      *delimiter;  /* NULL: detect; one character, or comma, semicolon, tab, pipe, space */
  const char      *sheet;      /* NULL: every sheet; else the sheet reckon.load returns */
  int              skip_lines; /* -1: detect; else lines before the table */
  /* How each file was read is kept for reckon.load in the workspace's
   * .reckon/readings/; with this, in RK_IMPORT_INCOMING/.reckon/readings/
   * instead, for a running kernel to take in (rk_kernel_take_incoming_async)
   * or rk_import_place_staged(). */
  gboolean         stage_readings;
  /* The files the user added to the workspace (NULL-terminated), read-only
   * and not counted against the disk limit while the profiler runs
   * (RkSandboxSpec.inputs); NULL: the files profiled. */
  const char * const *inputs;
  /* The sandbox's memory limit for the profiler (0: 2 GiB, or what
   * rk_profile_set_limits set): the conversation's, so that the profile's
   * engine choice (pandas or Dask) is the one reckon.load makes. */
  guint64              memory_bytes;
} RkProfileOptions;

#define RK_PROFILE_OPTIONS_INIT { RK_PROFILE_HEADER_AUTO, NULL, NULL, -1, FALSE, NULL, 0 }

GType           rk_file_profile_get_type   (void) G_GNUC_CONST;
#define RK_TYPE_FILE_PROFILE (rk_file_profile_get_type ())

RkFileProfile  *rk_file_profile_copy       (const RkFileProfile *self);
void            rk_file_profile_free       (RkFileProfile       *self);
/* A profile that is only an error sentence. */
RkFileProfile  *rk_file_profile_new_error  (const char          *name,
                                            const char          *error);

const char     *rk_file_kind_to_string     (RkFileKind           kind);
const char     *rk_column_type_to_string   (RkColumnType         type);

/* Parses the profiler's document ({"version": 1, "files": [...]}): at most
 * RK_PROFILE_MAX_JSON bytes, strict types, every string and list capped.
 * Returns a GPtrArray of RkFileProfile. */
GPtrArray      *rk_profile_parse           (const char          *data,
                                            gsize                len,
                                            GError             **error);
/* One file's profile from its JSON object alone (as an attachment entry
 * keeps it in its detail), through rk_profile_parse(); NULL if @json is
 * not one. */
RkFileProfile  *rk_file_profile_parse_one  (const char          *json);

/* Sample values (the first rows, the common values of a text column)
 * given per column when the user did not choose: 6. The profiler keeps at
 * most 10 values and 5 rows. */
#define RK_PROMPT_SAMPLES_DEFAULT 6
#define RK_PROMPT_SAMPLES_MAX     10

/* The compact text a model is given about one file: schema first (rows,
 * columns, types, missing values, ranges), then a few rows, then how to
 * load it — never the whole file. At most about @max_bytes bytes, with at
 * most @samples sample values per column (RK_PROMPT_SAMPLES_DEFAULT when
 * the user did not choose; 0 sends statistics only). */
char           *rk_file_profile_to_prompt  (const RkFileProfile *self,
                                            gsize                max_bytes,
                                            guint                samples);
/* All files, one block each, within @max_bytes overall. */
char           *rk_profiles_to_prompt      (GPtrArray           *profiles,
                                            gsize                max_bytes,
                                            guint                samples);

/* How far the profiler has read a file: @done of @total bytes of the
 * workspace file @name (a compressed file: of its packed bytes). */
typedef void (*RkProfileProgressFunc) (const char *name,
                                       guint64     done,
                                       guint64     total,
                                       gpointer    user_data);

/* A big CSV's profile from its sample, before its rows are counted: the
 * table's rows are estimated (rows_approximate). */
typedef void (*RkProfilePartialFunc) (const RkFileProfile *profile,
                                      gpointer             user_data);

/* Profiles files in @workspace (names relative to it, as rk_import_file
 * returns them), one sandbox run each, so one hostile file cannot spoil the
 * others' profiles. Every file gets a profile: on a crash, a limit or a
 * timeout it holds one error sentence. Blocks the calling thread.
 *
 * @options are the user's choices (NULL: none), which apply to every file
 * named. Fails when cancelled, and with G_IO_ERROR_INVALID_ARGUMENT on a
 * delimiter that is not one character or a known name. */
GPtrArray      *rk_profile_files           (RkWorkspace             *workspace,
                                            const char * const      *names,
                                            const RkProfileOptions  *options,
                                            GCancellable            *cancellable,
                                            GError                 **error);

/* rk_profile_files() in a worker thread. @progress (or NULL) reports how
 * far it has read, a few times a second at most. @partial (or NULL) hands
 * over, at most once per file, a big CSV's profile from its sample (the
 * profiler's --partial) while its exact row count goes on. Both are called
 * in the thread-default main context of the caller, never after @callback
 * has run; @data goes to both and must stay valid until then. */
void            rk_profile_files_async     (RkWorkspace             *workspace,
                                            const char * const      *names,
                                            const RkProfileOptions  *options,
                                            RkProfileProgressFunc    progress,
                                            RkProfilePartialFunc     partial,
                                            gpointer                 data,
                                            GCancellable            *cancellable,
                                            GAsyncReadyCallback      callback,
                                            gpointer                 user_data);
GPtrArray      *rk_profile_files_finish    (GAsyncResult            *result,
                                            GError                 **error);

/* How the file was read, in plain words for the card and the model
 * ("comma-separated, first row is the header, 1 comment line skipped,
 * dates in Date written 19-Sep-03"), or NULL when there is no reading. */
char           *rk_file_profile_describe_reading (const RkFileProfile *self);

/* When the profiler was unsure (header or not, a metadata line), the other
 * reading: fills @options (from RK_PROFILE_OPTIONS_INIT) and sets @label to
 * a short action such as "Read the first row as data". FALSE when the
 * profiler had no doubt worth offering. */
gboolean        rk_file_profile_get_alternative  (const RkFileProfile *self,
                                                  RkProfileOptions    *options,
                                                  char               **label);

/* Limits of one profiling run (defaults: 2 GiB memory, 60 s; a run's wall
 * clock limit grows by 30 s for each GB of its files, up to an hour). Tests
 * lower them. */
void            rk_profile_set_limits      (guint64              memory_bytes,
                                            guint                timeout_seconds);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RkFileProfile, rk_file_profile_free)

G_END_DECLS
