#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Runs one UI test with a display and a session bus of its own (CI has
# neither): Xvfb through xvfb-run, D-Bus through dbus-run-session. The
# accessibility bus is activated on demand by that session bus.
set -eu
for tool in dbus-run-session xvfb-run import xdotool; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "1..0 # SKIP $tool is not installed (see .ci/debian-packages.txt)"
    exit 0
  fi
done
# The accessibility bus must be up before the app starts, or GTK does not
# register the app on it. Only the test speaks on stdout (TAP): the buses and
# the services they start (the a11y registry prints a greeting) write to
# stderr.
exec 3>&1
exec dbus-run-session -- xvfb-run -a -s '-screen 0 1280x1024x24' sh -c '
  /usr/libexec/at-spi-bus-launcher --launch-immediately >&2 &
  launcher=$!
  sleep 0.5
  /usr/bin/python3 "$@" >&3
  status=$?
  kill $launcher 2>/dev/null
  exit $status' run-ui "$@" >&2
