"""Spark event logs as listener events (planner.io.spark.events): the codecs Spark writes (zstd, and
lz4-java's, xerial's snappy and ning's LZF framings built here byte by byte around cramjam's raw
blocks), rolling folders, and the bad logs: cut short, a missing part, a bad line, an unknown codec,
an empty file."""

from __future__ import annotations

import warnings

import cramjam
import pytest

from models import InvalidInput
from planner.io.spark.events import LZ4_MAGIC, SNAPPY_MAGIC, SparkLogWarning, lzf_decode, read_events

SAMPLE = "local-1642039451826"


@pytest.fixture
def plain(data_dir) -> bytes:
    return (data_dir / "spark-events" / SAMPLE).read_bytes()


def _kinds(path) -> list[str]:
    return [event.kind for event in read_events(path)]


def _lz4_java(data: bytes, block: int = 65536) -> bytes:
    """lz4-java's LZ4BlockOutputStream: per block magic, token 0x20 | level, compressed and decoded
    lengths and a checksum (LE32; not checked by the reader), the lz4 block; an empty stored block ends it."""
    out = bytearray()
    for start in range(0, len(data), block):
        chunk = data[start:start + block]
        packed = bytes(cramjam.lz4.compress_block(chunk, store_size=False))
        out += LZ4_MAGIC + bytes([0x26]) + len(packed).to_bytes(4, "little") + len(chunk).to_bytes(4, "little")
        out += b"\0\0\0\0" + packed
    return bytes(out + LZ4_MAGIC + bytes([0x16]) + bytes(12))


def _xerial(data: bytes, block: int = 32768) -> bytes:
    """xerial's SnappyOutputStream: the 16-byte header, then BE32 length + raw snappy block per chunk."""
    out = bytearray(SNAPPY_MAGIC + (1).to_bytes(4, "big") + (1).to_bytes(4, "big"))
    for start in range(0, len(data), block):
        packed = bytes(cramjam.snappy.compress_raw(data[start:start + block]))
        out += len(packed).to_bytes(4, "big") + packed
    return bytes(out)


def _lzf_stored(data: bytes, block: int = 65535) -> bytes:
    """ning's LZF chunks, all of type 0 (stored): ``ZV``, 0, BE16 length, the bytes."""
    out = bytearray()
    for start in range(0, len(data), block):
        chunk = data[start:start + block]
        out += b"ZV\0" + len(chunk).to_bytes(2, "big") + chunk
    return bytes(out)


def test_lzf_block_by_hand():
    """``02 'a' 'b' 'c'`` copies 3 literals; ``80 02`` copies (4 + 2) bytes from 2 + 1 back: "abcabcabc"."""
    assert lzf_decode(b"\x02abc\x80\x02", 9) == b"abcabcabc"
    with pytest.raises(ValueError, match="decoded to 9 bytes, its header says 8"):
        lzf_decode(b"\x02abc\x80\x02", 8)


@pytest.mark.parametrize("suffix, encode", [
    (".zstd", lambda data: bytes(cramjam.zstd.compress(data))),
    (".lz4", _lz4_java),
    (".snappy", _xerial),
    (".lzf", _lzf_stored),
])
def test_codecs_read_like_the_plain_log(tmp_path, plain, data_dir, suffix, encode):
    """Each codec's file yields the plain sample's events, with the same line numbers."""
    path = tmp_path / f"{SAMPLE}{suffix}"
    path.write_bytes(encode(plain))
    expected = [(e.kind, e.line) for e in read_events(data_dir / "spark-events" / SAMPLE)]
    assert [(e.kind, e.line) for e in read_events(path)] == expected
    assert len(expected) == plain.count(b"\n") == 115


def test_lzf_compressed_chunk(tmp_path):
    """Type-1 chunks (``ZV 01``, stored length, decoded length): the event line as literal runs of at
    most 32 bytes (control byte = run length - 1), then a chunk of "abcabcabc" made by a back-reference,
    inside a second line's JSON string."""
    line = b'{"Event":"SparkListenerLogStart"}\n'
    runs = b"".join(bytes([len(line[i:i + 32]) - 1]) + line[i:i + 32] for i in range(0, len(line), 32))
    second = b'{"Event":"SparkListenerLogStart","Spark Version":"', b'"}\n'
    path = tmp_path / "app.lzf"
    path.write_bytes(b"ZV\x01" + len(runs).to_bytes(2, "big") + len(line).to_bytes(2, "big") + runs
                     + b"ZV\x00" + len(second[0]).to_bytes(2, "big") + second[0]
                     + b"ZV\x01\x00\x06\x00\x09\x02abc\x80\x02"
                     + b"ZV\x00" + len(second[1]).to_bytes(2, "big") + second[1])
    events = list(read_events(path))
    assert [e.kind for e in events] == ["SparkListenerLogStart"] * 2
    assert events[1].fields["Spark Version"] == "abcabcabc"


def test_rolling_folder_of_compressed_parts(tmp_path, plain):
    """Two parts, lz4 and zstd, read in their numbers' order: the events of both."""
    folder = tmp_path / "eventlog_v2_app-1"
    folder.mkdir()
    lines = plain.splitlines(keepends=True)
    (folder / "events_2_app-1.zstd").write_bytes(bytes(cramjam.zstd.compress(b"".join(lines[60:]))))
    (folder / "events_1_app-1.lz4").write_bytes(_lz4_java(b"".join(lines[:60])))
    (folder / "appstatus_app-1").write_bytes(b"")
    events = list(read_events(folder))
    assert len(events) == 115 and events[60].line == 1 and events[60].source.endswith("events_2_app-1.zstd")


def test_missing_part_is_an_error(tmp_path, plain):
    folder = tmp_path / "eventlog_v2_app-1"
    folder.mkdir()
    (folder / "events_1_app-1").write_bytes(plain)
    (folder / "events_3_app-1").write_bytes(plain)
    with pytest.raises(InvalidInput, match=r"eventlog_v2_app-1: \(top level\): the rolling log has no part 2"):
        list(read_events(folder))


@pytest.mark.parametrize("suffix, encode", [
    ("", lambda data: data),
    (".zstd", lambda data: bytes(cramjam.zstd.compress(data))),
    (".lz4", _lz4_java),
    (".snappy", _xerial),
])
def test_cut_short_keeps_the_complete_lines(tmp_path, plain, suffix, encode):
    """A log cut in its last line (plain) or inside its last block (compressed): a warning, and the
    lines before the cut are kept."""
    data = encode(plain)
    cut = len(data) - 1000 if suffix else len(data) - 50
    path = tmp_path / f"app{suffix}"
    path.write_bytes(data[:cut])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        events = list(read_events(path))
    messages = [str(w.message) for w in caught if issubclass(w.category, SparkLogWarning)]
    assert len(messages) == 1 and "the lines before it are kept" in messages[0] and str(path) in messages[0]
    assert 0 < len(events) < 115
    if not suffix:
        assert len(events) == 114 and "line 115: cut short" in messages[0]


def test_bad_json_line_names_file_and_line(tmp_path, plain):
    lines = plain.splitlines(keepends=True)
    lines[4] = b"{not json\n"
    path = tmp_path / "bad-line"
    path.write_bytes(b"".join(lines))
    with pytest.raises(InvalidInput, match=r"bad-line: line 5: is not a JSON listener event"):
        list(read_events(path))


def test_unknown_codec_is_an_error(tmp_path, plain):
    path = tmp_path / "app-1.gz"
    path.write_bytes(plain)
    with pytest.raises(InvalidInput, match=r"app-1.gz: \(top level\): unknown compression codec 'gz'"):
        list(read_events(path))


def test_empty_file_holds_no_events(tmp_path):
    path = tmp_path / "empty"
    path.write_bytes(b"")
    with pytest.raises(InvalidInput, match=r"empty: \(top level\): holds no Spark listener events"):
        list(read_events(path))


def test_broken_compressed_data_is_an_error(tmp_path, plain):
    """A snappy file without its header is not a xerial stream: an error naming the file."""
    path = tmp_path / "app.snappy"
    path.write_bytes(_xerial(plain)[16:])
    with pytest.raises(InvalidInput, match=r"app.snappy: line 1: cannot be decompressed: not a xerial snappy"):
        list(read_events(path))


def test_in_progress_suffix(tmp_path, plain):
    """``app.lz4.inprogress``: a log Spark is still writing, its codec before the suffix."""
    path = tmp_path / "app-1.lz4.inprogress"
    path.write_bytes(_lz4_java(plain))
    assert len(_kinds(path)) == 115


def test_a_named_pipe_is_refused_before_it_is_opened(tmp_path):
    import os

    pipe = tmp_path / "app-fifo"
    os.mkfifo(pipe)
    with pytest.raises(InvalidInput, match=r"app-fifo: \(top level\): is not a regular file"):
        list(read_events(pipe))


def _zstd_frames_per_lines(plain: bytes, lines_per_frame: int = 10) -> bytes:
    """zstd as Spark writes it: a frame per flush (here every ``lines_per_frame`` lines)."""
    lines = plain.splitlines(keepends=True)
    return b"".join(bytes(cramjam.zstd.compress(b"".join(lines[at:at + lines_per_frame])))
                    for at in range(0, len(lines), lines_per_frame))


def _read_with_warnings(path):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        events = list(read_events(path))
    return events, [str(w.message) for w in caught if issubclass(w.category, SparkLogWarning)]


def test_zstd_cut_at_half_keeps_every_complete_frame(tmp_path, plain):
    """Spark's zstd log, a frame per flush (10 lines each here), cut at half its bytes: every line of
    the frames before the cut is read (10 per frame), and the cut is one warning."""
    data = _zstd_frames_per_lines(plain)
    cut = len(data) // 2
    whole, at = 0, 0
    while True:  # the frames entirely before the cut (each frame's bytes: compress its 10 lines)
        frame = bytes(cramjam.zstd.compress(b"".join(plain.splitlines(keepends=True)[whole * 10:whole * 10 + 10])))
        if at + len(frame) > cut:
            break
        at += len(frame)
        whole += 1
    path = tmp_path / "app.zstd"
    path.write_bytes(data[:cut])
    events, messages = _read_with_warnings(path)
    assert whole >= 2 and len(events) == 10 * whole
    assert len(messages) == 1 and "the compressed stream ends early" in messages[0]


def test_zstd_one_frame_cut_keeps_its_complete_blocks(tmp_path, plain):
    """One frame of several 128 KiB blocks (the zstd tool's way), cut at 80 %: the complete blocks
    decode (a whole number of 128 KiB pieces, their complete lines kept); cut at half (inside the
    first block, 24 KB of 33 KB here), nothing decodes: an error that says so."""
    data = bytes(cramjam.zstd.compress(plain))
    path = tmp_path / "app.zstd"
    path.write_bytes(data[:len(data) * 8 // 10])
    events, messages = _read_with_warnings(path)
    assert len(events) in {plain[:blocks * 131072].count(b"\n") for blocks in (1, 2, 3)} and len(events) > 0
    assert len(messages) == 1 and "cut short" in messages[0]
    path.write_bytes(data[:len(data) // 2])
    with pytest.raises(InvalidInput, match=r"app.zstd: \(top level\): ends \(cut short\) before its first complete"), \
            pytest.warns(SparkLogWarning):
        list(read_events(path))


def _rle_frame(blocks: int) -> bytes:
    """A zstd frame (no size, window 128 KiB) of ``blocks`` RLE blocks of 128 KiB of "a" each."""
    header = (0xFD2FB528).to_bytes(4, "little") + bytes([0x00, 0x38])
    body = b"".join(((131072 << 3) | (1 << 1) | (n == blocks - 1)).to_bytes(3, "little") + b"a"
                    for n in range(blocks))
    return header + body


def test_zstd_bombs_are_refused_before_they_decode(tmp_path):
    """A frame of 2,100 RLE blocks (8 KB) would decode to 275 MB, over the 256 MiB a frame may hold;
    600 frames of one block (6 KB) to 78.6 MB, over 100 times 6 KB and over 64 MiB: both refused
    in one line, nothing decoded."""
    from planner.io.spark.events import MAX_ZSTD_FRAME_BYTES, MAX_ZSTD_RATIO

    assert (MAX_ZSTD_FRAME_BYTES, MAX_ZSTD_RATIO) == (256 * 2**20, 100)
    path = tmp_path / "bomb.zstd"
    path.write_bytes(_rle_frame(2100))
    with pytest.raises(InvalidInput, match=r"bomb.zstd: line 1: cannot be decompressed: decodes to more than "
                                           r"275,251,200 bytes .*a frame of at most 268,435,456"):
        list(read_events(path))
    path.write_bytes(_rle_frame(1) * 600)
    with pytest.raises(InvalidInput, match=r"decodes to more than 67,239,936 bytes .*at most 100 times the file's "
                                           r"6,000 bytes"):
        list(read_events(path))


def test_deeply_nested_json_is_an_error_with_its_line(tmp_path, plain):
    path = tmp_path / "deep"
    path.write_bytes(b'{"Event":"SparkListenerLogStart","x":' + b"[" * 100000 + b"]" * 100000 + b"}\n" + plain)
    with pytest.raises(InvalidInput, match=r"deep: line 1: nests JSON deeper than Python reads"):
        list(read_events(path))
