"""Calling ops through `handlers.handle` as the Swift side does, checking every answer's shape:
`{"ok": value}` or `{"err": kind, "detail": text}`, and only boundary types in values."""

from __future__ import annotations

from typing import Any

from pythonref import handlers
from pythonref.errors import ErrorKind

ALLOWED_KINDS = {k.value for k in ErrorKind}


def check_boundary_value(value: object) -> None:
    """Only bytes, str, int, bool, None, list and str-keyed dict may cross to Swift."""
    if isinstance(value, (bytes, str, int, bool)) or value is None:
        return
    if isinstance(value, list):
        for item in value:
            check_boundary_value(item)
        return
    assert isinstance(value, dict), type(value)
    for k, v in value.items():
        assert isinstance(k, str)
        check_boundary_value(v)


def call(op: object, args: object) -> dict[str, Any]:
    result = handlers.handle(op, args)
    assert isinstance(result, dict)
    if "ok" in result:
        assert set(result) == {"ok"}
        check_boundary_value(result["ok"])
    else:
        assert set(result) == {"err", "detail"}
        assert result["err"] in ALLOWED_KINDS
        assert isinstance(result["detail"], str) and result["detail"]
    return result


def ok(op: str, args: dict[str, Any]) -> Any:
    result = call(op, args)
    assert "ok" in result, result
    return result["ok"]


def err(op: object, args: object) -> str:
    result = call(op, args)
    assert "err" in result, result
    return str(result["err"])
