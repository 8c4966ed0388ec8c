"""Reading and writing the toolkit's YAML and JSON files.

Loading is strict: only safe YAML, a mapping at the top, no duplicate keys (a
repeated key would otherwise silently win). Writing is atomic: a temporary file
in the target directory is renamed over the target, so a reader never sees a
half-written file.
"""

from __future__ import annotations

import csv
import io
import json
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml

from models.errors import InvalidInput

YAML_SUFFIXES = (".yaml", ".yml")
JSON_SUFFIXES = (".json",)


class _StrictLoader(yaml.SafeLoader):
    """Safe YAML that refuses duplicate keys."""


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
            raise InvalidInput(str(key), f"duplicate key (line {key_node.start_mark.line + 1})")
        result[key] = loader.construct_object(value_node, deep=deep)
    return result


_StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def _json_pairs(pairs: list[tuple[str, Any]]) -> dict:
    result: dict = {}
    for key, value in pairs:
        if key in result:
            raise InvalidInput(key, "duplicate key")
        result[key] = value
    return result


def _reject_constant(name: str) -> float:
    raise InvalidInput("", f"{name} is not a valid JSON number")


def file_format(path: str | Path) -> str:
    """ "yaml" or "json", from the file name's suffix."""
    suffix = Path(path).suffix.lower()
    if suffix in YAML_SUFFIXES:
        return "yaml"
    if suffix in JSON_SUFFIXES:
        return "json"
    raise InvalidInput("", f"unknown file type {suffix or '(none)'!r}; use .yaml, .yml or .json", source=str(path))


def parse_text(text: str, fmt: str) -> object:
    """Parse YAML or JSON text strictly; raises `InvalidInput` on malformed text."""
    try:
        if fmt == "json":
            return json.loads(text, object_pairs_hook=_json_pairs, parse_constant=_reject_constant)
        return yaml.load(text, Loader=_StrictLoader)  # noqa: S506 - _StrictLoader is a SafeLoader
    except json.JSONDecodeError as error:
        raise InvalidInput("", f"malformed JSON at line {error.lineno}, column {error.colno}: {error.msg}") from None
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(error, "problem", None) or str(error).splitlines()[0]
        raise InvalidInput("", f"malformed YAML{where}: {problem}") from None
    except RecursionError:
        raise InvalidInput("", "document is nested too deeply") from None


def read_text(path: str | Path) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InvalidInput("", "no such file", source=str(path)) from None
    except IsADirectoryError:
        raise InvalidInput("", "is a directory, expected a file", source=str(path)) from None
    except UnicodeDecodeError as error:
        raise InvalidInput("", f"not UTF-8 text (byte {error.start})", source=str(path)) from None
    except OSError as error:
        raise InvalidInput("", f"cannot read: {error.strerror}", source=str(path)) from None


def read_mapping(path: str | Path) -> dict:
    """Load a YAML or JSON file whose top level must be a mapping."""
    fmt = file_format(path)
    try:
        data = parse_text(read_text(path), fmt)
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


def write_atomic(path: str | Path, content: str | bytes) -> None:
    """Write ``content`` to ``path`` through a temporary file and a rename."""
    target = Path(path)
    directory = target.parent if str(target.parent) else Path(".")
    try:
        directory.mkdir(parents=True, exist_ok=True)
        handle, temp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
    except OSError as error:  # a file where a folder should be, no permission, read-only file system
        raise InvalidInput("(output)", f"cannot write here: {error.strerror or error}", source=str(target)) from None
    mode = "wb" if isinstance(content, bytes) else "w"
    try:
        with os.fdopen(handle, mode, **({} if mode == "wb" else {"encoding": "utf-8"})) as stream:
            stream.write(content)
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(temp_name, 0o644)
        os.replace(temp_name, target)
    except BaseException:
        Path(temp_name).unlink(missing_ok=True)
        raise


def csv_text(records: list[dict[str, Any]], empty_header: Sequence[str] = ()) -> str:
    """Flat records as CSV text, the columns of the first record (``empty_header`` when none)."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(records[0]) if records else list(empty_header))
    writer.writeheader()
    writer.writerows(records)
    return buffer.getvalue()
