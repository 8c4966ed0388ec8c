"""Spark event logs as a stream of listener events: the files, their codec, their lines.

An event log is what Spark's history server reads: JSON lines, each a listener event whose
``Event`` names its type (``SparkListenerJobStart``, ``SparkListenerTaskEnd``, ...). It comes as

- one file (``app-20161115172038-0000``, ``local-1642039451826``), plain or compressed, the
  codec named by the file's suffix as Spark writes it (``.zstd``, ``.lz4``, ``.snappy``, ``.lzf``);
- a rolling log: a folder ``eventlog_v2_<app id>`` of ``events_<n>_<app id>[.<codec>]`` files,
  numbered from 1 (Spark 3.0 and later, ``spark.eventLog.rolling.enabled``), read in order; a
  missing number is an error, as the history server would show a hole.

`read_events` streams the lines (a multi-gigabyte log is never read whole): each event comes
with its file and line number. A line that is not JSON is an error naming the file and the line;
the last line of the last file, cut short (a log still being written), is a warning and the
complete lines are kept. A log whose lines hold no Spark listener event is an error.
"""

from __future__ import annotations

import io
import json
import re
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from models.checks import as_path
from models.errors import InvalidInput
from models.fileio import json_decoder

#: Codecs by the suffix Spark gives a compressed log (`spark.eventLog.compression.codec`).
CODECS = {".zstd": "zstd", ".lz4": "lz4", ".snappy": "snappy", ".lzf": "lzf"}
#: The longest line read: a listener event is at most a few megabytes (a stage with its accumulables);
#: a longer line is not an event log's.
MAX_EVENT_LINE_BYTES = 64 * 1024 * 1024
_ROLLING = re.compile(r"^events_(\d+)_(.+?)(\.(zstd|lz4|snappy|lzf))?$")


class SparkLogWarning(UserWarning):
    """Something in a Spark event log was kept as far as it could be (a last line cut short)."""


@dataclass(frozen=True)
class SparkEvent:
    """One listener event: its type (``Event``), its fields, and where it was read."""

    kind: str
    fields: dict[str, Any]
    source: str
    line: int


def event_log_files(path: str | Path) -> list[Path]:
    """The files of the event log at ``path``: the file itself, or a rolling log's parts in order."""
    path = Path(as_path(path, "path"))
    if not path.is_dir():
        return [path]
    parts: dict[int, Path] = {}
    for child in path.iterdir():
        found = _ROLLING.match(child.name)
        if found:
            number = int(found.group(1))
            if number in parts:
                raise InvalidInput("", f"two parts numbered {number}: {parts[number].name} and {child.name}",
                                   source=str(path))
            parts[number] = child
    if not parts:
        raise InvalidInput("", "a folder without events_<n>_<app id> files is not a rolling Spark event log",
                           source=str(path))
    missing = next((n for n in range(1, max(parts) + 1) if n not in parts), None)
    if missing is not None:
        raise InvalidInput("", f"the rolling log has no part {missing} (events_{missing}_...) of {max(parts)}",
                           source=str(path))
    return [parts[n] for n in sorted(parts)]


def codec_of(path: Path) -> str | None:
    """The codec the file's name says it is compressed with (None: plain)."""
    return CODECS.get(path.suffix.lower())


def _opened(path: Path) -> IO[bytes]:
    codec = codec_of(path)
    try:
        raw = path.open("rb")
    except OSError as error:
        raise InvalidInput("", f"cannot read: {error.strerror or error}", source=str(path)) from None
    if codec is None:
        return raw
    if codec == "zstd":
        try:
            import zstandard
        except ImportError:
            raw.close()
            raise InvalidInput("", "a zstd-compressed event log needs the zstandard package", source=str(path)) from None
        return zstandard.ZstdDecompressor().stream_reader(raw, read_across_frames=True, closefd=True)
    raw.close()
    raise InvalidInput("", f"event logs compressed with {codec} are not read yet (zstd and plain are)",
                       source=str(path))


def read_events(path: str | Path) -> Iterator[SparkEvent]:
    """The listener events of the log at ``path`` (a file or a rolling folder), in order (module docstring)."""
    files = event_log_files(path)
    seen_event = False
    for place, file in enumerate(files):
        last_file = place == len(files) - 1
        with _opened(file) as raw:
            text = io.TextIOWrapper(raw, encoding="utf-8", errors="strict", newline="\n")
            number = 0
            while True:
                try:
                    line = text.readline(MAX_EVENT_LINE_BYTES + 1)
                except UnicodeDecodeError:
                    raise InvalidInput(f"line {number + 1}", "is not UTF-8 text: not a Spark event log",
                                       source=str(file)) from None
                except OSError as error:  # a corrupt compressed stream
                    raise InvalidInput(f"line {number + 1}", f"cannot be decompressed: {error}",
                                       source=str(file)) from None
                if not line:
                    break
                number += 1
                if len(line) > MAX_EVENT_LINE_BYTES:
                    raise InvalidInput(f"line {number}", f"is longer than {MAX_EVENT_LINE_BYTES:,} characters: "
                                                         "not a Spark listener event", source=str(file))
                if not line.strip():
                    continue
                event = _event(line, file, number, cut=last_file and not line.endswith("\n"))
                if event is None:
                    break
                seen_event = seen_event or "SparkListener" in event.kind
                yield event
    if not seen_event:
        raise InvalidInput("", "holds no Spark listener events (lines with an \"Event\" field naming one)",
                           source=str(path))


def _event(line: str, file: Path, number: int, *, cut: bool) -> SparkEvent | None:
    try:
        fields = json_decoder(strict_keys=False).decode(line)
    except (json.JSONDecodeError, InvalidInput) as error:
        if cut:
            warnings.warn(f"{file}: line {number}: cut short (a log still being written?); "
                          "the lines before it are kept", SparkLogWarning, stacklevel=3)
            return None
        problem = f"{error.msg} at column {error.colno}" if isinstance(error, json.JSONDecodeError) else error.problem
        raise InvalidInput(f"line {number}", f"is not a JSON listener event ({problem})", source=str(file)) from None
    kind = fields.get("Event") if isinstance(fields, dict) else None
    if not isinstance(kind, str):
        raise InvalidInput(f"line {number}", "has no \"Event\" naming a listener event", source=str(file))
    return SparkEvent(kind, fields, str(file), number)
