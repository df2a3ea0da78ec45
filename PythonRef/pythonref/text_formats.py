"""The protocol's text formats read one strict way, with no crypto: base64 and JSON as both sides
must agree on them (the Swift side's StrictFormats module). Pure: no I/O.
"""

from __future__ import annotations

import base64
import json
import math
import re


def strict_b64decode(text: str | bytes) -> bytes:
    """Standard alphabet, padding required, nothing else allowed; raises ValueError."""
    if isinstance(text, str):
        text = text.encode("ascii")  # UnicodeEncodeError is a ValueError
    if len(text) % 4 or text.endswith(b"==="):  # b64decode alone takes superfluous padding ("YWJj=", "YWJj====")
        raise ValueError("base64 is not padded to a multiple of 4 with at most two '='")
    return base64.b64decode(text, validate=True)


MAX_JSON_DEPTH = 512  # the Swift side's limit (StrictFormats.StrictJSON.maxDepth, which took Foundation's parser's)


def _reject_constant(name: str) -> object:
    raise ValueError(f"{name} is not JSON")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text} is not a finite number")
    return value


def _finite_int(text: str) -> int:
    """An integer literal that binary64 can hold (RFC 8259 §6 lets a reader refuse the rest, and
    Foundation's parser, the app's, does: 10**309 is not JSON there). Python's int() itself refuses
    more than 4,300 digits (a ValueError too)."""
    value = int(text)
    try:
        float(value)
    except OverflowError:
        raise ValueError(f"an integer of {len(text.lstrip('-'))} digits is too large to be finite") from None
    return value


# The "unrolled loop" form: an alternation inside a repeat would keep a backtracking frame per
# character (≈ 150 MB for a 1 MiB body); this keeps one per escape.
_JSON_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.S)


def loads_strict(data: bytes) -> object:
    """JSON as RFC 8259 has it, read the way WireCrypto's StrictJSON + Foundation read it: UTF-8
    without a BOM, no NaN/Infinity (nor numbers too large to be finite), strings without lone
    surrogates and not starting with a raw U+FEFF (Foundation drops it), nested at most
    MAX_JSON_DEPTH deep. Raises ValueError for anything else. Validity is the whole text's: a
    member that a later duplicate name overrides must be valid too (docs/PROTOCOL.md), though only
    the last one counts."""
    text = data.decode("utf-8")
    if any(m.group().startswith('"\ufeff') for m in _JSON_STRING.finditer(text)):
        raise ValueError("a JSON string starts with a raw U+FEFF")
    overridden: dict[int, list[object]] = {}  # id(object) -> the values its duplicate names replaced

    def members(pairs: list[tuple[str, object]]) -> dict[str, object]:
        obj: dict[str, object] = {}
        for name, value in pairs:
            if name in obj:
                overridden.setdefault(id(obj), []).append(obj[name])
            obj[name] = value
        return obj

    try:
        doc = json.loads(
            text, parse_constant=_reject_constant, parse_float=_finite_float, parse_int=_finite_int, object_pairs_hook=members
        )
    except RecursionError:  # absurdly nested
        raise ValueError("JSON nested too deeply") from None
    stack: list[tuple[object, int]] = [(doc, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, str):
            value.encode("utf-8")  # a lone surrogate raises UnicodeEncodeError, a ValueError
        elif isinstance(value, (dict, list)):
            if depth > MAX_JSON_DEPTH:
                raise ValueError(f"JSON nested more than {MAX_JSON_DEPTH} deep")
            items = list(value.items()) if isinstance(value, dict) else [(None, v) for v in value]
            if isinstance(value, dict):
                items += [(None, v) for v in overridden.get(id(value), ())]
            for name, item in items:
                if name is not None:
                    name.encode("utf-8")
                stack.append((item, depth + 1))
    return doc
