"""The mutations of the fuzz cases (`tests.fuzz_inputs`): values, texts, tables and options
broken the ways the outside fuzzing broke them, each drawn from a seeded `random.Random`."""

from __future__ import annotations

import json
import random
import string
from typing import Any

import yaml

#: Marks the case folder in argv (an option value naming a file there is left alone).
HERE = "{case}"

#: Special files a case folder can hold instead of a file's text (`tests.fuzz_run.materialize` makes them).
DIRECTORY, FIFO, ZERO, MISSING = "<directory>", "<fifo>", "<dev-zero>", "<missing>"
SPECIALS = (DIRECTORY, FIFO, ZERO, MISSING)
#: A character device made in the case folder (major 1, minor 3: what /dev/null is), or a FIFO if not root.
CHARDEV = "<chardev>"
#: A symlink loop: NAME -> NAME.loop -> NAME.
LOOP = "<symlink-loop>"
#: A folder nothing can be written into (chattr +i as root, mode 0555 otherwise).
READONLY = "<read-only folder>"
#: A symlink to another file of the case ("<link>NAME"), or to a file outside the case folder.
LINK, OUTSIDE_LINK = "<link>", "<link-outside>"
#: A workload made when the case is written: "<jobs>JOBSxMAPS", jobs of MAPS map tasks each.
JOBS = "<jobs>"


def short(text: str) -> str:
    return text if len(text) <= 40 else f"{text[:20]}...({len(text)} chars)"


# Values that break things, as Python values (dumped as YAML or JSON) or as raw literals.
HUGE_INTS = (10**20, -(10**20), 10**400, -(10**4000), 2**64, 1100, -1100, 10**9)  # longer ones: RAW_*
RAW_YAML = ("1.0e+400", "-1.0e+400", "1.0e+308", ".nan", ".inf", "-.inf", "1.7976931348623157e+308", "5.0e-324",
            "1" * 5000)
RAW_JSON = ("1e400", "-1e400", "1e308", "NaN", "Infinity", "-Infinity", "5e-324", "1" * 5000, "1." + "0" * 4000)
WRONG = ("abc", "", " ", True, False, None, [], {}, [1, 2], {"k": 1}, "1e20", "10", "-1", 0, -1, 0.5, 1e-320)
CELLS = ("1e400", "-1", "nan", "inf", "-inf", "", "abc", "9" * 5000, "1e308", "0", "1e-320", str(10**20), "3.5",
         '"', "1,2", "x" * 200_000, "-0", "1e9", "job0")


def _paths(data: Any, prefix: tuple = ()) -> list[tuple]:
    """Every place in parsed data (keys of mappings, indexes of lists), containers included."""
    found = [prefix] if prefix else []
    if isinstance(data, dict):
        for key, value in data.items():
            found += _paths(value, (*prefix, key))
    elif isinstance(data, list):
        for index, value in enumerate(data):
            found += _paths(value, (*prefix, index))
    return found


def _at(data: Any, path: tuple) -> Any:
    for step in path:
        data = data[step]
    return data


def mutate_structured(text: str, fmt: str, rng: random.Random) -> tuple[str, str]:
    """A value of a YAML or JSON document replaced (or deleted, renamed, nested, repeated)."""
    data = json.loads(text) if fmt == "json" else yaml.safe_load(text)
    paths = _paths(data)
    if not paths:
        return mutate_text(text, rng)
    path = rng.choice(paths)
    parent, key, old = _at(data, path[:-1]), path[-1], _at(data, path)
    how = rng.choice(["huge", "raw", "raw", "wrong", "number", "number", "delete", "rename", "nest", "repeat", "long"])
    raw = None
    if how == "huge":
        new = rng.choice(HUGE_INTS)
    elif how == "raw":
        raw = rng.choice(RAW_JSON if fmt == "json" else RAW_YAML)
    elif how == "wrong":
        new = rng.choice(WRONG)
    elif how == "number" and isinstance(old, (int, float)) and not isinstance(old, bool):
        new = rng.choice([-old, old * 1000, old * 10**6, old + 0.5, 0, -1, old * 10**-9])
    elif how == "delete" and isinstance(parent, (dict, list)) and len(parent):
        del parent[key]
        return _dump(data, fmt), f"deleted {_where(path)}"
    elif how == "rename" and isinstance(parent, dict):
        parent[f"{key}x"] = parent.pop(key)
        return _dump(data, fmt), f"renamed {_where(path)}"
    elif how == "nest":
        depth = rng.choice([100, 5000, 100_000])
        raw = "[" * depth + "1" + "]" * depth
    elif how == "repeat" and isinstance(parent, list):
        parent.append(parent[key])
        return _dump(data, fmt), f"repeated {_where(path)}"
    elif how == "long":
        new = "x" * rng.choice([1000, 200_000])
    else:
        new = rng.choice(WRONG)
    shown = raw if raw is not None else repr(new)
    parent[key] = "FUZZRAW" if raw is not None else new
    dumped = _dump(data, fmt)
    if raw is not None:
        for quoted in ('"FUZZRAW"', "'FUZZRAW'", "FUZZRAW"):
            dumped = dumped.replace(quoted, raw)
    return dumped, f"{_where(path)} = {short(shown)}"


def _where(path: tuple) -> str:
    return ".".join(str(step) for step in path)


def _dump(data: Any, fmt: str) -> str:
    return json.dumps(data, indent=1) if fmt == "json" else yaml.safe_dump(data, sort_keys=False)


def mutate_table(text: str, sep: str, rng: random.Random) -> tuple[str, str]:
    """A cell of a CSV or TSV file replaced, or a cell dropped or added."""
    lines = text.splitlines()
    if not lines:
        return mutate_text(text, rng)
    row = rng.randrange(len(lines)) if rng.random() < 0.1 else rng.randrange(min(1, len(lines) - 1), len(lines))
    cells = lines[row].split(sep)
    column = rng.randrange(len(cells))
    how = rng.choice(["cell", "cell", "cell", "drop", "add"])
    if how == "drop":
        del cells[column]
    elif how == "add":
        cells.append(rng.choice(CELLS))
    else:
        cells[column] = rng.choice(CELLS)
    lines[row] = sep.join(cells)
    return "\n".join(lines) + "\n", f"line {row + 1} cell {column}: {how}"


def bomb(levels: int = 9) -> str:
    """The "billion laughs" in YAML: 9 ** levels strings from a few hundred bytes."""
    lines = ['jobs: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for level in range(1, levels):
        lines.append(f"k{level}: &a{level} [" + ", ".join([f"*a{level - 1}"] * 9) + "]")
    lines.append(f"name: *a{levels - 1}")
    return "\n".join(lines) + "\n"


def mutate_text(text: str, rng: random.Random) -> tuple[str | bytes, str]:
    """The text itself broken: truncated, binary, an alias bomb, a huge line, ..."""
    data = text.encode()
    how = rng.choice(["truncate", "garbage", "binary", "flip", "empty", "bom", "nul", "crlf", "long line", "bomb",
                      "deep", "swap"])
    cut = rng.randrange(len(data) + 1)
    if how == "truncate":
        return data[:cut], f"truncated at byte {cut}"
    if how == "garbage":
        return data[:cut] + rng.randbytes(rng.randrange(1, 64)) + data[cut:], f"garbage at byte {cut}"
    if how == "binary":
        return rng.randbytes(rng.randrange(1, 2000)), "binary"
    if how == "flip":
        flipped = bytearray(data)
        for _ in range(rng.randrange(1, 8)):
            if flipped:
                flipped[rng.randrange(len(flipped))] = rng.randrange(256)
        return bytes(flipped), "flipped bytes"
    if how == "empty":
        return b"", "empty"
    if how == "bom":
        return b"\xef\xbb\xbf" + data, "BOM"
    if how == "nul":
        return data[:cut] + b"\x00" + data[cut:], f"NUL at byte {cut}"
    if how == "crlf":
        return data.replace(b"\n", b"\r\n"), "CRLF"
    if how == "long line":
        filler = rng.choice(["9", "a", ","])
        return data[:cut] + (filler * 200_000).encode() + data[cut:], f"200 KB of {filler!r} at byte {cut}"
    if how == "bomb":
        return bomb(rng.choice([5, 9, 12])), "alias bomb"
    if how == "deep":
        depth = rng.choice([1000, 100_000])
        opener = rng.choice(["[", "{\"a\":", "- "])
        return opener * depth, f"{depth} x {opener!r}"
    return "".join(rng.choice(string.printable) for _ in range(rng.randrange(200))), "printable noise"


OPTION_VALUES = ("1000000000", "-1", "0", "nan", "inf", "-inf", "1e308", "1e400", "abc", "", "9" * 5000, "3.5",
                 "1,2,3", "1000000000,1", "1,1000000000", "-5,5", "0,0", "nan,nan", "1e308,1e308", "1e-300",
                 "4294967296", "100001", " ")
NEW_OPTIONS = ("--runs", "--seed", "--queue-map", "--target", "--objective", "--window", "--noise", "--slots", "--heartbeat", "--task-time-cv", "--delay", "--time-limit", "-k",
               "--limit", "--noise", "--slowstart", "--scheduler", "--solver", "--executor", "--strategy", "--set")


def mutate_option(argv: list[str], rng: random.Random) -> tuple[list[str], str]:
    """An option's value replaced, or an option (maybe one the command lacks) added."""
    value = rng.choice(OPTION_VALUES)
    positions = [i for i, arg in enumerate(argv[:-1]) if arg.startswith("-") and not argv[i + 1].startswith("-")]
    if positions and rng.random() < 0.5:
        position = rng.choice(positions) + 1
        if argv[position].startswith(HERE):
            return argv, "option kept"
        argv = [*argv[:position], value, *argv[position + 1:]]
        return argv, f"{argv[position - 1]} {short(value)}"
    option = rng.choice(NEW_OPTIONS)
    if option == "--set":
        value = f"{rng.choice(['block_size', 'map_rate', 'map_startup', 'bogus'])}={value}"
    return [*argv, option, value], f"added {option} {short(value)}"


# Hadoop's XML files: site files (<configuration><property><name/><value/>), fair-scheduler
# allocations (<allocations><queue name=...>) and capacity-scheduler.xml.
XML_VALUES = ("1e400", "-1", "nan", "inf", "", "abc", "9" * 5000, str(10**20), "0", "-0.5", "1,2", "true", "x" * 100_000,
              "1024 mb, 1 vcores", "-1024 mb, -1 vcores", "99999999999999999999 mb, 1 vcores")


def deep_allocation(depth: int) -> str:
    """A fair-scheduler allocation file whose queues nest ``depth`` deep."""
    return ("<?xml version=\"1.0\"?>\n<allocations>\n" + "<queue name=\"q\">" * depth + "<weight>1</weight>"
            + "</queue>" * depth + "\n</allocations>\n")


def deep_capacity(depth: int) -> str:
    """A capacity-scheduler.xml whose queue path nests ``depth`` deep (a property per level)."""
    prefix, parts = "yarn.scheduler.capacity.root", []
    for _ in range(depth):
        parts.append(f"<property><name>{prefix}.queues</name><value>q</value></property>"
                     f"<property><name>{prefix}.q.capacity</name><value>100</value></property>")
        prefix += ".q"
    return "<?xml version=\"1.0\"?>\n<configuration>\n" + "\n".join(parts) + "\n</configuration>\n"


def entity_attack(kind: str, canary: str) -> str:
    """XML that expands entities: billion laughs, XXE to a canary file, a parameter entity, XInclude."""
    if kind == "laughs":
        lines = ['<!ENTITY l0 "lol">'] + [f'<!ENTITY l{i} "{f"&l{i - 1};" * 10}">' for i in range(1, 10)]
        return (f'<?xml version="1.0"?>\n<!DOCTYPE allocations [{"".join(lines)}]>\n'
                '<allocations><queue name="&l9;"><weight>1</weight></queue></allocations>\n')
    if kind == "xxe":
        return (f'<?xml version="1.0"?>\n<!DOCTYPE configuration [<!ENTITY x SYSTEM "file://{canary}">]>\n'
                '<configuration><property><name>&x;</name><value>&x;</value></property></configuration>\n')
    if kind == "parameter":
        return (f'<?xml version="1.0"?>\n<!DOCTYPE configuration [<!ENTITY % p SYSTEM "file://{canary}">%p;]>\n'
                '<configuration/>\n')
    return ('<?xml version="1.0"?>\n<configuration xmlns:xi="http://www.w3.org/2001/XInclude">'
            f'<xi:include href="file://{canary}" parse="text"/></configuration>\n')


def mutate_xml(text: str, rng: random.Random) -> tuple[str, str]:
    """An element of a Hadoop XML file changed: its text, an attribute, deleted, renamed, repeated."""
    import xml.etree.ElementTree as ElementTree  # the harness's own copy; the product reads with defusedxml

    root = ElementTree.fromstring(text)
    elements = [(parent, child) for parent in root.iter() for child in parent]
    if not elements:
        return mutate_text(text, rng)
    parent, element = rng.choice(elements)
    how = rng.choice(["value", "value", "value", "attribute", "delete", "rename", "repeat", "empty"])
    where = element.tag if element.get("name") is None else f"{element.tag}[{element.get('name')}]"
    if how == "value":
        target = next((e for e in element.iter() if e.text and e.text.strip() and not len(e)), element)
        target.text = rng.choice(XML_VALUES)
        mutation = f"<{target.tag}> in {where} = {short(target.text)}"
    elif how == "attribute":
        element.set(rng.choice(["name", "type"]), rng.choice(["", "a.b", "x" * 300, "root", "*", "q q"]))
        mutation = f"attribute of {where}"
    elif how == "delete":
        parent.remove(element)
        mutation = f"deleted {where}"
    elif how == "rename":
        element.tag += "x"
        mutation = f"renamed {where}"
    elif how == "repeat":
        parent.append(element)
        mutation = f"repeated {where}"
    else:
        element.clear()
        mutation = f"emptied {where}"
    return '<?xml version="1.0"?>\n' + ElementTree.tostring(root, encoding="unicode") + "\n", mutation
