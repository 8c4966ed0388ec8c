"""Reading Hadoop's own files: XML (site files, allocation files) and SLS's nodes file.

Only the reading: what the settings mean to the simulator is `conf` and
`allocations`. A malformed file is an `InvalidInput` naming the file and the
element (``capacity-scheduler.xml: property[3]: has no <name>``).
"""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass
from pathlib import Path

from models.checks import as_float, as_int
from models.errors import InvalidInput
from models.fileio import iter_json_objects
from planner.io.xml_files import read_xml as read_xml  # the safe reader, shared with the Oozie importer


def site_properties(root: ElementTree.Element, source: str) -> dict[str, tuple[str, str]]:
    """A site file's ``<property><name>N</name><value>V</value></property>`` entries: name ->
    (value, place). A name given twice is refused (Hadoop takes the last; a copy-paste slip)."""
    found: dict[str, tuple[str, str]] = {}
    for position, element in enumerate(root.findall("property")):
        where = f"property[{position}]"
        name = _text(element, "name")
        if not name:
            raise InvalidInput(where, "has no <name>", source=source)
        value = _text(element, "value")
        if value is None:
            raise InvalidInput(f"{where} ({name})", "has no <value>", source=source)
        if name in found:
            raise InvalidInput(f"{where} ({name})", f"given twice (also {found[name][1]})", source=source)
        found[name] = (value, f"{where} ({name})")
    return found


def number_text(text: str, where: str, source: str, *, whole: bool = False, maximum: float | None = None) -> float:
    """A finite number >= 0 written in a Hadoop file (``whole``: an integer, returned as an int);
    an error names the file and the place."""
    try:
        value = float(text)
    except ValueError:
        raise InvalidInput(where, f"must be a number, got {text!r}", source=source) from None
    try:
        number = as_float(value, where, minimum=0.0, maximum=maximum)
        if not whole:
            return number
        if number != int(number):
            raise InvalidInput(where, f"must be a whole number, got {text!r}")
        return as_int(int(number), where, minimum=0)
    except InvalidInput as error:
        raise InvalidInput(error.field, error.problem, source=source) from None


def _text(element: ElementTree.Element, tag: str) -> str | None:
    child = element.find(tag)
    if child is None:
        return None
    return (child.text or "").strip()


@dataclass(frozen=True)
class Topology:
    """Hosts and racks, as SLS's nodes file lists them (rack name -> host names, in file order)."""

    racks: dict[str, list[str]]

    @property
    def nodes(self) -> int:
        return sum(len(hosts) for hosts in self.racks.values())


def read_sls_nodes(path: str | Path) -> Topology:
    """SLS's nodes file: a stream of ``{"rack": NAME, "nodes": [{"node": HOST}, ...]}`` objects."""
    source = str(path)
    racks: dict[str, list[str]] = {}
    seen: dict[str, str] = {}
    for index, (line, value) in enumerate(iter_json_objects(path)):
        where = f"racks[{index}] (line {line})"
        if not isinstance(value, dict):
            raise InvalidInput(where, f"must be an object with rack and nodes, got {type(value).__name__}",
                               source=source)
        rack = value.get("rack")
        if not isinstance(rack, str) or not rack.strip():
            raise InvalidInput(f"{where}.rack", "must be a rack name", source=source)
        hosts = value.get("nodes")
        if not isinstance(hosts, list) or not hosts:
            raise InvalidInput(f"{where}.nodes", "must be a list of {\"node\": NAME} objects", source=source)
        names = racks.setdefault(rack, [])
        for position, host in enumerate(hosts):
            name = host.get("node") if isinstance(host, dict) else None
            place = f"{where}.nodes[{position}].node"
            if not isinstance(name, str) or not name.strip():
                raise InvalidInput(place, f"must be a host name, got {'nothing' if name is None else repr(name)}",
                                   source=source)
            if name in seen:
                raise InvalidInput(place, f"host {name!r} is listed twice (also {seen[name]})", source=source)
            seen[name] = place
            names.append(name)
    if not racks:
        raise InvalidInput("", "no racks in the file", source=source)
    return Topology(racks)
