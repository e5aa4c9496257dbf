"""Job task keys: each job is its own Dask task group, and the job id reads back from the key."""

from __future__ import annotations

from dask.utils import key_split

from backtestd.jobs.executors.dask import JOB_KEY_PREFIX, job_id_of, task_key


def test_the_job_id_reads_back_from_the_key_even_with_dashes() -> None:
    for job_id in ("exe-1f2e3d", "prep-sim-ticker-abc-0042", "plain"):
        key = task_key(job_id)
        assert key.startswith(JOB_KEY_PREFIX)
        assert job_id_of(key) == job_id


def test_every_submission_is_its_own_task_group() -> None:
    """A shared group would let Dask hold later jobs back behind ones a worker already has."""
    keys = [task_key("exe-1f2e3d") for _ in range(200)]
    assert len(set(keys)) == 200
    groups = {key_split(key) for key in keys}
    assert len(groups) == 200
    assert all(group.startswith("job-") for group in groups)
