"""`python -m rlvr_support openings-table`: opening distributions, rank shifts and styles per
checkpoint.

Run by `openings_table` (workflow/rules/support.smk); registered by cli/main.py.
"""

from __future__ import annotations

from rlvr_support.cli.args import json_arg as _json
from rlvr_support.cli.tables import write_table

CFG_HELP = "the config's `analysis` section as JSON"


def cmd_openings_table(a):
    from rlvr_support.analysis.openings_table import openings_tables
    from rlvr_support.analysis.runs import parse_files
    from rlvr_support.cli.args import label_pairs
    from rlvr_support.imports.tokenizers import tokenizer_of

    tok = tokenizer_of(a.tokenizer) if a.tokenizer else None
    labels = {label: tokenizer_of(path) for label, path in label_pairs(a.label_tokenizer, "label-tokenizer").items()}
    c = a.cfg
    shift, summary, styles = openings_tables(parse_files(a.samples, a.samples_root), m=c["opening_tokens"],
                                             top=c["openings_top"], n_boot=c["bootstrap"], ci=c["ci"],
                                             seed=c["seed"], tokenizer=tok, label_tokenizers=labels)
    write_table(shift, a.out)
    write_table(summary, a.out_summary)
    write_table(styles, a.out_styles)
    print(summary.to_string())


def register(verb) -> None:
    s = verb("openings-table", cmd_openings_table, "Opening distributions, rank shifts and styles per checkpoint.")
    s.add_argument("--samples", nargs="+", required=True)
    s.add_argument("--samples-root", required=True)
    s.add_argument("--tokenizer", help="the base's manifest, whose tokenizer decodes the openings")
    s.add_argument("--label-tokenizer", nargs="*", default=[], metavar="LABEL=MANIFEST",
                   help="an imported label's tokenizer (imports.<label>.tokenizer's manifest, or its model's): its "
                        "openings are counted in that tokenizer's first tokens (analysis/openings_table.py)")
    s.add_argument("--cfg", type=_json, required=True, help=CFG_HELP)
    s.add_argument("--out", required=True, help="rank-shift CSV (a .md beside it)")
    s.add_argument("--out-summary", required=True, help="per-chain summary CSV (a .md beside it)")
    s.add_argument("--out-styles", required=True, help="style-share CSV (a .md beside it)")
