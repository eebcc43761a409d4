"""Profiles of the files a user drops into a session: what the model is told.

Runs inside reckon-sandbox (through reckon_profile.py), because every file it
opens is untrusted. profile_file(path) never raises: a file it cannot read
gives a dict with one clear "error" sentence. All strings in a profile are
capped, so the document the host parses stays small.
"""

import csv
import io
import json
import math
import os
import re
import subprocess
import warnings
import zipfile

# Before anything imports an XML parser: entity expansion (billion laughs),
# external entities and DTD tricks are refused everywhere, stdlib included.
os.environ["OPENPYXL_DEFUSEDXML"] = "True"
try:
    import defusedxml
    import defusedxml.ElementTree  # noqa: F401  (openpyxl picks it up)

    defusedxml.defuse_stdlib()
    DEFUSED = True
except ImportError:  # pragma: no cover - Reckon depends on python3-defusedxml
    DEFUSED = False

HEAD_ROWS = 5
MAX_CELL = 120           # characters of one cell in "head"
MAX_NAME = 120           # characters of a column or sheet name
MAX_COLUMNS = 200        # columns described in detail
MAX_SHEETS = 32
MAX_PAGES_TEXT = 3       # PDF pages whose text is included
MAX_PAGE_TEXT = 1500     # characters of text per page
MAX_TEXT_LINES = 10
SNIFF_BYTES = 256 * 1024
MAX_SHEET_ROWS = 200000  # rows of one sheet kept for statistics
MAX_JSON_BYTES = 64 * 1024 * 1024
BIG_CSV = 32 * 1024 * 1024  # above this, CSV statistics come from a sample
SAMPLE_ROWS = 200000

ERR_BINARY = "This file is not a spreadsheet: it contains binary data."
ERR_EMPTY = "This file is empty."
ERR_MEMORY = "This file needs more memory than the sandbox allows, so it was not profiled."
ERR_UNSAFE_XML = "This file contains unsafe XML (entity declarations), so it was not opened."
ERR_ZIP = "This workbook is damaged or is not really an Excel file."


class ProfileError(Exception):
    """An error whose message is the one sentence the user sees."""


def _cap(value, limit=MAX_CELL):
    if value is None:
        return None
    s = str(value)
    # Control characters other than tab and newline are shown escaped.
    s = "".join(c if (c >= " " or c in "\t\n\r") and c != "\x7f" else "\\x%02x" % ord(c) for c in s)
    if len(s) > limit:
        s = s[: limit - 1] + "…"
    return s


def _finite(x):
    try:
        x = float(x)
    except (TypeError, ValueError):
        return None
    if math.isnan(x) or math.isinf(x):
        return None
    # Integers stay integers in JSON, so "12" is not shown as "12.0".
    if x.is_integer() and abs(x) < 2 ** 53:
        return int(x)
    return float("%.6g" % x)


# -- kind detection -------------------------------------------------------

def _sniff_kind(path, head):
    ext = os.path.splitext(path)[1].lower()
    if head.startswith(b"%PDF-"):
        return "pdf"
    if head.startswith(b"PK\x03\x04") or head.startswith(b"PK\x05\x06"):
        try:
            with zipfile.ZipFile(path) as z:
                names = set(z.namelist()[:10000])
        except (zipfile.BadZipFile, OSError, ValueError):
            return "zip"
        if "xl/workbook.xml" in names or any(n.startswith("xl/") for n in names):
            return "xlsx"
        if "content.xml" in names:
            return "ods"
        return "zip"
    if head.startswith(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"):
        return "xls"
    if ext in (".json", ".geojson"):
        return "json"
    if ext in (".tsv", ".tab"):
        return "tsv"
    if ext in (".txt", ".md", ".log", ".text"):
        return "text"
    if ext in (".xlsx", ".xlsm", ".xls", ".ods"):
        return "badworkbook"
    if ext == ".pdf":
        return "badpdf"
    return "csv"


def _is_binary(head):
    if head.startswith((b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff")):
        return False
    if b"\x00" in head:
        return True
    # Lots of C0 control bytes other than whitespace: not text either.
    ctrl = sum(1 for b in head[:8192] if b < 9 or 13 < b < 32)
    return ctrl > max(8, len(head[:8192]) // 50)


def _detect_encoding(head):
    """Returns (python codec, label for people)."""
    if head.startswith(b"\xef\xbb\xbf"):
        return "utf-8-sig", "UTF-8 (with BOM)"
    if head.startswith(b"\xff\xfe") or head.startswith(b"\xfe\xff"):
        return "utf-16", "UTF-16"
    sample = head
    try:
        sample.decode("utf-8")
        return "utf-8", "UTF-8"
    except UnicodeDecodeError as e:
        # A multibyte sequence cut at the end of the sample is still UTF-8.
        if e.start >= len(sample) - 3 and len(sample) >= SNIFF_BYTES:
            return "utf-8", "UTF-8"
    try:
        sample.decode("cp1252")
        return "cp1252", "Windows-1252"
    except UnicodeDecodeError:
        return "latin-1", "Latin-1"


# -- CSV ------------------------------------------------------------------

NUM_RE = re.compile(r"^\s*[-+]?(\d+([.,]\d*)?|[.,]\d+)([eE][-+]?\d+)?\s*$")
COMMA_DECIMAL_RE = re.compile(r"^\s*[-+]?(\d{1,3}(\.\d{3})+|\d+),\d+\s*$")
DOT_DECIMAL_RE = re.compile(r"^\s*[-+]?\d+\.\d+\s*$")
DATE_RE = re.compile(r"^\s*(\d{4}-\d{1,2}-\d{1,2}([T ]\d{1,2}:\d{2}(:\d{2}(\.\d+)?)?)?|\d{1,2}[./]\d{1,2}[./]\d{2,4})\s*$")


def _sample_text(raw, codec):
    # Cut the sample at its last line break so no row is half read.
    text = raw.decode(codec, errors="replace")
    if len(raw) >= SNIFF_BYTES:
        cut = max(text.rfind("\n"), 0)
        text = text[:cut]
    return text


def _sniff_delimiter(text, kind):
    if kind == "tsv":
        return "\t"
    best, best_score = ",", -1.0
    for delim in (",", ";", "\t", "|"):
        try:
            rows = list(_limited_rows(csv.reader(io.StringIO(text), delimiter=delim), 200))
        except csv.Error:
            continue
        widths = [len(r) for r in rows if r and any(c.strip() for c in r)]
        if not widths:
            continue
        mode = max(set(widths), key=widths.count)
        if mode < 2:
            continue
        consistency = widths.count(mode) / len(widths)
        score = consistency * 10 + min(mode, 50) / 50.0
        if score > best_score:
            best, best_score = delim, score
    return best


def _limited_rows(reader, n):
    for i, row in enumerate(reader):
        if i >= n:
            break
        yield row


def _looks_numeric(s, decimal):
    if decimal == ",":
        return bool(COMMA_DECIMAL_RE.match(s) or re.match(r"^\s*[-+]?\d+\s*$", s))
    return bool(NUM_RE.match(s)) and "," not in s


def _sniff_decimal(rows, delim):
    if delim == ",":
        return "."
    comma = dot = 0
    for row in rows[1:]:
        for cell in row:
            if COMMA_DECIMAL_RE.match(cell):
                comma += 1
            elif DOT_DECIMAL_RE.match(cell):
                dot += 1
    return "," if comma > dot else "."


def _sniff_header(rows, decimal):
    if not rows:
        return False
    first = rows[0]
    if len(rows) == 1:
        return True
    for cell in first:
        if _looks_numeric(cell, decimal) or DATE_RE.match(cell):
            return False
    # All text in row one: a header, unless every row is text and row one
    # repeats (no distinct names).
    names = [c.strip() for c in first if c.strip()]
    return len(names) > 0 and len(set(names)) == len(names)


def _dedupe_names(names):
    seen = {}
    out = []
    for i, n in enumerate(names):
        n = (str(n).strip() if n is not None else "") or "column %d" % (i + 1)
        base = n
        k = seen.get(base, 0)
        while n in seen:
            k += 1
            n = "%s.%d" % (base, k)
        seen[base] = k
        seen[n] = 0
        out.append(n)
    return out


def _profile_csv(path, kind, head, result):
    import pandas as pd

    if not head.strip(b"\xef\xbb\xbf\r\n\t "):
        raise ProfileError(ERR_EMPTY)
    codec, label = _detect_encoding(head)
    text = _sample_text(head, codec)
    # Excel's "sep=;" first line names the delimiter and is not data.
    sep_line = re.match(r"^\ufeff?sep=(.)\r?\n", text)
    skip = 1 if sep_line else 0
    if sep_line:
        delim = sep_line.group(1)
        text = text[sep_line.end():]
    else:
        delim = _sniff_delimiter(text, kind)
    try:
        sample_rows = list(_limited_rows(csv.reader(io.StringIO(text), delimiter=delim), 200))
    except csv.Error:
        sample_rows = [line.split(delim) for line in text.splitlines()[:200]]
    sample_rows = [r for r in sample_rows if r]
    decimal = _sniff_decimal(sample_rows, delim)
    thousands = "." if decimal == "," else None
    header = _sniff_header(sample_rows, decimal)

    result.update(kind="tsv" if delim == "\t" else "csv", encoding=label, delimiter=delim,
                  decimal=decimal, header=header)
    notes = result.setdefault("notes", [])

    opts = dict(sep=delim, decimal=decimal, encoding=codec, header=0 if header else None, skiprows=skip,
                engine="c", skip_blank_lines=True, low_memory=False)
    if thousands:
        opts["thousands"] = thousands
    head_rows = None
    ragged = None
    # Big files: statistics from the first rows, the row count from a fast
    # scan of line breaks (exact unless quoted fields hold line breaks).
    big = os.path.getsize(path) > BIG_CSV and not codec.startswith("utf-16")
    if big:
        opts["nrows"] = SAMPLE_ROWS
    try:
        df = pd.read_csv(path, **opts)
    except UnicodeDecodeError:
        # The sample was UTF-8 but a later byte is not: the file is 8-bit.
        codec, label = "cp1252", "Windows-1252"
        try:
            df = pd.read_csv(path, **dict(opts, encoding=codec))
        except UnicodeDecodeError:
            codec, label = "latin-1", "Latin-1"
            df = pd.read_csv(path, **dict(opts, encoding=codec))
        result["encoding"] = label
    except pd.errors.EmptyDataError:
        raise ProfileError(ERR_EMPTY)
    except pd.errors.ParserError:
        # Ragged rows (more fields than the header): read them with the csv
        # module and pad, so nothing is lost.
        df, ragged, head_rows = _read_ragged(path, codec, delim, header, skip)
        notes.append("%d rows have a different number of fields than the header; they were padded." % ragged)
    opts["encoding"] = codec

    # The first rows exactly as written (strings), for people and the model.
    if head_rows is None:
        try:
            raw = pd.read_csv(path, **dict(opts, nrows=HEAD_ROWS, dtype=str, keep_default_na=False,
                                           low_memory=True))
            head_rows = raw.values.tolist()
        except Exception:  # noqa: BLE001 - the full read worked; head is cosmetic
            head_rows = df.head(HEAD_ROWS).astype(str).values.tolist()
    if not header:
        df.columns = ["column %d" % (i + 1) for i in range(len(df.columns))]
    else:
        df.columns = _dedupe_names([None if str(c).startswith("Unnamed: ") else c for c in df.columns])

    table = _profile_frame(df, None, head_rows, decimal)
    table["header"] = header
    if big and len(df) >= SAMPLE_ROWS:
        total, exact = _count_rows(path, header, df)
        table["rows"] = max(total, len(df))
        table["rows_sampled"] = len(df)
        if not exact:
            table["rows_approximate"] = True
        notes.append("Statistics come from the first %d rows." % len(df))
    result["tables"] = [table]
    read = 'pd.read_csv(%r' % os.path.basename(path)
    if delim != ",":
        read += ", sep=%r" % delim
    if skip and ragged is None:
        read += ", skiprows=1"
    if decimal != ".":
        read += ", decimal=%r, thousands=%r" % (decimal, thousands)
    if codec not in ("utf-8",):
        read += ", encoding=%r" % codec
    if ragged is not None:
        # Rows longer than the header: name every column, so none is lost.
        read += ", header=None, skiprows=%d, names=%r" % (skip + (1 if header else 0), list(df.columns))
    elif not header:
        read += ", header=None"
    result["read_hint"] = read + ")"


def _count_rows(path, header, sample):
    lines, last = 0, b"\n"
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 22), b""):
            lines += chunk.count(b"\n")
            last = chunk[-1:]
    if last != b"\n":
        lines += 1
    exact = True
    for i in range(sample.shape[1]):
        s = sample.iloc[:, i]
        if s.dtype == object and any(type(v) is str and "\n" in v for v in s.values):
            exact = False
            break
    return lines - (1 if header else 0), exact


def _read_ragged(path, codec, delim, header, skip):
    import pandas as pd

    with open(path, newline="", encoding=codec, errors="replace") as f:
        rows = [r for r in csv.reader(f, delimiter=delim) if r][skip:]
    width = max(len(r) for r in rows)
    names = rows[0] if header else None
    body = rows[1:] if header else rows
    expect = len(names) if names else max(set(len(r) for r in body), key=[len(r) for r in body].count)
    ragged = sum(1 for r in body if len(r) != expect)
    body = [r + [None] * (width - len(r)) for r in body]
    if names is not None:
        names = names + ["column %d" % (i + 1) for i in range(len(names), width)]
    df = pd.DataFrame(body, columns=names)
    df = df.apply(lambda s: pd.to_numeric(s, errors="ignore"))
    return df, ragged, [r[:] for r in body[:HEAD_ROWS]]


# -- column statistics ----------------------------------------------------

def _column_type(series):
    import pandas as pd
    from pandas.api import types as t

    s = series.dropna()
    if len(s) == 0:
        return "empty"
    if t.is_bool_dtype(series):
        return "boolean"
    if t.is_integer_dtype(series):
        return "integer"
    if t.is_float_dtype(series):
        return "integer" if bool((s == s.round()).all()) and s.abs().max() < 2 ** 53 else "float"
    if t.is_datetime64_any_dtype(series):
        return "datetime"
    # Object columns: mixed numbers and text (spreadsheets), dates, text.
    sample = s.head(200)
    if all(isinstance(v, bool) for v in sample):
        return "boolean"
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in sample):
        return "float" if any(isinstance(v, float) and not float(v).is_integer() for v in sample) else "integer"
    if all(hasattr(v, "year") for v in sample):
        return "datetime"
    strs = sample.astype(str)
    if strs.str.match(DATE_RE).mean() >= 0.9:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            parsed = pd.to_datetime(strs, errors="coerce")
        if parsed.notna().mean() >= 0.9:
            return "date"
    if any(isinstance(v, (int, float)) and not isinstance(v, bool) for v in sample):
        return "mixed"
    return "text"


def _profile_frame(df, name, head_rows, decimal="."):
    import numpy as np
    import pandas as pd

    rows, ncols = df.shape
    cols = []
    for i, col in enumerate(df.columns[:MAX_COLUMNS]):
        s = df.iloc[:, i]
        info = {"name": _cap(col, MAX_NAME), "type": _column_type(s),
                "missing": int(s.isna().sum())}
        if s.dtype == object and rows <= 20000:
            # Blank strings count as missing too (CSV readers already turn
            # empty fields into NaN; spreadsheets keep "").
            info["missing"] += sum(1 for v in s.values if type(v) is str and not v.strip())
        if info["type"] in ("integer", "float", "mixed"):
            num = pd.to_numeric(s, errors="coerce") if s.dtype == object else s
            arr = num.to_numpy(dtype="float64", na_value=np.nan)
            arr = arr[np.isfinite(arr)]
            if arr.size:
                info.update(min=_finite(arr.min()), max=_finite(arr.max()),
                            mean=_finite(arr.mean()),
                            std=_finite(arr.std(ddof=1)) if arr.size > 1 else None)
        elif info["type"] in ("text", "boolean", "date", "datetime"):
            sub = s if rows <= 1000000 else s.sample(1000000, random_state=0)
            try:
                info["unique"] = int(sub.nunique())
                if info["type"] in ("date", "datetime"):
                    vals = sub.dropna().astype(str)
                    if len(vals):
                        if info["type"] == "date":
                            with warnings.catch_warnings():
                                warnings.simplefilter("ignore")
                                d = pd.to_datetime(vals, errors="coerce").dropna()
                            if len(d):
                                info.update(min=str(d.min().date() if d.min().time() == d.min().time().min else d.min()),
                                            max=str(d.max().date() if d.max().time() == d.max().time().min else d.max()))
                        else:
                            info.update(min=_cap(vals.min()), max=_cap(vals.max()))
                elif info["type"] == "text" and info["unique"] <= 10:
                    info["values"] = [_cap(v, 40) for v in sub.dropna().value_counts().index[:10]]
            except TypeError:
                pass
        cols.append(info)
    head = [[_cap(v) if not _isnan(v) else None for v in r][:MAX_COLUMNS] for r in head_rows[:HEAD_ROWS]]
    table = {"rows": int(rows), "columns": int(ncols), "column_info": cols, "head": head}
    if name is not None:
        table["name"] = _cap(name, MAX_NAME)
    if ncols > MAX_COLUMNS:
        table["columns_truncated"] = True
    return table


def _isnan(v):
    return v is None or (isinstance(v, float) and math.isnan(v))


# -- workbooks ------------------------------------------------------------

def _frame_from_rows(rows):
    """A sheet's rows (lists of Python values) -> (DataFrame, header?, head)."""
    import pandas as pd

    rows = [list(r) for r in rows]
    # Trailing empty columns and rows (formatting without data) are dropped.
    while rows and all(_isnan(v) or v == "" for v in rows[-1]):
        rows.pop()
    width = 0
    for r in rows:
        while r and (_isnan(r[-1]) or r[-1] == ""):
            r.pop()
        width = max(width, len(r))
    # Leading empty rows (title spacing) are skipped.
    while rows and not rows[0]:
        rows.pop(0)
    rows = [r + [None] * (width - len(r)) for r in rows]
    if not rows:
        return pd.DataFrame(), False, []
    first = rows[0]
    header = (len(rows) > 1 and all(isinstance(v, str) or v is None for v in first)
              and any(isinstance(v, str) and v.strip() for v in first)
              and any(not isinstance(v, str) and v is not None for r in rows[1:50] for v in r))
    if len(rows) == 1 and all(isinstance(v, str) for v in first if v is not None):
        header = True
    if header:
        names = _dedupe_names(first)
        df = pd.DataFrame(rows[1:], columns=names)
        head = rows[1:1 + HEAD_ROWS]
    else:
        df = pd.DataFrame(rows, columns=["column %d" % (i + 1) for i in range(width)])
        head = rows[:HEAD_ROWS]
    return df, header, head


def _sheet_table(name, rows, total_rows=None):
    df, header, head = _frame_from_rows(rows)
    table = _profile_frame(df, name, [[_fmt_cell(v) for v in r] for r in head])
    table["header"] = header
    if total_rows is not None and total_rows > table["rows"]:
        table["rows"] = total_rows
        table["rows_sampled"] = MAX_SHEET_ROWS
    return table


def _fmt_cell(v):
    if v is None:
        return None
    if isinstance(v, float) and v.is_integer() and abs(v) < 2 ** 53:
        return int(v)  # spreadsheets store 42 as 42.0
    if hasattr(v, "isoformat"):
        s = v.isoformat()
        return s[:-9] if s.endswith("T00:00:00") else s
    return v


def _profile_xlsx(path, result):
    import openpyxl

    try:
        wb = openpyxl.load_workbook(path, read_only=True, data_only=True)
    except MemoryError:
        raise ProfileError(ERR_MEMORY)
    except Exception as e:  # noqa: BLE001
        if _is_entities_error(e):
            raise ProfileError(ERR_UNSAFE_XML)
        raise ProfileError(ERR_ZIP)
    result["kind"] = "xlsx"
    tables = []
    try:
        for ws in wb.worksheets[:MAX_SHEETS]:
            rows, total = [], 0
            for r in ws.iter_rows(values_only=True):
                total += 1
                if total <= MAX_SHEET_ROWS:
                    rows.append(r)
            tables.append(_sheet_table(ws.title, rows, total if total > MAX_SHEET_ROWS else None))
            merged = _count_merged(ws)
            if merged:
                result.setdefault("notes", []).append(
                    "Sheet %s has %d merged cell ranges: each value is in the top-left cell of its range, "
                    "the other cells read as empty." % (_cap(ws.title, 60), merged))
    except MemoryError:
        raise ProfileError(ERR_MEMORY)
    except Exception as e:  # noqa: BLE001
        if _is_entities_error(e):
            raise ProfileError(ERR_UNSAFE_XML)
        raise
    finally:
        wb.close()
    result["sheets"] = len(wb.sheetnames)
    result["tables"] = tables
    result["read_hint"] = "pd.read_excel(%r, sheet_name=None)" % os.path.basename(path)


def _count_merged(ws, limit=64 * 1024 * 1024):
    """Merged ranges of a read-only sheet (openpyxl does not give them in
    read-only mode): count <mergeCell> tags in the sheet's XML, reading at
    most @limit bytes of it. 0 when unknown."""
    try:
        count, tail, seen = 0, b"", 0
        with ws.parent._archive.open(ws._worksheet_path) as f:
            while seen < limit:
                chunk = f.read(1 << 20)
                if not chunk:
                    break
                seen += len(chunk)
                data = tail + chunk
                count += data.count(b"<mergeCell ")
                # A tag split across chunks is whole in tail + chunk; the
                # tail (10 bytes) is too short to hold a whole one twice.
                tail = data[-10:]
        return count
    except Exception:  # noqa: BLE001 - a private attribute may change; merged cells are a nicety
        return 0


def _is_entities_error(e):
    name = type(e).__name__
    return name in ("EntitiesForbidden", "DTDForbidden", "ExternalReferenceForbidden",
                    "NotSupportedError") or "Forbidden" in name


def _profile_xls(path, result):
    import xlrd

    try:
        book = xlrd.open_workbook(path, on_demand=True)
    except MemoryError:
        raise ProfileError(ERR_MEMORY)
    except Exception:  # noqa: BLE001
        raise ProfileError("This workbook is damaged or is not really an Excel 97-2003 file.")
    result["kind"] = "xls"
    tables = []
    for i in range(min(book.nsheets, MAX_SHEETS)):
        sh = book.sheet_by_index(i)
        rows = []
        for r in range(min(sh.nrows, MAX_SHEET_ROWS)):
            row = []
            for c in range(sh.ncols):
                cell = sh.cell(r, c)
                v = cell.value
                if cell.ctype == xlrd.XL_CELL_EMPTY or cell.ctype == xlrd.XL_CELL_BLANK:
                    v = None
                elif cell.ctype == xlrd.XL_CELL_DATE:
                    try:
                        v = xlrd.xldate.xldate_as_datetime(v, book.datemode)
                    except Exception:  # noqa: BLE001
                        pass
                elif cell.ctype == xlrd.XL_CELL_BOOLEAN:
                    v = bool(v)
                elif cell.ctype == xlrd.XL_CELL_ERROR:
                    v = None
                row.append(v)
            rows.append(row)
        tables.append(_sheet_table(sh.name, rows, sh.nrows if sh.nrows > MAX_SHEET_ROWS else None))
    result["sheets"] = book.nsheets
    result["tables"] = tables
    result["read_hint"] = "pd.read_excel(%r, sheet_name=None)" % os.path.basename(path)


def _profile_ods(path, result):
    import pandas as pd

    try:
        sheets = pd.read_excel(path, engine="odf", sheet_name=None, header=None)
    except MemoryError:
        raise ProfileError(ERR_MEMORY)
    except Exception as e:  # noqa: BLE001
        if _is_entities_error(e):
            raise ProfileError(ERR_UNSAFE_XML)
        raise ProfileError("This spreadsheet is damaged or is not really an OpenDocument file.")
    result["kind"] = "ods"
    tables = []
    for name, df in list(sheets.items())[:MAX_SHEETS]:
        rows = [[None if _isnan(v) else (v.to_pydatetime() if hasattr(v, "to_pydatetime") else v)
                 for v in r] for r in df.itertuples(index=False, name=None)]
        tables.append(_sheet_table(name, rows[:MAX_SHEET_ROWS], len(rows) if len(rows) > MAX_SHEET_ROWS else None))
    result["sheets"] = len(sheets)
    result["tables"] = tables
    result["read_hint"] = "pd.read_excel(%r, engine='odf', sheet_name=None)" % os.path.basename(path)


# -- PDF ------------------------------------------------------------------

def _profile_pdf(path, result):
    from pypdf import PdfReader

    result["kind"] = "pdf"
    notes = result.setdefault("notes", [])
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            reader = PdfReader(path, strict=False)
            encrypted = reader.is_encrypted
            if encrypted:
                try:
                    ok = reader.decrypt("")
                except Exception:  # noqa: BLE001
                    ok = 0
                if not ok:
                    raise ProfileError("This PDF is encrypted with a password, so its text cannot be read.")
                notes.append("This PDF is encrypted but opens without a password.")
            pages = reader.pages
            n = len(pages)
    except ProfileError:
        raise
    except MemoryError:
        raise ProfileError(ERR_MEMORY)
    except Exception:  # noqa: BLE001
        raise ProfileError("This PDF is damaged and could not be read.")
    result["pages"] = n
    texts, any_text = [], False
    for i in range(n):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                t = pages[i].extract_text() or ""
        except Exception:  # noqa: BLE001
            t = ""
        if t.strip():
            any_text = True
        if i < MAX_PAGES_TEXT:
            texts.append(_cap(t.strip(), MAX_PAGE_TEXT))
        elif any_text:
            break
    result["page_text"] = texts
    if not any_text:
        result["text_layer"] = False
        notes.append("This PDF has no text layer (it is probably scanned), so its text cannot be read without OCR.")
        return
    result["text_layer"] = True
    tables = _pdf_tables(path, min(n, 20), encrypted)
    if tables:
        result["tables"] = tables
    result["read_hint"] = ("pypdf.PdfReader(%r).pages[i].extract_text(), or "
                           "subprocess.run(['pdftotext', '-layout', %r, '-'])" % ((os.path.basename(path),) * 2))


def _pdf_tables(path, last_page, encrypted):
    """Best effort: runs of lines in pdftotext's layout output that split
    into the same number (>= 2) of columns at runs of 2+ spaces."""
    if encrypted:
        return []
    tables = []
    for page in range(1, last_page + 1):
        try:
            out = subprocess.run(["/usr/bin/pdftotext", "-layout", "-q", "-f", str(page), "-l", str(page), path, "-"],
                                 stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=30, check=False).stdout
        except (OSError, subprocess.SubprocessError):
            return tables
        lines = out.decode("utf-8", errors="replace").splitlines()
        run = []
        for line in lines + ["\f end"]:
            if not line.strip():
                continue  # layout output spaces table rows with blank lines
            cells = [c for c in re.split(r"\s{2,}", line.strip()) if c]
            if len(cells) >= 2 and (not run or len(cells) == len(run[0])):
                run.append(cells)
                continue
            if len(run) >= 3:
                tables.append(_pdf_table(page, run))
            run = [cells] if len(cells) >= 2 else []
        if len(tables) >= 10:
            break
    return tables


def _pdf_table(page, run):
    def conv(v):
        t = v.replace(",", "")
        try:
            return int(t)
        except ValueError:
            try:
                return float(t)
            except ValueError:
                return v
    rows = [[conv(v) for v in r] for r in run]
    table = _sheet_table("page %d" % page, rows)
    table["page"] = page
    return table


# -- text and JSON --------------------------------------------------------

def _profile_text(path, head, size, result):
    if not head.strip():
        raise ProfileError(ERR_EMPTY)
    codec, label = _detect_encoding(head)
    text = _sample_text(head, codec)
    result.update(kind="text", encoding=label)
    lines = 0
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            lines += chunk.count(b"\n")
    result["lines"] = lines
    result["first_lines"] = [_cap(l, 200) for l in text.splitlines()[:MAX_TEXT_LINES]]


def _profile_json(path, head, size, result):
    import pandas as pd

    result["kind"] = "json"
    if not head.strip():
        raise ProfileError(ERR_EMPTY)
    if size > MAX_JSON_BYTES:
        raise ProfileError("This JSON file is too large to profile (over 64 MB).")
    codec, label = _detect_encoding(head)
    try:
        with open(path, encoding=codec) as f:
            data = json.load(f)
    except (ValueError, UnicodeDecodeError):
        # JSON Lines: one object a line.
        try:
            with open(path, encoding=codec) as f:
                data = [json.loads(l) for l in f if l.strip()]
            result["json_lines"] = True
        except (ValueError, UnicodeDecodeError):
            raise ProfileError("This file is not valid JSON.")
    except RecursionError:
        raise ProfileError("This JSON file is nested too deeply to read.")
    records = None
    if isinstance(data, list):
        result["top"] = "array"
        result["length"] = len(data)
        if data and all(isinstance(x, dict) for x in data[:1000]):
            records = data
    elif isinstance(data, dict):
        result["top"] = "object"
        result["keys"] = [_cap(k, 60) for k in list(data)[:50]]
        for k, v in data.items():
            if isinstance(v, list) and v and all(isinstance(x, dict) for x in v[:1000]):
                records = v
                result["records_key"] = _cap(k, 60)
                break
    else:
        result["top"] = type(data).__name__
    if records is not None:
        df = pd.json_normalize(records[:MAX_SHEET_ROWS], max_level=1)
        head = df.head(HEAD_ROWS).astype(object).values.tolist()
        table = _profile_frame(df, None, head)
        table["rows"] = len(records)
        result["tables"] = [table]


# -- entry point ----------------------------------------------------------

def profile_file(path):
    name = os.path.basename(path)
    result = {"name": name}
    try:
        st = os.stat(path, follow_symlinks=False)
        result["size"] = st.st_size
        import stat as _stat
        if not _stat.S_ISREG(st.st_mode):
            raise ProfileError("This is not a regular file.")
        with open(path, "rb") as f:
            head = f.read(SNIFF_BYTES)
        if not head:
            raise ProfileError(ERR_EMPTY)
        kind = _sniff_kind(path, head)
        if kind == "pdf":
            _profile_pdf(path, result)
        elif kind == "xlsx":
            _profile_xlsx(path, result)
        elif kind == "xls":
            _profile_xls(path, result)
        elif kind == "ods":
            _profile_ods(path, result)
        elif kind == "zip":
            raise ProfileError("This file is a ZIP archive, not a spreadsheet.")
        elif kind == "badworkbook":
            raise ProfileError(ERR_ZIP if not _is_binary(head) else ERR_ZIP)
        elif kind == "badpdf":
            raise ProfileError("This file is named .pdf but is not a PDF.")
        elif _is_binary(head):
            raise ProfileError(ERR_BINARY)
        elif kind == "json":
            _profile_json(path, head, st.st_size, result)
        elif kind == "text":
            _profile_text(path, head, st.st_size, result)
        else:
            _profile_csv(path, kind, head, result)
    except ProfileError as e:
        result["error"] = str(e)
    except MemoryError:
        result["error"] = ERR_MEMORY
    except RecursionError:
        result["error"] = "This file is nested too deeply to read."
    except Exception as e:  # noqa: BLE001 - one clear sentence, never a traceback
        if _is_entities_error(e):
            result["error"] = ERR_UNSAFE_XML
        else:
            result["error"] = "This file could not be read (%s)." % _cap(type(e).__name__, 60)
    return result


def main(argv):
    import gc

    files = []
    for p in argv:
        files.append(profile_file(p))
        gc.collect()  # give back what a big file took before the next one
    doc = {"version": 1, "defused": DEFUSED, "files": files}
    return json.dumps(doc, ensure_ascii=False, allow_nan=False, default=str)
