"""CLI verbs of the mitigation study: the remedy comparison table, its trade-off figure and the
support-monitor curves. Registered into `python -m rlvr_support` by cli.build_parser (one verb per
rule of workflow/rules/remedies.smk)."""

from __future__ import annotations

from pathlib import Path

from rlvr_support.cli.args import json_arg as _json


def cmd_remedy_table(a):
    from rlvr_support.analysis.remedy_comparison import comparison_markdown, comparison_table
    from rlvr_support.analysis.scores import parse_score_path
    from rlvr_support.storage.atomic import write_text

    files = [parse_score_path(p, a.scores_root) for p in a.scores]
    table = comparison_table(files, n_boot=a.cfg["bootstrap"], ci=a.cfg["ci"], seed=a.cfg["seed"])
    write_text(a.out, table.to_csv(index=False, float_format="%.6f"))
    md = comparison_markdown(table)
    write_text(Path(a.out).with_suffix(".md"), md)
    print(md)
    if a.out_teachers:
        from rlvr_support.analysis.remedy_comparison import teacher_markdown, teacher_table

        teachers = teacher_table(table, a.teachers or {})
        write_text(a.out_teachers, teachers.to_csv(index=False, float_format="%.6f"))
        write_text(Path(a.out_teachers).with_suffix(".md"), teacher_markdown(teachers))


def cmd_figure_remedies(a):
    import pandas as pd

    from rlvr_support.figures.remedy_tradeoff import plot_remedy_tradeoff

    plot_remedy_tradeoff(pd.read_csv(a.table), a.out)


def cmd_figure_monitor(a):
    import pandas as pd

    from rlvr_support.figures.monitor_curves import plot_monitor

    by_chain: dict[str, dict[int, pd.DataFrame]] = {}
    for path in a.monitor:
        seed_dir = Path(path).parent
        if not seed_dir.name.startswith("seed") or not seed_dir.name[4:].isdigit():
            raise ValueError(f"{path}: expected .../<chain>/seed<k>/monitor.csv")
        by_chain.setdefault(seed_dir.parent.name, {})[int(seed_dir.name[4:])] = pd.read_csv(path)
    for out in a.out:  # <chain>.png: one figure per chain, from that chain's seeds
        chain = Path(out).stem
        if chain not in by_chain:
            raise ValueError(f"{out}: no monitor.csv of chain {chain!r} among --monitor")
        plot_monitor(by_chain[chain], chain, out)


def register(verb) -> None:
    s = verb("remedy-table", cmd_remedy_table, "Mitigation comparison of the sequential chains and their "
             "variants: current/previous-task pass@1, best@k, SRR, gain and loss vs the parent, with CIs.")
    s.add_argument("--scores", nargs="+", required=True)
    s.add_argument("--scores-root", required=True)
    s.add_argument("--cfg", type=_json, required=True, help="the config's `analysis` section as JSON")
    s.add_argument("--out", required=True, help="CSV; the Markdown table is written beside it (.md)")
    s.add_argument("--teachers", type=_json,
                   help='JSON {chain: {"teacher", "teacher_step", "teacher_fraction"}} of the distilling chains')
    s.add_argument("--out-teachers", help="CSV (.md beside it): the distilling chains by teacher step")

    s = verb("figure-remedies", cmd_figure_remedies, "Trade-off plot: current-task gain vs previous-task best@k loss.")
    s.add_argument("--table", required=True, help="the remedy-table CSV")
    s.add_argument("--out", required=True, help="<name>.png; the PDF is written beside it")

    s = verb("figure-monitor", cmd_figure_monitor, "Support-monitor curves of each chain against training step.")
    s.add_argument("--monitor", nargs="+", required=True,
                   help="<chain>/seed<k>/monitor.csv of every RL seed of the chains to draw")
    s.add_argument("--out", nargs="+", required=True, help="<chain>.png per chain; each PDF is written beside it")
