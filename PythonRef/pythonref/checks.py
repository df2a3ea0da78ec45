"""The one argument-checking layer.

Everything that arrives from outside as loose values goes through here: op arguments
(`handlers.handle`), session configurations, and request/response dicts are read with `Fields`;
configuration dataclasses check their own fields with `typed` and `one_of` in `__post_init__`.
Failures are `BadInput` (missing, unknown or mistyped) or `Unsupported` (a name not in a list).
"""

from __future__ import annotations

import dataclasses
from typing import Any, Iterable, Mapping, Optional, TypeVar

from .errors import bad_input, unsupported

T = TypeVar("T")

_KIND_NAMES = {bytes: "bytes", str: "a str", int: "an int", bool: "a bool", dict: "a dict", list: "a list"}


def typed(name: str, value: object, kind: type[T]) -> T:
    """`value` as a `kind`, or BadInput naming `name`. bytes also accepts a bytearray (and returns
    bytes); int refuses a bool, which Python counts as an int but a caller never means as one."""
    if kind is bytes and isinstance(value, bytearray):
        return bytes(value)  # type: ignore[return-value]
    if (kind is int and isinstance(value, bool)) or not isinstance(value, kind):
        raise bad_input(f"{name} must be {_KIND_NAMES.get(kind, kind.__name__)}, got {type(value).__name__}")
    return value


def str_dict(name: str, value: object, message: str) -> dict[str, str]:
    """`value` as a dict of str to str, or BadInput: `name` when it is not a dict, `message` when a
    key or value is not a str."""
    mapping = typed(name, value, dict)
    if not all(isinstance(k, str) and isinstance(v, str) for k, v in mapping.items()):
        raise bad_input(message)
    return mapping


def one_of(name: str, value: object, allowed: Iterable[str]) -> str:
    """A str from `allowed`: BadInput when not a str, Unsupported when not one of them."""
    allowed = tuple(allowed)
    text = typed(name, value, str)
    if text not in allowed:
        raise unsupported(name, text, allowed)
    return text


def check_field(config: object, name: str, kind: type, optional: bool = False) -> None:
    """In a frozen dataclass's `__post_init__`: field `name` must be a `kind` (None allowed when
    `optional`); a bytearray is stored as bytes."""
    value = getattr(config, name)
    if value is None and optional:
        return
    object.__setattr__(config, name, typed(name, value, kind))


class Fields:
    """A dict read by declared names only: an undeclared name is refused up front (so a caller's
    typo, say "add" for "aad", cannot be silently ignored), and None counts as absent (so Swift can
    pass nil for an optional)."""

    def __init__(self, raw: object, declared: Iterable[str], what: str = "argument") -> None:
        self._declared = tuple(declared)
        self._what = what
        self._raw: Mapping[Any, Any] = typed(what + "s", raw, dict)
        unknown = sorted(str(k) for k in self._raw if k not in self._declared)
        if unknown:
            raise bad_input(f"unknown {what}(s) {unknown}; allowed: {list(self._declared)}")

    def _get(self, name: str) -> object:
        if name not in self._declared:  # a bug in the reader, not the caller's fault: Internal
            raise LookupError(f"reads undeclared {self._what} {name!r}")
        return self._raw.get(name)

    def _label(self, name: str) -> str:
        return f"{self._what} {name!r}"

    def req(self, name: str, kind: type[T]) -> T:
        value = self._get(name)
        if value is None:
            raise bad_input(f"missing {self._label(name)}")
        return typed(self._label(name), value, kind)

    def opt(self, name: str, kind: type[T], default: Optional[T] = None) -> Optional[T]:
        value = self._get(name)
        return default if value is None else typed(self._label(name), value, kind)

    def choice(self, name: str, allowed: Iterable[str]) -> str:
        return one_of(self._label(name), self.req(name, str), allowed)

    def opt_choice(self, name: str, allowed: Iterable[str], default: str) -> str:
        """`choice` for an optional argument: absent (or None) means `default`."""
        return one_of(self._label(name), self.opt(name, str, default), allowed)

    def given(self) -> dict[str, Any]:
        """The declared fields that are present and not None, bytearrays as bytes."""
        return {k: (bytes(v) if isinstance(v, bytearray) else v) for k, v in self._raw.items() if v is not None}


def build(cls: type[T], raw: object, what: str) -> T:
    """A configuration dataclass from a dict: its field names only, None meaning the field's
    default, a missing required field BadInput. The dataclass checks its values itself."""
    declared = dataclasses.fields(cls)  # type: ignore[arg-type]
    given = Fields(raw, (f.name for f in declared), what).given()
    missing = [f.name for f in declared if f.name not in given
               and f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING]
    if missing:
        raise bad_input(f"missing {what}(s) {missing}")
    return cls(**given)
