"""Where jobs run: Dask (LocalCluster or an existing cluster) or inline threads (tests)."""
