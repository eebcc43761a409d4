/* SPDX-License-Identifier: GPL-3.0-or-later */
/* utils.c — small helpers of reckon-sandbox: fatal errors, numbers, files. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "utils.h"

int report_fd = -1;
int status_fd = -1;

static void __attribute__((noreturn))
die_common (const char *reason)
{
  char line[1200];
  int len;

  len = snprintf (line, sizeof line, "reckon-sandbox: %s\n", reason);
  if (len > 0)
    (void) !write (STDERR_FILENO, line, (size_t) len < sizeof line ? (size_t) len : sizeof line - 1);

  if (report_fd >= 0)
    {
      /* Inside: the monitor turns this into the status line. */
      char msg[1100];
      int n = snprintf (msg, sizeof msg, "E%s", reason);
      if (n > 0)
        write_all (report_fd, msg, (size_t) n < sizeof msg ? (size_t) n + 1 : sizeof msg);
    }
  else if (status_fd >= 0)
    {
      char esc[1100], json[1200];
      int n;
      json_escape (esc, sizeof esc, reason);
      n = snprintf (json, sizeof json, "{\"error\": %s}\n", esc);
      if (n > 0)
        write_all (status_fd, json, (size_t) n < sizeof json ? (size_t) n : sizeof json - 1);
    }
  _exit (EXIT_SETUP_FAILED);
}

void
die (const char *format, ...)
{
  char reason[1024];
  va_list args;

  va_start (args, format);
  vsnprintf (reason, sizeof reason, format, args);
  va_end (args);
  die_common (reason);
}

void
die_with_error (const char *format, ...)
{
  char reason[1024];
  size_t len;
  int saved = errno;
  va_list args;

  va_start (args, format);
  vsnprintf (reason, sizeof reason, format, args);
  va_end (args);
  len = strlen (reason);
  snprintf (reason + len, sizeof reason - len, ": %s", strerror (saved));
  die_common (reason);
}

bool
parse_size (const char *text, uint64_t *out)
{
  char *end = NULL;
  unsigned long long value;
  unsigned shift = 0;

  if (text == NULL || *text < '0' || *text > '9')
    return false;
  errno = 0;
  value = strtoull (text, &end, 10);
  if (errno != 0 || end == text)
    return false;
  switch (*end)
    {
    case '\0': break;
    case 'K': case 'k': shift = 10; end++; break;
    case 'M': case 'm': shift = 20; end++; break;
    case 'G': case 'g': shift = 30; end++; break;
    default: return false;
    }
  if (*end != '\0')
    return false;
  if (shift > 0 && value > (UINT64_MAX >> shift))
    return false;
  *out = (uint64_t) value << shift;
  return true;
}

bool
write_all (int fd, const void *buf, size_t len)
{
  const char *p = buf;

  while (len > 0)
    {
      ssize_t n = write (fd, p, len);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return false;
      p += n;
      len -= (size_t) n;
    }
  return true;
}

void
write_file_or_die (int dirfd, const char *path, const char *content, int mode)
{
  int fd = openat (dirfd, path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode);

  if (fd < 0)
    die_with_error ("cannot create %s", path);
  if (!write_all (fd, content, strlen (content)))
    die_with_error ("cannot write %s", path);
  close (fd);
}

void
json_escape (char *buf, size_t size, const char *text)
{
  size_t o = 0;

  if (size < 3)
    return;
  buf[o++] = '"';
  for (const unsigned char *p = (const unsigned char *) text; *p && o + 8 < size; p++)
    {
      if (*p == '"' || *p == '\\')
        {
          buf[o++] = '\\';
          buf[o++] = (char) *p;
        }
      else if (*p < 0x20 || *p == 0x7f)
        o += (size_t) snprintf (buf + o, size - o, "\\u%04x", *p);
      else
        buf[o++] = (char) *p;
    }
  buf[o++] = '"';
  buf[o] = '\0';
}

void
debug (const char *format, ...)
{
  char reason[1000], line[1100];
  va_list args;
  int len;

  va_start (args, format);
  vsnprintf (reason, sizeof reason, format, args);
  va_end (args);
  len = snprintf (line, sizeof line, "reckon-sandbox: debug: %s\n", reason);
  if (len > 0)
    write_all (STDERR_FILENO, line, (size_t) len < sizeof line ? (size_t) len : sizeof line - 1);
}
