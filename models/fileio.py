"""Reading and writing the toolkit's YAML and JSON files.

Loading is strict: only safe YAML, a mapping at the top, no duplicate keys (a
repeated key would otherwise silently win). Writing is atomic: a temporary file
in the target directory is renamed over the target, so a reader never sees a
half-written file, and a folder of files (`write_folder`) is written whole or not at all.
"""

from __future__ import annotations

import csv
import errno
import io
import json
import os
import secrets
import shutil
import stat
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, TextIO

import yaml

from models.checks import as_path, shown
from models.errors import InvalidInput, InvalidType
from models.limits import (
    MAX_ALIAS_NODES,
    MAX_FILE_BYTES,
    MAX_NESTING,
    MAX_NUMBER_CHARS,
    MAX_YAML_BYTES,
)

YAML_SUFFIXES = (".yaml", ".yml")
JSON_SUFFIXES = (".json",)

# libyaml parses about ten times faster than the pure-Python parser; its composer recurses in C
# (a deep file crashes it), which `_check_yaml_shape` rules out before anything is composed.
_BaseLoader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _StrictLoader(_BaseLoader):
    """Safe YAML that refuses duplicate keys and numbers of absurd length."""


def _construct_mapping(loader: _StrictLoader, node: yaml.MappingNode, deep: bool = False) -> dict:
    loader.flatten_mapping(node)
    result: dict = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=deep)
        try:
            hash(key)
        except TypeError:
            raise InvalidInput("", f"line {key_node.start_mark.line + 1}: unhashable key") from None
        if key in result:
            shown_key = str(key) if len(str(key)) <= 60 else str(key)[:57] + "..."
            raise InvalidInput(shown_key, f"duplicate key (line {key_node.start_mark.line + 1})")
        result[key] = loader.construct_object(value_node, deep=deep)
    return result


def _bounded_scalar(construct: Any) -> Any:
    """A number constructor that first refuses literals longer than `MAX_NUMBER_CHARS`."""

    def build(loader: _StrictLoader, node: yaml.ScalarNode) -> Any:
        if len(node.value) > MAX_NUMBER_CHARS:
            raise InvalidInput("", f"line {node.start_mark.line + 1}: {_long_number(node.value)}")
        return construct(loader, node)

    return build


def _long_number(text: str) -> str:
    return f"a number of {len(text):,} characters; numbers may have at most {MAX_NUMBER_CHARS}"


_StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
_StrictLoader.add_constructor("tag:yaml.org,2002:int", _bounded_scalar(yaml.SafeLoader.construct_yaml_int))
_StrictLoader.add_constructor("tag:yaml.org,2002:float", _bounded_scalar(yaml.SafeLoader.construct_yaml_float))


def _check_yaml_shape(text: str) -> None:
    """Refuse deep nesting and alias bombs from the event stream, before composing.

    The event parser is iterative, so this runs in bounded stack whatever the input. Each
    alias adds the whole anchored value again (its node count, with the aliases inside it);
    their sum may not exceed `MAX_ALIAS_NODES`. An alias of a value still open is recursive.
    """
    loader = _BaseLoader(text)
    sizes: dict[str, int] = {}  # anchor -> nodes of its value, aliases expanded
    open_nodes: list[list[Any]] = []  # [anchor, nodes so far] per open sequence or mapping
    added = 0
    try:
        while (event := loader.get_event()) is not None:
            if isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
                if len(open_nodes) >= MAX_NESTING:
                    raise InvalidInput("", f"line {event.start_mark.line + 1}: nested more than {MAX_NESTING} levels deep")
                open_nodes.append([event.anchor, 1])
                continue
            if isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
                anchor, size = open_nodes.pop()
            elif isinstance(event, yaml.AliasEvent):
                if event.anchor not in sizes:
                    raise InvalidInput("", f"line {event.start_mark.line + 1}: alias *{event.anchor} refers to "
                                           "no finished anchor (undefined or recursive)")
                anchor, size = None, sizes[event.anchor]
                added += size
                if added > MAX_ALIAS_NODES:
                    raise InvalidInput("", f"line {event.start_mark.line + 1}: aliases expand to more than "
                                           f"{MAX_ALIAS_NODES:,} nodes")
            elif isinstance(event, yaml.ScalarEvent):
                anchor, size = event.anchor, 1
            else:  # stream and document start and end
                continue
            if anchor is not None:
                sizes[anchor] = size
            if open_nodes:
                open_nodes[-1][1] += size
    except yaml.YAMLError as error:
        # libyaml 0.2.6 (PyYAML 6.0.4's wheels) stops at 1,000 open flow levels while it scans
        # ahead for a key, before the parser hands us the 65th level: the same refusal, said ours.
        mark = getattr(error, "problem_mark", None)
        if "nesting depth" not in str(getattr(error, "problem", "")) or mark is None:
            raise
        raise InvalidInput("", f"line {mark.line + 1}: nested more than {MAX_NESTING} levels deep") from None
    finally:
        loader.dispose()


def _json_pairs(pairs: list[tuple[str, Any]]) -> dict:
    result: dict = {}
    for key, value in pairs:
        if key in result:
            raise InvalidInput(key if len(key) <= 60 else key[:57] + "...", "duplicate key")
        result[key] = value
    return result


def _reject_constant(name: str) -> float:
    raise InvalidInput("", f"{name} is not a valid JSON number")


def _json_int(text: str) -> int:
    if len(text) > MAX_NUMBER_CHARS:
        raise InvalidInput("", _long_number(text))
    return int(text)


def _json_float(text: str) -> float:
    if len(text) > MAX_NUMBER_CHARS:
        raise InvalidInput("", _long_number(text))
    return float(text)


def json_decoder(*, strict_keys: bool = True) -> json.JSONDecoder:
    """The toolkit's JSON decoder: no NaN or Infinity, no absurdly long numbers and, with
    ``strict_keys``, no duplicate keys."""
    return json.JSONDecoder(object_pairs_hook=_json_pairs if strict_keys else None,
                            parse_constant=_reject_constant, parse_int=_json_int, parse_float=_json_float)


def check_nesting(data: object) -> None:
    """Refuse JSON values nested more than `MAX_NESTING` levels (walked without recursion)."""
    pending = [(data, 1)]
    while pending:
        value, depth = pending.pop()
        children = value.values() if isinstance(value, dict) else value if isinstance(value, list) else None
        if children is None:
            continue
        if depth > MAX_NESTING:
            raise InvalidInput("", f"nested more than {MAX_NESTING} levels deep")
        pending.extend((child, depth + 1) for child in children)


def file_format(path: str | Path) -> str:
    """ "yaml" or "json", from the file name's suffix."""
    suffix = Path(path).suffix.lower()
    if suffix in YAML_SUFFIXES:
        return "yaml"
    if suffix in JSON_SUFFIXES:
        return "json"
    shown_suffix = suffix if len(suffix) <= 20 else suffix[:17] + "..."
    raise InvalidInput("", f"unknown file type {shown_suffix or '(none)'!r}; use .yaml, .yml or .json",
                       source=str(path))


def parse_text(text: str, fmt: str) -> object:
    """Parse YAML or JSON text strictly; raises `InvalidInput` on malformed text."""
    try:
        if fmt == "json":
            data = json_decoder().decode(text)
            check_nesting(data)
            return data
        _check_yaml_shape(text)
        return yaml.load(text, Loader=_StrictLoader)  # noqa: S506 - _StrictLoader is a SafeLoader
    except json.JSONDecodeError as error:
        raise InvalidInput("", f"malformed JSON at line {error.lineno}, column {error.colno}: {error.msg}") from None
    except yaml.YAMLError as error:
        raise InvalidInput("", f"malformed YAML{yaml_error_place(error)}: {yaml_problem(error)}") from None
    except RecursionError:
        raise InvalidInput("", "document is nested too deeply") from None


def yaml_error_place(error: yaml.YAMLError) -> str:
    mark = getattr(error, "problem_mark", None)
    return f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""


def yaml_problem(error: yaml.YAMLError) -> str:
    problem = getattr(error, "problem", None) or (str(error).splitlines() or ["unreadable"])[0]
    return problem if len(problem) <= 200 else problem[:197] + "..."


def read_text(path: str | Path, *, limit: int = MAX_FILE_BYTES) -> str:
    """The UTF-8 text of a regular file of at most ``limit`` bytes.

    A FIFO, a device or a directory is refused before anything is read: reading a FIFO
    blocks until a writer comes, and /dev/zero never ends. The file is opened without
    blocking and checked again on the open descriptor (it may have changed since).
    """
    source = str(path)
    try:
        status = os.stat(path)
        if stat.S_ISDIR(status.st_mode):
            raise InvalidInput("", "is a directory, expected a file", source=source)
        if not stat.S_ISREG(status.st_mode):
            raise InvalidInput("", f"is not a regular file ({_kind(status.st_mode)}), expected a file", source=source)
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(descriptor, "rb") as stream:
            opened = os.fstat(stream.fileno())
            if not stat.S_ISREG(opened.st_mode):
                raise InvalidInput("", f"is not a regular file ({_kind(opened.st_mode)}), expected a file",
                                   source=source)
            if opened.st_size > limit:
                raise InvalidInput("", f"is {opened.st_size:,} bytes; input files may have at most {limit:,}",
                                   source=source)
            data = stream.read(limit + 1)
        if len(data) > limit:  # it grew while we read
            raise InvalidInput("", f"is more than {limit:,} bytes; input files may have at most {limit:,}",
                               source=source)
        return data.decode("utf-8")
    except InvalidInput:
        raise
    except FileNotFoundError:
        raise InvalidInput("", "no such file", source=source) from None
    except IsADirectoryError:
        raise InvalidInput("", "is a directory, expected a file", source=source) from None
    except UnicodeDecodeError as error:
        raise InvalidInput("", f"not UTF-8 text (byte {error.start})", source=source) from None
    except (OSError, ValueError) as error:  # ValueError: a NUL byte in the path
        raise InvalidInput("", f"cannot read: {os_problem(error)}", source=source) from None


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISFIFO, "a named pipe"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a file"


def read_mapping(path: str | Path) -> dict:
    """Load a YAML or JSON file whose top level must be a mapping."""
    fmt = file_format(path)
    try:
        data = parse_text(read_text(path, limit=MAX_YAML_BYTES if fmt == "yaml" else MAX_FILE_BYTES), fmt)
    except InvalidInput as error:
        raise error.in_file(str(path)) from None
    if not isinstance(data, dict):
        kind = "empty" if data is None else type(data).__name__
        raise InvalidInput("", f"top level must be a mapping, got {kind}", source=str(path))
    return data


def dumps(data: Any, fmt: str) -> str:
    if fmt == "json":
        return json.dumps(data, indent=2, sort_keys=False) + "\n"
    return yaml.safe_dump(data, sort_keys=False, default_flow_style=False)


def dump_mapping(data: dict, path: str | Path) -> None:
    """Write a mapping as YAML or JSON (chosen by suffix), atomically."""
    write_atomic(path, dumps(data, file_format(path)))


def write_atomic(path: str | Path, content: str | bytes | Callable[[TextIO], None]) -> None:
    """Write ``content`` to ``path`` through a temporary file and a rename. ``content`` may be
    a function that writes text to the stream it is given (a large file, a part at a time).

    A path that cannot take a file (a folder is there, a parent is a file, no permission, a full
    disk) raises `InvalidInput` naming it, and nothing is left behind. A symbolic link is written
    through: its final target gets the new content (the temporary file is made in the target's
    folder) and the link stays a link; a dangling link, a link loop and any special file (a named
    pipe, a device, a socket) are refused before anything is written (`output_file`)."""
    as_path(path, "path")
    if not isinstance(content, (str, bytes)) and not callable(content):
        raise InvalidType("content", f"must be a str, bytes or a function that writes to a stream, got "
                                     f"{shown(content)} ({type(content).__name__})")
    source = str(path)
    target = output_file(path)
    directory = target.parent if str(target.parent) else Path(".")
    made: list[Path] = []  # the temporary file, named here before it exists (`_temporary`)
    try:
        directory.mkdir(parents=True, exist_ok=True)
        handle = _temporary(directory, target.name, made, _new_file)
        mode = "wb" if isinstance(content, bytes) else "w"
        with os.fdopen(handle, mode, **({} if mode == "wb" else {"encoding": "utf-8"})) as stream:
            if callable(content):
                content(stream)
            else:
                stream.write(content)
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(made[0], 0o644)
        os.replace(made[0], target)
    except BaseException as error:  # SIGINT and SIGTERM too (`planner.cli.startup`): no temporary left
        for name in made:
            name.unlink(missing_ok=True)
        if isinstance(error, OSError):  # a file where a folder should be, no permission, a full disk
            raise InvalidInput("(output)", f"cannot write here: {_write_problem(error)}", source=source) from None
        raise


#: How `_new_file` opens a temporary file: new, for writing, not inherited by child processes.
_NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)


def _new_file(name: Path) -> int:
    """A new file, readable and writable by its owner alone (as ``tempfile.mkstemp`` makes it)."""
    return os.open(name, _NEW_FILE, 0o600)


def _temporary(directory: Path, name: str, made: list[Path], create: Callable[[Path], Any]) -> Any:
    """A new temporary beside ``name`` in ``directory`` (``.<name>.<random>.tmp``), made by
    ``create`` (which refuses a name already there); its path is appended to ``made`` before it is
    created, so that a signal at any moment after can be cleaned up by the caller (with
    ``tempfile.mkstemp`` a Ctrl-C between the file's creation and the caller's ``try`` left it)."""
    for _ in range(100):
        candidate = directory / f".{name[:100]}.{secrets.token_hex(4)}.tmp"
        made.append(candidate)
        try:
            return create(candidate)
        except FileExistsError:  # someone else's: not ours to remove
            made.remove(candidate)
    raise FileExistsError(errno.EEXIST, f"no free temporary name in {directory}")


def write_folder(files: Mapping[str, str], folder: str | Path, *, executable: Sequence[str] = ()) -> list[str]:
    """Write ``files`` (name -> text) as ``folder``, whole or not at all: into a temporary folder
    beside it, renamed into place; an existing folder is refused unless it is empty. The files
    named in ``executable`` are made executable. Returns the names, sorted. A symbolic link to a
    folder is written through, as `write_atomic` does (`output_folder`)."""
    source = str(folder)
    folder = output_folder(folder, empty=True)
    made: list[Path] = []  # the staging folder, named before it exists (`_temporary`)
    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        _temporary(folder.parent, folder.name, made, lambda name: os.mkdir(name, 0o700))
        staging = made[0]
        for name, content in files.items():
            (staging / name).write_text(content, encoding="utf-8")
        for name in executable:
            (staging / name).chmod(0o755)
        if os.path.isdir(folder):
            folder.rmdir()  # empty (checked above)
        os.replace(staging, folder)
    except BaseException as error:
        for name in made:
            shutil.rmtree(name, ignore_errors=True)
        if isinstance(error, OSError):
            raise InvalidInput("(output)", f"cannot write here: {_write_problem(error)}", source=source) from None
        raise
    return sorted(files)


def _write_problem(error: OSError) -> str:
    if isinstance(error, (FileExistsError, NotADirectoryError)):
        return "a parent of it is a file, not a folder"
    return os_problem(error)


def os_problem(error: OSError | ValueError) -> str:
    """What went wrong with a path, in a few words (the caller names the path): the system's
    words for it, a symbolic link loop said plainly."""
    if isinstance(error, OSError) and error.errno == errno.ELOOP:
        return "a symbolic link loop (too many levels of symbolic links)"
    if isinstance(error, OSError) and error.strerror:
        return error.strerror
    return str(error)  # ValueError: "embedded null byte" in the path


def _status(path: str | Path, field: str, *, follow: bool = True) -> os.stat_result | None:
    """``path``'s status, None when nothing is there; any other OSError (a loop, a name too long,
    no permission to look) is an `InvalidInput` naming the path."""
    try:
        return os.stat(path, follow_symlinks=follow)
    except (FileNotFoundError, NotADirectoryError):  # a parent that is a file: said when writing
        return None
    except (OSError, ValueError) as error:
        raise InvalidInput(field, os_problem(error), source=str(path)) from None


def _followed(path: str | Path, field: str, kind: str) -> tuple[Path, os.stat_result | None]:
    """Where an output named ``path`` lands and what is there now (None: nothing): ``path`` itself,
    or, for a symbolic link, its final target; a dangling link (to a missing ``kind``) and a loop
    are refused."""
    target = Path(path)
    status = _status(target, field, follow=False)
    if status is None or not stat.S_ISLNK(status.st_mode):
        return target, status
    try:
        real = Path(os.path.realpath(target, strict=True))
    except FileNotFoundError:
        raise InvalidInput(field, f"is a symbolic link to a missing {kind}, {shown_path(os.path.realpath(target))}",
                           source=str(path)) from None
    except (OSError, ValueError) as error:
        raise InvalidInput(field, os_problem(error), source=str(path)) from None
    return real, _status(real, field)


def output_file(path: str | Path, field: str = "(output)") -> Path:
    """The file an output named ``path`` goes to, checked before any work.

    Nothing there, or a regular file: ``path`` itself. A symbolic link is followed to its final
    target, which must be nothing yet or a regular file. Refused with an `InvalidInput` naming
    ``path`` and ``field`` (the flag): a folder, a named pipe, a device, a socket, a dangling link,
    a link loop, a name too long, a parent that cannot be looked into."""
    target, status = _followed(path, field, "file")
    if status is not None and stat.S_ISDIR(status.st_mode):
        raise InvalidInput(field, "is a folder; give a file name", source=str(path))
    _check_writable(target.parent, field, str(path))
    if status is None:
        return target
    if not stat.S_ISREG(status.st_mode):
        raise InvalidInput(field, f"is {_kind(status.st_mode)}, not a regular file; give a file name",
                           source=str(path))
    return target


def output_folder(path: str | Path, field: str = "(output)", *, empty: bool = False) -> Path:
    """The folder an output named ``path`` goes to (``empty``: it must be missing or empty), checked
    before any work, as `output_file` checks a file: a link is followed to its target folder; a
    file, a special file, a dangling link and a link loop are refused."""
    target, status = _followed(path, field, "folder")
    _check_writable(target.parent, field, str(path))
    if status is None:
        return target
    if stat.S_ISREG(status.st_mode):
        raise InvalidInput(field, "is a file; give a folder to write into", source=str(path))
    if not stat.S_ISDIR(status.st_mode):
        raise InvalidInput(field, f"is {_kind(status.st_mode)}, not a folder; give a folder to write into",
                           source=str(path))
    if empty:
        try:
            with os.scandir(target) as entries:
                if next(entries, None) is not None:
                    raise InvalidInput(field, "exists and is not an empty folder", source=str(path))
        except OSError as error:
            raise InvalidInput(field, os_problem(error), source=str(path)) from None
    return target


def _check_writable(folder: Path, field: str, source: str) -> None:
    """Before any work: the nearest existing folder at or above ``folder`` takes new files (the
    temporary file, or the folders to make); a read-only file system or a folder without write
    permission is refused naming ``source``. A loop or a name too long on the way is refused as such."""
    probe = folder if str(folder) else Path(".")
    status = _status(probe, field)
    while status is None and probe.parent != probe:
        probe = probe.parent
        status = _status(probe, field)
    if status is None or not stat.S_ISDIR(status.st_mode):  # a parent that is a file: said when writing
        return
    if not os.access(probe, os.W_OK | os.X_OK):
        read_only = hasattr(os, "statvfs") and bool(os.statvfs(probe).f_flag & getattr(os, "ST_RDONLY", 1))
        problem = os.strerror(errno.EROFS if read_only else errno.EACCES)
        raise InvalidInput(field, f"cannot write here: {problem}", source=source)


def shown_path(path: str | Path) -> str:
    """A path as an error shows it: at most 200 characters."""
    text = str(path)
    return text if len(text) <= 200 else f"{text[:120]}...{text[-77:]}"


def csv_text(records: list[dict[str, Any]], empty_header: Sequence[str] = ()) -> str:
    """Flat records as CSV text, the columns of the first record (``empty_header`` when none)."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(records[0]) if records else list(empty_header))
    writer.writeheader()
    writer.writerows(records)
    return buffer.getvalue()


def iter_json_objects(path: str | Path) -> Iterator[tuple[int, Any]]:
    """The values of a file holding a stream of JSON documents (Rumen's form), or one array.

    Yields (line number, value) pairs; a top-level array is unpacked.
    """
    text = read_text(path)
    decoder = json_decoder(strict_keys=False)
    position = counted = 0
    line = 1
    while True:
        while position < len(text) and text[position].isspace():
            position += 1
        if position >= len(text):
            return
        line += text.count("\n", counted, position)  # from the last object on: counting from 0 is quadratic
        counted = position
        try:
            value, position = decoder.raw_decode(text, position)
            check_nesting(value)
        except json.JSONDecodeError as error:
            raise InvalidInput(
                f"line {error.lineno}", f"malformed JSON at column {error.colno}: {error.msg}", source=str(path)
            ) from None
        except InvalidInput as error:  # a number too long, NaN, nesting too deep
            raise InvalidInput(f"line {line}", error.problem, source=str(path)) from None
        except RecursionError:
            raise InvalidInput(f"line {line}", "nested too deeply", source=str(path)) from None
        if isinstance(value, list):
            for item in value:
                yield line, item
        else:
            yield line, value
