"""Hostile paths and text from a fuzzing (issue 39), each now one line on stderr with status 2:
symbolic link loops, names over 255 bytes, special files at an output path, links at an output
path (written through), nesting in Hadoop's XML, control characters from inputs (docs/limits.md)."""

from __future__ import annotations

import contextlib
import errno
import io
import os
import socket
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from models.errors import InvalidInput
from models.fileio import output_file, output_folder, write_atomic, write_folder
from models.limits import MAX_NESTING
from planner.cli.console import escaped, one_line
from tests.support.cli import error_line, planner

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
NIGHTLY, CLUSTER = EXAMPLES / "nightly.yaml", EXAMPLES / "cluster.yaml"
LONG_NAME = "a" * 300  # one path component over NAME_MAX (255 bytes)




@pytest.fixture
def loop(tmp_path: Path) -> Path:
    (tmp_path / "b.yaml").symlink_to(tmp_path / "a.yaml")
    (tmp_path / "a.yaml").symlink_to(tmp_path / "b.yaml")
    return tmp_path / "a.yaml"


LOOP_PROBLEM = "a symbolic link loop (too many levels of symbolic links)"


def test_a_link_loop_as_any_input_is_one_line(loop):
    assert error_line("simulate", NIGHTLY, "-c", CLUSTER, "--hadoop-conf", loop) == (
        f"error: {loop}: (top level): cannot read: {LOOP_PROBLEM}")
    assert error_line("simulate", loop, "-c", CLUSTER) == f"error: {loop}: (top level): cannot read: {LOOP_PROBLEM}"
    assert error_line("simulate", NIGHTLY, "-c", loop) == f"error: {loop}: (top level): cannot read: {LOOP_PROBLEM}"


def test_a_link_loop_as_an_output_is_one_line(loop):
    out = loop.with_name("c.json")
    out.symlink_to(out)
    assert error_line("simulate", NIGHTLY, "-c", CLUSTER, "-o", out) == f"error: {out}: --output: {LOOP_PROBLEM}"
    assert error_line("validate", NIGHTLY, "-c", CLUSTER, "--plan", out, "-o", loop).endswith(LOOP_PROBLEM)


def test_a_name_over_255_bytes_is_one_line(tmp_path):
    name = tmp_path / f"{LONG_NAME}.yaml"
    assert error_line("simulate", NIGHTLY, "-c", CLUSTER, "--hadoop-conf", name) == (
        f"error: {name}: (top level): cannot read: File name too long")
    assert error_line("simulate", NIGHTLY, "-c", CLUSTER, "-o", f"{name}.json") == (
        f"error: {name}.json: --output: File name too long")
    assert error_line("simulate", NIGHTLY, "-c", CLUSTER, "-o", tmp_path / LONG_NAME / "r.json") == (
        f"error: {tmp_path / LONG_NAME / 'r.json'}: --output: File name too long")
    assert error_line("export", tmp_path / "p.json", "-c", CLUSTER, "--to", "mrv1", "-o", tmp_path / LONG_NAME) == (
        f"error: {tmp_path / LONG_NAME}: --output: File name too long")


def test_an_output_link_is_written_through_to_its_target(tmp_path):
    (tmp_path / "real").mkdir()
    target = tmp_path / "real" / "r.json"
    target.write_text("old\n")
    link = tmp_path / "r.json"
    link.symlink_to(Path("real") / "r.json")
    status, _, stderr = planner("simulate", NIGHTLY, "-c", CLUSTER, "-o", link)
    assert status == 0, stderr
    assert link.is_symlink() and os.readlink(link) == str(Path("real") / "r.json")
    assert target.read_text().startswith("{")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.json", "real"]  # no temporary beside the link
    assert [p.name for p in (tmp_path / "real").iterdir()] == ["r.json"]


def test_a_link_to_a_link_is_followed_to_the_end(tmp_path):
    final = _write(tmp_path / "final.json", "old\n")
    (tmp_path / "middle.json").symlink_to(final)
    (tmp_path / "first.json").symlink_to(tmp_path / "middle.json")
    write_atomic(tmp_path / "first.json", "x\n")
    assert final.read_text() == "x\n" and (tmp_path / "first.json").is_symlink()
    assert (tmp_path / "middle.json").is_symlink()


def test_a_dangling_output_link_is_refused_before_any_work(tmp_path):
    link = tmp_path / "r.json"
    link.symlink_to(tmp_path / "gone" / "x.json")
    assert error_line("simulate", NIGHTLY, "-c", CLUSTER, "-o", link) == (
        f"error: {link}: --output: is a symbolic link to a missing file, {tmp_path / 'gone' / 'x.json'}")
    assert error_line("plan", NIGHTLY, "-c", CLUSTER, "-o", link).endswith("is a symbolic link to a missing file, "
                                                                          f"{tmp_path / 'gone' / 'x.json'}")
    assert link.is_symlink() and not (tmp_path / "gone").exists()
    chained = tmp_path / "chained.json"
    chained.symlink_to(link)  # the missing file named is the end of the chain
    with pytest.raises(InvalidInput, match=f"is a symbolic link to a missing file, {tmp_path / 'gone' / 'x.json'}$"):
        write_atomic(chained, "x")
    folder_link = tmp_path / "report"
    folder_link.symlink_to(tmp_path / "nowhere")
    assert error_line("validate", NIGHTLY, "-c", CLUSTER, "--plan", link, "-o", folder_link) == (
        f"error: {folder_link}: --output: is a symbolic link to a missing folder, {tmp_path / 'nowhere'}")


def _fifo(path: Path) -> Path:
    os.mkfifo(path)
    return path


def _socket(path: Path) -> Path:
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(path))
    return path


@pytest.mark.parametrize(("make", "kind"), [(_fifo, "a named pipe"), (_socket, "a socket")])
def test_a_special_file_at_an_output_path_is_refused_and_kept(tmp_path, make, kind):
    special = make(tmp_path / "out.json")
    mode = special.lstat().st_mode
    assert error_line("simulate", NIGHTLY, "-c", CLUSTER, "-o", special) == (
        f"error: {special}: --output: is {kind}, not a regular file; give a file name")
    with pytest.raises(InvalidInput, match=f"out.json: \\(output\\): is {kind}, not a regular file"):
        write_atomic(special, "x")
    link = tmp_path / "link.json"
    link.symlink_to(special)  # through a link: the same
    assert error_line("plan", NIGHTLY, "-c", CLUSTER, "-o", link).endswith(f"is {kind}, not a regular file; "
                                                                          "give a file name")
    assert special.lstat().st_mode == mode and sorted(p.name for p in tmp_path.iterdir()) == ["link.json", "out.json"]


@pytest.mark.skipif(os.geteuid() != 0, reason="making a device node needs root")
def test_a_device_at_an_output_path_is_refused_and_kept(tmp_path):
    """A character device with /dev/null's numbers, made in the test's own folder."""
    device = tmp_path / "null"
    os.mknod(device, 0o666 | stat.S_IFCHR, os.stat("/dev/null").st_rdev)
    csv = tmp_path / "tasks.csv"
    os.mknod(csv, 0o666 | stat.S_IFCHR, os.stat("/dev/null").st_rdev)
    block = tmp_path / "block.json"
    os.mknod(block, 0o600 | stat.S_IFBLK, os.makedev(7, 0))  # a loop device's numbers; never opened
    with pytest.raises(InvalidInput, match="is a block device, not a regular file"):
        write_atomic(block, "x")
    assert stat.S_ISBLK(block.lstat().st_mode)
    trace = ROOT / "tests" / "data" / "2jobs2min-rumen-jh.json"
    assert error_line("import", "rumen", trace, "--tasks-csv", csv) == (
        f"error: {csv}: --tasks-csv: is a character device, not a regular file; give a file name")
    with pytest.raises(InvalidInput, match="is a character device"):
        write_atomic(device, "x")
    assert stat.S_ISCHR(device.lstat().st_mode) and stat.S_ISCHR(csv.lstat().st_mode)


def test_output_folders_refuse_files_and_special_files(tmp_path):
    with pytest.raises(InvalidInput, match="is a file; give a folder to write into"):
        output_folder(_write(tmp_path / "f", "x"))
    with pytest.raises(InvalidInput, match="is a named pipe, not a folder"):
        output_folder(_fifo(tmp_path / "p"))
    (tmp_path / "full").mkdir()
    _write(tmp_path / "full" / "x", "x")
    with pytest.raises(InvalidInput, match="exists and is not an empty folder"):
        write_folder({"a": "b"}, tmp_path / "full")
    (tmp_path / "empty").mkdir()
    (tmp_path / "to-empty").symlink_to(tmp_path / "empty")
    assert write_folder({"a.txt": "b"}, tmp_path / "to-empty") == ["a.txt"]
    assert (tmp_path / "to-empty").is_symlink() and (tmp_path / "empty" / "a.txt").read_text() == "b"
    assert output_file(tmp_path / "new.json") == tmp_path / "new.json"


def _write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into a read-only folder")
def test_a_read_only_folder_is_one_line(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir(mode=0o555)
    assert error_line("simulate", NIGHTLY, "-c", CLUSTER, "-o", folder / "r.json") == (
        f"error: {folder / 'r.json'}: --output: cannot write here: Permission denied")


@pytest.mark.parametrize(("number", "words"), [(errno.EROFS, "Read-only file system"),
                                              (errno.EACCES, "Permission denied")])
def test_a_folder_that_takes_no_file_is_one_line(tmp_path, monkeypatch, number, words):
    """As root cannot be kept out of a folder, the system's refusal is simulated where the
    temporary file is made."""
    def refused(*args: object, **kwargs: object) -> None:
        raise OSError(number, os.strerror(number))

    monkeypatch.setattr("models.fileio._new_file", refused)
    assert error_line("simulate", NIGHTLY, "-c", CLUSTER, "-o", tmp_path / "r.json") == (
        f"error: {tmp_path / 'r.json'}: (output): cannot write here: {words}")


def test_a_read_only_file_system_is_refused_before_any_work(tmp_path, monkeypatch):
    """The folder that would take the output is looked at first (the system's answer simulated:
    root may write anywhere else): `demo` would otherwise run for minutes before failing."""
    class ReadOnly:
        f_flag = os.ST_RDONLY

    monkeypatch.setattr("models.fileio.os.access", lambda path, mode, **kwargs: not mode & os.W_OK)
    monkeypatch.setattr("models.fileio.os.statvfs", lambda path: ReadOnly())
    assert error_line("demo", "-o", tmp_path / "demo") == (
        f"error: {tmp_path / 'demo'}: --output: cannot write here: Read-only file system")
    assert error_line("plan", NIGHTLY, "-c", CLUSTER, "-o", tmp_path / "new" / "p.json") == (
        f"error: {tmp_path / 'new' / 'p.json'}: --output: cannot write here: Read-only file system")
    assert list(tmp_path.iterdir()) == []


def _nested_allocations(depth: int) -> str:
    return "<allocations>" + '<queue name="q">' * depth + "</queue>" * depth + "</allocations>"


@pytest.mark.parametrize("depth", [3_000, 100_000])
def test_deeply_nested_xml_is_refused_in_one_line(tmp_path, depth):
    path = _write(tmp_path / "fair-scheduler.xml", _nested_allocations(depth))
    assert error_line("simulate", NIGHTLY, "-c", CLUSTER, "--hadoop-conf", path) == (
        f"error: {path}: queue: elements nested more than {MAX_NESTING} levels deep")


def test_xml_nesting_limit_boundary(tmp_path):
    """<allocations> and 63 queues inside each other: 64 levels, read; one more queue is refused."""
    from planner.io.hadoop.parsing import read_xml

    assert read_xml(_write(tmp_path / "ok.xml", _nested_allocations(MAX_NESTING - 1))).tag == "allocations"
    with pytest.raises(InvalidInput, match=f"nested more than {MAX_NESTING} levels deep"):
        read_xml(_write(tmp_path / "deep.xml", _nested_allocations(MAX_NESTING)))


def _capacity_chain(depth: int) -> str:
    props, path = ["<property><name>yarn.scheduler.capacity.root.queues</name><value>a</value></property>"], "root.a"
    for _ in range(depth):
        props.append(f"<property><name>yarn.scheduler.capacity.{path}.queues</name><value>a</value></property>")
        props.append(f"<property><name>yarn.scheduler.capacity.{path}.capacity</name><value>100</value></property>")
        path += ".a"
    return "<configuration>" + "".join(props) + "</configuration>"


def test_capacity_queues_nested_3000_deep_are_refused_in_one_line(tmp_path):
    path = _write(tmp_path / "capacity-scheduler.xml", _capacity_chain(3_000))
    line = error_line("simulate", NIGHTLY, "-c", CLUSTER, "--hadoop-conf", path)
    assert line.startswith(f"error: {path}: yarn.scheduler.capacity.root.a.a.")
    assert line.endswith(f".queues: queues nested more than {MAX_NESTING} levels deep")


def test_control_characters_from_inputs_are_escaped(tmp_path):
    evil = _write(tmp_path / "w.yaml", 'jobs:\n  - {name: a, map_tasks: 4, map_time: 1, "\\e[31mred\\e[0m": 3}\n')
    line = error_line("simulate", evil, "-c", CLUSTER)
    assert "jobs[0].\\x1b[31mred\\x1b[0m: unknown key" in line and "\x1b" not in line
    header = _write(tmp_path / "h.csv", "job,no\x1b[2Jdes,runtime\nx,2,10\n")
    assert error_line("fit", header).endswith("got job,no\\x1b[2Jdes,runtime")
    environ = tmp_path / "environ.csv"
    environ.write_bytes(b"A=1\x00B=2\x00\x07\x7f\xc2\x9b\n")
    line = error_line("fit", environ)
    assert line.endswith("got A=1\\x00B=2\\x00\\x07\\x7f\\x9b")


def test_escaped_by_hand():
    assert escaped("plain é ü") == "plain é ü"
    assert escaped("\x1b[2J\x00\u202e\udcff") == "\\x1b[2J\\x00\\u202e\\udcff"
    assert one_line("a\n\tb\x1b") == "a b\\x1b"


def test_an_os_error_no_reader_checked_is_still_one_line(tmp_path):
    from planner.cli.console import exits_cleanly

    def broken() -> None:
        raise PermissionError(13, "Permission denied", str(tmp_path / "x"))

    err = io.StringIO()
    with contextlib.redirect_stderr(err), pytest.raises(Exception) as stopped:
        exits_cleanly(broken)()
    assert getattr(stopped.value, "exit_code", None) == 2
    assert err.getvalue() == f"error: {tmp_path / 'x'}: Permission denied\n"


def test_a_pso_run_leaves_no_report_log(tmp_path):
    """pyswarms configures logging to write report.log in the current folder as it is imported."""
    done = subprocess.run([sys.executable, "-m", "planner", "plan", NIGHTLY, "-c", CLUSTER, "--strategy", "packing",
                           "--solver", "pso", "--time-limit", "5"], cwd=tmp_path, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=600)
    assert done.returncode == 0, done.stderr
    assert list(tmp_path.iterdir()) == []
