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
  char line[1200], text[1100];
  int len;

  text_escape (text, sizeof text, reason);
  len = snprintf (line, sizeof line, "reckon-sandbox: %s\n", text);
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

/* The length of the valid UTF-8 sequence at @p (1 to 4) and its code
 * point in *@cp, or 0 if it is not one (overlong, a surrogate, past
 * U+10FFFF, cut short). */
static size_t
utf8_next (const unsigned char *p, uint32_t *cp)
{
  size_t len;
  uint32_t c, min;

  if (p[0] < 0x80)
    {
      *cp = p[0];
      return 1;
    }
  if ((p[0] & 0xe0) == 0xc0)
    len = 2, c = p[0] & 0x1f, min = 0x80;
  else if ((p[0] & 0xf0) == 0xe0)
    len = 3, c = p[0] & 0x0f, min = 0x800;
  else if ((p[0] & 0xf8) == 0xf0)
    len = 4, c = p[0] & 0x07, min = 0x10000;
  else
    return 0;
  for (size_t i = 1; i < len; i++)
    {
      if ((p[i] & 0xc0) != 0x80)
        return 0;
      c = (c << 6) | (p[i] & 0x3f);
    }
  if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
    return 0;
  *cp = c;
  return len;
}

/* Whether code point @c is a C0 or C1 control, or DEL: what a terminal
 * would act on (ESC, CSI as U+009B, OSC as U+009D, ...). */
static bool
is_control (uint32_t c)
{
  return c < 0x20 || (c >= 0x7f && c <= 0x9f);
}

/* Names in these texts are the program's choice (a file it made): both
 * escapes leave only valid UTF-8 and no control character. */
void
json_escape (char *buf, size_t size, const char *text)
{
  size_t o = 0;

  if (size < 3)
    return;
  buf[o++] = '"';
  for (const unsigned char *p = (const unsigned char *) text; *p && o + 8 < size; )
    {
      uint32_t c;
      size_t len = utf8_next (p, &c);

      if (len == 0)
        {
          o += (size_t) snprintf (buf + o, size - o, "\\ufffd");
          p++;
          continue;
        }
      if (c == '"' || c == '\\')
        {
          buf[o++] = '\\';
          buf[o++] = (char) c;
        }
      else if (is_control (c))
        o += (size_t) snprintf (buf + o, size - o, "\\u%04x", (unsigned) c);
      else
        {
          memcpy (buf + o, p, len);
          o += len;
        }
      p += len;
    }
  buf[o++] = '"';
  buf[o] = '\0';
}

void
text_escape (char *buf, size_t size, const char *text)
{
  size_t o = 0;

  if (size == 0)
    return;
  for (const unsigned char *p = (const unsigned char *) text; *p && o + 8 < size; )
    {
      uint32_t c;
      size_t len = utf8_next (p, &c);

      if (len == 0)
        {
          o += (size_t) snprintf (buf + o, size - o, "\\x%02x", *p);
          p++;
          continue;
        }
      if (is_control (c))
        o += (size_t) snprintf (buf + o, size - o, c < 0x80 ? "\\x%02x" : "\\u%04x", (unsigned) c);
      else
        {
          memcpy (buf + o, p, len);
          o += len;
        }
      p += len;
    }
  buf[o] = '\0';
}

void
debug (const char *format, ...)
{
  char reason[1000], text[1000], line[1100];
  va_list args;
  int len;

  va_start (args, format);
  vsnprintf (reason, sizeof reason, format, args);
  va_end (args);
  text_escape (text, sizeof text, reason);
  len = snprintf (line, sizeof line, "reckon-sandbox: debug: %s\n", text);
  if (len > 0)
    write_all (STDERR_FILENO, line, (size_t) len < sizeof line ? (size_t) len : sizeof line - 1);
}
