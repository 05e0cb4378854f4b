"""Loaders for the small UCI tables: Spambase, Congressional Votes, Hepatitis, Horse Colic and
Breast Cancer Wisconsin (Original).

All return a :class:`sklearn.utils.Bunch` with ``data`` (float64, ``np.nan`` where the file has
``?``), ``target`` (int, 0/1 with the class named in ``target_names``), ``feature_names``,
``target_names``, ``DESCR`` and ``filename``; ``return_X_y=True`` returns ``(X, y)`` instead.
Horse Colic comes with its own test file and also has ``data_test`` / ``target_test``.
Files may be plain or gzipped.
"""

from __future__ import annotations

import os

import numpy as np
import pandas as pd
from sklearn.utils import Bunch

from ._paths import find_dataset_dir, find_dataset_file, open_text

__all__ = ["load_spambase", "load_votes", "load_hepatitis", "load_horse_colic",
           "load_breast_cancer_wisconsin"]

PathLike = str | os.PathLike | None

_SPAM_WORDS = (
    "make address all 3d our over remove internet order mail receive will people report addresses "
    "free business email you credit your font 000 money hp hpl george 650 lab labs telnet 857 data "
    "415 85 technology 1999 parts pm direct cs meeting original project re edu table conference"
).split()
SPAMBASE_FEATURES = (
    [f"word_freq_{w}" for w in _SPAM_WORDS]
    + [f"char_freq_{c}" for c in ";([!$#"]
    + ["capital_run_length_average", "capital_run_length_longest", "capital_run_length_total"]
)

VOTES_FEATURES = [
    "handicapped-infants", "water-project-cost-sharing", "adoption-of-the-budget-resolution",
    "physician-fee-freeze", "el-salvador-aid", "religious-groups-in-schools",
    "anti-satellite-test-ban", "aid-to-nicaraguan-contras", "mx-missile", "immigration",
    "synfuels-corporation-cutback", "education-spending", "superfund-right-to-sue", "crime",
    "duty-free-exports", "export-administration-act-south-africa",
]

HEPATITIS_FEATURES = [
    "age", "sex", "steroid", "antivirals", "fatigue", "malaise", "anorexia", "liver_big",
    "liver_firm", "spleen_palpable", "spiders", "ascites", "varices", "bilirubin",
    "alk_phosphate", "sgot", "albumin", "protime", "histology",
]

HORSE_COLIC_COLUMNS = [
    "surgery", "age", "hospital_number", "rectal_temperature", "pulse", "respiratory_rate",
    "temperature_of_extremities", "peripheral_pulse", "mucous_membranes",
    "capillary_refill_time", "pain", "peristalsis", "abdominal_distension", "nasogastric_tube",
    "nasogastric_reflux", "nasogastric_reflux_ph", "rectal_examination_feces", "abdomen",
    "packed_cell_volume", "total_protein", "abdominocentesis_appearance",
    "abdominocentesis_total_protein", "outcome", "surgical_lesion", "type_of_lesion_1",
    "type_of_lesion_2", "type_of_lesion_3", "cp_data",
]
# features: columns 1, 2 and 4-22 (1-based); 3 is an ID, 23 and 25-28 describe the outcome
HORSE_COLIC_FEATURE_COLUMNS = [0, 1] + list(range(3, 22))

BREAST_CANCER_FEATURES = [
    "clump_thickness", "uniformity_of_cell_size", "uniformity_of_cell_shape",
    "marginal_adhesion", "single_epithelial_cell_size", "bare_nuclei", "bland_chromatin",
    "normal_nucleoli", "mitoses",
]


# -- shared helpers ------------------------------------------------------------------------------
def _read_table(path, *, sep: str, n_columns: int, dataset: str) -> pd.DataFrame:
    """Read a headerless UCI table as strings, ``?`` (and empty cells) becoming missing."""
    frame = pd.read_csv(open_text(path), header=None, sep=sep, dtype=str, na_values=["?"],
                        keep_default_na=False, skipinitialspace=True)
    if frame.shape[1] != n_columns:
        raise ValueError(
            f"{path}: expected {n_columns} columns in the {dataset} file, found {frame.shape[1]}."
        )
    if frame.shape[0] == 0:
        raise ValueError(f"{path}: the {dataset} file has no rows.")
    return frame


def _to_float(frame: pd.DataFrame, path, dataset: str) -> np.ndarray:
    try:
        return frame.to_numpy(dtype=np.float64, na_value=np.nan)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{path}: non-numeric value in the {dataset} features: {exc}") from None


def _encode_labels(values, mapping: dict, path, dataset: str) -> np.ndarray:
    """Map raw label strings to ints; anything unexpected (or missing) is an error."""
    series = pd.Series(values, dtype=object).str.strip()
    target = series.map(mapping)
    if target.isna().any():
        bad = sorted({str(v) for v in series[target.isna()]})
        raise ValueError(
            f"{path}: unexpected label value(s) {bad} in the {dataset} file; "
            f"expected one of {sorted(mapping)}."
        )
    return target.to_numpy(dtype=np.int64)


def _bunch(X, y, feature_names, target_names, descr, path, return_X_y, **extra):
    if return_X_y:
        if "data_test" in extra:
            return X, extra["data_test"], y, extra["target_test"]
        return X, y
    return Bunch(data=X, target=y, feature_names=np.asarray(feature_names, dtype=object),
                 target_names=np.asarray(target_names, dtype=object), DESCR=descr,
                 filename=str(path), **extra)


# -- loaders -------------------------------------------------------------------------------------
def load_spambase(path: PathLike = None, data_dir: PathLike = None, *,
                  return_X_y: bool = False) -> Bunch | tuple:
    """Load UCI Spambase (4601 e-mails, 57 features, 1813 spam).

    File format: ``spambase/spambase.data`` (plain or ``.gz``), comma-separated, no header,
    58 columns: 48 ``word_freq_*``, 6 ``char_freq_*`` and 3 ``capital_run_length_*`` features,
    then the label (1 = spam, 0 = not spam). There are no missing values.

    Parameters
    ----------
    path : str or path-like, default=None
        The data file itself.
    data_dir : str or path-like, default=None
        Folder holding the ``spambase/`` folder (or that folder itself). Defaults to the
        ``ROBUSTCLF_DATA`` environment variable (see :mod:`robustclf.datasets`).
    return_X_y : bool, default=False
        Return ``(X, y)`` instead of a Bunch.

    Returns
    -------
    data : Bunch
        With ``data`` (n, 57) float64, ``target`` (n,) int (1 = spam),
        ``feature_names``, ``target_names`` (``["not_spam", "spam"]``), ``DESCR``, ``filename``.
    (X, y) : tuple
        If ``return_X_y``.

    Raises
    ------
    FileNotFoundError
        If the file cannot be found.
    ValueError
        If the file does not have 58 numeric columns or its labels are not 0/1.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from robustclf.datasets import load_spambase
    >>> with tempfile.TemporaryDirectory() as folder:  # a two-row stand-in for spambase.data
    ...     path = Path(folder) / "spambase.data"
    ...     _ = path.write_text("0.1," * 57 + "1\\n" + "0.0," * 57 + "0\\n")
    ...     X, y = load_spambase(path, return_X_y=True)
    >>> X.shape, y
    ((2, 57), array([1, 0]))
    """
    file = find_dataset_file("spambase", ["spambase.data"], path=path, data_dir=data_dir)
    frame = _read_table(file, sep=",", n_columns=58, dataset="spambase")
    X = _to_float(frame.iloc[:, :57], file, "spambase")
    if np.isnan(X).any():
        raise ValueError(f"{file}: the spambase file should have no missing values.")
    y = _encode_labels(frame.iloc[:, 57], {"0": 0, "1": 1}, file, "spambase")
    descr = ("UCI Spambase: word/character frequencies and capital-run statistics of 4601 "
             "e-mails; target 1 = spam.")
    return _bunch(X, y, SPAMBASE_FEATURES, ["not_spam", "spam"], descr, file, return_X_y)


def load_votes(path: PathLike = None, data_dir: PathLike = None, *,
               return_X_y: bool = False) -> Bunch | tuple:
    """Load the UCI Congressional Voting Records (house-votes-84), 435 x 16, with missing votes.

    File format: ``house_votes_84/house-votes-84.data`` (plain or ``.gz``), comma-separated,
    no header, 17 columns: the party (``democrat`` / ``republican``) then 16 votes, each ``y``,
    ``n`` or ``?``. Votes are coded ``y`` -> 1.0, ``n`` -> 0.0 and ``?`` -> ``np.nan`` (392
    cells; the UCI notes say ``?`` means "neither yea nor nay" rather than strictly unknown).

    Parameters
    ----------
    path, data_dir, return_X_y
        As in :func:`load_spambase` (the dataset folder is ``house_votes_84/``).

    Returns
    -------
    data : Bunch
        With ``data`` (435, 16) float64 with NaN, ``target`` int
        (1 = republican, 0 = democrat), ``feature_names``, ``target_names``, ``DESCR``.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from robustclf.datasets import load_votes
    >>> rows = "republican" + ",y" * 15 + ",?\\n" + "democrat" + ",n" * 16 + "\\n"
    >>> with tempfile.TemporaryDirectory() as folder:  # a two-row stand-in for the file
    ...     path = Path(folder) / "house-votes-84.data"
    ...     _ = path.write_text(rows)
    ...     votes = load_votes(path)
    >>> votes.data[:, -2:], votes.target
    (array([[ 1., nan],
           [ 0.,  0.]]), array([1, 0]))
    """
    file = find_dataset_file("house_votes_84", ["house-votes-84.data"], path=path,
                             data_dir=data_dir)
    frame = _read_table(file, sep=",", n_columns=17, dataset="house-votes-84")
    votes = frame.iloc[:, 1:]
    codes = votes.apply(lambda col: col.str.strip().str.lower().map({"y": 1.0, "n": 0.0}))
    bad = votes.notna() & codes.isna()
    if bad.to_numpy().any():
        raise ValueError(f"{file}: votes must be 'y', 'n' or '?', found "
                         f"{sorted(set(votes[bad].stack()))}.")
    X = codes.to_numpy(dtype=np.float64, na_value=np.nan)
    y = _encode_labels(frame.iloc[:, 0], {"democrat": 0, "republican": 1}, file,
                       "house-votes-84")
    descr = ("UCI Congressional Voting Records (1984): 16 votes (y=1, n=0, ?=NaN) of 435 "
             "representatives; target 1 = republican.")
    return _bunch(X, y, VOTES_FEATURES, ["democrat", "republican"], descr, file, return_X_y)


def load_hepatitis(path: PathLike = None, data_dir: PathLike = None, *,
                   return_X_y: bool = False) -> Bunch | tuple:
    """Load UCI Hepatitis (155 patients, 19 features, 167 missing values).

    File format: ``hepatitis/hepatitis.data`` (plain or ``.gz``), comma-separated, no header,
    20 columns: the class (1 = DIE, 2 = LIVE) then AGE, SEX, STEROID, ..., HISTOLOGY. Binary
    features keep their 1/2 codes; ``?`` becomes ``np.nan``.

    Parameters
    ----------
    path, data_dir, return_X_y
        As in :func:`load_spambase` (the dataset folder is ``hepatitis/``).

    Returns
    -------
    data : Bunch
        With ``data`` (155, 19) float64 with NaN, ``target`` int
        (1 = die, 0 = live: the minority "event" class is positive), ``feature_names``,
        ``target_names`` (``["live", "die"]``), ``DESCR``.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from robustclf.datasets import load_hepatitis
    >>> rows = "2,30" + ",2" * 17 + ",1\\n" + "1,50" + ",1" * 16 + ",?,2\\n"
    >>> with tempfile.TemporaryDirectory() as folder:  # a two-row stand-in for the file
    ...     path = Path(folder) / "hepatitis.data"
    ...     _ = path.write_text(rows)
    ...     data = load_hepatitis(path)
    >>> data.data.shape, data.target
    ((2, 19), array([0, 1]))
    >>> data.feature_names[-2], data.data[:, -2]
    ('protime', array([ 2., nan]))
    """
    file = find_dataset_file("hepatitis", ["hepatitis.data"], path=path, data_dir=data_dir)
    frame = _read_table(file, sep=",", n_columns=20, dataset="hepatitis")
    X = _to_float(frame.iloc[:, 1:], file, "hepatitis")
    y = _encode_labels(frame.iloc[:, 0], {"1": 1, "2": 0}, file, "hepatitis")
    descr = ("UCI Hepatitis: 19 clinical features (binary ones coded 1/2, ?=NaN) of 155 "
             "patients; target 1 = died.")
    return _bunch(X, y, HEPATITIS_FEATURES, ["live", "die"], descr, file, return_X_y)


def load_horse_colic(path: PathLike = None, data_dir: PathLike = None, *,
                     return_X_y: bool = False) -> Bunch | tuple:
    """Load UCI Horse Colic with its own train (300) / test (68) split; about 19 % missing.

    File format: ``horse_colic/horse-colic.data`` and ``horse_colic/horse-colic.test`` (plain or
    ``.gz``), whitespace-separated, no header, 28 columns, ``?`` for missing. The target is
    column 24, "surgical lesion?" (1 = yes, 2 = no), as the donor's notes suggest.

    Features are the 21 columns 1, 2 and 4-22 (surgery, age, rectal temperature, ...,
    abdominocentesis total protein), with their codes kept as numbers (several are nominal:
    one-hot encode them if the model needs it). Dropped: column 3 (hospital number, an ID),
    column 23 (outcome) and columns 25-28 (lesion-type codes and cp_data), which describe the
    outcome rather than the horse at admission.

    Parameters
    ----------
    path : str or path-like, default=None
        The folder holding both files.
    data_dir : str or path-like, default=None
        Folder holding the ``horse_colic/`` folder (or that folder itself).
    return_X_y : bool, default=False
        Return ``(X_train, X_test, y_train, y_test)`` (the order of
        :func:`sklearn.model_selection.train_test_split`) instead of a Bunch.

    Returns
    -------
    data : Bunch
        With ``data`` (300, 21), ``target``, ``data_test`` (68, 21), ``target_test``
        (target 1 = surgical lesion), ``feature_names``, ``target_names``, ``DESCR``.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from robustclf.datasets import load_horse_colic
    >>> train, test = "1 " * 27 + "1\\n" + "2 " * 27 + "?\\n", "? " * 23 + "1 " * 4 + "1\\n"
    >>> with tempfile.TemporaryDirectory() as folder:  # stand-ins for the two files
    ...     _ = (Path(folder) / "horse-colic.data").write_text(train)
    ...     _ = (Path(folder) / "horse-colic.test").write_text(test)
    ...     data = load_horse_colic(folder)
    >>> data.data.shape, data.target, data.data_test.shape, data.target_test
    ((2, 21), array([1, 0]), (1, 21), array([1]))
    """
    folder = find_dataset_dir("horse_colic", ["horse-colic.data"], path=path, data_dir=data_dir)
    files = []
    for name in ("horse-colic.data", "horse-colic.test"):
        file = next((folder / (name + s) for s in ("", ".gz") if (folder / (name + s)).is_file()),
                    None)
        if file is None:
            raise FileNotFoundError(f"{folder}: missing {name} (plain or .gz); Horse Colic needs "
                                    "both its training and its test file.")
        files.append(file)
    parts = []
    for file in files:
        frame = _read_table(file, sep=r"\s+", n_columns=28, dataset="horse-colic")
        X = _to_float(frame.iloc[:, HORSE_COLIC_FEATURE_COLUMNS], file, "horse-colic")
        y = _encode_labels(frame.iloc[:, 23], {"1": 1, "2": 0}, file, "horse-colic")
        parts.append((X, y))
    (X, y), (X_test, y_test) = parts
    feature_names = [HORSE_COLIC_COLUMNS[j] for j in HORSE_COLIC_FEATURE_COLUMNS]
    descr = ("UCI Horse Colic: 21 admission features (codes kept as numbers, ?=NaN); target "
             "1 = surgical lesion. Separate test file in data_test / target_test.")
    return _bunch(X, y, feature_names, ["no_lesion", "surgical_lesion"], descr, files[0],
                  return_X_y, data_test=X_test, target_test=y_test, filename_test=str(files[1]))


def load_breast_cancer_wisconsin(path: PathLike = None, data_dir: PathLike = None, *,
                                 return_X_y: bool = False) -> Bunch | tuple:
    """Load UCI Breast Cancer Wisconsin (Original): 699 x 9, 16 missing bare-nuclei values.

    File format: ``breast_cancer_wisconsin_original/breast-cancer-wisconsin.data`` (plain or
    ``.gz``), comma-separated, no header, 11 columns: sample ID (dropped), nine integer features
    1-10, class (2 = benign, 4 = malignant). ``?`` becomes ``np.nan``.

    Not the same data as :func:`sklearn.datasets.load_breast_cancer` (the Diagnostic set).

    Parameters
    ----------
    path, data_dir, return_X_y
        As in :func:`load_spambase` (the dataset folder is
        ``breast_cancer_wisconsin_original/``).

    Returns
    -------
    data : Bunch
        With ``data`` (699, 9) float64 with NaN, ``target`` int
        (1 = malignant, 0 = benign), ``feature_names``, ``target_names``, ``DESCR``.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from robustclf.datasets import load_breast_cancer_wisconsin
    >>> rows = "1000025,5,1,1,1,2,1,3,1,1,2\\n1057013,8,4,5,1,2,?,7,3,1,4\\n"
    >>> with tempfile.TemporaryDirectory() as folder:  # a two-row stand-in for the file
    ...     path = Path(folder) / "breast-cancer-wisconsin.data"
    ...     _ = path.write_text(rows)
    ...     data = load_breast_cancer_wisconsin(path)
    >>> data.data[:, 5], data.target
    (array([ 1., nan]), array([0, 1]))
    """
    file = find_dataset_file("breast_cancer_wisconsin_original", ["breast-cancer-wisconsin.data"],
                             path=path, data_dir=data_dir)
    frame = _read_table(file, sep=",", n_columns=11, dataset="breast-cancer-wisconsin")
    X = _to_float(frame.iloc[:, 1:10], file, "breast-cancer-wisconsin")
    y = _encode_labels(frame.iloc[:, 10], {"2": 0, "4": 1}, file, "breast-cancer-wisconsin")
    descr = ("UCI Breast Cancer Wisconsin (Original): nine cytology scores 1-10 (?=NaN) of 699 "
             "samples; target 1 = malignant.")
    return _bunch(X, y, BREAST_CANCER_FEATURES, ["benign", "malignant"], descr, file, return_X_y)
