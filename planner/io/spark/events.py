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
import os
import re
import stat
import sys
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from models.checks import as_path, shown
from models.errors import InvalidInput
from models.fileio import json_decoder

#: Codecs by the suffix Spark gives a compressed log (`spark.eventLog.compression.codec`).
CODECS = {".zstd": "zstd", ".lz4": "lz4", ".snappy": "snappy", ".lzf": "lzf"}
#: The longest line read: a listener event is at most a few megabytes (a stage with its accumulables);
#: a longer line is not an event log's.
MAX_EVENT_LINE_BYTES = 64 * 1024 * 1024
#: The largest compressed block or chunk read (lz4-java and xerial write 32-64 KiB blocks by default).
MAX_BLOCK_BYTES = 64 * 1024 * 1024
LZ4_MAGIC = b"LZ4Block"
ZSTD_MAGIC = 0xFD2FB528
#: A zstd block decodes to at most this (the format's block maximum).
ZSTD_BLOCK_BYTES = 128 * 1024
#: The largest zstd frame decoded (in memory, one at a time): Spark ends a frame at every flush
#: (tens of kilobytes); a log compressed whole by the zstd tool is one frame, to decompress first.
MAX_ZSTD_FRAME_BYTES = 256 * 1024 * 1024
#: A zstd log may decode to at most this many times its size (or `MAX_EVENT_LINE_BYTES`, if more):
#: Spark's logs decode to 5-15 times their size; a zstd bomb to thousands.
MAX_ZSTD_RATIO = 100
SNAPPY_MAGIC = b"\x82SNAPPY\x00"
#: Suffixes of a log that is not compressed (``.inprogress``: a log Spark is still writing, after its codec).
PLAIN_SUFFIXES = ("", ".json", ".log", ".txt")
_ROLLING = re.compile(r"^events_(\d+)_(.+?)(\.[A-Za-z0-9]+)?$")


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
    """The codec the file's name says it is compressed with (None: plain); a suffix that is neither a
    codec Spark writes nor a plain one is an error (`InvalidInput` naming the file)."""
    name = path.name.removesuffix(".inprogress")
    suffix = Path(name).suffix.lower()
    if suffix in CODECS:
        return CODECS[suffix]
    if suffix in PLAIN_SUFFIXES or not suffix[1:].isalpha():  # app ids may hold dots and digits
        return None
    raise InvalidInput("", f"unknown compression codec {shown(suffix[1:])} (the file's suffix); Spark writes "
                           f"{', '.join(CODECS.values())} or plain logs", source=str(path))


class _CutShort(Exception):
    """The compressed stream ends inside a block or a frame (a log still being written)."""


class _Decoded(io.RawIOBase):
    """A byte stream over decoded chunks (a generator), so that lines are read without holding the
    file whole; ``cut`` says the compressed stream ended early."""

    def __init__(self, chunks: Iterator[bytes], closing: Callable[[], None]) -> None:
        super().__init__()
        self._chunks = chunks
        self._closing = closing
        self._pending = b""
        self.cut = False

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        while not self._pending:
            try:
                self._pending = next(self._chunks)
            except StopIteration:
                return 0
            except _CutShort:
                self.cut = True
                return 0
        size = min(len(buffer), len(self._pending))
        buffer[:size] = self._pending[:size]
        self._pending = self._pending[size:]
        return size

    def close(self) -> None:
        if not self.closed:
            close = getattr(self._chunks, "close", None)
            if close is not None:  # a generator: its open file goes now
                close()
            self._closing()
        super().close()


def _exactly(raw: IO[bytes], size: int) -> bytes:
    """``size`` bytes, or `_CutShort` (b"" at the very end is the caller's to tell apart)."""
    data = raw.read(size)
    if len(data) != size:
        raise _CutShort
    return data


def _header(raw: IO[bytes], size: int) -> bytes | None:
    """The next ``size`` bytes of a chunk's header; None at the very end, `_CutShort` when fewer."""
    data = raw.read(size)
    if not data:
        return None
    if len(data) != size:
        raise _CutShort
    return data


def _lz4_blocks(raw: IO[bytes]) -> Iterator[bytes]:
    """lz4-java's LZ4BlockOutputStream (Spark's lz4 codec): per block ``LZ4Block`` | a token (0x10:
    stored, 0x20: lz4; low nibble: the block size's level) | compressed length | decoded length |
    checksum (little-endian 32-bit each) | the data. A block of length 0 ends a stream; streams may follow."""
    import cramjam

    while True:
        magic = _header(raw, 8)
        if magic is None:
            return
        if magic != LZ4_MAGIC:
            raise ValueError(f"not an lz4-java block (starts {magic!r})")
        head = _exactly(raw, 13)
        method, stored, size = head[0] & 0xF0, int.from_bytes(head[1:5], "little"), int.from_bytes(head[5:9], "little")
        if size > MAX_BLOCK_BYTES or stored > MAX_BLOCK_BYTES:
            raise ValueError(f"an lz4 block of {max(size, stored):,} bytes (at most {MAX_BLOCK_BYTES:,})")
        data = _exactly(raw, stored)
        if method == 0x10:
            yield data
        elif method == 0x20:
            yield bytes(cramjam.lz4.decompress_block(data, output_len=size))
        else:
            raise ValueError(f"an lz4 block of unknown method 0x{head[0]:02x}")


def _snappy_chunks(raw: IO[bytes]) -> Iterator[bytes]:
    """xerial's SnappyOutputStream (Spark's snappy codec): a 16-byte header (``\\x82SNAPPY\\x00``,
    version, compatible version), then chunks of a big-endian 32-bit length and a raw snappy block;
    a header may come again where streams were joined."""
    import cramjam

    first = True
    while True:
        size_bytes = _header(raw, 4)
        if size_bytes is None:
            return
        if size_bytes == SNAPPY_MAGIC[:4]:
            rest = _exactly(raw, 12)
            if rest[:4] != SNAPPY_MAGIC[4:]:
                raise ValueError("a broken xerial snappy header")
            first = False
            continue
        if first:
            raise ValueError("not a xerial snappy stream (no \\x82SNAPPY header)")
        size = int.from_bytes(size_bytes, "big")
        if size > MAX_BLOCK_BYTES:
            raise ValueError(f"a snappy chunk of {size:,} bytes (at most {MAX_BLOCK_BYTES:,})")
        yield bytes(cramjam.snappy.decompress_raw(_exactly(raw, size)))


def _lzf_chunks(raw: IO[bytes]) -> Iterator[bytes]:
    """ning compress-lzf's chunks (Spark's lzf codec): ``ZV``, a type (0: stored, 1: LZF), a big-endian
    16-bit length (and, for LZF, the decoded length), the data."""
    while True:
        magic = _header(raw, 2)
        if magic is None:
            return
        if magic != b"ZV":
            raise ValueError(f"not an LZF chunk (starts {magic!r})")
        kind = _exactly(raw, 1)[0]
        if kind == 0:
            yield _exactly(raw, int.from_bytes(_exactly(raw, 2), "big"))
        elif kind == 1:
            lengths = _exactly(raw, 4)
            stored, size = int.from_bytes(lengths[:2], "big"), int.from_bytes(lengths[2:], "big")
            yield lzf_decode(_exactly(raw, stored), size)
        else:
            raise ValueError(f"an LZF chunk of unknown type {kind}")


def lzf_decode(data: bytes, size: int) -> bytes:
    """One LZF block: a control byte under 32 copies that many plus one literal bytes; one above
    copies (its top 3 bits, 7 meaning "add the next byte") plus 2 bytes from a distance (its low
    5 bits and the next byte) plus 1 back in the output."""
    out = bytearray()
    at = 0
    while at < len(data):
        control = data[at]
        at += 1
        if control < 32:
            out += data[at:at + control + 1]
            at += control + 1
            continue
        length = control >> 5
        if length == 7:
            length += data[at]
            at += 1
        start = len(out) - ((control & 0x1F) << 8) - data[at] - 1
        at += 1
        if start < 0:
            raise ValueError("an LZF back-reference before the start of the block")
        for offset in range(length + 2):  # the copy may overlap what it writes
            out.append(out[start + offset])
    if len(out) != size:
        raise ValueError(f"an LZF block decoded to {len(out)} bytes, its header says {size}")
    return bytes(out)


def _zstd_frames(raw: IO[bytes]) -> Iterator[bytes]:
    """zstd frames, decoded one at a time in memory (no temporary file). Spark's writer ends a frame
    at every flush (tens of kilobytes); a frame is read block by block from its headers first, so
    that its decoded size is bounded before cramjam decodes it: a frame over `MAX_ZSTD_FRAME_BYTES`,
    or a file decoding to more than `MAX_ZSTD_RATIO` times its size (and over `MAX_EVENT_LINE_BYTES`),
    is refused. A frame cut short is decoded up to its last complete block (its header rewritten to
    say no size and no checksum, that block marked the last), then `_CutShort`."""
    import cramjam

    size = os.fstat(raw.fileno()).st_size
    budget = max(MAX_EVENT_LINE_BYTES, MAX_ZSTD_RATIO * size)
    decoded = 0
    while True:
        magic = _header(raw, 4)
        if magic is None:
            return
        number = int.from_bytes(magic, "little")
        if number & 0xFFFFFFF0 == 0x184D2A50:  # a skippable frame
            raw.seek(int.from_bytes(_exactly(raw, 4), "little"), os.SEEK_CUR)
            continue
        if number != ZSTD_MAGIC:
            raise ValueError(f"not a zstd frame (starts {magic!r})")
        frame, bound, complete = _zstd_frame(raw)
        if bound > MAX_ZSTD_FRAME_BYTES or decoded + bound > budget:
            limit = (f"a frame of at most {MAX_ZSTD_FRAME_BYTES:,} bytes" if bound > MAX_ZSTD_FRAME_BYTES else
                     f"at most {MAX_ZSTD_RATIO} times the file's {size:,} bytes")
            raise ValueError(f"decodes to more than {decoded + bound:,} bytes (a zstd bomb? the limit is {limit}; "
                             "decompress the log with `zstd -d` and import the plain file)")
        if frame:
            try:
                out = bytes(cramjam.zstd.decompress(frame))
            except cramjam.DecompressionError as error:
                raise ValueError(str(error)) from None
            decoded += len(out)
            yield out
        if not complete:
            raise _CutShort


def _zstd_frame(raw: IO[bytes]) -> tuple[bytes, int, bool]:
    """One zstd frame after its magic number: the frame's bytes (a cut frame rewritten to end at its
    last complete block; b"" when it has none), its decoded size at most (raw and RLE blocks say
    theirs, a compressed block holds at most 128 KiB), and whether it was complete."""
    try:
        descriptor = _exactly(raw, 1)[0]
        single = descriptor >> 5 & 1
        size_bytes = (1 if single else 0, 2, 4, 8)[descriptor >> 6]
        head = _exactly(raw, (0 if single else 1) + (0, 1, 2, 4)[descriptor & 3] + size_bytes)
    except _CutShort:
        return b"", 0, False
    blocks: list[bytes] = []
    bound = 0
    complete = False
    try:
        while True:
            header = _exactly(raw, 3)
            value = int.from_bytes(header, "little")
            kind, length = value >> 1 & 3, value >> 3
            if kind == 3:
                raise ValueError("a zstd block of the reserved type 3")
            blocks.append(header + _exactly(raw, 1 if kind == 1 else length))
            bound += length if kind < 2 else ZSTD_BLOCK_BYTES
            if value & 1:
                blocks.append(_exactly(raw, 4 * (descriptor >> 2 & 1)))  # the checksum
                complete = True
                break
    except _CutShort:
        if not blocks:
            return b"", 0, False
    magic = ZSTD_MAGIC.to_bytes(4, "little")
    if complete:
        return magic + bytes([descriptor]) + head + b"".join(blocks), bound, True
    if single:  # the window is the content's size: say it with a window descriptor instead
        content = int.from_bytes(head[-size_bytes:], "little") + (256 if size_bytes == 2 else 0)
        window = bytes([max(0, max(10, content.bit_length()) - 10) << 3])
        head = window + head[:len(head) - size_bytes]
    else:
        head = head[:len(head) - size_bytes]
    last = bytearray(blocks[-1])
    last[0] |= 1
    blocks[-1] = bytes(last)
    return magic + bytes([descriptor & 0x03]) + head + b"".join(blocks), bound, False


def cramjam_errors() -> type[Exception]:
    """cramjam's decompression error (imported when a compressed log is read)."""
    import cramjam

    return cramjam.DecompressionError


def _opened(path: Path) -> IO[bytes]:
    codec = codec_of(path)
    try:
        status = path.stat()
        if not stat.S_ISREG(status.st_mode):  # a named pipe would block, a device never end
            raise InvalidInput("", "is not a regular file, expected an event log file or a rolling log's folder",
                               source=str(path))
        raw = path.open("rb")
    except OSError as error:
        raise InvalidInput("", f"cannot read: {error.strerror or error}", source=str(path)) from None
    if codec is None:
        return raw
    try:
        chunks = {"zstd": _zstd_frames, "lz4": _lz4_blocks, "snappy": _snappy_chunks, "lzf": _lzf_chunks}[codec](raw)
    except ValueError as error:
        raw.close()
        raise InvalidInput("", f"cannot be decompressed as {codec}: {error}", source=str(path)) from None
    return io.BufferedReader(_Decoded(chunks, raw.close), buffer_size=1 << 16)


def read_events(path: str | Path) -> Iterator[SparkEvent]:
    """The listener events of the log at ``path`` (a file or a rolling folder), in order (module docstring)."""
    files = event_log_files(path)
    seen_event = cut = False
    for place, file in enumerate(files):
        last_file = place == len(files) - 1
        with _opened(file) as raw:
            text = io.TextIOWrapper(raw, encoding="utf-8", errors="strict", newline="\n")
            number = 0
            warned = False
            while True:
                try:
                    line = text.readline(MAX_EVENT_LINE_BYTES + 1)
                except UnicodeDecodeError:
                    raise InvalidInput(f"line {number + 1}", "is not UTF-8 text: not a Spark event log",
                                       source=str(file)) from None
                except (OSError, ValueError, cramjam_errors()) as error:  # a corrupt compressed stream
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
                    warned = True
                    break
                seen_event = seen_event or "SparkListener" in event.kind
                yield event
            if getattr(getattr(raw, "raw", None), "cut", False):
                cut = True
                if not last_file:
                    raise InvalidInput(f"line {number + 1}", "the compressed stream ends early, and a later part "
                                                             "follows", source=str(file))
                if not warned:
                    warnings.warn(f"{file}: line {number + 1}: the compressed stream ends early (a log still "
                                  "being written?); the lines before it are kept", SparkLogWarning, stacklevel=2)
    if not seen_event and cut:
        raise InvalidInput("", "ends (cut short) before its first complete listener event: a compressed log "
                               "decodes block by block, and its stream stops inside the first block",
                           source=str(path))
    if not seen_event:
        raise InvalidInput("", "holds no Spark listener events (lines with an \"Event\" field naming one)",
                           source=str(path))


def _event(line: str, file: Path, number: int, *, cut: bool) -> SparkEvent | None:
    try:
        fields = json_decoder(strict_keys=False).decode(line)
    except RecursionError:
        raise InvalidInput(f"line {number}", f"nests JSON deeper than Python reads ({sys.getrecursionlimit():,} "
                                             "levels): not a Spark listener event", source=str(file)) from None
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
