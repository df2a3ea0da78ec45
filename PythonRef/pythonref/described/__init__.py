"""PythonRef's engine for protocol descriptions (docs/PROTOCOL-DESCRIPTIONS.md): `load` a TOML
description, then drive a `Party` per side; framing.py and server.py put parties on sockets."""

from .description import Description, DescriptionError, load, loads
from .party import Party
from .values import Refused

__all__ = ["Description", "DescriptionError", "Party", "Refused", "load", "loads"]
