# SPDX-License-Identifier: GPL-3.0-or-later
"""network.py — telling a cell that tried the network what happened.

The sandbox has no network (a network namespace with nothing in it, and
seccomp refuses sockets other than AF_UNIX), so urllib, requests, sockets
and pandas.read_csv("https://...") fail deep in a library with a URLError,
a gaierror or "Operation not permitted". The kernel reports those as one
plain sentence instead (docs/kernel-protocol.md, "errors").
"""

import errno
import sys

ENAME = "NoNetwork"
SENTENCE = "Code runs without network access; add the file instead."

# errno values a socket gets here: refused by seccomp, or no route at all.
_SOCKET_ERRNOS = {errno.EPERM, errno.EACCES, errno.EAFNOSUPPORT, errno.ENETUNREACH,
                  errno.EHOSTUNREACH, errno.ENETDOWN, errno.ECONNREFUSED, errno.EADDRNOTAVAIL,
                  errno.ENOTCONN}
# Library files whose OSError is a network one.
_NETWORK_FILES = ("/socket.py", "/ssl.py", "/http/client.py", "/urllib/request.py",
                  "/urllib3/", "/requests/", "/ftplib.py", "/smtplib.py")
# Exceptions of libraries that need not be imported for the kernel to know them.
_NETWORK_TYPES = {("requests.exceptions", "ConnectionError"), ("requests.exceptions", "ConnectTimeout"),
                  ("urllib3.exceptions", "NewConnectionError"), ("urllib3.exceptions", "MaxRetryError"),
                  ("urllib3.exceptions", "NameResolutionError")}


def _raised_in_network_code(error):
    tb = error.__traceback__
    while tb is not None:
        name = tb.tb_frame.f_code.co_filename
        if any(part in name for part in _NETWORK_FILES):
            return True
        tb = tb.tb_next
    return False


def _one(error):
    socket = sys.modules.get("socket")
    if socket is not None and isinstance(error, (socket.gaierror, socket.herror)):
        return True
    url_error = getattr(sys.modules.get("urllib.error"), "URLError", None)
    http_error = getattr(sys.modules.get("urllib.error"), "HTTPError", None)
    if url_error is not None and isinstance(error, url_error) and not (
            http_error is not None and isinstance(error, http_error)):
        return True
    for cls in type(error).__mro__:
        if (cls.__module__, cls.__name__) in _NETWORK_TYPES:
            return True
    # Not a broken pipe: that is a subprocess that went away, here.
    if isinstance(error, ConnectionError) and not isinstance(error, BrokenPipeError):
        return True
    if isinstance(error, OSError) and error.errno in _SOCKET_ERRNOS and _raised_in_network_code(error):
        return True
    return False


def is_network_error(error):
    """Whether @error, or an error it came from, is the missing network."""
    seen = 0
    while error is not None and seen < 8:
        if _one(error):
            return True
        reason = getattr(error, "reason", None)
        if isinstance(reason, BaseException) and _one(reason):
            return True
        error = error.__cause__ or error.__context__
        seen += 1
    return False
