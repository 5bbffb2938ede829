"""Issue 17: every reproducer of a traceback, a hang or an unsafe write is a one-line error with its exit status.

Exit statuses: 0 valid/proved, 1 invalid/refuted, 2 bad input, 3 unknown, 4 internal error ("please report"),
130 interrupted.  Each case runs ``main(argv)`` in-process; a few run the installed command as a user would.
"""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from verifier.cli.app import main

ROOT = Path(__file__).resolve().parents[2]
BIG = "9" * 4301  # Python refuses to convert more than 4300 digits: each of these was a ValueError traceback


def run(capsys, *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def one_line_error(err: str, words: str) -> None:
    assert "Traceback" not in err
    assert err.count("\n") == 1 and err.startswith("cute-verify: error: "), err
    assert words in err, err
    assert len(err) < 400, err


REPRODUCERS = [
    # integers beyond int64, anywhere
    (["eval", f"(_{BIG}):(_1)"], 2, "does not fit in 64 bits"),
    (["eval", "(M):(_1)", "--param", f"M={BIG}"], 2, "--param M: 99999"),
    (["composition", "(M):(_1)", "_2", "--assume", f"M <= {BIG}"], 2, "does not fit in 64 bits"),
    (["upcast", BIG, "(_8):(_1)"], 2, "must be a positive integer (int64)"),
    (["gpu", "(M):(_1)", "--host", "--sweep", f"M=1..{BIG}"], 2, "does not fit in int64"),
    (["draw", "--dsl", "(?):(1)", "--param", f"?1={BIG}", "-o", "-"], 2, "does not fit in int64"),
    (["draw", "--dsl", f"(?):({BIG})", "-o", "-"], 2, "does not fit in 64 bits"),
    (["eval", "(M):(_1)", "--param", "M=9223372036854775808"], 2, "does not fit in int64"),
    # wrong arity
    (["composition", "(_2):(_1)"], 2, "composition takes 2 operand(s)"),
    (["upcast", "2", "(_2):(_1)", "(_2):(_1)"], 2, "upcast takes 1 operand(s)"),
    (["complement", "(_2):(_1)", "_4", "_8"], 2, "complement takes 1 to 2 operand(s)"),
    (["local_tile", "(_8):(_1)", "<_2>"], 2, "local_tile takes 3 to 4 operand(s)"),
    (["max_common_layout", "(_8):(_1)"], 2, "max_common_layout takes 2 operand(s)"),
    (["slice_and_offset", "(_4,_8):(_1,_4)"], 2, "slice_and_offset takes 2 operand(s)"),
    (["draw", "--counterexample", "composition", "(2,3):(1,2)", "-o", "x.svg"], 2, "composition takes 2"),
    # wrong operand kind
    (["coalesce", "3"], 2, "coalesce: operand 1 must be a layout"),
    (["upcast", "2", "3"], 2, "upcast: operand 1 must be a layout"),
    (["complement", "_4"], 2, "complement: operand 1 must be a layout"),
    (["blocked_product", "(_4,_8):(_1,_4)", "(_2,_3)"], 2, "blocked_product: operand 2 must be a layout"),
    (["complement", "(_4,_8):(_1,_4)", "<_2,_3>"], 2, "complement: operand 2 must be a shape"),
    (["make_ordered_layout", "(_4,_8):(_1,_4)", "(_2,_3)"], 2, "make_ordered_layout: operand 1 must be a shape"),
    (["local_tile", "(_4,_8):(_1,_4)", "<_2,_2>", "<_2>"], 2, "local_tile: operand 3 must be a coordinate"),
    (["check", "in_bounds", "(M,N):(_1,M)", "<_2:_1,_2:_1>"], 2, "argument 2 must be a shape or an extent"),
    (["check", "no_overflow", "Sw<3,3,3> o _0 o (_8,_8):(_8,_1)"], 2, "must be a layout"),
    # time budgets: finite and positive, on every command that takes one
    (["composition", "(_2):(_1)", "(_2):(_1)", "--timeout", "inf"], 2, "finite number of seconds"),
    (["check", "injective", "(_2):(_1)", "--timeout", "1e308"], 2, "finite number of seconds"),
    (["composition", "(_2):(_1)", "(_2):(_1)", "--timeout", "1e400"], 2, "finite number of seconds"),
    (["composition", "(_2):(_1)", "(_2):(_1)", "--timeout", "nan"], 2, "finite number of seconds"),
    (["composition", "(_2):(_1)", "(_2):(_1)", "--timeout", "-1"], 2, "finite number of seconds"),
    (["draw", "--counterexample", "composition", "(2,3):(1,2)", "(2,3):(3,1)", "-o", "-", "--timeout", "inf"], 2,
     "finite number of seconds"),
    (["prove", "--timeout", "inf"], 2, "finite number of seconds"),
    (["gpu", "(4):(1)", "--host", "--timeout", "inf"], 2, "finite number of seconds"),
    # bounded resources
    (["upcast", "4294967296", "(_8):(_1)"], 2, "above the limit 65536"),
    (["downcast", "4294967296", "(_8):(_1)"], 2, "above the limit 65536"),
    (["recast_layout", "8", "4294967296", "(_8):(_1)"], 2, "above the limit 65536"),
    (["gpu", "(" + "M" * 300 + "):(_1)", "--host"], 2, "needs values"),
    # the engine's own failures on odd assumptions
    (["composition", "(M,N):(_1,M)", "_4:_2", "--assume", "gcd(M,N) == 1"], 2, "cannot reason about"),
    (["composition", "(M,N):(_1,M)", "_4:_2", "--assume", "lcm(M,N) >= 1"], 2, "cannot reason about"),
]


@pytest.mark.parametrize(("argv", "code", "words"), REPRODUCERS, ids=[" ".join(a)[:60] for a, _, _ in REPRODUCERS])
def test_reproducer_is_a_one_line_error(capsys, tmp_path: Path, monkeypatch, argv: list[str], code: int,
                                        words: str) -> None:
    monkeypatch.chdir(tmp_path)
    rc, out, err = run(capsys, *argv)
    assert rc == code, (rc, out, err)
    one_line_error(err, words)
    assert list(tmp_path.iterdir()) == []  # nothing written


@pytest.mark.parametrize("argv", [["--help"], ["check", "--help"], ["composition", "--help"], ["run", "--help"],
                                  ["draw", "--help"], ["prove", "--help"], ["gpu", "--help"], ["eval", "--help"]])
def test_help_of_every_command(capsys, argv: list[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(argv)
    out, err = capsys.readouterr()
    assert exc.value.code == 0 and err == "" and "usage: cute-verify" in out


def test_help_of_every_operation(capsys) -> None:
    from verifier.algebra.registry import OPERATIONS

    for op in OPERATIONS:
        with pytest.raises(SystemExit) as exc:
            main([op, "--help"])
        out, err = capsys.readouterr()
        assert exc.value.code == 0 and err == "" and "%" in out, op  # the '%' of --assume's example survives


@pytest.mark.parametrize(("argv", "code"), [
    # These were tracebacks; the engine now decides them.
    (["blocked_product", "(1,_2):(_5,_1)", "(M,_2):(_1,M)", "--assume", "M >= 1", "--assume", "M <= 4"], 1),
    (["composition", "(M,N):(_1,M)", "_4:_2", "--assume", "M/(N-1) >= 0"], 1),
])
def test_engine_reproducers_get_a_verdict(capsys, argv: list[str], code: int) -> None:
    rc, out, err = run(capsys, *argv)
    assert rc == code and err == "", (rc, err)
    assert out.startswith(("valid:", "invalid:", "unknown:"))


def test_an_assumption_that_divides_by_zero_admits_no_value_there(capsys) -> None:
    # N = 1 makes M/(N-1) undefined: such values are not admitted, so no counterexample may use them.
    rc, out, _ = run(capsys, "composition", "(M,N):(_1,M)", "_4:_2", "--assume", "M/(N-1) >= 0", "--json")
    import json

    v = json.loads(out)
    assert rc == 1 and v["counterexample"]["params"]["N"] != 1


def test_internal_error_is_exit_4_with_please_report(capsys, monkeypatch) -> None:
    import verifier.cli.app as cli

    def boom(args: object) -> int:
        raise ZeroDivisionError("integer division or modulo by zero")

    monkeypatch.setattr(cli, "cmd_eval", boom)
    rc, out, err = run(capsys, "eval", "(_2):(_1)")
    assert rc == 4 and out == ""
    one_line_error(err, "internal error: ZeroDivisionError: integer division or modulo by zero; please report")
    rc, out, err = run(capsys, "--debug", "eval", "(_2):(_1)")
    assert rc == 4 and "Traceback (most recent call last)" in err and "please report" in err


def test_keyboard_interrupt_is_exit_130(capsys, monkeypatch) -> None:
    import verifier.cli.app as cli

    def interrupted(args: object) -> int:
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "cmd_eval", interrupted)
    rc, out, err = run(capsys, "eval", "(_2):(_1)")
    assert rc == 130 and out == ""
    one_line_error(err, "interrupted")


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_ctrl_c_stops_a_run_with_130(tmp_path: Path, jobs: str) -> None:
    """SIGINT while the engine works through a long spec file (Z3 used to swallow it: the run went on and exited
    0), in this process or in worker processes (which the run then stops at once, not after the queued checks).
    The file has far more checks than 3 s decide, so the run is interrupted in the middle."""
    checks = "".join(f'[[check]]\nname = "c{k}"\nop = "zipped_divide"\nargs = ["(M,N):(_1,M)", "<_{2 * k + 2},_64>"]\n'
                     f'expect = "unknown"\n' for k in range(1500))
    (tmp_path / "long.cute.toml").write_text("[symbols]\nM = {}\nN = {}\n" + checks)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    p = subprocess.Popen([sys.executable, "-m", "verifier.cli.app", "run", "long.cute.toml", "--no-cache", "-j", jobs],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=tmp_path)
    _wait_for_cpu(p.pid, 3.0)  # past the imports (however loaded the machine), far before the end
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=60)
    assert p.returncode == 130, (p.returncode, err[-500:])
    assert err == "cute-verify: error: interrupted\n", err
    assert "1500 checks" not in out  # it stopped: no summary line


def _wait_for_cpu(pid: int, seconds: float) -> None:
    """Until the process and its children (a run's workers) have used ``seconds`` of CPU time (so it is working,
    not starting up)."""
    tick = os.sysconf("SC_CLK_TCK")
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if sum(_cpu(p) for p in _tree(pid)) / tick >= seconds:
            return
        time.sleep(0.1)


def _cpu(pid: int) -> int:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:  # gone meanwhile
        return 0
    return int(fields[11]) + int(fields[12])


def _tree(pid: int) -> list[int]:
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return [pid]
    return [pid, *(q for c in children for q in _tree(int(c)))]


# -- spec files --------------------------------------------------------------------------------------------------


def _spec_error(capsys, path: str, *extra: str) -> str:
    rc, out, err = run(capsys, "run", path, "--no-cache", *extra)
    assert rc == 2 and out == "", (rc, out, err)
    one_line_error(err, "")
    return err


CHECK = '[[check]]\nname = "a"\nproperty = "injective"\nargs = ["(_2):(_1)"]\n'


def test_spec_reproducers(capsys, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("nul.cute.toml").write_text('include = ["a\\u0000b"]\n')
    assert "cannot hold a NUL" in _spec_error(capsys, "nul.cute.toml")
    os.symlink("loop.cute.toml", "loop.cute.toml")
    Path("inc_loop.cute.toml").write_text('include = ["loop.cute.toml"]\n')
    assert "symbolic-link loop" in _spec_error(capsys, "inc_loop.cute.toml")
    assert "symbolic-link loop" in _spec_error(capsys, "loop.cute.toml")
    Path("big.cute.toml").write_text(f"timeout = {BIG}\n")
    assert "far too long" in _spec_error(capsys, "big.cute.toml")
    Path("inf.cute.toml").write_text("timeout = inf\n" + CHECK)
    assert "finite number of seconds" in _spec_error(capsys, "inf.cute.toml")
    Path("max.cute.toml").write_text(f"[symbols]\nM = {{ max = {BIG} }}\n" + CHECK)
    assert "far too long" in _spec_error(capsys, "max.cute.toml")
    Path("up.cute.toml").write_text('[[check]]\nname = "u"\nop = "upcast"\nargs = ["2", "3"]\n')
    assert "upcast: operand 1 must be a layout" in _spec_error(capsys, "up.cute.toml")


def test_spec_relation_with_a_multiple_of_symbol_loads(capsys, tmp_path: Path, monkeypatch) -> None:
    """`ldA >= K` with K a multiple of 8, checked over ldA alone: Z3Exception "Invalid bounded variable(s)"."""
    monkeypatch.chdir(tmp_path)
    Path("k.cute.toml").write_text('assume = ["ldA >= K"]\n[symbols]\nK = { multiple_of = 8 }\nldA = {}\n'
                                   '[[check]]\nname = "x"\nproperty = "in_bounds"\nargs = ["(ldA):(_1)", "_8"]\n'
                                   'expect = "refuted"\n')
    rc, out, err = run(capsys, "run", "k.cute.toml", "--no-cache", "--format", "json")
    assert rc == 0 and err == "", err
    import json

    [r] = json.loads(out)["results"]
    assert r["counterexample"]["params"]["ldA"] >= 9  # the relation is kept: ldA >= K >= 8


def test_spec_includes_are_regular_files_below_the_including_folder(capsys, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sub").mkdir()
    (tmp_path / "outside.cute.toml").write_text("secret_key_of_another_file = 1\n")
    Path("sub/up.cute.toml").write_text('include = ["../outside.cute.toml"]\n' + CHECK)
    err = _spec_error(capsys, "sub/up.cute.toml")
    assert "is outside" in err and "--include-root" in err and "secret" not in err
    # --include-root widens the tree; the included file's content is still not echoed in an error.
    err = _spec_error(capsys, "sub/up.cute.toml", "--include-root", str(tmp_path))
    assert "unknown key" in err and "secret" not in err
    Path("abs.cute.toml").write_text('include = ["/etc/passwd"]\n' + CHECK)
    assert "is outside" in _spec_error(capsys, "abs.cute.toml")
    os.mkfifo("fifo.cute.toml")
    Path("fifo_inc.cute.toml").write_text('include = ["fifo.cute.toml"]\n' + CHECK)
    assert "not a regular file" in _spec_error(capsys, "fifo_inc.cute.toml")  # and it did not block
    assert "not a regular file" in _spec_error(capsys, "fifo.cute.toml")
    Path("d.cute.toml").mkdir()
    Path("dir_inc.cute.toml").write_text('include = ["d.cute.toml"]\n' + CHECK)
    assert "not a regular file" in _spec_error(capsys, "dir_inc.cute.toml")
    Path("huge.cute.toml").write_text("# " + "x" * (1 << 20) + "\n")
    assert "larger than the limit of 1048576 bytes" in _spec_error(capsys, "huge.cute.toml")


def test_spec_include_of_a_device_is_refused_even_inside_the_root(capsys, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("zero.cute.toml").write_text('include = ["/dev/zero"]\n' + CHECK)
    err = _spec_error(capsys, "zero.cute.toml", "--include-root", "/dev")
    assert "not a regular file" in err  # read nothing: /dev/zero used to grow without bound


# -- files written -----------------------------------------------------------------------------------------------


def _targets(tmp_path: Path) -> dict[str, Path]:
    """A FIFO, a symlink to a regular file, a folder and (if this user may create one) a character device."""
    out = {}
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    out["fifo"] = fifo
    real = tmp_path / "real.txt"
    real.write_text("keep me\n")
    link = tmp_path / "link"
    link.symlink_to(real)
    out["symlink"] = link
    folder = tmp_path / "folder"
    folder.mkdir()
    out["folder"] = folder
    return out


def _snapshot(p: Path) -> tuple[int, int, int]:
    st = os.lstat(p)
    return st.st_mode, st.st_ino, st.st_rdev


OK_SPEC = '[[check]]\nname = "bijective"\nproperty = "bijective"\nargs = ["(_4,_8):(_1,_4)"]\n'


def _ok_spec(folder: Path) -> str:
    """A spec file whose one check is proved (made here: tests/ holds no spec file, see test_spec_pytest)."""
    path = folder / "ok.cute.toml"
    path.write_text(OK_SPEC)
    return str(path)


WRITERS = [
    lambda spec, out: ["run", spec, "--no-cache", "--output", out],
    lambda spec, out: ["draw", "(_2,_3):(_3,_1)", "--format", "svg", "-o", out],
    lambda spec, out: ["prove", str(ROOT / "proofs" / "coordinates.py"), "--write-docs", out],
]


@pytest.mark.parametrize("writer", range(len(WRITERS)), ids=["run --output", "draw -o", "prove --write-docs"])
@pytest.mark.parametrize("kind", ["fifo", "symlink", "folder"])
def test_report_over_a_special_file_is_refused(capsys, tmp_path: Path, monkeypatch, writer: int, kind: str) -> None:
    monkeypatch.chdir(tmp_path)
    target = _targets(tmp_path)[kind]
    spec = _ok_spec(tmp_path)
    before = _snapshot(target)
    rc, out, err = run(capsys, *WRITERS[writer](spec, str(target)))
    assert rc == 2, (rc, err)
    one_line_error(err, str(target))
    assert _snapshot(target) == before
    assert (tmp_path / "real.txt").read_text() == "keep me\n"
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_report_over_a_character_device_is_refused(capsys, tmp_path: Path) -> None:
    dev = tmp_path / "null-device"
    try:
        os.mknod(dev, stat.S_IFCHR | 0o666, os.makedev(1, 3))  # the same device numbers as /dev/null
    except PermissionError:
        pytest.skip("this user may not create a device node (mknod)")
    before = _snapshot(dev)
    spec = _ok_spec(tmp_path)
    for argv in (w(spec, str(dev)) for w in WRITERS):
        rc, out, err = run(capsys, *argv)
        assert rc == 2, (argv, err)
        one_line_error(err, "not a regular file")
        assert _snapshot(dev) == before and stat.S_ISCHR(os.lstat(dev).st_mode)


def test_report_keeps_the_umask_and_an_existing_mode(capsys, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    old = os.umask(0o027)
    try:
        rc, _, _ = run(capsys, "draw", "(_2,_3):(_3,_1)", "-o", "new.svg")
        assert rc == 0 and stat.S_IMODE(os.stat("new.svg").st_mode) == 0o640
        Path("old.svg").write_text("x")
        os.chmod("old.svg", 0o604)
        rc, _, _ = run(capsys, "draw", "(_2,_3):(_3,_1)", "-o", "old.svg")
        assert rc == 0 and stat.S_IMODE(os.stat("old.svg").st_mode) == 0o604
        assert Path("old.svg").read_text().startswith("<svg")
    finally:
        os.umask(old)


def test_missing_folder_is_not_created(capsys, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    rc, _, err = run(capsys, "draw", "(_2,_3):(_3,_1)", "-o", "a/b/c.svg")
    assert rc == 2 and not Path("a").exists()
    one_line_error(err, "does not exist")


def test_dash_is_standard_output_everywhere(capsys, tmp_path: Path, monkeypatch) -> None:
    spec_dir = tmp_path.parent / f"{tmp_path.name}-spec"
    spec_dir.mkdir()
    spec = _ok_spec(spec_dir)
    monkeypatch.chdir(tmp_path)
    rc, out, _ = run(capsys, "run", spec, "--no-cache", "-o", "-")
    assert rc == 0 and out.startswith("ok ")
    rc, out, _ = run(capsys, "prove", str(ROOT / "proofs" / "coordinates.py"), "--write-docs", "-")
    assert rc == 0 and out.startswith("#")
    rc, out, _ = run(capsys, "draw", "(_2,_3):(_3,_1)", "-o", "-")
    assert rc == 0 and out.startswith("<svg")
    assert list(tmp_path.iterdir()) == []  # no file named '-'


def test_theorem_file_reproducers(capsys, tmp_path: Path) -> None:
    bad = tmp_path / "t.py"
    bad.write_text("from verifier.theorems import Theorem, bijective\n"
                   'THEOREMS = [Theorem("t", bijective("(_2):(_1)"), 42)]\n')
    rc, out, err = run(capsys, "prove", str(bad))
    assert rc == 2 and out == ""
    one_line_error(err, "t: symbols must be names")
    folder = tmp_path / "existing"
    folder.mkdir()
    rc, out, err = run(capsys, "prove", str(ROOT / "proofs" / "coordinates.py"), "--write-docs", str(folder))
    assert rc == 2 and folder.is_dir() and list(folder.iterdir()) == []
    one_line_error(err, "is a folder")
