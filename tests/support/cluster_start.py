"""A Dask preload (``LocalCluster(preload=[this file])``) that makes worker processes fail to start: each start is
appended to ``$CLUSTER_START_LOG``, and the first ``$CLUSTER_START_FAILURES`` starts exit at once, so that their
nanny reports "Nanny failed to start" as a crowded host once did (tests/library/test_cluster_start.py)."""

from __future__ import annotations

import fcntl
import os
from typing import Any


def dask_setup(worker: Any) -> None:
    with open(os.environ["CLUSTER_START_LOG"], "a+") as f:
        fcntl.flock(f, fcntl.LOCK_EX)  # workers of one stage start together
        f.seek(0)
        started = len(f.read().splitlines())
        f.write(f"{os.getpid()}\n")
        f.flush()
    if started < int(os.environ["CLUSTER_START_FAILURES"]):
        os._exit(3)
