"""Test-suite configuration.

Hypothesis runs derandomized by default, so that CI is deterministic: a property either holds on
the fixed example sequence or fails every time. Set ``HYPOTHESIS_PROFILE=explore`` to search with
fresh random examples (and more of them) when working on a property.
"""

import os

from hypothesis import settings

settings.register_profile("default", derandomize=True, deadline=None)
settings.register_profile("explore", derandomize=False, deadline=None, max_examples=500)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


import pytest  # noqa: E402


@pytest.fixture(scope="session")
def dask_client():
    """A real ``dask.distributed`` cluster for the whole session: two worker processes with one
    thread each, so that every task's inputs and results are serialised between processes as
    on a multi-machine cluster. Skipped when dask is not installed."""
    pytest.importorskip("dask")
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=":0", memory_limit="1GiB") as cluster:
        with distributed.Client(cluster) as client:
            yield client
