/* SPDX-License-Identifier: GPL-3.0-or-later */
/* terminal.h — the program never gets the caller's terminal as fds 0-2:
 * a terminal on stdin becomes /dev/null, on stdout or stderr a pipe the
 * monitor copies to it; with --pty the program gets a fresh pty instead.
 * The caller's terminal modes are saved first and restored at the end. */
#pragma once

#include <poll.h>
#include <stdbool.h>

/* Monitor, before the clone: looks at fds 0-2, makes the pipes or the pty. */
void terminal_setup (bool pty);
/* PID-1, first thing after the clone: puts the program's ends at 0-2. */
void terminal_child (void);
/* Monitor, after the clone: closes the child's ends; raw mode with --pty. */
void terminal_parent (void);
/* The fds the monitor waits on (at most 3 are added from @fds). */
int terminal_poll_fds (struct pollfd *fds);
/* Copies what @fds (as filled by terminal_poll_fds) say is ready. */
void terminal_pump (const struct pollfd *fds, int n);
/* After the run: copies what is left, until every writer is gone. */
void terminal_drain (void);
/* Gives the caller's terminal its saved modes back. */
void terminal_restore (void);
