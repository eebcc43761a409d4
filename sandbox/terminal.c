/* SPDX-License-Identifier: GPL-3.0-or-later */
/* terminal.c — with the caller's terminal as stdin, a program could type
 * into it (TIOCSTI), change its modes for good, or read what the user types
 * next; it gets pipes, /dev/null, or a pty of its own instead. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include "terminal.h"
#include "utils.h"

struct relay
{
  int src;   /* read here (monitor's end) */
  int dst;   /* write there (the caller's terminal, or the pty master) */
};

static struct relay relays[3] = { { -1, -1 }, { -1, -1 }, { -1, -1 } };
/* What PID-1 puts at 0, 1 and 2 (-1: leave the caller's fd). */
static int child_fd[3] = { -1, -1, -1 };
static int pty_slave = -1;
static int saved_fd = -1;
static struct termios saved;

static int
dup_cloexec (int fd)
{
  int d = fcntl (fd, F_DUPFD_CLOEXEC, 3);

  if (d < 0)
    die_with_error ("cannot duplicate fd %d", fd);
  return d;
}

static void
open_pty (void)
{
  int master = posix_openpt (O_RDWR | O_NOCTTY | O_CLOEXEC);
  struct winsize ws;

  if (master < 0 || grantpt (master) != 0 || unlockpt (master) != 0)
    die_with_error ("cannot open a pseudo-terminal");
  pty_slave = open (ptsname (master), O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (pty_slave < 0)
    die_with_error ("cannot open the pseudo-terminal's other end");
  if (saved_fd >= 0 && ioctl (saved_fd, TIOCGWINSZ, &ws) == 0)
    (void) ioctl (pty_slave, TIOCSWINSZ, &ws);
  for (int fd = 0; fd < 3; fd++)
    child_fd[fd] = pty_slave;
  /* stdin -> master (only from a terminal: a pipe's EOF must not end it),
   * master -> stdout. */
  if (isatty (STDIN_FILENO))
    relays[0] = (struct relay) { dup_cloexec (STDIN_FILENO), master };
  relays[1] = (struct relay) { master, dup_cloexec (STDOUT_FILENO) };
}

void
terminal_setup (bool pty)
{
  for (int fd = 0; fd < 3 && saved_fd < 0; fd++)
    if (isatty (fd) && tcgetattr (fd, &saved) == 0)
      saved_fd = dup_cloexec (fd);
  if (pty)
    {
      open_pty ();
      return;
    }
  if (isatty (STDIN_FILENO))
    {
      child_fd[0] = open ("/dev/null", O_RDONLY | O_CLOEXEC);
      if (child_fd[0] < 0)
        die_with_error ("cannot open /dev/null");
    }
  for (int fd = 1; fd < 3; fd++)
    if (isatty (fd))
      {
        int p[2];
        if (pipe2 (p, O_CLOEXEC) != 0)
          die_with_error ("cannot create a pipe");
        relays[fd] = (struct relay) { p[0], dup_cloexec (fd) };
        child_fd[fd] = p[1];
      }
}

void
terminal_child (void)
{
  for (int fd = 0; fd < 3; fd++)
    {
      if (child_fd[fd] >= 0 && dup2 (child_fd[fd], fd) != fd)
        die_with_error ("cannot set up fd %d", fd);
      /* The monitor's ends are of no use here. */
      if (relays[fd].src >= 0 && relays[fd].src != child_fd[fd])
        close (relays[fd].src);
    }
  if (saved_fd >= 0)
    close (saved_fd);
}

void
terminal_parent (void)
{
  for (int fd = 0; fd < 3; fd++)
    if (child_fd[fd] >= 0 && child_fd[fd] != pty_slave)
      close (child_fd[fd]);
  if (pty_slave >= 0)
    close (pty_slave);
  /* The program's pty does the line editing: ours passes keys through. */
  if (pty_slave >= 0 && relays[0].src >= 0 && saved_fd >= 0)
    {
      struct termios t = saved;
      cfmakeraw (&t);
      (void) tcsetattr (saved_fd, TCSADRAIN, &t);
    }
}

int
terminal_poll_fds (struct pollfd *fds)
{
  int n = 0;

  for (int i = 0; i < 3; i++)
    if (relays[i].src >= 0)
      fds[n++] = (struct pollfd) { .fd = relays[i].src, .events = POLLIN };
  return n;
}

/* Copies one chunk; false once the source is done (EOF, or EIO from a pty
 * master whose last slave is closed). */
static bool
copy_chunk (struct relay *r)
{
  char buf[65536];
  ssize_t n = read (r->src, buf, sizeof buf);

  if (n < 0 && (errno == EINTR || errno == EAGAIN))
    return true;
  if (n <= 0)
    return false;
  (void) write_all (r->dst, buf, (size_t) n);
  return true;
}

static void
close_relay (struct relay *r)
{
  close (r->src);
  r->src = -1;
}

void
terminal_pump (const struct pollfd *fds, int n)
{
  for (int k = 0; k < n; k++)
    {
      if (fds[k].revents == 0)
        continue;
      for (int i = 0; i < 3; i++)
        if (relays[i].src == fds[k].fd && !copy_chunk (&relays[i]))
          close_relay (&relays[i]);
    }
}

void
terminal_drain (void)
{
  /* Everything inside is dead: no writer is left, so each ends. */
  for (int i = 1; i < 3; i++)
    if (relays[i].src >= 0)
      {
        while (copy_chunk (&relays[i]))
          ;
        close_relay (&relays[i]);
      }
}

void
terminal_restore (void)
{
  if (saved_fd < 0)
    return;
  (void) tcsetattr (saved_fd, TCSADRAIN, &saved);
}
