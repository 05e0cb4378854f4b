"""Where the public data files live, and how to open them.

The library never ships or copies data. Loaders look for a dataset's files in this order:

1. ``path``: the file itself (or, for datasets made of several files, the folder holding them);
2. ``data_dir``: a folder holding the dataset folders (``<data_dir>/spambase/spambase.data.gz``);
   the dataset folder itself is accepted too (``<data_dir>/spambase.data.gz``);
3. the environment variable ``ROBUSTCLF_DATA``, read the same way as ``data_dir``;
4. in a source checkout only (a ``pyproject.toml`` two levels above the package), the folder
   ``../shared/data`` next to the repository root. This fallback exists for the project's own
   development layout and is skipped in an installed package.

Each candidate file name may be plain or gzipped (``name`` or ``name.gz``); files are opened by
their content (gzip magic bytes), not by their suffix.
"""

from __future__ import annotations

import gzip
import io
import os
import zlib
from collections.abc import Sequence
from pathlib import Path

__all__ = ["DATA_ENV_VAR", "get_data_home", "find_dataset_file", "find_dataset_dir", "open_text",
           "read_bytes"]

#: The environment variable naming the folder of the public datasets (see :func:`get_data_home`).
DATA_ENV_VAR = "ROBUSTCLF_DATA"

_GZIP_MAGIC = b"\x1f\x8b"


def _checkout_fallback() -> Path | None:
    """``<repo>/../shared/data`` when running from a source checkout, else ``None``."""
    repo = Path(__file__).resolve().parents[3]  # src/robustclf/datasets/_paths.py -> repo
    if not (repo / "pyproject.toml").is_file():
        return None
    return repo.parent / "shared" / "data"


def get_data_home(data_dir: str | os.PathLike | None = None) -> Path | None:
    """The folder that holds the dataset folders, or ``None`` if none is configured.

    Parameters
    ----------
    data_dir : str or path-like, default=None
        Explicit folder. When ``None``, the environment variable ``ROBUSTCLF_DATA`` is used, and
        when that is unset, ``../shared/data`` next to the repository root of a source checkout
        (if it exists).

    Returns
    -------
    path : pathlib.Path or None
        The folder (not checked for existence when given explicitly), or ``None`` when nothing
        is configured and the checkout fallback does not exist.

    Examples
    --------
    >>> from pathlib import Path
    >>> from robustclf.datasets import get_data_home
    >>> get_data_home("~/robustclf_data") == Path.home() / "robustclf_data"
    True
    """
    if data_dir is not None:
        return Path(data_dir).expanduser()
    env = os.environ.get(DATA_ENV_VAR)
    if env:
        return Path(env).expanduser()
    fallback = _checkout_fallback()
    if fallback is not None and fallback.is_dir():
        return fallback
    return None


def _with_gz(names: Sequence[str]) -> list[str]:
    out = []
    for name in names:
        out.append(name)
        if not name.endswith(".gz"):
            out.append(name + ".gz")
    return out


def _not_found(dataset: str, what: str, looked: list[Path]) -> FileNotFoundError:
    where = "\n  ".join(str(p) for p in looked) if looked else "(no data folder configured)"
    return FileNotFoundError(
        f"Could not find the {dataset} data ({what}). Looked in:\n  {where}\n"
        f"Set the {DATA_ENV_VAR} environment variable to the folder that holds the dataset "
        f"folders (e.g. the folder containing '{dataset}/'), or pass data_dir=..., or pass "
        "path=... pointing at the file itself."
    )


def _candidate_dirs(subdir: str, data_dir) -> list[Path]:
    home = get_data_home(data_dir)
    if home is None:
        return []
    return [home / subdir, home]


def find_dataset_file(subdir: str, names: Sequence[str], *, path=None, data_dir=None) -> Path:
    """Resolve one data file.

    Parameters
    ----------
    subdir : str
        The dataset's folder name under the data home (e.g. ``"spambase"``).
    names : sequence of str
        Accepted file names, in order of preference; each is also tried with ``.gz`` appended.
    path : str or path-like, default=None
        The file itself; when given it must exist and is returned unchanged.
    data_dir : str or path-like, default=None
        Folder holding the dataset folders (see :func:`get_data_home`).

    Raises
    ------
    FileNotFoundError
        When nothing is found; the message lists where it looked and how to configure the data.
    """
    if path is not None:
        path = Path(path).expanduser()
        if not path.is_file():
            raise FileNotFoundError(f"path={str(path)!r} is not an existing file.")
        return path
    looked = []
    for folder in _candidate_dirs(subdir, data_dir):
        for name in _with_gz(names):
            candidate = folder / name
            if candidate.is_file():
                return candidate
            looked.append(candidate)
    raise _not_found(subdir, " or ".join(names), looked)


def find_dataset_dir(subdir: str, marker_names: Sequence[str], *, path=None,
                     data_dir=None) -> Path:
    """Resolve the folder of a dataset made of several files.

    The folder is accepted when it contains at least one of ``marker_names`` (plain or gzipped).
    ``path`` (the folder itself) must exist; ``data_dir`` and the defaults are searched like
    :func:`find_dataset_file`.
    """
    def has_marker(folder: Path) -> bool:
        return any((folder / n).is_file() for n in _with_gz(marker_names))

    if path is not None:
        path = Path(path).expanduser()
        if not path.is_dir():
            raise FileNotFoundError(f"path={str(path)!r} is not an existing folder.")
        return path
    looked = []
    for folder in _candidate_dirs(subdir, data_dir):
        if has_marker(folder):
            return folder
        looked.append(folder)
    raise _not_found(subdir, "a folder holding " + " or ".join(marker_names), looked)


#: What a corrupt or truncated gzip file raises when it is read to its end: ``EOFError`` (the
#: stream ends before its end-of-stream marker: a cut file), ``gzip.BadGzipFile`` (an
#: ``OSError``: bad header, CRC or length) or ``zlib.error`` (corrupt deflate data).
GZIP_ERRORS = (EOFError, gzip.BadGzipFile, zlib.error)


def gzip_error(path, exc: Exception, kind: str = "gzip") -> ValueError:
    """The error for a file that ``exc`` (one of :data:`GZIP_ERRORS`) showed to be a corrupt
    or truncated gzip file; ``kind`` is the format expected (``"CSV"``...)."""
    return ValueError(f"data file {str(path)!r} is not a readable {kind} file: it is a corrupt "
                      f"or truncated gzip file, an interrupted download? "
                      f"({type(exc).__name__}: {exc}).")


def read_bytes(path: str | os.PathLike) -> bytes:
    """The file's content, gunzipped when it starts with the gzip magic bytes.

    A gzipped file is decompressed to its end, so that a truncated file (an interrupted
    download) or a corrupt one is detected by its missing end-of-stream marker or its CRC,
    never read as a shorter table.

    Raises
    ------
    ValueError
        The file is a corrupt or truncated gzip file (the message names it).
    """
    with open(path, "rb") as fh:
        raw = fh.read()
    if raw[:2] == _GZIP_MAGIC:
        try:
            raw = gzip.decompress(raw)
        except GZIP_ERRORS as exc:
            raise gzip_error(path, exc) from None
    return raw


def open_text(path: str | os.PathLike, encoding: str = "utf-8") -> io.StringIO:
    """The file's text as an in-memory stream (gzip detected by content)."""
    return io.StringIO(read_bytes(path).decode(encoding, errors="replace"))
