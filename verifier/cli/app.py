"""The ``cute-verify`` command line.

* ``cute-verify OP ARGS... [--assume EXPR]... [--param NAME=VALUE]... [--timeout S] [--json]``: is the algebra
  operation ``OP`` (named as in CuTe: ``composition A B``, ``complement L [COTARGET]``, ``upcast N L`` ...), as
  CuTe computes it, valid for every allowed value of the symbols?  Prints the verdict, a counterexample, and the
  condition under which it is valid with C++ and Python guards.
* ``cute-verify check PROPERTY ARGS... [--OPTION ...]``: does a property of ``engine/checks.py`` hold for every
  allowed value of the symbols?  ``check --help`` lists the properties and their options, and docs/semantics.md
  their operands, both read from the declarations (``engine.property``).
* ``cute-verify bank_conflicts SMEM ACCESS --element-bits B --access-bits W``: wavefronts per phase (banks_cli.py).
* ``cute-verify eval LAYOUT [--param NAME=VALUE]... [--json]``: the layout as CuTe prints it, its size, cosize and
  table.
* ``cute-verify run FILE...``: the checks of spec files (``spec_cli.py``): text, JSON, SARIF or JUnit reports.

``--strict`` makes warnings errors; ``--select RULE,...`` / ``--ignore RULE,...`` pick the obligations that count,
by ID or prefix, as ruff does (docs/semantics.md, Severities).

Exit status: 0 valid / proved (warnings allowed unless ``--strict``), 1 invalid / refuted, 3 unknown, 2 bad input
with a one-line message on stderr (never a traceback).
"""

from __future__ import annotations

import argparse
import importlib
import json
import re
import sys
from collections.abc import Mapping, Sequence
from typing import NoReturn

from verifier.cli.args import UsageError, params
from verifier.cli.common import add_budget_options, emit, policy_from, problem_from
from verifier.core.basis import has_basis
from verifier.core.errors import LayoutError, UndefinedBehavior, did_you_mean
from verifier.core.int_tuple import format_tuple, get, leaves, product
from verifier.core.integers import Int
from verifier.core.layouts import Layout, cosize, make_layout, rank, size
from verifier.core.swizzle import ComposedLayout
from verifier.core.symbols import Symbols
from verifier.present.tables import print_1d, print_1d_cells, print_cells, print_layout

TABLE_LIMIT = 4096
VALUES_LIMIT = 1 << 20
EXIT_USAGE, EXIT_INTERNAL, EXIT_INTERRUPTED = 2, 4, 130

__all__ = ["UsageError", "build_parser", "main"]


class _Parser(argparse.ArgumentParser):
    # build_parser's parser: its commands by name (apply_defaults and the did-you-mean hints read them)
    commands: Mapping[str, argparse.ArgumentParser]

    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def _evaluate(text: str, values: dict[str, int], dsl: bool = False, relations: Sequence[str] = ()
              ) -> tuple[Layout | ComposedLayout, Layout | ComposedLayout]:
    from verifier.core.swizzle import ComposedLayout
    from verifier.run.problems import assume, parse_operand

    symbols = Symbols()
    layout = parse_operand(text, symbols, dsl)
    if isinstance(layout, tuple | Int):  # a shape alone is CuTe's Layout<Shape<...>>: compact column-major
        layout = make_layout(layout)
    assume(symbols, relations)
    if not isinstance(layout, Layout | ComposedLayout):
        kind = type(layout).__name__
        what = ("a swizzle alone has no shape: compose it, Sw<B,M,S> o L" if kind == "Swizzle" else
                f"a {kind} is not a layout: give one of its layouts, get_layout{'C' if kind == 'TiledMMA' else 'S'}"
                f"_TV(...), or a thread's partition, partition_{'C' if kind == 'TiledMMA' else 'S'}(..., TENSOR, t)"
                if kind in ("TiledMMA", "TiledCopy") else "expected a layout Shape:Stride")
        raise LayoutError(f"{text!r}: {what}")
    symbols.check_values(values)
    try:
        concrete = layout.substitute(values)
    except UndefinedBehavior as exc:
        raise LayoutError(f"with {_show(values)}: {exc} in the layout's integers") from None
    for leaf in leaves(concrete.shape):
        if leaf.value is not None and leaf.value <= 0:
            raise LayoutError(f"with {_show(values)}: the shape {format_tuple(concrete.shape)} has the "
                              f"non-positive extent {leaf}")
    return layout, concrete


def _show(params: dict[str, int]) -> str:
    return ", ".join(f"{k}={v}" for k, v in params.items()) or "no parameters"


def cmd_eval(args: argparse.Namespace) -> int:
    args.json = args.json or args.format == "json"
    original, layout = _evaluate(args.layout, params(args.param, anonymous=True), args.dsl, args.assume)
    if not isinstance(layout, Layout) or has_basis(layout.stride):
        return _eval_function(layout, args.json)
    n, co = size(layout), cosize(layout)
    concrete = layout.concrete
    count = int(n) if concrete else None
    if args.json:
        values = layout.values() if concrete and count is not None and count <= VALUES_LIMIT else None
        print(json.dumps({"result": str(layout), "size": str(n), "cosize": str(co), "values": values}))
        return 0
    print(layout)
    print(f"size   : {n}")
    print(f"cosize : {co}")
    if not concrete:
        names = ", ".join(sorted(n for n in layout.symbols()))
        print(f"values depend on {names}; give --param NAME=VALUE for each to see the table")
    elif count is not None and count > TABLE_LIMIT:
        print(f"(table omitted: {count} entries, more than {TABLE_LIMIT})")
    elif rank(layout) == 2:
        sys.stdout.write(print_layout(layout))
    else:
        sys.stdout.write(print_1d(layout))
    return 0


def _eval_function(layout: Layout | ComposedLayout, as_json: bool) -> int:
    """``eval`` of an identity / scaled-basis layout (its values are coordinates) or of a swizzled or composed
    layout (its values are indices, through the swizzle): the same report, the values computed concretely."""
    n = layout.size()
    concrete = layout.concrete
    count = int(n) if concrete and n.concrete else None
    co = "-" if isinstance(layout, Layout) else str(layout.cosize())
    cells: list[str] | None = None
    if count is not None and count <= (VALUES_LIMIT if as_json else TABLE_LIMIT):
        cells = [str(layout(i)) for i in range(count)]
    if as_json:
        values = None if cells is None else [v if isinstance(layout, Layout) else int(v) for v in cells]
        print(json.dumps({"result": str(layout), "size": str(n), "cosize": co, "values": values}))
        return 0
    print(layout)
    print(f"size   : {n}")
    print(f"cosize : {co}")
    if not concrete:
        names = ", ".join(sorted(layout.symbols()))
        print(f"values depend on {names}; give --param NAME=VALUE for each to see the table")
    elif cells is None:
        print(f"(table omitted: {count} entries, more than {TABLE_LIMIT})")
    elif layout.rank() == 2:
        rows = int(product(get(layout.shape, 0)))
        sys.stdout.write(print_cells(str(layout), cells, rows))
    else:
        sys.stdout.write(print_1d_cells(cells))
    return 0


def cmd_op(args: argparse.Namespace) -> int:
    from verifier.engine.problem import Operation, decide
    from verifier.present.report import to_json, to_text

    operands, symbols = problem_from(args, args.command)
    v = decide(Operation(args.command, tuple(operands), symbols, policy_from(args), args.timeout, args.rlimit,
                         semantics=args.semantics))
    emit(args, to_json(v) if args.json else to_text(v, verbose=args.verbose))
    return v.exit_code


def cmd_check(args: argparse.Namespace) -> int:
    from verifier.engine.checks import PROPERTIES
    from verifier.engine.problem import Property, decide
    from verifier.engine.property import DECLARED
    from verifier.present.report import to_json, to_text

    if args.property not in PROPERTIES:
        raise UsageError(f"unknown property {args.property!r}{did_you_mean(args.property, PROPERTIES)}; known: "
                         f"{', '.join(PROPERTIES)}")
    if args.property == "conflict_free":
        from verifier.cli.banks import cmd_check_conflict_free

        return cmd_check_conflict_free(args)
    operands, symbols = problem_from(args, args.property, prop=True)
    options: dict[str, object] = {}
    for o in DECLARED[args.property].options:  # a flag when given, a value when given or defaulted
        value = getattr(args, o.name)
        if value is not None and value is not False:
            options[o.name] = value
    v = decide(Property(args.property, tuple(operands), symbols, tuple(options.items()), policy_from(args),
                        args.timeout, args.rlimit))
    emit(args, to_json(v) if args.json else to_text(v, verbose=args.verbose))
    return v.exit_code


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--assume", action="append", default=[], metavar="EXPR",
                   help="an assumption on the symbols, e.g. 'M %% 8 == 0' or 'lda >= M'")
    p.add_argument("--param", action="append", default=[], metavar="NAME=VALUE", help="a value for a symbol")
    p.add_argument("--symbol", action="append", default=[], metavar="NAME=LO..HI",
                   help="a symbol's range, as a spec file declares it, e.g. t=0..255 (a bound left out keeps its "
                        "default: 1 <= M for an extent, 0 <= t for an index; :i64 for a 64-bit symbol)")
    add_budget_options(p)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--format", choices=("text", "json"), help="text (default) or json (the same as --json)")
    p.add_argument("--dsl", action="store_true", help="operands in the CuTe DSL's notation, e.g. (?,4):(1,?{div=8}) "
                   "(detected from '?' otherwise)")
    p.add_argument("--strict", action="store_true", help="make warnings errors (invalid, exit status 1)")
    p.add_argument("--select", action="append", default=[], metavar="RULE,...",
                   help="decide only these obligations (IDs or prefixes, e.g. CMP-POST,DIV)")
    p.add_argument("--ignore", action="append", default=[], metavar="RULE,...",
                   help="leave these obligations out of the verdict (IDs or prefixes, e.g. DIV-EXACT)")


TOP_EPILOG = """examples:
  cute-verify zipped_divide '(M,N):(_1,M)' '<_128,_64>' --assume 'M % 128 == 0'
  cute-verify check bijective '(_128,_32):(_1,_128)'
  cute-verify eval '(M,_8):(_1,M)' --param M=4
  cute-verify run examples/gemm.cute.toml --format sarif -o layouts.sarif
  cute-verify crd2idx '(M,N):(_1,M)' '(65535,65535)' --param M=65536 --param N=65536

Every algebra operation is a command (cute-verify OP --help shows its operands and an example).
Defaults may be set in [tool.cute-verify] of pyproject.toml (timeout, jobs, format, color, ...).

exit status: 0 valid / proved / as expected, 1 invalid / refuted / not as expected, 2 bad input,
3 unknown, 4 internal error (please report; --debug shows the traceback), 130 interrupted"""


# The commands each module adds (its ``add_parser``), in the order ``--help`` lists them; ``eval``, ``check`` and the
# operations are this module's.  A command line builds the parser of its own command only: building all of them
# and importing their modules was a third of an all-static command's start-up (issue 16).
_GROUPS: dict[str, tuple[str, ...]] = {
    "verifier.cli.spec": ("run",),
    "verifier.cli.dsl": ("dsl",),
    "verifier.cli.cpp": ("cpp",),
    "verifier.cli.prove": ("prove",),
    "verifier.cli.draw": ("draw",),
    "verifier.cli.banks": ("bank_conflicts",),
    "verifier.cli.gmma": ("gmma_atom", "gmma_canonical", "umma_atom", "umma_canonical"),
    "cuda_harness.cli": ("gpu",),  # where the cuda_harness package is (it ships in the same distribution)
    "verifier.cli.atoms": ("atoms",),
    "verifier.cli.crd2idx": ("crd2idx",),
    "verifier.cli.selfcheck": ("selfcheck",),
    "verifier.cli.rule": ("rule",),
    "verifier.cli.library": ("library",),
}
_OWN = ("eval", "check")
_FIXED = frozenset((*_OWN, *(name for names in _GROUPS.values() for name in names)))  # every command but the operations


def command_of(argv: Sequence[str]) -> str | None:
    """The command ``argv`` names when ``build_parser(only=...)`` can parse it alone: its first word, when no top-level
    option asks for the whole parser (``--help``, ``--version``) and the word is a command; else ``None``."""
    for word in argv:
        if not word.startswith("-"):
            if word in _FIXED:
                return word
            from verifier.algebra.registry import OPERATIONS

            return word if word in OPERATIONS else None
        if word != "--debug":
            return None
    return None


def build_parser(only: str | None = None) -> _Parser:
    """The command line's parser; with ``only``, the top level and that command alone (``command_of``)."""
    from verifier import __version__

    def wanted(*names: str) -> bool:
        return only is None or only in names

    p = _Parser(prog="cute-verify", description="Prove or refute properties of CuTe layouts whose integers are "
                "known only at run time: CuTe's layout algebra as CuTe 4.2 computes it, decided for every value.",
                epilog=TOP_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--version", action="version", version=f"cute-verify {__version__}")
    p.add_argument("--debug", action="store_true", help="show the traceback of an internal error (exit status 4)")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser, metavar="command",
                           title="commands")
    if wanted("eval"):
        e = sub.add_parser("eval", help="print a layout as CuTe would, with its size, cosize and table")
        e.add_argument("layout", help="a layout in CuTe notation, e.g. '(M,_8):(_1,M)'")
        e.add_argument("--param", action="append", default=[], metavar="NAME=VALUE", help="a value for a symbol")
        e.add_argument("--json", action="store_true", help="print one JSON object")
        e.add_argument("--dsl", action="store_true", help="LAYOUT is in the CuTe DSL's notation (detected from '?')")
        e.add_argument("--assume", action="append", default=[], metavar="EXPR",
                       help="an assumption the --param values must satisfy, e.g. 'M %% 8 == 0'")
        e.add_argument("--format", choices=("text", "json"), help="text (default) or json (the same as --json)")
        e.set_defaults(func=cmd_eval)
    if wanted("check"):
        from verifier.engine.checks import PROPERTIES  # their declarations (engine.property)
        from verifier.engine.property import DECLARED

        c = sub.add_parser("check", help="prove or refute a property of layouts")
        c.add_argument("property", help=", ".join(PROPERTIES))
        c.add_argument("args", nargs="+", help="layouts or shapes in CuTe notation")
        for o in (o for prop in DECLARED.values() for o in prop.options):
            if o.kind is bool:
                c.add_argument(o.flag, action="store_true", help=o.help)
            else:
                c.add_argument(o.flag, type=o.kind, choices=o.choices or None, default=o.default,
                               metavar=o.metavar, help=o.help)
        _common(c)
        c.set_defaults(func=cmd_check)
    for module, names in _GROUPS.items():
        if wanted(*names):
            try:
                group = importlib.import_module(module)
            except ImportError:
                if module != "cuda_harness.cli":
                    raise
                continue
            group.add_parser(sub)
    if only not in _FIXED:
        _add_operations(sub, only)
    from verifier.cli.conventions import add_common

    for command in sub.choices.values():
        add_common(command)
    p.commands = sub.choices
    return p


def _add_operations(sub: argparse._SubParsersAction[_Parser], only: str | None) -> None:
    from verifier.algebra.registry import OPERATIONS, REGISTRY

    for op in OPERATIONS:
        if only is not None and op != only:
            continue
        example = f"example: {_example([op, *REGISTRY[op].example])}\n\n" if REGISTRY[op].example else ""
        o = sub.add_parser(op, help=f"is CuTe's {op} valid for every allowed value?",
                           description=f"Is CuTe's {op}, as CuTe 4.2 computes it, correct for every value the "
                                       "assumptions allow? Prints the verdict, a counterexample and the guard "
                                       "under which it is valid.",
                           epilog=example + OP_EXIT, formatter_class=argparse.RawDescriptionHelpFormatter)
        o.add_argument("args", nargs="+", help="operands in CuTe notation (layouts, <...> tilers, shapes)")
        _common(o)
        o.add_argument("--semantics", choices=("cpp", "dsl"), default="cpp",
                       help="which CuTe computes it: the C++ headers (default) or the CuTe Python DSL")
        o.set_defaults(func=cmd_op)


def operation_examples() -> dict[str, list[str]]:
    """A representative dynamic case of every operation (its registry row's example): shown in its --help, and run
    by tests/frontends/test_cli_operations.py (each is decided: exit status 0 or 1, never unknown)."""
    from verifier.algebra.registry import REGISTRY

    return {name: [name, *row.example] for name, row in REGISTRY.items()}


OP_EXIT = "exit status: 0 valid, 1 invalid, 2 bad input, 3 unknown, 4 internal error (please report)"


def _example(argv: Sequence[str]) -> str:
    import shlex

    return "cute-verify " + " ".join(shlex.quote(a) for a in argv)


_CHOICE = re.compile(r"argument command: invalid choice: '([^']*)'")
_UNRECOGNIZED = re.compile(r"unrecognized arguments: (-[^ ]*)")


def _with_suggestion(message: str, argv: Sequence[str], parser: _Parser) -> str:
    """argparse's error, with a "did you mean" for a misspelled command or option (the command list, which
    ``--help`` shows, is not repeated)."""
    commands = parser.commands
    if m := _CHOICE.search(message):
        from verifier.algebra.registry import OPERATIONS

        return (f"unknown command {m.group(1)!r}{did_you_mean(m.group(1), (*_FIXED, *OPERATIONS))}; "
                "cute-verify --help lists the commands")
    if m := _UNRECOGNIZED.search(message):
        command = next((a for a in argv if a in commands), None)
        options = [o for a in (commands[command] if command else parser)._actions for o in a.option_strings]
        return message + did_you_mean(m.group(1).split("=")[0], options)
    return message


def _run(args: argparse.Namespace) -> int:
    """Run the command.  ``-q`` keeps the first line of what it prints (its verdict), for every command but those
    whose quiet output is a list (``own_quiet``: run, prove, dsl) and JSON.  With ``-o F`` (the option of every
    command that writes no file of its own), the output is written to F atomically once the command is done, and
    nothing when it fails."""
    target = getattr(args, "report_file", None)
    quiet = getattr(args, "quiet", False) and not getattr(args, "own_quiet", False) and not _json(args)
    if (target is None or target == "-") and not quiet:
        return _with_status(args)
    import contextlib
    import io

    from verifier.run.files import check_output, write_output

    if target not in (None, "-"):
        check_output(target, "-o")
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        code = _with_status(args)
    text = buffer.getvalue()
    if quiet:
        text = text.splitlines(keepends=True)[0] if text else text
    write_output(target or "-", text, "-o")
    return code


def _json(args: argparse.Namespace) -> bool:
    return bool(getattr(args, "json", False)) or getattr(args, "format", None) == "json"


def _with_status(args: argparse.Namespace) -> int:
    """The command, with a status line on a terminal once it has run for a second: what the engine decides now
    (``run`` shows its own progress)."""
    if args.command == "run" or getattr(args, "quiet", False) or not sys.stderr.isatty():
        return int(args.func(args))
    import time

    from verifier.core import activity
    from verifier.run.status import StatusLine

    start = time.monotonic()
    line = StatusLine(lambda: f"{time.monotonic() - start:.0f} s: deciding {activity.now() or args.command}",
                      delay=1.0)
    with line, line.until_output():
        return int(args.func(args))


def _error(message: str) -> None:
    print(f"cute-verify: error: {message}", file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; every failure is one line on stderr and an exit status (module docstring), never a
    traceback: bad input 2, an error of ours 4 ("please report"; ``--debug`` shows the traceback), Ctrl-C 130."""
    argv = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in argv
    if debug:
        argv = [a for a in argv if a != "--debug"]
    from verifier.solver.interrupt import handling, interrupted

    try:
        with handling():
            from verifier.cli.conventions import apply_defaults, find_pyproject, load_defaults

            where = find_pyproject()
            defaults = load_defaults(where)
            # Defaults are checked against every command's options (a key no command takes is an error).
            parser = build_parser(None if defaults else command_of(argv))
            apply_defaults(parser.commands, defaults, where)
            try:
                args = parser.parse_args(argv)
            except UsageError as exc:
                raise UsageError(_with_suggestion(str(exc), argv, parser)) from None
            code = _run(args)
        if interrupted():  # a KeyboardInterrupt that Python dropped (raised in a __del__)
            raise KeyboardInterrupt
        return code
    except LayoutError as exc:
        _error(str(exc))
        return EXIT_USAGE
    except RecursionError:
        _error("input too deeply nested")
        return EXIT_USAGE
    except BrokenPipeError:
        # The reader (``| head``) closed the pipe: not an error of ours; keep Python from reporting it at exit.
        sys.stdout = None
        return 0
    except KeyboardInterrupt:
        # Objects the interrupt left half-built complain when they are freed at exit: nothing to report.
        sys.unraisablehook = lambda _: None
        _error("interrupted")
        return EXIT_INTERRUPTED
    except MemoryError:
        _error("out of memory; please report the input that caused it")
        return EXIT_INTERNAL
    except Exception as exc:
        if interrupted():
            # The Ctrl-C surfaced as another exception: ctypes wraps a KeyboardInterrupt raised while it converts
            # a Z3 call's arguments as ``ArgumentError``.  The run was interrupted, not broken.
            sys.unraisablehook = lambda _: None
            _error("interrupted")
            return EXIT_INTERRUPTED
        if debug:
            import traceback

            traceback.print_exc()
        hint = "" if debug else " (rerun with --debug for the traceback)"
        _error(f"internal error: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}; "
               f"please report{hint}")
        return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
