"""`python -m rlvr_support why <output>`: which params and code files make Snakemake rerun the job that
makes a file, and which planned jobs upstream rerun for a reason of their own (review/rerun_reasons.py).

Run by hand before a run, from the working directory of the results (or with --directory), with
the config(s) the run uses; it builds the DAG like `snakemake -n` and submits nothing, so it
works the same on a cluster's submit host. No rule runs it.
"""

from __future__ import annotations

from pathlib import Path


def _repo_snakefile() -> Path:
    """The Snakefile of the checkout holding this package (src/rlvr_support/ -> ../../Snakefile)."""
    return Path(__file__).resolve().parents[4] / "Snakefile"


def cmd_why(a):
    from rlvr_support.review.rerun_reasons import Plan, explain

    config = None
    if a.config:
        from snakemake.cli import parse_config

        config = parse_config(a.config)
    snakefile = Path(a.snakefile) if a.snakefile else _repo_snakefile()
    if not snakefile.is_file():
        raise FileNotFoundError(f"{snakefile}: no Snakefile (give --snakefile)")
    with Plan(a.targets, Path(a.directory), snakefile, a.configfile or [], config, a.rerun_triggers) as plan:
        explain(plan)


def register(verb) -> None:
    s = verb("why", cmd_why,
             "Why Snakemake would rerun the job that makes a file: the params and code files (by name) whose "
             "change triggers it, and the planned jobs upstream that rerun for a reason of their own. Nothing runs.")
    s.add_argument("targets", nargs="+", metavar="OUTPUT",
                   help="a file the workflow makes, relative to the working directory (e.g. results/tables/passk.csv), "
                        "or a rule without wildcards (all)")
    s.add_argument("--configfile", nargs="+", action="extend", help="the run's config file(s), as for snakemake")
    s.add_argument("--config", nargs="+", action="extend", metavar="KEY=VALUE", help="config overrides, as for snakemake")
    s.add_argument("--directory", "-d", default=".", help="the run's working directory (default: here)")
    s.add_argument("--snakefile", "-s", help="default: the Snakefile of this checkout")
    s.add_argument("--rerun-triggers", nargs="+", choices=["mtime", "params", "input", "software-env", "code"],
                   help="as for snakemake (default: all)")
    s.set_defaults(prov=False)
