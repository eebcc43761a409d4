#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Runs a test inside a private session bus with an unlocked gnome-keyring.
# The bus and the services it starts (a keyring started on demand prints its
# environment) write to stderr; only the test itself writes to stdout (TAP).
exec 3>&1
exec dbus-run-session -- sh -c 'printf test | gnome-keyring-daemon --unlock --components=secrets --daemonize >/dev/null 2>&1; exec "$@" 1>&3 3>&-' sh "$@" 1>&2
