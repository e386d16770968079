"""`python -m rlvr_support figure-monitor`: support-monitor curves of each chain against training step.

Run by `figure_monitor` (workflow/rules/remedies.smk); registered by cli/main.py.
"""

from __future__ import annotations

from pathlib import Path



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
    s = verb("figure-monitor", cmd_figure_monitor, "Support-monitor curves of each chain against training step.")
    s.add_argument("--monitor", nargs="+", required=True,
                   help="<chain>/seed<k>/monitor.csv of every RL seed of the chains to draw")
    s.add_argument("--out", nargs="+", required=True, help="<chain>.png per chain; each PDF is written beside it")
