/* SPDX-License-Identifier: GPL-3.0-or-later */
/* utils.h — small helpers of reckon-sandbox: fatal errors, numbers, files.
 * Plain C, no GLib (docs/architecture.md section 3). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define EXIT_SETUP_FAILED 125

/* Where die() also reports its reason (the report pipe to the monitor), or -1. */
extern int report_fd;
/* Where the monitor writes its JSON status line, or -1. */
extern int status_fd;

__attribute__((noreturn, format (printf, 1, 2)))
void die (const char *format, ...);
__attribute__((noreturn, format (printf, 1, 2)))
void die_with_error (const char *format, ...);
/* One "reckon-sandbox: debug: ..." line on stderr (--debug). */
__attribute__((format (printf, 1, 2)))
void debug (const char *format, ...);

/* A plain integer or one with a K, M or G suffix (powers of 1024). */
bool parse_size (const char *text, uint64_t *out);

/* Writes all of @len bytes, retrying on EINTR; false on error. */
bool write_all (int fd, const void *buf, size_t len);
/* Creates (or truncates) @path with @content; dies on failure. */
void write_file_or_die (int dirfd, const char *path, const char *content, int mode);

/* Writes @text as a JSON string (quotes included) into @buf: valid UTF-8,
 * controls (C0, DEL, C1) as \uXXXX, bytes that are not UTF-8 as U+FFFD. */
void json_escape (char *buf, size_t size, const char *text);
/* Writes @text into @buf for a line of stderr: controls as \xNN (C1 as
 * \uXXXX), bytes that are not UTF-8 as \xNN; cut to fit. */
void text_escape (char *buf, size_t size, const char *text);
