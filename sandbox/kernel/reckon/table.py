# SPDX-License-Identifier: GPL-3.0-or-later
"""RkTable writer: turns a pandas DataFrame or Series into an RkTable file.

The format is described in docs/rktable-format.md (version 1). Columns are
written one after the other with numpy buffers, so a million rows take well
under a second; strings are encoded with C-level map() calls, not Python loops.
"""

import math
import operator
import os
import struct

import numpy as np
import pandas as pd
from pandas.api import types as pdt

from ._hooks import atomic_file

MAGIC = b"RKTABLE\0"
VERSION = 1

HEADER = struct.Struct("<8sIIQIIQQQQ")          # 64 bytes
ENTRY = struct.Struct("<QIBBHQQQQQQ")           # 64 bytes
assert HEADER.size == 64 and ENTRY.size == 64

# Column types (docs/rktable-format.md, "Column types").
INT64 = 1
FLOAT64 = 2
BOOL = 3
DATETIME = 4
STRING = 5

# Column flags.
FLAG_OFFSETS32 = 1      # string: offsets are u32
FLAG_DATE_ONLY = 2      # naive datetime: every value is a midnight (show dates)

MAX_COLUMNS = 16384
MAX_ROWS = (1 << 32) - 1
MAX_FILE = 1 << 40
MAX_NAME = 1024
MAX_TZ = 64

_encode_lossy = operator.methodcaller("encode", "utf-8", "surrogatepass")
_EMPTY_U32 = np.zeros(1, dtype="<u4")


def _pad8(n):
    return (8 - (n & 7)) & 7


def _clip_utf8(text, limit):
    """UTF-8 bytes of text, cut to at most limit bytes on a character boundary."""
    raw = str(text).encode("utf-8", "surrogatepass")
    if len(raw) <= limit:
        return raw
    raw = raw[:limit]
    # Drop a trailing partial sequence.
    while raw and (raw[-1] & 0xC0) == 0x80:
        raw = raw[:-1]
    if raw and raw[-1] >= 0xC0:
        raw = raw[:-1]
    return raw


def _write_all(f, buf):
    view = memoryview(buf).cast("B")
    total = len(view)
    done = 0
    while done < total:
        n = f.write(view[done:done + (1 << 30)])
        if not n:
            raise OSError("short write")
        done += n
    return total


def _column_name(key):
    if isinstance(key, tuple):
        parts = [str(p) for p in key if not (isinstance(p, str) and p == "")]
        return " / ".join(parts) if parts else ""
    return str(key)


def _validity(mask):
    """Validity bitmap (bit set = value present, LSB first) from a null mask,
    or None when nothing is null."""
    if mask is None or not mask.any():
        return None
    return np.packbits(~mask, bitorder="little")


def _tz_name(tz):
    if tz is None:
        return b""
    name = getattr(tz, "zone", None) or getattr(tz, "key", None)
    if not name:
        text = str(tz)
        if text in ("UTC", "tzutc()"):
            name = "UTC"
        else:
            # A fixed offset (datetime.timezone, pytz.FixedOffset, dateutil tzoffset).
            try:
                off = pd.Timestamp(0, tz=tz).utcoffset()
                minutes = int(off.total_seconds() // 60)
                sign = "+" if minutes >= 0 else "-"
                minutes = abs(minutes)
                name = "%s%02d:%02d" % (sign, minutes // 60, minutes % 60)
            except Exception:  # noqa: BLE001 - an odd tzinfo: store UTC
                name = "UTC"
    raw = _clip_utf8(name, MAX_TZ)
    return raw


def _encode_strings(values, mask):
    """values: 1-d object ndarray. Returns (offsets ndarray, heap bytes, flags)."""
    n = len(values)
    if mask is not None and mask.any():
        values = values.copy()
        values[mask] = ""
    if n == 0:
        return _EMPTY_U32, b"", FLAG_OFFSETS32
    # Fast path: join everything with NUL separators, encode once, and find the
    # separators with numpy. Falls back when a value is not a str or holds a NUL.
    try:
        joined = "\0".join(values)
    except TypeError:
        values = np.fromiter(map(_to_text, values), dtype=object, count=n)
        joined = "\0".join(values)
    try:
        raw = joined.encode("utf-8")
    except UnicodeEncodeError:
        # Lone surrogates: keep the bytes; the reader shows U+FFFD for them.
        raw = joined.encode("utf-8", "surrogatepass")
    del joined
    buf = np.frombuffer(raw, dtype=np.uint8)
    is_sep = buf == 0
    seps = np.flatnonzero(is_sep)
    if len(seps) != n - 1:
        encoded = list(map(_encode_lossy, values))
        return _pack_encoded(encoded)
    heap = buf[~is_sep].tobytes() if n > 1 else raw
    ends = np.empty(n, dtype=np.int64)
    ends[:-1] = seps - np.arange(n - 1, dtype=np.int64)
    ends[-1] = len(heap)
    offsets, flags = _offsets_for(n, len(heap))
    offsets[1:] = ends
    return offsets, heap, flags


def _offsets_for(n, heap_len):
    """Zeroed offsets for @n strings over a heap of @heap_len bytes, 32-bit
    while they fit, and the column flag that says so."""
    if heap_len < (1 << 32):
        return np.zeros(n + 1, dtype="<u4"), FLAG_OFFSETS32
    return np.zeros(n + 1, dtype="<u8"), 0


def _pack_encoded(encoded):
    n = len(encoded)
    lengths = np.fromiter(map(len, encoded), dtype=np.int64, count=n)
    heap = b"".join(encoded)
    offsets, flags = _offsets_for(n, len(heap))
    if n:
        offsets[1:] = np.cumsum(lengths)
    return offsets, heap, flags


def _to_text(v):
    if isinstance(v, str):
        return v
    if isinstance(v, bytes):
        return v.decode("utf-8", "replace")
    if isinstance(v, float) and math.isnan(v):
        return ""
    return str(v)


class _Column:
    __slots__ = ("name", "dtype", "flags", "null", "data", "aux")

    def __init__(self, name, dtype, data, null=None, aux=b"", flags=0):
        self.name = name
        self.dtype = dtype
        self.flags = flags
        self.null = null
        self.data = data
        self.aux = aux


def _is_null(ser):
    mask = pd.isna(ser)
    mask = np.asarray(mask, dtype=bool)
    return mask if mask.any() else None


def _convert(name, ser):
    """One pandas Series (or Index) -> _Column."""
    dtype = ser.dtype
    n = len(ser)

    if isinstance(dtype, pd.CategoricalDtype):
        cat = ser.cat if isinstance(ser, pd.Series) else ser
        codes = np.asarray(cat.codes)
        cats = np.fromiter(map(_to_text, cat.categories), dtype=object,
                           count=len(cat.categories))
        cats = np.append(cats, "")
        mask = codes < 0
        values = cats[np.where(mask, len(cats) - 1, codes)]
        offsets, heap, flags = _encode_strings(values, None)
        return _Column(name, STRING, offsets, _validity(mask), heap, flags)

    if pdt.is_bool_dtype(dtype):
        mask = _is_null(ser)
        if mask is not None:
            arr = ser.to_numpy(dtype=bool, na_value=False)
        else:
            arr = np.asarray(ser.to_numpy(dtype=bool))
        return _Column(name, BOOL, np.ascontiguousarray(arr).view(np.uint8), _validity(mask))

    if pdt.is_datetime64_any_dtype(dtype):
        tz = getattr(dtype, "tz", None)
        if isinstance(ser, pd.Series):
            values = ser.array
        else:
            values = ser._values  # DatetimeArray of an Index
        try:
            ns = np.asarray(values.asi8, dtype="<i8")
        except AttributeError:
            ns = np.asarray(ser.to_numpy(dtype="datetime64[ns]")).view("<i8")
        mask = ns == np.iinfo(np.int64).min
        mask = mask if mask.any() else None
        flags = 0
        if tz is None:
            valid = ns if mask is None else ns[~mask]
            if len(valid) and not (valid % 86_400_000_000_000).any():
                flags = FLAG_DATE_ONLY
        return _Column(name, DATETIME, np.ascontiguousarray(ns), _validity(mask),
                       _tz_name(tz), flags)

    if pdt.is_integer_dtype(dtype):
        mask = _is_null(ser)
        if pdt.is_unsigned_integer_dtype(dtype) and dtype.itemsize >= 8:
            big = ser.to_numpy(dtype="float64", na_value=0.0) if mask is not None \
                else np.asarray(ser, dtype="float64")
            if n and np.nanmax(big) >= 2.0 ** 63:
                return _string_column(name, ser, mask)
        if mask is not None:
            arr = ser.to_numpy(dtype="int64", na_value=0)
        else:
            arr = np.asarray(ser.to_numpy(), dtype="<i8")
        return _Column(name, INT64, np.ascontiguousarray(arr, dtype="<i8"), _validity(mask))

    if pdt.is_float_dtype(dtype):
        if isinstance(dtype, np.dtype):
            # NaN in a numpy float column is a value (shown as NaN), not a null.
            arr = np.asarray(ser.to_numpy(), dtype="<f8")
            return _Column(name, FLOAT64, np.ascontiguousarray(arr), None)
        # Nullable Float64: pd.NA is a null, NaN stays NaN.
        mask = np.asarray(ser.isna() if isinstance(ser, pd.Series) else pd.isna(ser),
                          dtype=bool)
        try:
            mask = np.asarray(ser.array._mask, dtype=bool)
            data = np.asarray(ser.array._data, dtype="<f8").copy()
        except AttributeError:
            data = ser.to_numpy(dtype="float64", na_value=np.nan)
        data[mask] = 0.0
        mask = mask if mask.any() else None
        return _Column(name, FLOAT64, np.ascontiguousarray(data, dtype="<f8"), _validity(mask))

    mask = _is_null(ser)
    if dtype == object and n:
        typed = _typed_object_column(name, ser, mask)
        if typed is not None:
            return typed
    return _string_column(name, ser, mask)


def _typed_object_column(name, ser, mask):
    """An object column that holds only ints, floats, bools or datetimes (and
    nulls) is stored with that type, so it sorts and exports as numbers."""
    try:
        # Cheap test first: a column whose first value is text stays text.
        first = 0 if mask is None else int(np.argmin(mask))
        if isinstance(ser.iat[first] if isinstance(ser, pd.Series) else ser[first], str):
            return None
        kind = pd.api.types.infer_dtype(ser, skipna=True)
        if kind == "string" or kind == "empty":
            return None
        values = np.asarray(ser.to_numpy(dtype=object), dtype=object)
        if mask is not None:
            values = values.copy()
            values[mask] = 0
        if kind == "integer":
            arr = np.asarray(values.astype(np.int64), dtype="<i8")
            return _Column(name, INT64, np.ascontiguousarray(arr), _validity(mask))
        if kind in ("floating", "mixed-integer-float"):
            arr = np.asarray(values.astype(np.float64), dtype="<f8")
            return _Column(name, FLOAT64, np.ascontiguousarray(arr), _validity(mask))
        if kind == "boolean":
            arr = np.asarray(values.astype(bool)).view(np.uint8)
            return _Column(name, BOOL, np.ascontiguousarray(arr), _validity(mask))
        if kind in ("datetime", "datetime64"):
            conv = pd.to_datetime(pd.Series(ser.to_numpy(dtype=object)), errors="raise")
            if pdt.is_datetime64_any_dtype(conv.dtype):
                return _convert(name, conv)
    except (TypeError, ValueError, OverflowError):
        pass
    return None


def _string_column(name, ser, mask):
    values = np.asarray(ser.to_numpy(dtype=object), dtype=object)
    if values.ndim != 1:
        values = values.reshape(-1)
    offsets, heap, flags = _encode_strings(values, mask)
    return _Column(name, STRING, offsets, _validity(mask), heap, flags)


def _is_default_index(index):
    if index.name is None and not isinstance(index, pd.MultiIndex) and len(index) == 0:
        return True     # pd.DataFrame() has an empty object Index
    return (isinstance(index, pd.RangeIndex) and index.start == 0 and index.step == 1
            and index.name is None)


def _columns_of(frame):
    cols = []
    index = frame.index
    if not _is_default_index(index):
        if isinstance(index, pd.MultiIndex):
            for i in range(index.nlevels):
                level_name = index.names[i]
                name = _column_name(level_name) if level_name is not None else "level_%d" % i
                cols.append((name, index.get_level_values(i)))
        else:
            name = _column_name(index.name) if index.name is not None else "index"
            cols.append((name, index))
    n_index = len(cols)
    for i, key in enumerate(frame.columns):
        cols.append((_column_name(key), frame.iloc[:, i]))
    return cols, n_index


def write(obj, path):
    """Write obj (a pandas DataFrame or Series) to path as an RkTable file.

    The file is written to a temporary name in the same folder and renamed into
    place, so a reader never sees half a file. Returns a dict with at least
    "rows" and "columns" (columns stored, index columns included), plus
    "index_columns", "bytes" and "shape" (the DataFrame's own shape).
    """
    if isinstance(obj, pd.Series):
        frame = obj.to_frame()
    elif isinstance(obj, pd.DataFrame):
        frame = obj
    else:
        raise TypeError("reckon.table.write expects a pandas DataFrame or Series, not %s"
                        % type(obj).__name__)

    n_rows = len(frame)
    if n_rows > MAX_ROWS:
        raise ValueError("table has %d rows; the limit is %d" % (n_rows, MAX_ROWS))
    pairs, n_index = _columns_of(frame)
    if len(pairs) > MAX_COLUMNS:
        raise ValueError("table has %d columns; the limit is %d" % (len(pairs), MAX_COLUMNS))

    columns = [_convert(_clip_utf8(name, MAX_NAME), ser) for name, ser in pairs]
    n_cols = len(columns)

    # Layout: header, directory, names, then each column's blocks, 8-aligned.
    pos = HEADER.size + ENTRY.size * n_cols
    name_offsets = []
    for col in columns:
        name_offsets.append(pos)
        pos += len(col.name)
    pos += _pad8(pos)

    plan = []        # (offset, buffer) in file order
    entries = []
    for col, name_off in zip(columns, name_offsets):
        null_off = null_len = 0
        if col.null is not None:
            null_off, null_len = pos, col.null.nbytes
            plan.append((pos, col.null))
            pos += null_len + _pad8(null_len)
        data_off, data_len = pos, col.data.nbytes
        plan.append((pos, col.data))
        pos += data_len + _pad8(data_len)
        aux_off = aux_len = 0
        if col.aux:
            aux_off, aux_len = pos, len(col.aux)
            plan.append((pos, col.aux))
            pos += aux_len + _pad8(aux_len)
        entries.append(ENTRY.pack(name_off, len(col.name), col.dtype, col.flags, 0,
                                  null_off, null_len, data_off, data_len, aux_off, aux_len))
    file_len = pos
    if file_len > MAX_FILE:
        raise ValueError("table would take %d bytes; the limit is %d" % (file_len, MAX_FILE))

    header = HEADER.pack(MAGIC, VERSION, 0, n_rows, n_cols, n_index,
                         HEADER.size, ENTRY.size * n_cols, file_len, 0)

    path = os.fspath(path)
    with atomic_file(path, ".rkt-", ".tmp", buffering=0) as f:
        head = bytearray(header)
        head += b"".join(entries)
        for col in columns:
            head += col.name
        head += b"\0" * _pad8(len(head))
        written = _write_all(f, head)
        for off, buf in plan:
            if off > written:
                written += _write_all(f, b"\0" * (off - written))
            written += _write_all(f, buf)
        if written < file_len:
            written += _write_all(f, b"\0" * (file_len - written))

    return {
        "rows": n_rows,
        "columns": n_cols,
        "index_columns": n_index,
        "bytes": file_len,
        "shape": [n_rows, frame.shape[1]],
    }
