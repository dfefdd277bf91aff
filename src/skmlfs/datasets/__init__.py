"""Multi-label data sets: Mulan/MEKA ARFF (dense and sparse), MATLAB ``.mat``, synthetic data.

Public API
----------
load                 an ARFF file (or a list of parts, or a ``.mat`` file) -> MultiLabelDataset
load_train_test      a ``*-train.arff`` + ``*-test.arff`` pair as one data set
load_name            a data set by name under ``$MLFS_DATASETS`` (``"emotions"``, ``"plcfs/enron"``)
load_mat             a PLCFS-style ``.mat`` file (``data``, ``answer``, ``data_dis``, ``sim_seq``)
read_label_xml       the label names of a Mulan XML label file
load_tabular         a CSV / TSV / Parquet table with named label columns
save                 write ARFF + XML (dense or sparse) or a CSV / TSV / Parquet table
select_features      the data set restricted to some features (what ``mlfs transform`` writes)
fetch                a standard data set by name, downloaded once into a checksummed cache
data_home            the download cache (``$MLFS_DATA_HOME`` or ``~/scikit_mlfs_data``)
make_multilabel_discrete  seeded synthetic data with informative / redundant / noise features
MultiLabelDataset    the container (``X``, ``Y``, names, types, ``stats()``)
format_stats         Table-1 style text table of data set statistics
DatasetError         the one error type for malformed input (names file and line)
ARFFError            its subclass for ARFF and label files
"""

from ._arff import ARFFError
from ._dataset import DatasetError, MissingValuesWarning, MultiLabelDataset, format_stats
from ._fetch import base_url_for, fetch
from ._load import load, load_name, load_train_test
from ._mat import LabelCopiesWarning, load_mat
from ._sources import PROVENANCE, REGISTRY, FetchError, data_home, registry_key
from ._synthetic import make_multilabel_discrete
from ._tabular import TABULAR_SUFFIXES, load_tabular
from ._write import save, select_features, write_arff, write_table
from ._xml import read_label_xml

__all__ = [
    "ARFFError",
    "PROVENANCE",
    "TABULAR_SUFFIXES",
    "base_url_for",
    "DatasetError",
    "FetchError",
    "REGISTRY",
    "data_home",
    "fetch",
    "registry_key",
    "load_tabular",
    "save",
    "select_features",
    "write_arff",
    "write_table",
    "LabelCopiesWarning",
    "MissingValuesWarning",
    "MultiLabelDataset",
    "format_stats",
    "load",
    "load_mat",
    "load_name",
    "load_train_test",
    "make_multilabel_discrete",
    "read_label_xml",
]
