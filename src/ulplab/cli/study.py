"""The ``ulplab study`` subcommand: ``ulplab study NAME [--format F] [--json PATH]``.

``NAME`` is one of ``ulplab.studies.STUDIES`` or ``all`` (every study, in registry order; the
JSON file then holds one object per study name). ``--seed`` runs a study on the seed's own
inputs, methods and metric where it has them (the studies whose function takes ``as_seed``);
naming a study without them is a usage error, ``all`` passes it to those that have them. The
names are listed here too (a test keeps them equal to the registry) so that building the parser
does not import every study.
"""

from __future__ import annotations

import argparse
import inspect
from typing import Any

from ulplab.errors import UsageError


def cmd_study(args: argparse.Namespace) -> int:
    from ulplab.files import check_writable, write_json
    from ulplab.report import console
    from ulplab.studies import RENDERERS, STUDIES

    names = list(STUDIES) if args.study == "all" else [args.study]
    if args.study != "all" and args.study not in STUDIES:
        raise UsageError(f"unknown study {args.study!r}; valid: {', '.join([*STUDIES, 'all'])}")
    seeded = [n for n in STUDIES if "as_seed" in inspect.signature(STUDIES[n]).parameters]
    if getattr(args, "seed", False) and args.study != "all" and args.study not in seeded:
        raise UsageError(f"study {args.study} has no --seed variant; studies with one: "
                         f"{', '.join(seeded)}")
    if args.json:
        check_writable(args.json)
    con = console()
    results: dict[str, Any] = {}
    for name in names:
        opts = {"as_seed": True} if getattr(args, "seed", False) and name in seeded else {}
        res = STUDIES[name](args.format, **opts)
        results[name] = res
        for table in RENDERERS[name](res):
            con.print(table)
    if args.json:
        write_json(args.json, results if args.study == "all" else results[names[0]])
    failed = [n for n, r in results.items() if r.get("all_passed") is False and n == "sanity"]
    return 1 if failed else 0


NAMES = ("diagnose", "regression", "derivative", "denormal", "quantization", "fma", "sensitivity",
         "cost-model", "sanity", "calibrate", "verify-knots", "inverse", "softmax-unit", "epss",
         "range-scale")


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add ``study`` to the ``ulplab`` subcommands (``subparsers`` from add_subparsers)."""
    p = subparsers.add_parser("study", help="analysis studies of the GELU methods (the seed's "
                              "modes): " + ", ".join([*NAMES, "all"]))
    p.add_argument("study", metavar="NAME", help=f"one of {', '.join([*NAMES, 'all'])}")
    p.add_argument("--format", default="bfloat16", help="bfloat16, float16 or an fp8 format")
    p.add_argument("--json", help="write the study's results as JSON to this path")
    p.add_argument("--seed", action="store_true",
                   help="the seed's own inputs, methods and metric, where the study has them "
                        "(see docs/seed-studies.md)")
    p.set_defaults(run=cmd_study)
    return p
