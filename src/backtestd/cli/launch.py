"""The ``backtestd`` console script's entry point, kept apart from the commands it runs.

``serve`` starts its Dask workers as spawned processes, and a spawned process first re-imports
the script that started its parent (as ``__mp_main__``, so nothing runs but the script's
imports). Were the script to import the command line itself (typer, rich, the key
administration, the bench client), every worker would pay about a CPU second for imports it
never uses, at every start and every restart of a worker. The script imports only this module.
"""

from __future__ import annotations


def main() -> None:
    """Run the ``backtestd`` command line (``backtestd.cli.main``)."""
    from backtestd.cli.main import app

    app()
