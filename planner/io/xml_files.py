"""Reading XML files safely: Hadoop's site and allocation files, Oozie's workflows.

`read_xml` streams the text to the parser so that deep nesting is refused as it is read, and
refuses document type declarations (entities are how XML files expand to gigabytes). A
malformed file is an `InvalidInput` naming the file and the line.
"""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree
from pathlib import Path

from models.errors import InvalidInput
from models.fileio import read_text
from models.limits import MAX_NESTING

#: Characters of XML handed to the parser at a time, so that deep nesting is refused early.
_XML_CHUNK = 1 << 16


def read_xml(path: str | Path) -> ElementTree.Element:
    """The root element of an XML file. Document type declarations are refused: Hadoop's and Oozie's
    files have none, and entities are how XML files expand to gigabytes. Elements nested more than
    `MAX_NESTING` deep are refused as they are read (Hadoop's files nest a few levels; the
    readers of queues walk the tree level by level)."""
    text = read_text(path)
    if "<!DOCTYPE" in text or "<!ENTITY" in text:
        raise InvalidInput("", "document type declarations and entities are not accepted", source=str(path))
    # Safe here: declarations (entities, external references) are refused above, and expat
    # >= 2.4.1 bounds amplification anyway; defusedxml would be one more dependency.
    parser: ElementTree.XMLPullParser[ElementTree.Element] = ElementTree.XMLPullParser(events=("start", "end"))
    root: ElementTree.Element | None = None
    depth = 0
    try:
        for start in range(0, len(text), _XML_CHUNK):
            parser.feed(text[start:start + _XML_CHUNK])
            for event, element in parser.read_events():
                if not isinstance(element, ElementTree.Element):  # namespace events, not asked for
                    continue
                depth += 1 if event == "start" else -1
                if depth > MAX_NESTING:
                    raise InvalidInput(element.tag[:60], f"elements nested more than {MAX_NESTING} levels deep",
                                       source=str(path))
                if root is None:
                    root = element
        parser.close()
    except ElementTree.ParseError as error:
        line, column = error.position
        raise InvalidInput(f"line {line}", f"malformed XML at column {column + 1}", source=str(path)) from None
    if root is None:  # close() raises on a document without an element; kept for the type checker
        raise InvalidInput("line 1", "malformed XML: no element", source=str(path))
    return root
