"""MNIST loader: a ``mnist.npz`` archive or the four original IDX files."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from sklearn.utils import Bunch

from ._paths import find_dataset_dir, read_bytes

__all__ = ["load_mnist", "read_idx"]

PathLike = str | os.PathLike | None

_NPZ_NAME = "mnist.npz"
_NPZ_KEYS = ("x_train", "y_train", "x_test", "y_test")
# each key: accepted IDX file names (the common "-idx" and the occasional ".idx" spelling)
_IDX_NAMES = {
    "x_train": ("train-images-idx3-ubyte", "train-images.idx3-ubyte"),
    "y_train": ("train-labels-idx1-ubyte", "train-labels.idx1-ubyte"),
    "x_test": ("t10k-images-idx3-ubyte", "t10k-images.idx3-ubyte"),
    "y_test": ("t10k-labels-idx1-ubyte", "t10k-labels.idx1-ubyte"),
}
_IDX_DTYPES = {0x08: ">u1", 0x09: ">i1", 0x0B: ">i2", 0x0C: ">i4", 0x0D: ">f4", 0x0E: ">f8"}


def read_idx(path: str | os.PathLike) -> np.ndarray:
    """Read one IDX file (plain or gzipped) into a numpy array.

    IDX format (LeCun's MNIST files): two zero bytes, a type code (``0x08`` unsigned byte,
    ``0x09`` signed byte, ``0x0B`` int16, ``0x0C`` int32, ``0x0D`` float32, ``0x0E`` float64), the
    number of dimensions, then one big-endian uint32 per dimension, then the data, big-endian,
    in C order.

    Parameters
    ----------
    path : str or path-like
        The IDX file.

    Returns
    -------
    array : ndarray
        With the header's shape, in native byte order.

    Raises
    ------
    ValueError
        If the header is not an IDX header or the data size does not match it.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from robustclf.datasets import read_idx
    >>> header = bytes([0, 0, 0x08, 2]) + (2).to_bytes(4, "big") + (3).to_bytes(4, "big")
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = Path(folder) / "images-idx2-ubyte"
    ...     _ = path.write_bytes(header + bytes(range(6)))
    ...     images = read_idx(path)
    >>> images
    array([[0, 1, 2],
           [3, 4, 5]], dtype=uint8)
    """
    raw = read_bytes(path)
    if len(raw) < 4 or raw[0] != 0 or raw[1] != 0 or raw[2] not in _IDX_DTYPES:
        raise ValueError(f"{path}: not an IDX file (bad magic number {raw[:4]!r}).")
    ndim = raw[3]
    header = 4 + 4 * ndim
    if ndim == 0 or len(raw) < header:
        raise ValueError(f"{path}: truncated IDX header.")
    shape = tuple(int(d) for d in np.frombuffer(raw, dtype=">u4", count=ndim, offset=4))
    dtype = np.dtype(_IDX_DTYPES[raw[2]])
    expected = int(np.prod(shape)) * dtype.itemsize
    if len(raw) - header != expected:
        raise ValueError(
            f"{path}: IDX header announces shape {shape} ({expected} bytes of data) but the file "
            f"holds {len(raw) - header} bytes after the header."
        )
    data = np.frombuffer(raw, dtype=dtype, offset=header).reshape(shape)
    return data.astype(dtype.newbyteorder("="))


def _find(folder: Path, names: Sequence[str]) -> Path | None:
    for name in names:
        for candidate in (folder / name, folder / (name + ".gz")):
            if candidate.is_file():
                return candidate
    return None


def _read_arrays(path: Path) -> tuple[dict[str, np.ndarray], str]:
    """The four arrays from an .npz file or from a folder with the npz or the IDX files."""
    if path.is_file():
        npz = path
    else:
        npz = _find(path, [_NPZ_NAME])
    if npz is not None and npz.suffix == ".npz":
        with np.load(npz) as archive:
            missing = [k for k in _NPZ_KEYS if k not in archive.files]
            if missing:
                raise ValueError(f"{npz}: missing array(s) {missing}; expected keys {_NPZ_KEYS}.")
            return {k: archive[k] for k in _NPZ_KEYS}, str(npz)
    if path.is_file():
        raise ValueError(f"path={str(path)!r}: expected a .npz archive or a folder of IDX files.")
    files = {key: _find(path, names) for key, names in _IDX_NAMES.items()}
    missing = [names[0] for key, names in _IDX_NAMES.items() if files[key] is None]
    if missing:
        raise FileNotFoundError(
            f"{path}: no {_NPZ_NAME} and missing IDX file(s) {missing} (plain or .gz)."
        )
    return {key: read_idx(file) for key, file in files.items()}, str(path)


def _prepare(images: np.ndarray, labels: np.ndarray, which: str, source: str):
    if images.ndim not in (2, 3) or labels.ndim != 1 or images.shape[0] != labels.shape[0]:
        raise ValueError(
            f"{source}: {which} images of shape {images.shape} do not match labels of shape "
            f"{labels.shape}."
        )
    return images.reshape(images.shape[0], -1), labels.astype(np.int64)


def load_mnist(path: PathLike = None, data_dir: PathLike = None, *,
               digits: Sequence[int] | None = None, scale: bool = False,
               dtype=np.float64, return_X_y: bool = False) -> Bunch | tuple:
    """Load MNIST with its standard 60,000 / 10,000 train/test split, images flattened to 784.

    File formats, searched in this order in the ``mnist/`` folder:

    * ``mnist.npz``, a numpy archive with uint8 arrays ``x_train`` (60000, 28, 28), ``y_train``
      (60000,), ``x_test`` (10000, 28, 28), ``y_test`` (10000,);
    * the four original IDX files ``train-images-idx3-ubyte``, ``train-labels-idx1-ubyte``,
      ``t10k-images-idx3-ubyte``, ``t10k-labels-idx1-ubyte`` (each plain or ``.gz``; the
      ``.idx3-ubyte`` spelling is accepted too), read by :func:`read_idx`.

    Parameters
    ----------
    path : str or path-like, default=None
        The ``.npz`` file, or a folder holding it or the IDX files.
    data_dir : str or path-like, default=None
        Folder holding the ``mnist/`` folder (or that folder itself); defaults to the
        ``ROBUSTCLF_DATA`` environment variable.
    digits : sequence of int, default=None
        Keep only these digits (e.g. ``(4, 7)`` for Dekel & Shamir's 4-vs-7 task). Labels keep
        their digit values; map them yourself if you need 0/1 or -1/+1.
    scale : bool, default=False
        Return pixels divided by 255 as ``dtype`` floats in [0, 1]; otherwise uint8 in 0-255.
        Full MNIST in float64 takes about 440 MB.
    dtype : numpy.dtype, default=np.float64
        Float type of the scaled pixels (ignored when ``scale=False``).
    return_X_y : bool, default=False
        Return ``(X_train, X_test, y_train, y_test)`` (the order of
        :func:`sklearn.model_selection.train_test_split`) instead of a Bunch.

    Returns
    -------
    data : Bunch
        With ``data`` (n_train, 784), ``target`` (n_train,) int digits, ``data_test``,
        ``target_test``, ``feature_names`` (``pixel_<row>_<col>``), ``target_names`` (the
        digits kept), ``DESCR``, ``filename``.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> import numpy as np
    >>> from robustclf.datasets import load_mnist
    >>> images = np.zeros((3, 28, 28), dtype=np.uint8)
    >>> with tempfile.TemporaryDirectory() as folder:  # a three-image stand-in for mnist.npz
    ...     np.savez(Path(folder) / "mnist.npz", x_train=images, y_train=np.array([4, 7, 1]),
    ...              x_test=images[:2], y_test=np.array([7, 4]))
    ...     X_train, X_test, y_train, y_test = load_mnist(folder, digits=(4, 7), scale=True,
    ...                                                   return_X_y=True)
    >>> X_train.shape, y_train, X_test.shape, y_test
    ((2, 784), array([4, 7]), (2, 784), array([7, 4]))
    """
    if scale and np.dtype(dtype).kind != "f":
        raise ValueError(f"dtype must be a float type when scale=True, got {dtype!r}.")
    if digits is not None:
        digits = np.unique(np.asarray(digits))
        if digits.size == 0 or digits.dtype.kind not in "iu" or digits.min() < 0 \
                or digits.max() > 9:
            raise ValueError(f"digits must be a non-empty sequence of integers 0-9, got {digits}.")
    folder_or_file = Path(path).expanduser() if path is not None else find_dataset_dir(
        "mnist", [_NPZ_NAME, *(n for names in _IDX_NAMES.values() for n in names)],
        data_dir=data_dir)
    if path is not None and not folder_or_file.exists():
        raise FileNotFoundError(f"path={str(path)!r} does not exist.")
    arrays, source = _read_arrays(folder_or_file)
    X, y = _prepare(arrays["x_train"], arrays["y_train"], "train", source)
    X_test, y_test = _prepare(arrays["x_test"], arrays["y_test"], "test", source)
    if X.shape[1] != X_test.shape[1]:
        raise ValueError(f"{source}: train and test images have different sizes.")
    if digits is not None:
        keep, keep_test = np.isin(y, digits), np.isin(y_test, digits)
        X, y, X_test, y_test = X[keep], y[keep], X_test[keep_test], y_test[keep_test]
    if scale:
        X, X_test = X.astype(dtype), X_test.astype(dtype)
        X /= 255
        X_test /= 255
    if return_X_y:
        return X, X_test, y, y_test
    side = int(round(np.sqrt(X.shape[1])))
    if side * side == X.shape[1]:
        names = [f"pixel_{r}_{c}" for r in range(side) for c in range(side)]
    else:
        names = [f"pixel_{j}" for j in range(X.shape[1])]
    return Bunch(
        data=X, target=y, data_test=X_test, target_test=y_test,
        feature_names=np.asarray(names, dtype=object),
        target_names=np.arange(10) if digits is None else digits,
        DESCR="MNIST handwritten digits (LeCun, Cortes & Burges): 28x28 pixels flattened to "
              "784 features, standard 60k/10k train/test split.",
        filename=source,
    )
